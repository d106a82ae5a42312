package toolcall

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// nodeKind is the kind of an argument check node.
type nodeKind uint8

const (
	// nodeLiteral compares the value with a literal by typed deep equality.
	nodeLiteral nodeKind = iota
	// nodeMatcher tests the value with a matcher.
	nodeMatcher
	// nodeObject checks named members and the key set.
	nodeObject
	// nodeArray checks elements by position (and optionally every element).
	nodeArray
)

// argNode is one node of a compiled argument specification. Leaves (literals
// and matchers) are the argument checks that partial credit counts.
type argNode struct {
	kind   nodeKind
	path   string
	lit    jsonv.Value
	m      Matcher
	fields []argField
	elems  []*argNode
	// fixedLen makes an array node require exactly len(elems) elements.
	fixedLen bool
	// each applies to every element of an array node ([*] paths).
	each *argNode
	// checks counts the leaf checks under the node.
	checks int
	// want describes what the node expects, for mismatch reports.
	want string
	// plainText, for the one-pass check on text (evaluateText): every key
	// of an object node, every string of a literal, is written in JSON as
	// its bytes between quotes (no quote, backslash or control character),
	// and a literal holds no object.
	plainText bool
}

// hasField reports whether an object node checks the member named key.
func (n *argNode) hasField(key string) bool { return n.fieldIndex(key) >= 0 }

// fieldIndex returns the index of the object node's check of the member
// named key, or -1.
func (n *argNode) fieldIndex(key string) int {
	for i := range n.fields {
		if n.fields[i].key == key {
			return i
		}
	}
	return -1
}

type argField struct {
	key  string
	node *argNode
	// text holds, when node is a literal evaluateText can compare as text,
	// the member as it is most often written: compactly ("city":"Paris",
	// "tags":["a","b"]) and as Python's json.dumps writes it ("city":
	// "Paris", "tags": ["a", "b"]). Both are empty otherwise.
	text [2]string
}

// argSpec is the compiled argument specification of one expected call.
type argSpec struct {
	root   *argNode // nil: arguments are not checked
	extra  ExtraPolicy
	credit CreditMode
	coerce bool
	// literal, for a literal-only specification, holds its checks as
	// steps, which evaluate runs first (see passesAll); no steps
	// otherwise.
	literal literalCheck
}

// compileArgs builds the check tree from literal arguments and path
// matchers. Its literal nodes and texts come from b; the texts are set when
// b finishes.
func compileArgs(b *specBuilder, lit jsonv.Value, matchers []PathMatcher) (*argNode, error) {
	var root *argNode
	if lit.Kind() != jsonv.KindUndefined {
		start := len(b.buf)
		b.buf = append(b.buf, '$')
		root = b.literal(&lit, start, len(b.buf))
	}
	for _, pm := range matchers {
		p, err := jsonv.ParsePath(pm.Path)
		if err != nil {
			return nil, err
		}
		if pm.Matcher == nil {
			return nil, fmt.Errorf("match[%q]: matcher is missing", pm.Path)
		}
		root, err = b.placeMatcher(root, "$", p.Segs, pm.Matcher)
		if err != nil {
			return nil, fmt.Errorf("match[%q]: %w", pm.Path, err)
		}
	}
	if root != nil {
		b.countChecks(root)
	}
	return root, nil
}

// specBuilder builds the argument specifications of one expectation. It
// takes literal nodes and object fields from slabs sized in advance, and
// writes the texts nodes report (paths, wants, member templates) into one
// buffer that finish turns into one string, of which the texts are
// substrings: compiling allocates per expectation, not per node.
type specBuilder struct {
	nodes  []argNode
	fields []argField
	buf    []byte
	texts  []pendingText
}

// pendingText is a text written to specBuilder.buf, to be set to *dst.
type pendingText struct {
	dst        *string
	start, end int
}

