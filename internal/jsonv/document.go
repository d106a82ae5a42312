package jsonv

import (
	"errors"
	"math"
	"strconv"
)

// Document is JSON text parsed into a flat index of its values, in the order
// they are written. The native scorer checks arguments against the index in
// place, without building the Value tree [Parse] builds, so scoring a call
// allocates nothing for its arguments; other scorers read [Document.Value].
// A Document is immutable once parsed.
//
// Documents hold what a [Call.ArgsDoc] needs: the text stays referenced, so a
// string without escapes is a substring of it, as with [Parse].
type Document struct {
	text string
	toks []DocToken
	// tree holds the Value of a document the index does not cover: an
	// object with an escaped or repeated key, or too many keys to check for
	// repeats. Such a document is read as a tree.
	tree *Value
	// deferred marks a document not parsed yet (see [DeferredDocument]):
	// toks and tree are nil.
	deferred bool
}

// ErrInvalidDocument is the error of a native scorer's result when a
// deferred document it had to read is not JSON. The caller that deferred
// the parse scores the calls again with their arguments decoded.
var ErrInvalidDocument = errors.New("deferred arguments are not JSON")

// DeferredDocument returns the document of s without parsing it. The
// native scorer checks the arguments on the text in one pass when the
// check is a plain comparison that passes, and indexes the text for the
// other checks; other readers get the tree [Parse] builds. Text that is
// not JSON is found when it is read: the native scorer then returns
// [ErrInvalidDocument], and [Document.Value] the undefined value.
func DeferredDocument(s string) Document { return Document{text: s, deferred: true} }

// DocToken is one value of a document, or one object key. An object's
// token is followed by its members, each a key token and then the value's
// tokens; an array's token by its elements' tokens.
type DocToken struct {
	// Start and end delimit the value's text; a string's includes its quotes.
	Start, End int32
	// Next is the index of the token after the value and its contents.
	Next  int32
	Kind  Kind
	flags uint8
}

// Inner returns a string token's text between its quotes, as written.
func (t *DocToken) Inner(text string) string { return text[t.Start+1 : t.End-1] }

// docToken flags.
const (
	tokEscaped uint8 = 1 << iota // a string written with escapes
	tokInt                       // a number without fraction or exponent
)

// DocumentParser parses documents whose indexes share one store, so the
// arguments of a run's calls take a few allocations between them. The zero
// DocumentParser is ready to use; it is not safe for concurrent use.
type DocumentParser struct {
	// store is the memory Reset reuses; free is the unused part of the
	// store documents are being indexed in: empty, with capacity.
	store, free []DocToken
}

// Grow makes room for at least tokens more index entries.
func (dp *DocumentParser) Grow(tokens int) {
	if cap(dp.free) < tokens {
		dp.store = make([]DocToken, 0, tokens)
		dp.free = dp.store
	}
}

// Reset makes the parser's store free again, for the next set of
// documents, which then take no allocation if Grow was told their size.
// The documents parsed before share that store: they must no longer be
// used.
func (dp *DocumentParser) Reset() { dp.free = dp.store[:0] }

// Trim is Reset, and lets go of the store when it has room for more than
// tokens entries: a parser kept between uses keeps no more memory than
// that after a huge document.
func (dp *DocumentParser) Trim(tokens int) {
	if cap(dp.store) > tokens {
		dp.store = nil
	}
	dp.Reset()
}

// keep records what is left of the store after a parse that used toks,
// which began as dp.free: when the parse outgrew the store, toks is a new
// store, which Reset reuses if it is the larger.
func (dp *DocumentParser) keep(toks []DocToken, used int) {
	if cap(toks) != cap(dp.free) && cap(toks) > cap(dp.store) {
		dp.store = toks[:0]
	}
	dp.free = toks[used:used]
}

