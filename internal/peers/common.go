package peers

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// This file holds what the peer profiles share: the expectation checks, the
// flattening of nested trajectories, and emulations of the peers' language
// semantics (Python ==, str() and round(); JavaScript ===, JSON.stringify and
// Math.round).

// StepMessage is the StepType of a conversation message that carries no tool
// call (a user prompt, a tool result, a text-only assistant reply); Name holds
// the message role. Only message-structured profiles (agentevals strict mode)
// use such steps; the others skip them.
const StepMessage = "message"

// PeerFeatures lists the expectation features a profile can express. A
// feature a profile cannot express is rejected when the scorer is built, so a
// profile never silently answers a different question than the rule asks.
type PeerFeatures struct {
	matchers    bool // per-path argument matchers
	optional    bool // optional expected calls
	mustSucceed bool // must_succeed
	forbidden   bool // forbidden tools and sequences
}

// CheckPeerExpectation validates the parts of an expectation every profile
// reads and rejects the features the profile cannot express. Native-only
// policies (extra_calls, extra_args, argument_credit, coerce_strings,
// extra_call_cap) are not expectation content and are ignored.
func CheckPeerExpectation(profile string, e toolcall.Expectation, f PeerFeatures) error {
	var errs []error
	if len(e.Calls) > toolcall.MaxCalls {
		errs = append(errs, fmt.Errorf("%s: %d expected calls exceed the maximum of %d", profile, len(e.Calls), toolcall.MaxCalls))
	}
	switch e.Order {
	case "", toolcall.OrderAny, toolcall.OrderInOrder, toolcall.OrderExact:
	default:
		errs = append(errs, fmt.Errorf("%s: order: invalid value %q, expected one of %q, %q or %q", profile, e.Order, toolcall.OrderAny, toolcall.OrderInOrder, toolcall.OrderExact))
	}
	for i, c := range e.Calls {
		// An empty tool name is accepted, as the peers accept it (the
		// processor's configuration rejects it before any scorer is built).
		if len(c.Matchers) > 0 && !f.matchers {
			errs = append(errs, fmt.Errorf("%s: calls[%d] (%s): argument matchers are not supported: %s compares arguments by plain equality; write literal args or use the native or mongodb scorer", profile, i, c.Name, profile))
		}
		if c.Optional && !f.optional {
			errs = append(errs, fmt.Errorf("%s: calls[%d] (%s): optional expected calls are not supported by %s", profile, i, c.Name, profile))
		}
		if c.MustSucceed && !f.mustSucceed {
			errs = append(errs, fmt.Errorf("%s: calls[%d] (%s): must_succeed is not supported by %s", profile, i, c.Name, profile))
		}
	}
	if !f.forbidden && (len(e.ForbiddenTools) > 0 || len(e.ForbiddenSequences) > 0) {
		errs = append(errs, fmt.Errorf("%s: forbidden_tools and forbidden_sequences are not supported by %s (use mastra_trajectory_full)", profile, profile))
	}
	if len(e.AvailableTools) > 0 {
		errs = append(errs, fmt.Errorf("%s: available_tools is not supported by %s", profile, profile))
	}
	return errors.Join(errs...)
}

// FlattenToolCalls returns the tool calls of a trajectory in depth-first
// order: non-tool steps (messages, model generations, agent runs) are
// dropped, and each step's children follow it. It returns calls itself when
// the trajectory is already flat, so the common case does not allocate.
func FlattenToolCalls(calls []toolcall.Call) []toolcall.Call {
	flat := true
	for i := range calls {
		if !calls[i].IsToolCall() || len(calls[i].Children) > 0 {
			flat = false
			break
		}
	}
	if flat {
		return calls
	}
	out := make([]toolcall.Call, 0, len(calls))
	var walk func([]toolcall.Call)
	walk = func(cs []toolcall.Call) {
		for i := range cs {
			if cs[i].IsToolCall() {
				out = append(out, cs[i])
			}
			if len(cs[i].Children) > 0 {
				walk(cs[i].Children)
			}
		}
	}
	walk(calls)
	return out
}

