package peers

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// MongoDBName is the registered name of the MongoDB profile, which
// reproduces mongodb-mcp-server's calculateToolCallingAccuracy. Its
// algorithm, quirks and expectation mapping are documented on the mongodb
// type in mongodb.go.
const MongoDBName = "mongodb"

func init() { toolcall.Register(MongoDBName, newMongoDB) }

// mongodb reproduces the accuracy scorer of mongodb-mcp-server
// (packages/accuracy-tests/src/sdk/accuracyScorer.ts,
// calculateToolCallingAccuracy, with the Matcher classes of matcher.ts), at
// git 36a405e3. It takes no options.
//
// Algorithm:
//
//	no expected calls: 1 when no calls were made, else 0.75
//	score = 0.75 if more actual calls than expected calls (raw counts, optional expectations included), else 1
//	for each expected call in configured order (greedy, no global assignment):
//	    candidates = unused actual calls with the same name (case-sensitive) whose arguments score >= 0.75
//	    best = highest score, ties to the earliest call; it is used up and score = min(score, its score)
//	    no candidate: skipped if the call is optional, else the result is 0
//
// Arguments are scored by MongoDB's ValueMatcher (1 or 0 with the shipped
// matchers, so the result is always 0, 0.75 or 1):
//
//   - Scalars compare with JavaScript ===: 5 is not "5"; 1 equals 1.0.
//   - An expected null or undefined accepts an actual null or an absent
//     argument (and only those).
//   - Objects: the actual value must be an object or an ARRAY (arrays are
//     objects, whose keys are "0".."n-1" and which have a readable length);
//     it may not have MORE KEYS than expected (a key COUNT test, not a key-set
//     test), and every expected key must match the actual member (absent
//     members read as undefined). Key order never matters. Nested objects
//     recurse with the same rules.
//   - Arrays: the actual value must be an array with no more elements than
//     expected; missing trailing elements read as undefined, so they pass
//     only where the expectation accepts undefined (null, absent, any).
//   - A member whose literal value is undefined (possible in a Value built in
//     code) still counts as an expected key.
//
// Quirks reproduced (each has a test case):
//
//   - Greedy pairing in configured order: expected [find{q:any}, find{q:1}]
//     vs actual [find{q:1}, find{q:2}] scores 0, the swapped expectation 1.
//   - The 0.75 cap compares raw list lengths: expected [a, b(optional)] vs
//     actual [a, c] scores 1 (the extra c hides behind the unmet optional b).
//   - An extra argument scores 0 (the doc comment's 0.75 for additional
//     parameters is unreachable), but an extra key hides behind an expected
//     key that accepts absence: {x:1, y:absent} vs {x:1, z:2} scores 1.
//   - {} expected matches [] actual; {"0":1} matches [1].
//   - Expected nothing, calls made: 0.75 (not 0).
//
// Expectation mapping: each expected call's literal Args become MongoDB's
// expected parameters (literal parts keep the ValueMatcher rules above) and
// each path matcher is placed into that tree at its path, replacing the
// literal there ("pipeline[1]" extends a literal array of one element). A
// matcher at "$" replaces the whole parameters. Our Matcher gives the 1/0. A
// call with neither Args nor matchers accepts any parameters (MongoDB's
// Matcher.anyValue), since a configuration that names a tool only means
// that; a MongoDB test case whose expected parameters are undefined
// compiles to Matcher.value(undefined), which accepts only null or absent
// parameters: give it as MongoDBValue(Undefined()) at "$". Optional maps to optional. A "[*]" path (our extension:
// MongoDB has no wildcard) requires every actual element to match and lifts
// the no-extra-elements rule for that array. Order, policies and Type are
// ignored (MongoDB is order-insensitive and has no types); must_succeed,
// forbidden and available tools are rejected. Only tool-call steps are
// scored; nested children are flattened depth-first.
//
// Actual calls whose arguments are unknown make the result an error when an
// expected call with the same name checks arguments.
//
// Reference vs source notes (the notes, from the real code, win): they
// agree on the algorithm; the notes add that optional is any truthy value
// (our Optional is a bool) and that caseInsensitiveString uses
// toLocaleLowerCase (full case mapping: final sigma, dotted I), which the
// profile follows for a case_insensitive matcher placed in the parameters
// (MongoDBCaseInsensitive); one nested inside not or any_of keeps our
// matcher's Unicode simple folding, so exotic strings can differ there.
//
// Details: none (MongoDB returns a bare number). The breakdown lists the
// greedy pairs, missing and skipped optional calls, and unpaired calls.
type mongodb struct {
	exp       toolcall.Expectation
	trees     []*mongoNode // nil: any parameters
	threshold float64
}