// Parse parses s as [Parse] does: it accepts exactly the texts Parse
// accepts and returns the same errors for the others. The text is indexed
// in one pass (scanDocument); text that pass does not cover is read again
// by the checking parser.
func (dp *DocumentParser) Parse(s string) (Document, error) {
	if len(s) > math.MaxInt32 {
		v, err := Parse(s)
		return Document{text: s, tree: &v}, err
	}
	if len(s) > checkFirstBytes {
		// Malformed text would be indexed up to where it breaks, and
		// read again: check it first, without an index.
		p := parser{s: s}
		if err := p.checkDocument(SkipSpace(s, 0)); err != nil {
			return Document{}, err
		}
	}
	toks, ok := scanDocument(s, dp.free)
	if ok {
		n := len(toks)
		dp.keep(toks, n)
		return Document{text: s, toks: toks[:n:n]}, nil
	}
	p := docParser{parser: parser{s: s}, toks: toks[:0]}
	i, err := p.value(SkipSpace(s, 0), 0)
	if err == nil {
		if i = SkipSpace(s, i); i != len(s) {
			err = &SyntaxError{Offset: i, Msg: "unexpected text after value"}
		}
	}
	if err != nil || p.needTree {
		dp.keep(p.toks, 0)
		if err != nil {
			return Document{}, err
		}
		v, err := Parse(s)
		return Document{text: s, tree: &v}, err
	}
	n := len(p.toks)
	dp.keep(p.toks, n)
	return Document{text: s, toks: p.toks[:n:n]}, nil
}

// ParseArrayTail indexes s, a JSON array that opens at start and whose
// text before at is known to be the start of an array of at least one
// element followed by a comma (at is the index after that comma: the text
// of a document Parse read, its closing bracket replaced by a comma), as
// Parse would index s, but for the elements from at only: the array's
// token is followed by theirs. ok is false when s from at is not the rest
// of such an array in the form scanDocument covers (malformed text, an
// escaped or repeated key, deep nesting); the caller then parses s whole.
func (dp *DocumentParser) ParseArrayTail(s string, start, at int) (_ Document, ok bool) {
	if len(s) > math.MaxInt32 || start < 0 || start >= at || at > len(s) || s[start] != '[' || s[at-1] != ',' {
		return Document{}, false
	}
	toks, ok := scanArrayTail(s, dp.free, start, at)
	if !ok {
		dp.keep(toks, 0)
		return Document{}, false
	}
	n := len(toks)
	dp.keep(toks, n)
	return Document{text: s, toks: toks[:n:n]}, true
}

// checkFirstBytes is the size past which [DocumentParser.Parse] checks text
// before indexing it, so that malformed text costs no index: an index
// entry takes 16 bytes, for as little as two bytes of text. Below it the
// index of text found malformed takes a few hundred kilobytes at most.
const checkFirstBytes = 32 << 10

// docParser builds a document's index, checking the text as Parse does; it
// reuses the parser's string, number and literal readers.
type docParser struct {
	parser
	toks []DocToken
	// needTree is set on text the index does not cover (see Document.tree).
	needTree bool
}

func (p *docParser) value(i, depth int) (int, error) {
	if depth > MaxParseDepth {
		// Too deep to index: checked, and read as the tree Parse builds,
		// where it is unknown.
		p.needTree = true
		return p.check(i, depth)
	}
	s := p.s
	if i >= len(s) {
		return i, ErrTruncated
	}
	at := len(p.toks)
	p.toks = append(p.toks, DocToken{})
	var (
		tok  = DocToken{Start: int32(i), Next: int32(at + 1)}
		j    int
		flag bool
		err  error
	)
	switch c := s[i]; {
	case c == '"':
		j, flag, err = p.strEnd(i)
		tok.Kind = KindString
		if flag {
			tok.flags = tokEscaped
		}
	case c == '{':
		return p.object(i, at, depth)
	case c == '[':
		return p.array(i, at, depth)
	case c == '-' || (c >= '0' && c <= '9'):
		j, flag, err = p.numberEnd(i)
		tok.Kind = KindNumber
		if flag {
			tok.flags = tokInt
		}
	case c == 't':
		j, err = p.literalEnd(i, "true")
		tok.Kind = KindBool
	case c == 'f':
		j, err = p.literalEnd(i, "false")
		tok.Kind = KindBool
	case c == 'n':
		j, err = p.literalEnd(i, "null")
		tok.Kind = KindNull
	default:
		return i, p.errAt(i, "unexpected character "+strconv.QuoteRune(rune(s[i])))
	}
	if err != nil {
		return j, err
	}
	tok.End = int32(j)
	p.toks[at] = tok
	return j, nil
}