// toolExpectations returns the expected calls that are tool calls (message
// steps are dropped), with their indexes in the expectation. Not inlined:
// appending an ExpectedCall copies it through a temporary in the frame,
// which made each caller's frame that much deeper (see ScoreInto).
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func toolExpectations(calls []toolcall.ExpectedCall) ([]toolcall.ExpectedCall, []int) {
	flat := true
	for i := range calls {
		if calls[i].StepType == StepMessage {
			flat = false
			break
		}
	}
	if flat {
		return calls, nil
	}
	out := make([]toolcall.ExpectedCall, 0, len(calls))
	idx := make([]int, 0, len(calls))
	for i := range calls {
		if calls[i].StepType != StepMessage {
			out = append(out, calls[i])
			idx = append(idx, i)
		}
	}
	return out, idx
}

// mapIndex maps an index in a filtered list back to the original list.
func mapIndex(idx []int, i int) int {
	if idx == nil {
		return i
	}
	return idx[i]
}

// prefixedError is fmt.Errorf(prefix+"%w", err) made without fmt (see
// argsUnavailable): its text is the prefix and err's, and it wraps err.
type prefixedError struct {
	msg string
	err error
}

func (e *prefixedError) Error() string { return e.msg }
func (e *prefixedError) Unwrap() error { return e.err }

// prefixError returns err with prefix before its text, wrapping it. Not
// inlined: the scorers call it on their error paths, whose frames are on
// the OTLP receiver's stack (see ScoreInto).
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func prefixError(prefix string, err error) error {
	return &prefixedError{msg: prefix + err.Error(), err: err}
}

// argsUnavailable is the error of a profile whose verdict depends on the
// arguments of a call whose arguments were not recorded.
//
// Written without fmt, whose frames take over a kilobyte: the error is
// made on the scorer's path, on the OTLP receiver's stack in the collector
// (see ScoreInto).
func argsUnavailable(profile string, c *toolcall.Call, pos int) error {
	return errors.New(profile + ": arguments unavailable for call " + strconv.Itoa(pos+1) + " (" + c.Name + "); " + profile + " judges arguments in this configuration")
}

// ---------------------------------------------------------------------------
// Python semantics (DeepEval, Ragas, ADK).

// pyNumber returns the value Python sees for a number or a boolean
// (bool is an int subclass: True == 1).
func pyNumber(v *jsonv.Value) (float64, bool) {
	switch v.Kind() {
	case jsonv.KindNumber:
		return v.NumberValue(), true
	case jsonv.KindBool:
		if v.BoolValue() {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// pyEqual is Python's == on JSON-decoded values: 1 == 1.0 == True, dicts
// compare as key sets with equal values whatever the order, lists element by
// element, a string never equals a number, and None (null or undefined)
// equals only None.
func pyEqual(a, b jsonv.Value) bool { return pyEqualPtr(&a, &b) }

func pyEqualPtr(a, b *jsonv.Value) bool {
	if a.Kind() <= jsonv.KindNull || b.Kind() <= jsonv.KindNull {
		return a.Kind() <= jsonv.KindNull && b.Kind() <= jsonv.KindNull
	}
	if x, ok := pyNumber(a); ok {
		y, ok := pyNumber(b)
		if !ok {
			return false
		}
		if a.Kind() == jsonv.KindNumber && b.Kind() == jsonv.KindNumber {
			return jsonv.NumbersEqual(a, b)
		}
		return x == y
	}
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case jsonv.KindString:
		return a.Literal() == b.Literal()
	case jsonv.KindArray:
		if len(a.Items()) != len(b.Items()) {
			return false
		}
		for i := range a.Items() {
			if !pyEqualPtr(&a.Items()[i], &b.Items()[i]) {
				return false
			}
		}
		return true
	case jsonv.KindObject:
		if len(a.Items()) != len(b.Items()) {
			return false
		}
		for i := 0; i < len(a.Items()); i += 2 {
			bv := b.MemberNear(i, a.Items()[i].Literal())
			if bv == nil || !pyEqualPtr(&a.Items()[i+1], bv) {
				return false
			}
		}
		return true
	}
	return false
}

// PyStr renders a value as Python's str() does after json.loads: a string
// as itself, everything else as its repr.
func PyStr(v jsonv.Value) string {
	if v.Kind() == jsonv.KindString {
		return v.Literal()
	}
	return string(AppendPyRepr(nil, &v))
}

var pyBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 128); return &b }}