// newSpecBuilder returns a builder whose slabs hold the literal nodes of
// calls' arguments.
func newSpecBuilder(calls []ExpectedCall) *specBuilder {
	nodes, fields := 0, 0
	for i := range calls {
		n, f := literalSize(&calls[i].Args)
		nodes += n
		fields += f
	}
	b := builderPool.Get().(*specBuilder)
	b.nodes = make([]argNode, 0, nodes)
	b.fields = make([]argField, 0, fields)
	b.texts = slices.Grow(b.texts[:0], 2*(nodes+fields))
	b.buf = slices.Grow(b.buf[:0], textBytesPerEntry*(nodes+fields))
	return b
}

// builderPool keeps specBuilders for their pending texts and text buffer,
// which only live while an expectation compiles (the nodes and fields are
// the specification's own and are made afresh): they are about a quarter
// of what compiling allocates.
var builderPool = sync.Pool{New: func() any { return new(specBuilder) }}

// A pooled builder keeps at most maxPooledSpecText bytes of text buffer and
// maxPooledPending pending texts (24 bytes each).
const (
	maxPooledSpecText = 64 << 10
	maxPooledPending  = 2048
)

// textBytesPerEntry sizes specBuilder.buf: about what the texts of one
// literal node (its path and want) or one member (its two templates) take,
// with room to spare, so the buffer is allocated once rather than grown
// by doubling; arguments with longer texts still grow it.
const textBytesPerEntry = 24

// literalSize counts the nodes and object fields literal makes of v.
func literalSize(v *jsonv.Value) (nodes, fields int) {
	nodes = 1
	if v.Kind() != jsonv.KindObject {
		return nodes, 0
	}
	fields = len(v.Items()) / 2
	for i := 1; i < len(v.Items()); i += 2 {
		n, f := literalSize(&v.Items()[i])
		nodes += n
		fields += f
	}
	return nodes, fields
}

// node returns a new node from the slab (or the heap once it is used up).
func (b *specBuilder) node() *argNode {
	if len(b.nodes) < cap(b.nodes) {
		b.nodes = b.nodes[:len(b.nodes)+1]
		return &b.nodes[len(b.nodes)-1]
	}
	return new(argNode)
}

// fieldList returns an empty list with room for n fields.
func (b *specBuilder) fieldList(n int) []argField {
	if k := len(b.fields); cap(b.fields)-k >= n {
		b.fields = b.fields[:k+n]
		return b.fields[k : k : k+n]
	}
	return make([]argField, 0, n)
}

// text sets *dst, when b finishes, to what was written to b.buf from start.
func (b *specBuilder) text(dst *string, start int) {
	b.texts = append(b.texts, pendingText{dst: dst, start: start, end: len(b.buf)})
}

// finish sets every text written and puts b back in the pool: b is not
// used after it.
func (b *specBuilder) finish() {
	all := string(b.buf)
	for _, t := range b.texts {
		*t.dst = all[t.start:t.end]
	}
	// The pending texts point into the nodes: cleared so that the pool
	// does not keep a specification alive.
	clear(b.texts)
	b.nodes, b.fields = nil, nil
	if cap(b.buf) > maxPooledSpecText || cap(b.texts) > maxPooledPending {
		return
	}
	b.texts, b.buf = b.texts[:0], b.buf[:0]
	builderPool.Put(b)
}

// literal turns a literal into nodes: objects become object nodes (so the
// key-set policy applies at every level), everything else one literal
// leaf. The node's path is b.buf[ps:pe].
func (b *specBuilder) literal(v *jsonv.Value, ps, pe int) *argNode {
	n := b.node()
	b.texts = append(b.texts, pendingText{dst: &n.path, start: ps, end: pe})
	if v.Kind() != jsonv.KindObject {
		n.kind, n.lit = nodeLiteral, *v
		return n
	}
	n.kind = nodeObject
	n.fields = b.fieldList(len(v.Items()) / 2)
	root := pe-ps == 1 && b.buf[ps] == '$'
	for i := 0; i < len(v.Items()); i += 2 {
		key := v.Items()[i].Literal()
		start := len(b.buf)
		if !root {
			b.buf = append(b.buf, b.buf[ps:pe]...)
		}
		b.buf = jsonv.AppendKeySegment(b.buf, root, key)
		n.fields = append(n.fields, argField{key: key, node: b.literal(&v.Items()[i+1], start, len(b.buf))})
	}
	return n
}

