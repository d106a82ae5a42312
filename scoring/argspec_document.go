package scoring

// evaluateDocument is [argSpec.evaluate] for arguments held as a Document:
// the same checks, tallies and mismatch reports, read in place. Values are
// built only for scalars (on the stack) and for what a report or a check
// other than equality needs a tree for.
func (s *argSpec) evaluateDocument(d *Document, t *argTally) float64 {
	if s.root == nil {
		return 1
	}
	if d.deferred {
		if score, ok := s.evaluateText(d.text, t); ok {
			return score
		}
		indexed, err := t.index(d.text)
		if err != nil {
			t.invalid = true
			return 0
		}
		d = &indexed
	}
	if d.tree != nil || len(d.toks) == 0 {
		v := d.Value()
		return s.evaluate(&v, t)
	}
	s.evalDocument(s.root, d, 0, t)
	return s.score(t)
}

// evalDocument is [argSpec.eval] on the value at token i of d (i < 0: the
// value is absent).
func (s *argSpec) evalDocument(n *argNode, d *Document, i int32, t *argTally) {
	kind := KindUndefined
	if i >= 0 {
		kind = d.toks[i].kind
	}
	switch {
	case kind == KindObject && n.kind == nodeObject:
		s.evalDocumentObject(n, d, i, t)
	case (kind == KindArray || kind == KindObject) && n.kind == nodeLiteral && !s.coerce:
		// A literal array (or an object inside one) against a container:
		// typed deep equality, compared in place.
		t.total++
		if d.equal(i, &n.lit) {
			t.passed++
		} else if t.record {
			v := d.valueAt(i)
			t.miss(n, &v, mismatchValue)
		}
	case kind == KindArray || kind == KindObject:
		// Array paths, matchers on containers and coercion read a tree.
		v := d.valueAt(i)
		s.eval(n, &v, t)
	default:
		var v Value
		if i >= 0 {
			v = d.scalarAt(i)
		}
		s.eval(n, &v, t)
	}
}

// evalDocumentObject is the object case of [argSpec.eval]: each expected
// member, then the key-set policy.
func (s *argSpec) evalDocumentObject(n *argNode, d *Document, i int32, t *argTally) {
	cursor := i + 1
	for f := range n.fields {
		c := n.fields[f].node
		m := d.member(i, n.fields[f].key, &cursor)
		// Scalar literal leaves, the common case, are compared on the text.
		// Two scalars of the same kind compare the same with or without
		// coercion, so the verdict is final here.
		if m >= 0 && c.kind == nodeLiteral {
			if ok, decided := d.scalarEquals(m, &c.lit); decided {
				t.total++
				if ok {
					t.passed++
				} else if t.record {
					v := d.scalarAt(m)
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
	for k := i + 1; k < d.toks[i].next; k = d.toks[k+1].next {
		if key := d.toks[k].inner(d.text); !n.hasField(key) {
			t.extras++
			if t.record {
				t.mismatches = append(t.mismatches, ArgMismatch{Path: joinKey(n.path, key), Got: d.valueAt(k + 1), kind: mismatchExtra})
			}
		}
	}
}

// index indexes deferred document text with the tally's parser, whose
// store the index reuses until the next call, or with a parser of its own.
func (t *argTally) index(text string) (Document, error) {
	if t.parser == nil {
		return new(DocumentParser).Parse(text)
	}
	t.parser.Reset()
	return t.parser.Parse(text)
}