// pyStrEqual reports str(a) == str(b) without keeping the strings.
func pyStrEqual(a, b jsonv.Value) bool {
	if a.Kind() == jsonv.KindString && b.Kind() == jsonv.KindString {
		return a.Literal() == b.Literal()
	}
	pa, pb := pyBufPool.Get().(*[]byte), pyBufPool.Get().(*[]byte)
	x, y := appendPyStr((*pa)[:0], &a), appendPyStr((*pb)[:0], &b)
	eq := string(x) == string(y)
	*pa, *pb = x, y
	pyBufPool.Put(pa)
	pyBufPool.Put(pb)
	return eq
}

func appendPyStr(dst []byte, v *jsonv.Value) []byte {
	if v.Kind() == jsonv.KindString {
		return append(dst, v.Literal()...)
	}
	return AppendPyRepr(dst, v)
}

// AppendPyRepr appends Python's repr() of a JSON-decoded value: None, True,
// ints as written, floats in Python's shortest repr ("1.0", "1e+16"),
// strings single-quoted unless they contain a ' and no ", dicts in
// insertion order.
func AppendPyRepr(dst []byte, v *jsonv.Value) []byte {
	switch v.Kind() {
	case jsonv.KindUndefined, jsonv.KindNull:
		return append(dst, "None"...)
	case jsonv.KindBool:
		if v.BoolValue() {
			return append(dst, "True"...)
		}
		return append(dst, "False"...)
	case jsonv.KindNumber:
		return append(dst, PyNumberRepr(v)...)
	case jsonv.KindString:
		return appendPyStringRepr(dst, v.Literal())
	case jsonv.KindArray:
		dst = append(dst, '[')
		for i := range v.Items() {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendPyRepr(dst, &v.Items()[i])
		}
		return append(dst, ']')
	case jsonv.KindObject:
		dst = append(dst, '{')
		for i := 0; i < len(v.Items()); i += 2 {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendPyStringRepr(dst, v.Items()[i].Literal())
			dst = append(dst, ": "...)
			dst = AppendPyRepr(dst, &v.Items()[i+1])
		}
		return append(dst, '}')
	}
	return dst
}

// PyNumberRepr renders a number as Python does: a JSON literal without
// fraction or exponent is an int (its digits), anything else a float.
func PyNumberRepr(v *jsonv.Value) string {
	if v.IsInt() {
		if v.Literal() != "" {
			return jsonv.CanonicalInt(v.Literal())
		}
		if math.Abs(v.NumberValue()) < 1<<63 {
			return strconv.FormatInt(int64(v.NumberValue()), 10)
		}
	}
	return pyFloatRepr(v.NumberValue())
}

// pyFloatRepr is Python's repr(float): shortest round-trip digits, fixed
// notation with at least one fractional digit when the decimal exponent is in
// [-4, 16), else scientific with at least two exponent digits.
func pyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	i := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

// appendPyStringRepr appends Python's repr() of a string.
func appendPyStringRepr(dst []byte, s string) []byte {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	dst = append(dst, quote)
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '\\' && c != quote {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\\':
			dst = append(dst, `\\`...)
		case r == rune(quote):
			dst = append(dst, '\\', quote)
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r == '\t':
			dst = append(dst, `\t`...)
		case r == utf8.RuneError && size == 1:
			dst = fmt.Appendf(dst, `\x%02x`, s[i-1])
		case r > 0x7f && unicode.IsPrint(r):
			dst = utf8.AppendRune(dst, r)
		case r < 0x100:
			dst = fmt.Appendf(dst, `\x%02x`, r)
		case r < 0x10000:
			dst = fmt.Appendf(dst, `\u%04x`, r)
		default:
			dst = fmt.Appendf(dst, `\U%08x`, r)
		}
	}
	return append(dst, quote)
}

// pyRound4 is Python's round(x, 4): correct decimal rounding of the exact
// binary value, ties to even.
func pyRound4(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 4, 64), 64)
	return v
}

