package toolcall

import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"

// evaluateDocument is [argSpec.evaluate] for arguments held as a Document:
// the same checks, tallies and mismatch reports, read in place. Values are
// built only for scalars (on the stack) and for what a report or a check
// other than equality needs a tree for.
func (s *argSpec) evaluateDocument(d *jsonv.Document, t *argTally) float64 {
	if s.root == nil {
		return 1
	}
	if d.IsDeferred() {
		if score, ok := s.evaluateText(d.Text(), t); ok {
			return score
		}
		indexed, err := t.index(d.Text())
		if err != nil {
			t.invalid = true
			return 0
		}
		d = &indexed
	}
	if d.Tree() != nil || len(d.Toks()) == 0 {
		v := d.Value()
		return s.evaluate(&v, t)
	}
	s.evalDocument(s.root, d, 0, t)
	return s.score(t)
}

// evalDocument is [argSpec.eval] on the value at token i of d (i < 0: the
// value is absent).
func (s *argSpec) evalDocument(n *argNode, d *jsonv.Document, i int32, t *argTally) {
	kind := jsonv.KindUndefined
	if i >= 0 {
		kind = d.Toks()[i].Kind
	}
	switch {
	case kind == jsonv.KindObject && n.kind == nodeObject:
		s.evalDocumentObject(n, d, i, t)
	case (kind == jsonv.KindArray || kind == jsonv.KindObject) && n.kind == nodeLiteral && !s.coerce:
		// A literal array (or an object inside one) against a container:
		// typed deep equality, compared in place.
		t.total++
		if d.Equal(i, &n.lit) {
			t.passed++
		} else if t.record {
			v := d.ValueAt(i)
			t.miss(n, &v, mismatchValue)
		}
	case kind == jsonv.KindArray || kind == jsonv.KindObject:
		// Array paths, matchers on containers and coercion read a tree.
		v := d.ValueAt(i)
		s.eval(n, &v, t)
	default:
		var v jsonv.Value
		if i >= 0 {
			v = d.ScalarAt(i)
		}
		s.eval(n, &v, t)
	}
}

// evalDocumentObject is the object case of [argSpec.eval]: each expected
// member, then the key-set policy.
func (s *argSpec) evalDocumentObject(n *argNode, d *jsonv.Document, i int32, t *argTally) {
	cursor := i + 1
	for f := range n.fields {
		c := n.fields[f].node
		m := d.Member(i, n.fields[f].key, &cursor)
		// Scalar literal leaves, the common case, are compared on the text.
		// Two scalars of the same kind compare the same with or without
		// coercion, so the verdict is final here.
		if m >= 0 && c.kind == nodeLiteral {
			if ok, decided := d.ScalarEquals(m, &c.lit); decided {
				t.total++
				if ok {
					t.passed++
				} else if t.record {
					v := d.ScalarAt(m)
					t.miss(c, &v, mismatchValue)
				}
				continue
			}
		}
		s.evalDocument(c, d, m, t)
	}
	if s.extra == ExtraAllow {
		return
	}
	for k := i + 1; k < d.Toks()[i].Next; k = d.Toks()[k+1].Next {
		if key := d.Toks()[k].Inner(d.Text()); !n.hasField(key) {
			t.extras++
			if t.record {
				t.mismatches = append(t.mismatches, ArgMismatch{Path: jsonv.JoinKey(n.path, key), Got: d.ValueAt(k + 1), kind: mismatchExtra})
			}
		}
	}
}

// index indexes deferred document text with the tally's parser, whose
// store the index reuses until the next call, or with a parser of its own.
func (t *argTally) index(text string) (jsonv.Document, error) {
	if t.parser == nil {
		return new(jsonv.DocumentParser).Parse(text)
	}
	t.parser.Reset()
	return t.parser.Parse(text)
}