// array indexes the array whose '[' is at i; at is its token.
func (p *docParser) array(i, at, depth int) (int, error) {
	s := p.s
	start := i
	i = SkipSpace(s, i+1)
	if i < len(s) && s[i] == ']' {
		return p.close(at, start, i+1, nil)
	}
	for {
		var err error
		if i, err = p.value(SkipSpace(s, i), depth+1); err != nil {
			return i, err
		}
		done := false
		if i, done, err = p.separator(i, ']'); err != nil || done {
			return p.close(at, start, i, err)
		}
	}
}

// object indexes the object whose '{' is at i; at is its token.
func (p *docParser) object(i, at, depth int) (int, error) {
	s := p.s
	start := i
	i = SkipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return p.close(at, start, i+1, nil)
	}
	members := 0
	for {
		var err error
		if i, err = p.memberKey(i); err != nil {
			return i, err
		}
		j, escaped, err := p.strEnd(i)
		if err != nil {
			return j, err
		}
		if members++; escaped || members > dupScanLimit || p.repeated(at, s[i+1:j-1]) {
			p.needTree = true
		}
		p.toks = append(p.toks, DocToken{Start: int32(i), End: int32(j), Next: int32(len(p.toks) + 1), Kind: KindString})
		if i, err = p.colon(j); err != nil {
			return i, err
		}
		if i, err = p.value(i, depth+1); err != nil {
			return i, err
		}
		done := false
		if i, done, err = p.separator(i, '}'); err != nil || done {
			return p.close(at, start, i, err)
		}
	}
}

// close completes the container token at, which opened at start and ends
// before end; err is passed through.
func (p *docParser) close(at, start, end int, err error) (int, error) {
	if err != nil {
		return end, err
	}
	kind := KindArray
	if p.s[start] == '{' {
		kind = KindObject
	}
	p.toks[at] = DocToken{Start: int32(start), End: int32(end), Next: int32(len(p.toks)), Kind: kind}
	return end, nil
}

// repeated reports whether the object at token obj, still being indexed,
// already has a member named key (keys so far are unescaped).
func (p *docParser) repeated(obj int, key string) bool {
	for k := obj + 1; k < len(p.toks); k = int(p.toks[k+1].Next) {
		if p.toks[k].Inner(p.s) == key {
			return true
		}
	}
	return false
}

// Text returns the document's JSON text.
func (d *Document) Text() string { return d.text }

// Toks returns the document's index: one token per value and object key,
// in document order (nil for a deferred document or one read as a tree).
func (d *Document) Toks() []DocToken { return d.toks }

// Tree returns the tree of a document the index does not cover (an object
// with an escaped or repeated key, or too many keys to check for repeats),
// or nil.
func (d *Document) Tree() *Value { return d.tree }

// IsDeferred reports whether the document is text not parsed yet (see
// [DeferredDocument]).
func (d *Document) IsDeferred() bool { return d.deferred }

// Value returns the document as a Value tree, as [Parse] returns it.
func (d *Document) Value() Value {
	if d.deferred {
		v, _ := Parse(d.text)
		return v
	}
	if d.tree != nil {
		return *d.tree
	}
	if len(d.toks) == 0 {
		return Value{}
	}
	return d.ValueAt(0)
}

// Kind returns the document's JSON type (undefined for the zero Document).
func (d *Document) Kind() Kind {
	if d.deferred {
		v := d.Value()
		return v.Kind()
	}
	if d.tree != nil {
		return d.tree.kind
	}
	if len(d.toks) == 0 {
		return KindUndefined
	}
	return d.toks[0].Kind
}

// Len returns the number of members of an object document or elements of
// an array document; 0 for other documents.
func (d *Document) Len() int {
	if d.deferred {
		v := d.Value()
		return v.Len()
	}
	if d.tree != nil {
		return d.tree.Len()
	}
	if len(d.toks) == 0 {
		return 0
	}
	return d.count(0)
}

// count returns the number of members of the object, or elements of the
// array, at token i; 0 for a scalar.
func (d *Document) count(i int32) int {
	t := &d.toks[i]
	// An element is one value; a member is a key token, then a value.
	var step int32
	switch t.Kind {
	case KindObject:
		step = 1
	case KindArray:
		step = 0
	default:
		return 0
	}
	n := 0
	for k := i + 1; k < t.Next; k = d.toks[k+step].Next {
		n++
	}
	return n
}