// pyListRepr renders a list of names as Python prints a list of str.
func pyListRepr(names []string) string {
	dst := make([]byte, 0, 16*len(names)+2)
	dst = append(dst, '[')
	for i, n := range names {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = appendPyStringRepr(dst, n)
	}
	return string(append(dst, ']'))
}

// ---------------------------------------------------------------------------
// JavaScript semantics (MongoDB, Mastra, agentevals).

// jsMathRound is JavaScript's Math.round: the nearest integer, ties toward
// +Infinity.
func jsMathRound(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	f := math.Floor(x)
	if x-f >= 0.5 {
		return f + 1
	}
	return f
}

// MastraRound2 is Mastra's roundToTwoDecimals:
// Math.round((x + Number.EPSILON) * 100) / 100.
func MastraRound2(x float64) float64 {
	return jsMathRound((x+0x1p-52)*100) / 100
}

// jsStrictEqual is JavaScript's === on two JSON values (objects and arrays
// are never === unless they are the same reference, which JSON values never
// are).
func jsStrictEqual(a, b *jsonv.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case jsonv.KindUndefined, jsonv.KindNull:
		return true
	case jsonv.KindBool:
		return a.BoolValue() == b.BoolValue()
	case jsonv.KindNumber:
		return a.NumberValue() == b.NumberValue()
	case jsonv.KindString:
		return a.Literal() == b.Literal()
	}
	return false
}

// jsIsObject reports typeof v === "object" && v !== null (arrays included).
func jsIsObject(v *jsonv.Value) bool {
	return v.Kind() == jsonv.KindArray || v.Kind() == jsonv.KindObject
}

// jsArrayIndex reports whether key is a canonical array index ("0", "17";
// not "01" or "-1") and returns it.
func jsArrayIndex(key string) (int, bool) {
	if key == "" || len(key) > 10 || (key[0] == '0' && len(key) > 1) {
		return 0, false
	}
	n := 0
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n > 4294967294 {
		return 0, false
	}
	return n, true
}

// jsKeyCount is Object.keys(v).length for an object or array.
func jsKeyCount(v *jsonv.Value) int {
	if v.Kind() == jsonv.KindArray {
		return len(v.Items())
	}
	return len(v.Items()) / 2
}

// jsGet reads v[key] for an object or array (an array's index keys and its
// length); missing members read as undefined.
func jsGet(v *jsonv.Value, key string) (jsonv.Value, bool) {
	switch v.Kind() {
	case jsonv.KindObject:
		if p := v.GetPtr(key); p != nil {
			return *p, true
		}
	case jsonv.KindArray:
		if i, ok := jsArrayIndex(key); ok && i < len(v.Items()) {
			return v.Items()[i], true
		}
		if key == "length" {
			return jsonv.Int(int64(len(v.Items()))), true
		}
	case jsonv.KindString:
		if i, ok := jsArrayIndex(key); ok && i < len(v.Literal()) {
			return jsonv.String(v.Literal()[i : i+1]), true
		}
		if key == "length" {
			return jsonv.Int(int64(len(v.Literal()))), true
		}
	}
	return jsonv.Value{}, false
}

// jsKeyAt returns the i-th key of Object.keys(v) for an array (its index)
// or an object (written order).
func jsKeyAt(v *jsonv.Value, i int) string {
	if v.Kind() == jsonv.KindArray {
		return strconv.Itoa(i)
	}
	return v.Items()[2*i].Literal()
}

// jsStringifyEqual reports JSON.stringify(a) === JSON.stringify(b) without
// building the strings: key order matters, except that array-index keys
// ("0", "1", ...) come first in ascending order as JavaScript enumerates
// them; members whose value is undefined are dropped; undefined array
// elements read as null; numbers compare by value (-0 is 0).
func jsStringifyEqual(a, b jsonv.Value) bool {
	if a.Kind() == jsonv.KindUndefined || b.Kind() == jsonv.KindUndefined {
		return a.Kind() == b.Kind()
	}
	return stringifyEqual(&a, &b)
}