// literalAt is literal for a node whose path is given as a string.
func (b *specBuilder) literalAt(path string, v *jsonv.Value) *argNode {
	start := len(b.buf)
	b.buf = append(b.buf, path...)
	return b.literal(v, start, len(b.buf))
}

func (b *specBuilder) placeMatcher(n *argNode, path string, segs []jsonv.Segment, m Matcher) (*argNode, error) {
	if len(segs) == 0 {
		return &argNode{kind: nodeMatcher, path: path, m: m}, nil
	}
	seg := segs[0]
	switch {
	case seg.Wildcard:
		if n == nil {
			n = &argNode{kind: nodeArray, path: path}
		}
		if n.kind == nodeLiteral && n.lit.Kind() == jsonv.KindArray {
			return nil, fmt.Errorf("[*] cannot refine the literal array at %s; use a matcher for the whole array", path)
		}
		if n.kind != nodeArray {
			return nil, fmt.Errorf("[*] needs an array at %s, but args give %s", path, describeNode(n))
		}
		each, err := b.placeMatcher(n.each, path+"[*]", segs[1:], m)
		if err != nil {
			return nil, err
		}
		n.each = each
		return n, nil
	case seg.IsIndex:
		if n == nil {
			n = &argNode{kind: nodeArray, path: path}
		}
		if n.kind == nodeLiteral && n.lit.Kind() == jsonv.KindArray {
			arr := &argNode{kind: nodeArray, path: path, fixedLen: true}
			for i := range n.lit.Items() {
				arr.elems = append(arr.elems, b.literalAt(jsonv.JoinIndex(path, i), &n.lit.Items()[i]))
			}
			n = arr
		}
		if n.kind != nodeArray {
			return nil, fmt.Errorf("index [%d] needs an array at %s, but args give %s", seg.Index, path, describeNode(n))
		}
		if n.fixedLen && seg.Index >= len(n.elems) {
			return nil, fmt.Errorf("index [%d] is past the end of the literal array at %s (length %d)", seg.Index, path, len(n.elems))
		}
		for len(n.elems) <= seg.Index {
			n.elems = append(n.elems, nil)
		}
		child, err := b.placeMatcher(n.elems[seg.Index], jsonv.JoinIndex(path, seg.Index), segs[1:], m)
		if err != nil {
			return nil, err
		}
		n.elems[seg.Index] = child
		return n, nil
	}
	if n == nil {
		n = &argNode{kind: nodeObject, path: path}
	}
	if n.kind != nodeObject {
		return nil, fmt.Errorf("key %q needs an object at %s, but args give %s", seg.Key, path, describeNode(n))
	}
	childPath := jsonv.JoinKey(path, seg.Key)
	for i := range n.fields {
		if n.fields[i].key == seg.Key {
			child, err := b.placeMatcher(n.fields[i].node, childPath, segs[1:], m)
			if err != nil {
				return nil, err
			}
			n.fields[i].node = child
			return n, nil
		}
	}
	child, err := b.placeMatcher(nil, childPath, segs[1:], m)
	if err != nil {
		return nil, err
	}
	n.fields = append(n.fields, argField{key: seg.Key, node: child})
	return n, nil
}

func describeNode(n *argNode) string {
	switch n.kind {
	case nodeLiteral:
		return "a literal " + n.lit.Kind().String()
	case nodeMatcher:
		return "a matcher"
	case nodeArray:
		return "an array"
	}
	return "an object"
}