var _ toolcall.Scorer = (*mongodb)(nil)

func newMongoDB(s toolcall.Settings) (toolcall.Scorer, error) {
	r := toolcall.NewOptionReader(MongoDBName, s.Options)
	if err := r.Err(); err != nil {
		return nil, err
	}
	if err := CheckPeerExpectation(MongoDBName, s.Expectation, PeerFeatures{matchers: true, optional: true}); err != nil {
		return nil, err
	}
	m := &mongodb{exp: s.Expectation, threshold: s.Threshold}
	m.trees = make([]*mongoNode, len(s.Expectation.Calls))
	var errs []error
	for i, c := range s.Expectation.Calls {
		t, err := compileMongoTree(c.Args, c.Matchers)
		if err != nil {
			errs = append(errs, fmt.Errorf("mongodb: calls[%d] (%s): %w", i, c.Name, err))
			continue
		}
		m.trees[i] = t
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *mongodb) Name() string { return MongoDBName }

// Score implements Scorer.
func (m *mongodb) Score(_ context.Context, calls []toolcall.Call) (res toolcall.Result) {
	m.ScoreInto(calls, nil, &res)
	return res
}

// ScoreInto is Score writing its result to res (see ScoreInto).
func (m *mongodb) ScoreInto(calls []toolcall.Call, _ *toolcall.RunContext, res *toolcall.Result) {
	calls = toolcall.WithArguments(calls)
	tools := FlattenToolCalls(calls)
	exp := m.exp.Calls
	if len(tools) > toolcall.MaxCalls {
		toolcall.SetError(res, MongoDBName, m.threshold, fmt.Errorf("mongodb: %d calls exceed the maximum of %d per trajectory", len(tools), toolcall.MaxCalls))
		return
	}
	for j := range tools {
		if !tools[j].ArgsUnknown {
			continue
		}
		for i := range exp {
			if exp[i].Name == tools[j].Name && m.trees[i] != nil {
				toolcall.SetError(res, MongoDBName, m.threshold, argsUnavailable(MongoDBName, &tools[j], j))
				return
			}
		}
	}
	*res = toolcall.Result{Scorer: MongoDBName, Threshold: m.threshold}
	b := &res.Breakdown
	b.OrderScore = 1
	if len(exp) == 0 {
		res.Score = 1
		if len(tools) > 0 {
			res.Score = 0.75
			b.Unexpected = seq(len(tools))
		}
		res.Decide()
		res.Explanation = m.explain(res, tools, "")
		return
	}
	score := 1.0
	if len(tools) > len(exp) {
		score = 0.75
	}
	var usedBuf [64]bool
	used := usedBuf[:0]
	if len(tools) <= len(usedBuf) {
		used = usedBuf[:len(tools)]
	} else {
		used = make([]bool, len(tools))
	}
	failed := ""
	for i := range exp {
		e := &exp[i]
		best, bestScore := -1, 0.0
		for j := range tools {
			if used[j] || tools[j].Name != e.Name {
				continue
			}
			s := 1.0
			if m.trees[i] != nil {
				s = m.trees[i].match(&tools[j].Args)
			}
			if s >= 0.75 && (best < 0 || s > bestScore) {
				best, bestScore = j, s
			}
		}
		switch {
		case best >= 0:
			used[best] = true
			if b.Pairs == nil {
				b.Pairs = make([]toolcall.Pair, 0, len(exp)-i)
			}
			b.Pairs = append(b.Pairs, toolcall.Pair{Expected: int32(i), Actual: int32(best), Score: bestScore})
			if bestScore < score {
				score = bestScore
			}
		case e.Optional:
			b.SkippedOptional = append(b.SkippedOptional, i)
		default:
			b.Missing = append(b.Missing, i)
			failed = e.Name
		}
		if failed != "" {
			score = 0
			break
		}
	}
	if unused := len(tools) - len(b.Pairs); unused > 0 {
		b.Unexpected = make([]int, 0, unused)
		for j := range tools {
			if !used[j] {
				b.Unexpected = append(b.Unexpected, j)
			}
		}
	}
	res.Score = score
	b.OrderScore = toolcall.OrderScore(b.Pairs)
	res.Decide()
	res.Explanation = m.explain(res, tools, failed)
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// explain writes the result's explanation into a stack buffer, so the
// string is its only allocation.
func (m *mongodb) explain(res *toolcall.Result, tools []toolcall.Call, failed string) string {
	var buf [128]byte
	t := toolcall.AppendScore(buf[:0], res.Score)
	t = append(t, ": "...)
	switch {
	case len(m.exp.Calls) == 0 && len(tools) == 0:
		t = append(t, "no calls expected and none made"...)
		return string(t)
	case len(m.exp.Calls) == 0:
		t = append(t, "no calls expected but "...)
		t = strconv.AppendInt(t, int64(len(tools)), 10)
		t = append(t, " made (capped at 0.75)"...)
		return string(t)
	case failed != "":
		t = append(t, "no call to "...)
		t = append(t, failed...)
		t = append(t, " with matching parameters"...)
		return string(t)
	}
	t = strconv.AppendInt(t, int64(len(res.Breakdown.Pairs)), 10)
	t = append(t, " of "...)
	t = strconv.AppendInt(t, int64(len(m.exp.Calls)), 10)
	t = append(t, " expected calls matched"...)
	if n := len(res.Breakdown.SkippedOptional); n > 0 {
		t = append(t, " ("...)
		t = strconv.AppendInt(t, int64(n), 10)
		t = append(t, " optional not made)"...)
	}
	if len(tools) > len(m.exp.Calls) {
		t = append(t, "; more calls made than expected (capped at 0.75)"...)
	}
	return string(t)
}

// mongoKind is the kind of a node of MongoDB's expected-parameters tree.
type mongoKind uint8

const (
	mongoNullish mongoKind = iota // expected null or undefined
	mongoScalar                   // string, number or boolean: ===
	mongoArray
	mongoObject
	mongoMatcher
)

// mongoNode is one node of the expected parameters: a literal part with
// ValueMatcher semantics, or a matcher.
type mongoNode struct {
	kind   mongoKind
	lit    jsonv.Value
	m      toolcall.Matcher
	elems  []*mongoNode // nil entries are holes (undefined)
	each   *mongoNode   // [*] extension
	keys   []string
	fields []*mongoNode
}

// compileMongoTree builds the expected parameters from a literal and path
// matchers. It returns nil when nothing is checked.
func compileMongoTree(lit jsonv.Value, matchers []toolcall.PathMatcher) (*mongoNode, error) {
	if lit.Kind() == jsonv.KindUndefined && len(matchers) == 0 {
		return nil, nil
	}
	var root *mongoNode
	if lit.Kind() != jsonv.KindUndefined {
		root = newMongoSlab(&lit).literal(&lit)
	}
	for _, pm := range matchers {
		if pm.Matcher == nil {
			return nil, fmt.Errorf("match[%q]: matcher is missing", pm.Path)
		}
		p, err := jsonv.ParsePath(pm.Path)
		if err != nil {
			return nil, err
		}
		root, err = mongoPlace(root, "$", p.Segs, pm.Matcher)
		if err != nil {
			return nil, fmt.Errorf("match[%q]: %w", pm.Path, err)
		}
	}
	return root, nil
}

// MongoDBValue returns a matcher with MongoDB's Matcher.value semantics:
// lit (with ValueMatcher's rules for literals: === scalars, null accepting
// absence, key-count objects, arrays without extra elements) refined by
// matchers at paths. It lets MongoDB-style expectations nest a value matcher
// inside any_of or not.
func MongoDBValue(lit jsonv.Value, matchers ...toolcall.PathMatcher) (toolcall.Matcher, error) {
	t, err := compileMongoTree(lit, matchers)
	if err != nil {
		return nil, err
	}
	if t == nil {
		t = &mongoNode{kind: mongoNullish}
	}
	return mongoValueMatcher{t: t, desc: lit.JSON()}, nil
}

// MongoDBCaseInsensitive returns MongoDB's Matcher.caseInsensitiveString:
// a string whose toLocaleLowerCase equals want's. Lower-casing is the full
// Unicode mapping JavaScript uses (a final capital sigma becomes ς, İ
// becomes i and a combining dot), which is not case folding: "µ" (micro)
// does not equal "μ", nor "ſ" "s". The mongodb profile turns a
// case_insensitive matcher placed in its parameters into this one.
func MongoDBCaseInsensitive(want string) toolcall.Matcher {
	return mongoCaseInsensitive{want: want, lower: jsLowerCase(want)}
}

type mongoCaseInsensitive struct{ want, lower string }

func (m mongoCaseInsensitive) Match(v jsonv.Value) bool {
	return v.Kind() == jsonv.KindString && jsLowerCase(v.Literal()) == m.lower
}

func (m mongoCaseInsensitive) String() string {
	return "case-insensitive (toLocaleLowerCase) " + strconv.Quote(m.want)
}

// jsLowerCase is JavaScript's String.prototype.toLowerCase (and
// toLocaleLowerCase outside Turkish and Lithuanian locales): full Unicode
// lower-case mapping with the final-sigma rule.
func jsLowerCase(s string) string {
	return cases.Lower(language.Und).String(s)
}

type mongoValueMatcher struct {
	t    *mongoNode
	desc string
}

func (m mongoValueMatcher) Match(v jsonv.Value) bool { return m.t.match(&v) == 1 }
func (m mongoValueMatcher) String() string {
	return "MongoDB value " + toolcall.TruncateText(m.desc, 80)
}

// mongoSlab allocates a literal's nodes, and their element, key and field
// lists, from slices sized for it in advance: three allocations per tree
// rather than one or more per value.
type mongoSlab struct {
	nodes []mongoNode
	ptrs  []*mongoNode // elems and fields
	keys  []string
}

// newMongoSlab returns a slab with room for literal's nodes.
func newMongoSlab(v *jsonv.Value) *mongoSlab {
	nodes, ptrs, keys := mongoLiteralSize(v)
	return &mongoSlab{
		nodes: make([]mongoNode, 0, nodes),
		ptrs:  make([]*mongoNode, 0, ptrs),
		keys:  make([]string, 0, keys),
	}
}

// mongoLiteralSize counts the nodes, list entries and keys literal makes of v.
func mongoLiteralSize(v *jsonv.Value) (nodes, ptrs, keys int) {
	nodes = 1
	switch v.Kind() {
	case jsonv.KindArray:
		ptrs = len(v.Items())
		for i := range v.Items() {
			n, p, k := mongoLiteralSize(&v.Items()[i])
			nodes, ptrs, keys = nodes+n, ptrs+p, keys+k
		}
	case jsonv.KindObject:
		ptrs, keys = len(v.Items())/2, len(v.Items())/2
		for i := 1; i < len(v.Items()); i += 2 {
			n, p, k := mongoLiteralSize(&v.Items()[i])
			nodes, ptrs, keys = nodes+n, ptrs+p, keys+k
		}
	}
	return nodes, ptrs, keys
}

// node returns a new node from the slab (or the heap once it is used up).
func (s *mongoSlab) node(kind mongoKind) *mongoNode {
	if len(s.nodes) == cap(s.nodes) {
		return &mongoNode{kind: kind}
	}
	s.nodes = s.nodes[:len(s.nodes)+1]
	n := &s.nodes[len(s.nodes)-1]
	n.kind = kind
	return n
}

// ptrList returns a list of n nodes from the slab, capped at n.
func (s *mongoSlab) ptrList(n int) []*mongoNode {
	k := len(s.ptrs)
	if cap(s.ptrs)-k < n {
		return make([]*mongoNode, n)
	}
	s.ptrs = s.ptrs[:k+n]
	return s.ptrs[k : k+n : k+n]
}

// keyList returns a list of n keys from the slab, capped at n.
func (s *mongoSlab) keyList(n int) []string {
	k := len(s.keys)
	if cap(s.keys)-k < n {
		return make([]string, n)
	}
	s.keys = s.keys[:k+n]
	return s.keys[k : k+n : k+n]
}

// literal turns a literal into MongoDB's expected-parameters nodes.
func (s *mongoSlab) literal(v *jsonv.Value) *mongoNode {
	switch v.Kind() {
	case jsonv.KindUndefined, jsonv.KindNull:
		return s.node(mongoNullish)
	case jsonv.KindArray:
		n := s.node(mongoArray)
		n.elems = s.ptrList(len(v.Items()))
		for i := range v.Items() {
			n.elems[i] = s.literal(&v.Items()[i])
		}
		return n
	case jsonv.KindObject:
		n := s.node(mongoObject)
		if len(v.Items()) > 0 {
			n.keys = s.keyList(len(v.Items()) / 2)
			n.fields = s.ptrList(len(v.Items()) / 2)
		}
		for i := 0; i < len(v.Items()); i += 2 {
			n.keys[i/2] = v.Items()[i].Literal()
			n.fields[i/2] = s.literal(&v.Items()[i+1])
		}
		return n
	}
	n := s.node(mongoScalar)
	n.lit = *v
	return n
}

func mongoPlace(n *mongoNode, path string, segs []jsonv.Segment, m toolcall.Matcher) (*mongoNode, error) {
	if len(segs) == 0 {
		if ci, ok := m.(toolcall.CaseInsensitiveMatcher); ok {
			// MongoDB's caseInsensitiveString compares toLocaleLowerCase.
			m = MongoDBCaseInsensitive(ci.Want)
		}
		return &mongoNode{kind: mongoMatcher, m: m}, nil
	}
	seg := segs[0]
	switch {
	case seg.Wildcard || seg.IsIndex:
		if n == nil {
			n = &mongoNode{kind: mongoArray}
		}
		if n.kind != mongoArray {
			return nil, fmt.Errorf("%s needs an array at %s", jsonv.SegmentString(false, seg), path)
		}
		if seg.Wildcard {
			each, err := mongoPlace(n.each, path+"[*]", segs[1:], m)
			if err != nil {
				return nil, err
			}
			n.each = each
			return n, nil
		}
		for len(n.elems) <= seg.Index {
			n.elems = append(n.elems, nil)
		}
		child, err := mongoPlace(n.elems[seg.Index], jsonv.JoinIndex(path, seg.Index), segs[1:], m)
		if err != nil {
			return nil, err
		}
		n.elems[seg.Index] = child
		return n, nil
	}
	if n == nil {
		n = &mongoNode{kind: mongoObject}
	}
	if n.kind != mongoObject {
		return nil, fmt.Errorf("key %q needs an object at %s", seg.Key, path)
	}
	for i, k := range n.keys {
		if k == seg.Key {
			child, err := mongoPlace(n.fields[i], jsonv.JoinKey(path, k), segs[1:], m)
			if err != nil {
				return nil, err
			}
			n.fields[i] = child
			return n, nil
		}
	}
	child, err := mongoPlace(nil, jsonv.JoinKey(path, seg.Key), segs[1:], m)
	if err != nil {
		return nil, err
	}
	n.keys = append(n.keys, seg.Key)
	n.fields = append(n.fields, child)
	return n, nil
}

var undefinedNode = &mongoNode{kind: mongoNullish}

// match is ValueMatcher.match: 1 or 0.
func (n *mongoNode) match(a *jsonv.Value) float64 {
	if n == nil {
		n = undefinedNode
	}
	switch n.kind {
	case mongoMatcher:
		if n.m.Match(*a) {
			return 1
		}
		return 0
	case mongoNullish:
		if a.Kind() <= jsonv.KindNull {
			return 1
		}
		return 0
	case mongoScalar:
		if jsStrictEqual(&n.lit, a) {
			return 1
		}
		return 0
	case mongoArray:
		if a.Kind() != jsonv.KindArray {
			return 0
		}
		if n.each == nil && len(a.Items()) > len(n.elems) {
			return 0
		}
		for i, e := range n.elems {
			el := &toolcall.UndefinedValue
			if i < len(a.Items()) {
				el = &a.Items()[i]
			}
			if e.match(el) == 0 {
				return 0
			}
		}
		if n.each != nil {
			for i := range a.Items() {
				if n.each.match(&a.Items()[i]) == 0 {
					return 0
				}
			}
		}
		return 1
	case mongoObject:
		if !jsIsObject(a) {
			return 0
		}
		if jsKeyCount(a) > len(n.keys) {
			return 0
		}
		for i, k := range n.keys {
			if n.fields[i].match(jsMember(a, 2*i, k)) == 0 {
				return 0
			}
		}
		return 1
	}
	return 0
}

// jsMember is [jsGet] for match: a pointer to v[key] (undefined when
// absent), read in place for an object's members and an array's elements,
// so matching builds no values. An object's members are looked for at
// item k first, where the expectation's i-th key (k = 2i) usually is.
func jsMember(v *jsonv.Value, k int, key string) *jsonv.Value {
	switch v.Kind() {
	case jsonv.KindObject:
		if p := v.MemberNear(k, key); p != nil {
			return p
		}
		return &toolcall.UndefinedValue
	case jsonv.KindArray:
		if i, ok := jsArrayIndex(key); ok && i < len(v.Items()) {
			return &v.Items()[i]
		}
	}
	// An array's length or other key: a value of its own, rare enough to
	// allocate.
	x, _ := jsGet(v, key)
	return &x
}