func stringifyEqual(a, b *jsonv.Value) bool {
	ak, bk := a.Kind(), b.Kind()
	if ak == jsonv.KindUndefined {
		ak = jsonv.KindNull
	}
	if bk == jsonv.KindUndefined {
		bk = jsonv.KindNull
	}
	if ak != bk {
		// NaN and infinities stringify as null; JSON values never hold them.
		return false
	}
	switch ak {
	case jsonv.KindNull:
		return true
	case jsonv.KindBool:
		return a.BoolValue() == b.BoolValue()
	case jsonv.KindNumber:
		return a.NumberValue() == b.NumberValue()
	case jsonv.KindString:
		return a.Literal() == b.Literal()
	case jsonv.KindArray:
		if len(a.Items()) != len(b.Items()) {
			return false
		}
		for i := range a.Items() {
			if !stringifyEqual(&a.Items()[i], &b.Items()[i]) {
				return false
			}
		}
		return true
	}
	if eq, sure := stringifyMembersEqual(a, b); sure {
		return eq
	}
	ka, kb := stringifyOrder(a), stringifyOrder(b)
	if len(ka) != len(kb) {
		return false
	}
	for i := range ka {
		if a.Items()[ka[i]].Literal() != b.Items()[kb[i]].Literal() || !stringifyEqual(&a.Items()[ka[i]+1], &b.Items()[kb[i]+1]) {
			return false
		}
	}
	return true
}

// stringifyMembersEqual compares two objects' defined members in written
// order, which is the order JSON.stringify writes them in when neither
// object has an array-index key (JavaScript enumerates those first). sure
// is false when it meets such a key before it can decide. A mismatch met
// first is decisive: the members before it are plain keys in both objects,
// so they are also the first plain keys of JSON.stringify's order (which
// writes plain keys after the index keys, in written order), and an object
// that runs out first has fewer defined members. This walks each object
// once instead of scanning both for index keys first.
func stringifyMembersEqual(a, b *jsonv.Value) (eq, sure bool) {
	ai, bi := a.Items(), b.Items()
	i, j := 0, 0
	for {
		for i < len(ai) && ai[i+1].Kind() == jsonv.KindUndefined {
			i += 2
		}
		for j < len(bi) && bi[j+1].Kind() == jsonv.KindUndefined {
			j += 2
		}
		if i >= len(ai) || j >= len(bi) {
			return i >= len(ai) && j >= len(bi), true
		}
		ka, kb := ai[i].Literal(), bi[j].Literal()
		if (ka != "" && ka[0]-'0' < 10 && isArrayIndex(ka)) || (kb != "" && kb[0]-'0' < 10 && isArrayIndex(kb)) {
			return false, false
		}
		if ka != kb {
			return false, true
		}
		// Scalars of one kind are compared here, saving a call per member.
		va, vb := &ai[i+1], &bi[j+1]
		var same bool
		switch {
		case va.Kind() != vb.Kind():
			same = stringifyEqual(va, vb)
		case va.Kind() == jsonv.KindString:
			same = va.Literal() == vb.Literal()
		case va.Kind() == jsonv.KindNumber:
			same = va.NumberValue() == vb.NumberValue()
		case va.Kind() == jsonv.KindBool:
			same = va.BoolValue() == vb.BoolValue()
		default:
			same = stringifyEqual(va, vb)
		}
		if !same {
			return false, true
		}
		i += 2
		j += 2
	}
}

// stringifyPlain reports whether v has, at any depth, no undefined member
// or element and no array-index key: JSON.stringify writes its members in
// written order, and stringifyEqualPlain compares a value with it.
func stringifyPlain(v *jsonv.Value) bool {
	switch v.Kind() {
	case jsonv.KindUndefined:
		return false
	case jsonv.KindArray:
		for i := range v.Items() {
			if !plainItem(&v.Items()[i]) {
				return false
			}
		}
	case jsonv.KindObject:
		for items := v.Items(); len(items) >= 2; items = items[2:] {
			if k := items[0].Literal(); k != "" && k[0]-'0' < 10 && isArrayIndex(k) {
				return false
			}
			if !plainItem(&items[1]) {
				return false
			}
		}
	}
	return true
}

// plainItem is stringifyPlain for an element or member value, telling
// scalars without a call.
func plainItem(v *jsonv.Value) bool {
	if v.Kind() == jsonv.KindArray || v.Kind() == jsonv.KindObject {
		return stringifyPlain(v)
	}
	return v.Kind() != jsonv.KindUndefined
}