// countChecks counts the leaf checks under n and sets what each node
// reports: its want and, for object members, their text templates.
func (b *specBuilder) countChecks(n *argNode) int {
	switch n.kind {
	case nodeLiteral:
		start := len(b.buf)
		b.buf = n.lit.AppendJSON(b.buf)
		if len(b.buf)-start > maxWantLen {
			// truncateText, in place.
			cut := start + maxWantLen
			for cut > start && (b.buf[cut]&0xC0) == 0x80 {
				cut--
			}
			b.buf = append(b.buf[:cut], "…"...)
		}
		b.text(&n.want, start)
	case nodeMatcher:
		n.want = n.m.String()
	case nodeObject:
		n.want = "an object"
	case nodeArray:
		n.want = "an array"
	}
	switch n.kind {
	case nodeObject:
		n.checks = 0
		n.plainText = true
		for i := range n.fields {
			f := &n.fields[i]
			n.checks += b.countChecks(f.node)
			n.plainText = n.plainText && isPlainString(f.key)
			b.memberTemplates(f)
		}
	case nodeArray:
		n.checks = 0
		for _, e := range n.elems {
			if e != nil {
				n.checks += b.countChecks(e)
			}
		}
		if n.each != nil {
			n.checks += b.countChecks(n.each)
		}
		if n.fixedLen || n.checks == 0 {
			// The length (or, with no element checks, being an array at all)
			// is itself one check.
			n.checks++
		}
	default:
		n.checks = 1
		n.plainText = n.kind == nodeLiteral && isPlainLiteral(&n.lit)
	}
	return n.checks
}

// maxWantLen is how much of a literal's JSON a mismatch report quotes.
const maxWantLen = 60

// isPlainLiteral reports whether v is a scalar or an array of scalars whose
// strings are plain (isPlainString).
func isPlainLiteral(v *jsonv.Value) bool {
	switch v.Kind() {
	case jsonv.KindString:
		return isPlainString(v.Literal())
	case jsonv.KindArray:
		for i := range v.Items() {
			if k := v.Items()[i].Kind(); k == jsonv.KindArray || k == jsonv.KindObject || !isPlainLiteral(&v.Items()[i]) {
				return false
			}
		}
		return true
	case jsonv.KindObject:
		return false
	}
	return true
}

// isPlainString reports whether s is written in JSON as its own bytes
// between quotes.
func isPlainString(s string) bool { return jsonv.PlainRunEnd(s, 0) == len(s) }

// mismatchKind says which kind of argument check failed.
type mismatchKind uint8

const (
	mismatchValue mismatchKind = iota
	mismatchExtra
	mismatchLength
	// mismatchUnknown is a check on a value the parse left unknown (see
	// Value.IsUnknown): not evaluated, neither passed nor failed.
	mismatchUnknown
)

// ArgMismatch is one argument check that failed. Its text is built only when
// asked for, so scoring does not pay for reports nobody reads.
type ArgMismatch struct {
	// Path is where in the arguments the check applies ("city", "filter.age").
	Path string
	// Want describes what was expected.
	Want string
	// Got is what was found (undefined when the argument was absent; the
	// element count for a length check).
	Got jsonv.Value
	// Element is the 1-based array element a [*] check failed on, else 0.
	Element int
	kind    mismatchKind
}

// Unevaluable reports a check that was not evaluated: the value it applies
// to is unknown (nested deeper than the parser reads), so it is neither
// passed nor failed.
func (m ArgMismatch) Unevaluable() bool { return m.kind == mismatchUnknown }

// Reason says what was expected and what was found.
func (m ArgMismatch) Reason() string { return string(m.appendReason(nil)) }

// appendReason appends Reason's text to b.
func (m ArgMismatch) appendReason(b []byte) []byte {
	switch m.kind {
	case mismatchUnknown:
		b = append(b, "not evaluable: the value is nested deeper than "...)
		b = strconv.AppendInt(b, jsonv.MaxParseDepth, 10)
		b = append(b, " levels"...)
	case mismatchExtra:
		b = append(b, "unexpected argument"...)
	case mismatchLength:
		b = append(b, "expected "...)
		b = append(b, m.Want...)
		b = append(b, ", got "...)
		b = append(b, jsonv.FormatJSNumber(m.Got.NumberValue())...)
	default:
		b = append(b, "expected "...)
		b = append(b, m.Want...)
		b = append(b, ", got "...)
		switch {
		case m.Got.Kind() == jsonv.KindUndefined:
			b = append(b, "nothing (argument absent)"...)
		case m.Got.Kind() == jsonv.KindString && len(m.Got.Literal()) <= 58 && !needsEscape(m.Got.Literal()):
			// Short plain strings, the usual wrong value, are written as
			// they are quoted, with no intermediate encoding.
			b = append(b, '"')
			b = append(b, m.Got.Literal()...)
			b = append(b, '"')
		default:
			b = append(b, TruncateText(m.Got.JSON(), 60)...)
		}
	}
	if m.Element > 0 {
		b = append(b, " (element "...)
		b = strconv.AppendInt(b, int64(m.Element-1), 10)
		b = append(b, ')')
	}
	return b
}

