package toolcall

import (
	"math"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// evaluateText is [argSpec.evaluateDocument]'s one-pass path for a deferred
// document: it checks the arguments on the text as it reads it, without an
// index. It covers the common case, a JSON object whose expected members
// are literal scalars, nested objects and arrays of scalars, with every
// check passing. A member written exactly as expected, compactly or as
// Python's json.dumps writes it ("city":"Paris", "tags": ["a", "b"]), is
// decided by one comparison with a template built when the expectation was
// compiled (argField.text); other members are read token by token. On
// anything else it reports ok false and leaves t as it was, and the caller
// indexes the text:
//   - a check that fails (its report needs the value);
//   - a matcher, an array path, or coercion across kinds;
//   - an array under coercion not written as its template;
//   - an expected member missing, repeated or written with an escaped key;
//   - any extra member when the policy counts extras.
func (s *argSpec) evaluateText(text string, t *argTally) (score float64, ok bool) {
	checks, ok := s.passesText(text)
	if !ok {
		return 0, false
	}
	t.total += checks
	t.passed += checks
	return s.score(t), true
}

// passesText is evaluateText's check of the text: it reports whether the
// one-pass path decides the text (every check passing), and how many
// checks passed. Then, with no extra member counted, the score is 1.
func (s *argSpec) passesText(text string) (checks int, ok bool) {
	if s.root.kind != nodeObject {
		return 0, false
	}
	end, ok := s.objectText(s.root, text, jsonv.SkipSpace(text, 0), 0, &checks)
	if !ok || jsonv.SkipSpace(text, end) != len(text) {
		return 0, false
	}
	return checks, true
}

// maxTextFields is how many members an object node may check for
// objectText, which marks the members it has seen in a 64-bit set.
const maxTextFields = 64

// objectText checks the object written at i against object node n, adding
// its passed checks to *checks, and returns the index after the object.
func (s *argSpec) objectText(n *argNode, text string, i, depth int, checks *int) (end int, ok bool) {
	if !n.plainText || len(n.fields) > maxTextFields || depth >= jsonv.ScanDepth || i >= len(text) || text[i] != '{' {
		return i, false
	}
	var seen uint64
	i = jsonv.SkipSpace(text, i+1)
	if i < len(text) && text[i] == '}' {
		return i + 1, len(n.fields) == 0
	}
	next := 0 // the expected member to look for first
	for {
		if i >= len(text) || text[i] != '"' {
			return i, false
		}
		f, end := n.templateMember(text, i, next, seen)
		if end == 0 {
			var j int
			if f, j = n.keyText(text, i, next); j < 0 {
				return i, false // an escaped key
			}
			if i, ok = s.memberValue(n, f, text, j, depth, checks); !ok {
				return i, false
			}
		}
		if f >= 0 {
			if seen&(1<<f) != 0 {
				return i, false // repeated
			}
			seen |= 1 << f
			next = f + 1
		}
		if end > 0 {
			*checks++
			i = end
		}
		// A comma right after the member is the common case; separator
		// reads the rest (spaces, the closing brace).
		if i < len(text) && text[i] == ',' {
			if i++; i < len(text) && text[i] <= ' ' {
				i = jsonv.SkipSpace(text, i)
			}
			continue
		}
		done := false
		if i, done, ok = separator(text, i, '}'); !ok || done {
			// Every expected member must have been there.
			return i, ok && seen == 1<<len(n.fields)-1
		}
	}
}

// keyText reads the key written at i (text[i] is its opening quote) and
// returns the index of the field it names, or -1, and the index after its
// closing quote, or -1 for an escaped key. The key of field next, the one
// expected next, is tried first: keys are plain, so its bytes and a closing
// quote are that key and nothing else.
func (n *argNode) keyText(text string, i, next int) (f, end int) {
	if next < len(n.fields) {
		key := n.fields[next].key
		if j := i + 1 + len(key); j < len(text) && text[j] == '"' && text[i+1:j] == key {
			return next, j + 1
		}
	}
	j := jsonv.PlainRunEnd(text, i+1)
	if j >= len(text) || text[j] != '"' {
		return -1, -1
	}
	return n.fieldIndex(text[i+1 : j]), j + 1
}

// memberValue reads the colon after a member's key, which ends before i,
// and checks its value against field f of n (or, for f -1, skips it when
// the policy allows extras), returning the index after the value.
func (s *argSpec) memberValue(n *argNode, f int, text string, i, depth int, checks *int) (end int, ok bool) {
	if i = jsonv.SkipSpace(text, i); i >= len(text) || text[i] != ':' {
		return i, false
	}
	i = jsonv.SkipSpace(text, i+1)
	switch {
	case f >= 0:
		return s.valueText(n.fields[f].node, text, i, depth+1, checks)
	case s.extra == ExtraAllow:
		return jsonv.SkipValue(text, i)
	}
	return i, false
}

// memberTemplates writes argField.text for the member f checks.
func (b *specBuilder) memberTemplates(f *argField) {
	n := f.node
	if n.kind != nodeLiteral || !n.plainText || !isPlainString(f.key) || !exactJSON(&n.lit) {
		return
	}
	start := len(b.buf)
	b.buf = append(b.buf, '"')
	b.buf = append(b.buf, f.key...)
	b.buf = append(b.buf, `":`...)
	b.buf = n.lit.AppendJSON(b.buf)
	b.text(&f.text[0], start)
	start = len(b.buf)
	b.buf = append(b.buf, '"')
	b.buf = append(b.buf, f.key...)
	b.buf = append(b.buf, `": `...)
	if n.lit.Kind() == jsonv.KindArray {
		b.buf = append(b.buf, '[')
		for i := range n.lit.Items() {
			if i > 0 {
				b.buf = append(b.buf, ", "...)
			}
			b.buf = n.lit.Items()[i].AppendJSON(b.buf)
		}
		b.buf = append(b.buf, ']')
	} else {
		b.buf = n.lit.AppendJSON(b.buf)
	}
	b.text(&f.text[1], start)
}

// exactJSON reports whether v is a scalar or array of scalars whose JSON
// text matches exactly the values equal to v: not undefined, no number
// JSON cannot write (NaN, infinities), and no number of 2^53 or more,
// which numbersEqual may compare by its digits where the template, written
// from the float, would match a neighbour that rounds to it.
func exactJSON(v *jsonv.Value) bool {
	switch v.Kind() {
	case jsonv.KindString, jsonv.KindBool, jsonv.KindNull:
		return true
	case jsonv.KindNumber:
		return math.Abs(v.NumberValue()) < 1<<53
	case jsonv.KindArray:
		for i := range v.Items() {
			if k := v.Items()[i].Kind(); k == jsonv.KindArray || k == jsonv.KindObject || !exactJSON(&v.Items()[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// maxTemplateScan is how many fields templateMember tries.
const maxTemplateScan = 16

// templateMember finds the member written at i (text[i] is its key's
// opening quote) among the templates (argField.text) of the fields not
// seen yet, and returns the field and the index after the member, or an
// end of 0. Arguments usually come in the order they are expected in, so
// field next is tried first, then those after it, then those before; a
// template is compared only when its key starts with the text's first key
// byte.
func (n *argNode) templateMember(text string, i, next int, seen uint64) (f, end int) {
	if i+1 >= len(text) {
		return -1, 0
	}
	b := text[i+1]
	for k := 0; k < len(n.fields) && k < maxTemplateScan; k++ {
		f := next + k
		if f >= len(n.fields) {
			f -= len(n.fields)
		}
		fl := &n.fields[f]
		if t := fl.text[0]; t == "" || t[1] != b || seen&(1<<f) != 0 {
			continue
		}
		if end := fl.compactText(text, i); end > 0 {
			return f, end
		}
		if end := fl.spacedText(text, i); end > 0 {
			return f, end
		}
	}
	return -1, 0
}

// compactText returns the index after field f's member written at i
// compactly, or 0.
func (f *argField) compactText(text string, i int) int {
	return templateEnd(text, i, f.text[0])
}

// spacedText returns the index after field f's member written at i as
// Python writes it, with a space after the key's colon, or 0.
func (f *argField) spacedText(text string, i int) int {
	if k := i + len(f.key) + 3; k >= len(text) || text[k] != ' ' {
		return 0
	}
	return templateEnd(text, i, f.text[1])
}

// templateEnd returns the index after template t written at i, or 0 when
// t is empty or not written there. A member is always followed by a comma
// or a brace, and a number must end where its template does: "days":1 is
// not the member "days":10.
func templateEnd(text string, i int, t string) int {
	if end := i + len(t); t != "" && end < len(text) && text[i:end] == t && !numberByte[text[end]] {
		return end
	}
	return 0
}

// valueText checks the value written at i against node c, adding its
// passed checks to *checks, and returns the index after the value.
func (s *argSpec) valueText(c *argNode, text string, i, depth int, checks *int) (end int, ok bool) {
	switch {
	case c.kind == nodeObject:
		return s.objectText(c, text, i, depth, checks)
	case c.kind != nodeLiteral || !c.plainText || i >= len(text):
		return i, false
	case c.lit.Kind() == jsonv.KindArray:
		if s.coerce {
			return i, false
		}
		end, ok = arrayText(&c.lit, text, i)
	default:
		end, ok = scalarText(&c.lit, text, i)
	}
	if ok {
		*checks++
	}
	return end, ok
}

// arrayText reports whether the array written at i equals lit, a plain
// array of scalars (isPlainLiteral), and returns the index after it.
func arrayText(lit *jsonv.Value, text string, i int) (end int, ok bool) {
	if text[i] != '[' {
		return i, false
	}
	i = jsonv.SkipSpace(text, i+1)
	if i < len(text) && text[i] == ']' {
		return i + 1, len(lit.Items()) == 0
	}
	for n := 0; ; n++ {
		if n >= len(lit.Items()) || i >= len(text) {
			return i, false
		}
		if i, ok = scalarText(&lit.Items()[n], text, i); !ok {
			return i, false
		}
		done := false
		if i, done, ok = separator(text, i, ']'); !ok || done {
			return i, ok && n+1 == len(lit.Items())
		}
	}
}

// separator reads what follows a member or element that ends before i: a
// comma, after which the next one starts at next, or closing (done), after
// which next is. ok is false for anything else.
func separator(text string, i int, closing byte) (next int, done, ok bool) {
	if i = jsonv.SkipSpace(text, i); i >= len(text) {
		return i, false, false
	}
	switch text[i] {
	case ',':
		return jsonv.SkipSpace(text, i+1), false, true
	case closing:
		return i + 1, true, true
	}
	return i, false, false
}

// numberByte marks the bytes that can continue a JSON number.
var numberByte = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true, '.': true, 'e': true, 'E': true, '+': true, '-': true}

// scalarText reports whether the scalar written at i (i < len(text))
// equals lit, a plain scalar (isPlainLiteral), and returns the index after
// it. A literal that is only a prefix of other text ("true" in "truex")
// returns ok with an end the caller then finds no separator at, so the
// check is left to the index.
func scalarText(lit *jsonv.Value, text string, i int) (end int, ok bool) {
	switch lit.Kind() {
	case jsonv.KindString:
		// A plain string is its bytes between quotes.
		j := i + 1 + len(lit.Literal())
		if text[i] == '"' && j < len(text) && text[j] == '"' && text[i+1:j] == lit.Literal() {
			return j + 1, true
		}
		return i, false
	case jsonv.KindBool:
		if lit.BoolValue() {
			return literalText(text, i, "true")
		}
		return literalText(text, i, "false")
	case jsonv.KindNull:
		return literalText(text, i, "null")
	case jsonv.KindNumber:
		if n := len(lit.Literal()); n > 0 && i+n <= len(text) && text[i:i+n] == lit.Literal() && (i+n == len(text) || !numberByte[text[i+n]]) {
			return i + n, true
		}
		// Written another way (3.0 for 3): compared as numbers.
		tok := jsonv.DocToken{Start: int32(i)}
		if !jsonv.ScalarToken(text, i, &tok) {
			return i, false
		}
		equal, decided := jsonv.TokenEquals(text, &tok, lit)
		return int(tok.End), equal && decided
	}
	return i, false
}

// literalText reports whether the text at i starts with word, and returns
// the index after it.
func literalText(text string, i int, word string) (end int, ok bool) {
	if len(text)-i >= len(word) && text[i:i+len(word)] == word {
		return i + len(word), true
	}
	return i, false
}