// stringifyEqualPlain is stringifyEqual(a, b) for a plain b (see
// stringifyPlain). b's members are in stringify order, so a's defined
// members must be the same keys in the same order: an array-index key of
// a, which JSON.stringify would write first, differs from b's key there,
// since b has none.
func stringifyEqualPlain(a, b *jsonv.Value) bool {
	ak := a.Kind()
	if ak == jsonv.KindUndefined {
		ak = jsonv.KindNull
	}
	if ak != b.Kind() {
		return false
	}
	switch ak {
	case jsonv.KindNull:
		return true
	case jsonv.KindBool:
		return a.BoolValue() == b.BoolValue()
	case jsonv.KindNumber:
		return a.NumberValue() == b.NumberValue()
	case jsonv.KindString:
		return a.Literal() == b.Literal()
	case jsonv.KindArray:
		if len(a.Items()) != len(b.Items()) {
			return false
		}
		for i := range a.Items() {
			if !stringifyEqualPlain(&a.Items()[i], &b.Items()[i]) {
				return false
			}
		}
		return true
	}
	ai, bi := a.Items(), b.Items()
	j := 0
	for i := 0; i < len(ai); i += 2 {
		va := &ai[i+1]
		if va.Kind() == jsonv.KindUndefined {
			continue
		}
		if j >= len(bi) || ai[i].Literal() != bi[j].Literal() {
			return false
		}
		// Strings, most scalar members, are compared here.
		vb := &bi[j+1]
		if va.Kind() == jsonv.KindString && vb.Kind() == jsonv.KindString {
			if va.Literal() != vb.Literal() {
				return false
			}
		} else if !stringifyEqualPlain(va, vb) {
			return false
		}
		j += 2
	}
	return j == len(bi)
}

// isArrayIndex reports whether key is an array index ("0", "17", ...).
func isArrayIndex(key string) bool {
	_, ok := jsArrayIndex(key)
	return ok
}

// stringifyOrder lists the item offsets of an object's keys in the order
// JSON.stringify writes them, skipping undefined members.
func stringifyOrder(v *jsonv.Value) []int {
	var idx, plain []int
	for i := 0; i < len(v.Items()); i += 2 {
		if v.Items()[i+1].Kind() == jsonv.KindUndefined {
			continue
		}
		if _, ok := jsArrayIndex(v.Items()[i].Literal()); ok {
			idx = append(idx, i)
		} else {
			plain = append(plain, i)
		}
	}
	if len(idx) == 0 {
		return plain
	}
	sort.SliceStable(idx, func(x, y int) bool {
		nx, _ := jsArrayIndex(v.Items()[idx[x]].Literal())
		ny, _ := jsArrayIndex(v.Items()[idx[y]].Literal())
		return nx < ny
	})
	return append(idx, plain...)
}

// ---------------------------------------------------------------------------
// Small helpers for results.

// StringsOrEmpty returns s, or an empty (non-nil) slice, so details encode
// as [] rather than null.
func StringsOrEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ToolNames lists the calls' names.
func ToolNames(calls []toolcall.Call) []string {
	out := make([]string, len(calls))
	for i := range calls {
		out[i] = calls[i].Name
	}
	return out
}

// expectedNames lists the expected calls' names.
func expectedNames(calls []toolcall.ExpectedCall) []string {
	out := make([]string, len(calls))
	for i := range calls {
		out[i] = calls[i].Name
	}
	return out
}

// optionSub reads a nested option map (comparison_options, weights, ...),
// returning it with its own reader so unknown nested keys are reported with
// their full path.
func optionSub(r *toolcall.OptionReader, key string) (*toolcall.OptionReader, bool) {
	x, ok := r.Raw(key)
	if !ok {
		return nil, false
	}
	m, isMap := x.(map[string]any)
	if !isMap {
		r.Fail(key, "expects a map, got %s", toolcall.DescribeOperand(x))
		return nil, false
	}
	return toolcall.NewOptionReader(r.Scorer+`: option "`+key+`"`, m), true
}