// needsEscape reports whether appendJSONString would escape a byte of s.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return true
		}
	}
	return false
}

// argTally accumulates the outcome of evaluating an argument specification.
type argTally struct {
	passed, total int
	extras        int
	// record turns on mismatch collection (the second, reporting pass).
	record     bool
	mismatches []ArgMismatch
	// parser, when set, indexes deferred documents the one-pass check
	// does not cover; its store is reused from evaluation to evaluation.
	parser *jsonv.DocumentParser
	// invalid reports a deferred document that is not JSON.
	invalid bool
}

func (t *argTally) miss(n *argNode, got *jsonv.Value, kind mismatchKind) {
	if t.record {
		t.recordMismatch(n, got, kind)
	}
}

// recordMismatch appends a mismatch at n to the tally's (got nil: no value
// read). It is not inlined: eval, which records them, recurses once per
// nesting level of the arguments, and a mismatch built in its frame would
// make every level's frame larger.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (t *argTally) recordMismatch(n *argNode, got *jsonv.Value, kind mismatchKind) {
	m := ArgMismatch{Path: n.path, Want: n.want, kind: kind}
	if got != nil {
		m.Got = *got
	}
	t.mismatches = append(t.mismatches, m)
}

// evaluate scores actual arguments against the specification and returns the
// call's argument score in [0, 1].
func (s *argSpec) evaluate(actual *jsonv.Value, t *argTally) float64 {
	if s.root == nil {
		return 1
	}
	if s.literal.steps != nil && s.passesAll(actual) {
		// What eval would find, without walking the arguments again.
		t.total += s.root.checks
		t.passed += s.root.checks
		return s.score(t)
	}
	s.eval(s.root, actual, t)
	return s.score(t)
}

// score turns an evaluation's tally into the call's argument score.
func (s *argSpec) score(t *argTally) float64 {
	total := t.total
	if t.extras > 0 {
		switch s.extra {
		case ExtraPenalize:
			total += t.extras
		case ExtraFail:
			return 0
		}
	}
	if total == 0 {
		return 1
	}
	if s.credit == CreditAllOrNothing {
		if t.passed == total {
			return 1
		}
		return 0
	}
	return float64(t.passed) / float64(total)
}

// UndefinedValue is the absent value eval receives for a missing member.
var UndefinedValue jsonv.Value