// ValueAt returns the value at token i (undefined for i < 0): scalars are
// built directly, containers parsed from their text.
func (d *Document) ValueAt(i int32) Value {
	if i < 0 {
		return Value{}
	}
	t := &d.toks[i]
	switch t.Kind {
	case KindArray, KindObject:
		v, _ := Parse(d.text[t.Start:t.End])
		return v
	}
	return d.ScalarAt(i)
}

// ScalarAt returns the scalar value at token i.
func (d *Document) ScalarAt(i int32) Value {
	t := &d.toks[i]
	lit := d.text[t.Start:t.End]
	switch t.Kind {
	case KindString:
		if t.flags&tokEscaped == 0 {
			return Value{kind: KindString, str: t.Inner(d.text)}
		}
		p := parser{s: lit}
		str, _, _ := p.str(0)
		return Value{kind: KindString, str: str}
	case KindNumber:
		v, _ := numberValue(lit, t.flags&tokInt != 0)
		return v
	case KindBool:
		return Bool(lit[0] == 't')
	case KindNull:
		return Null()
	}
	return Value{}
}

// StringAt returns the string at token i (a string's token) as [Parse]
// decodes it: the text between its quotes, without a copy, when it is
// written without escapes.
func (d *Document) StringAt(i int32) string {
	t := &d.toks[i]
	if t.flags&tokEscaped == 0 {
		return t.Inner(d.text)
	}
	v := d.ScalarAt(i)
	return v.str
}

// Member returns the token of the value of the object at token obj's member
// named key, or -1. *cursor is the key token to try first (arguments
// usually come in the order they are expected in); it is moved past the
// member found.
func (d *Document) Member(obj int32, key string, cursor *int32) int32 {
	end := d.toks[obj].Next
	if c := *cursor; c > obj && c < end && d.keyIs(c, key) {
		*cursor = d.toks[c+1].Next
		return c + 1
	}
	for k := obj + 1; k < end; k = d.toks[k+1].Next {
		if d.keyIs(k, key) {
			*cursor = d.toks[k+1].Next
			return k + 1
		}
	}
	return -1
}

// keyIs reports whether key token k spells key.
func (d *Document) keyIs(k int32, key string) bool {
	return d.toks[k].Inner(d.text) == key
}

// ScalarEquals compares the value at token i with a literal of the same
// scalar kind (a string written without escapes, a number or a boolean);
// decided is false for any other pair, which the caller compares otherwise.
func (d *Document) ScalarEquals(i int32, lit *Value) (equal, decided bool) {
	return TokenEquals(d.text, &d.toks[i], lit)
}

// TokenEquals is [Document.scalarEquals] for token t of text.
func TokenEquals(text string, t *DocToken, lit *Value) (equal, decided bool) {
	if t.Kind != lit.kind {
		return false, false
	}
	switch t.Kind {
	case KindString:
		if t.flags&tokEscaped != 0 {
			return false, false
		}
		return t.Inner(text) == lit.str, true
	case KindNumber:
		num := text[t.Start:t.End]
		if lit.str != "" && num == lit.str {
			return true, true
		}
		v, _ := numberValue(num, t.flags&tokInt != 0)
		return NumbersEqual(&v, lit), true
	case KindBool:
		return (text[t.Start] == 't') == lit.b, true
	}
	return false, false
}

// Equal reports whether the value at token i equals lit by the typed deep
// equality of [Equal], comparing in place.
func (d *Document) Equal(i int32, lit *Value) bool {
	t := &d.toks[i]
	if t.Kind != lit.kind {
		return false
	}
	switch t.Kind {
	case KindArray:
		n := 0
		for k := i + 1; k < t.Next; k = d.toks[k].Next {
			if n >= len(lit.items) {
				return false
			}
			// Scalar elements, the common case, are compared here.
			eq, decided := d.ScalarEquals(k, &lit.items[n])
			if !decided {
				eq = d.Equal(k, &lit.items[n])
			}
			if !eq {
				return false
			}
			n++
		}
		return n == len(lit.items)
	case KindObject:
		if 2*d.count(i) != len(lit.items) {
			return false
		}
		cursor := i + 1
		for li := 0; li < len(lit.items); li += 2 {
			m := d.Member(i, lit.items[li].str, &cursor)
			if m < 0 || !d.Equal(m, &lit.items[li+1]) {
				return false
			}
		}
		return true
	}
	if eq, decided := d.ScalarEquals(i, lit); decided {
		return eq
	}
	v := d.ScalarAt(i)
	return EqualPtr(&v, lit)
}