func (s *argSpec) eval(n *argNode, v *jsonv.Value, t *argTally) {
	if v.IsUnknown() || ((n.kind == nodeLiteral || n.kind == nodeMatcher) && (v.Partial() || n.lit.Unread())) {
		// The value, or part of what a leaf check reads, was not parsed
		// (nested too deep): the checks are not evaluated.
		if t.record {
			t.recordMismatch(n, nil, mismatchUnknown)
		}
		return
	}
	switch n.kind {
	case nodeLiteral:
		t.total++
		var ok bool
		switch {
		case v.Kind() == jsonv.KindString && n.lit.Kind() == jsonv.KindString:
			ok = v.Literal() == n.lit.Literal()
		case v.Kind() == jsonv.KindNumber && n.lit.Kind() == jsonv.KindNumber:
			ok = jsonv.NumbersEqual(v, &n.lit)
		case !s.coerce:
			ok = jsonv.EqualPtr(v, &n.lit)
		default:
			ok = v.Kind() != jsonv.KindUndefined && equalValuesPtr(v, &n.lit, true)
		}
		if ok {
			t.passed++
			return
		}
		t.miss(n, v, mismatchValue)
	case nodeMatcher:
		t.total++
		if n.m.Match(*v) {
			t.passed++
			return
		}
		t.miss(n, v, mismatchValue)
	case nodeObject:
		if v.Kind() != jsonv.KindObject {
			t.total += n.checks
			t.miss(n, v, mismatchValue)
			return
		}
		for i := range n.fields {
			f := &n.fields[i]
			// Arguments usually come in the order they are expected in.
			child := v.MemberNear(2*i, f.key)
			if child == nil {
				child = &UndefinedValue
			}
			// Scalar literal leaves, the common case, are compared inline.
			// Two scalars of the same kind compare the same with or without
			// coercion, so the verdict is final here.
			if c := f.node; c.kind == nodeLiteral && child.Kind() == c.lit.Kind() && c.lit.Kind() >= jsonv.KindBool && c.lit.Kind() <= jsonv.KindString {
				var ok bool
				switch c.lit.Kind() {
				case jsonv.KindString:
					ok = child.Literal() == c.lit.Literal()
				case jsonv.KindNumber:
					// Below 2^53, numbersEqual compares the values alone.
					ok = child.NumberValue() == c.lit.NumberValue() && (math.Abs(c.lit.NumberValue()) < 1<<53 || jsonv.NumbersEqual(child, &c.lit))
				default:
					ok = child.BoolValue() == c.lit.BoolValue()
				}
				t.total++
				if ok {
					t.passed++
				} else {
					t.miss(c, child, mismatchValue)
				}
				continue
			}
			s.eval(f.node, child, t)
		}
		if s.extra != ExtraAllow {
			s.countExtras(n, v, t)
		}
	case nodeArray:
		if v.Kind() != jsonv.KindArray {
			t.total += n.checks
			t.miss(n, v, mismatchValue)
			return
		}
		if n.fixedLen || (len(n.elems) == 0 && n.each == nil) {
			t.total++
			if !n.fixedLen || len(v.Items()) == len(n.elems) {
				t.passed++
			} else if t.record {
				t.recordLength(n, len(v.Items()))
			}
		}
		for i, e := range n.elems {
			if e == nil {
				continue
			}
			if i < len(v.Items()) {
				s.eval(e, &v.Items()[i], t)
			} else {
				s.eval(e, &UndefinedValue, t)
			}
		}
		if n.each != nil {
			s.evalEach(n.each, v, t)
		}
	}
}

// recordLength records that an array of fixed length n has got elements.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (t *argTally) recordLength(n *argNode, got int) {
	t.mismatches = append(t.mismatches, ArgMismatch{Path: n.path, Want: strconv.Itoa(len(n.elems)) + " elements", Got: jsonv.Int(int64(got)), kind: mismatchLength})
}

// evalEach applies a [*] check to every element; it counts as the checks of
// one element and passes only if every element passes.
func (s *argSpec) evalEach(n *argNode, v *jsonv.Value, t *argTally) {
	worst := argTally{}
	for i := range v.Items() {
		var one argTally
		s.eval(n, &v.Items()[i], &one)
		if one.total-one.passed > worst.total-worst.passed || worst.total == 0 {
			worst = one
		}
	}
	if len(v.Items()) == 0 {
		t.total += n.checks
		t.passed += n.checks
		return
	}
	t.total += worst.total
	t.passed += worst.passed
	if t.record && worst.passed < worst.total {
		for i := range v.Items() {
			one := argTally{record: true}
			s.eval(n, &v.Items()[i], &one)
			if one.passed < one.total {
				for _, mm := range one.mismatches {
					mm.Element = i + 1
					t.mismatches = append(t.mismatches, mm)
				}
				break
			}
		}
	}
}

func (s *argSpec) countExtras(n *argNode, v *jsonv.Value, t *argTally) {
	for i := 0; i < len(v.Items()); i += 2 {
		key := v.Items()[i].Literal()
		if !n.hasField(key) {
			t.extras++
			if t.record {
				t.mismatches = append(t.mismatches, ArgMismatch{Path: jsonv.JoinKey(n.path, key), Got: v.Items()[i+1], kind: mismatchExtra})
			}
		}
	}
}
