package jsonv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Kind is the JSON type of a [Value].
type Kind uint8

// The kinds a [Value] can have. KindUndefined is the zero value: an absent
// argument, or JavaScript's undefined.
const (
	KindUndefined Kind = iota
	KindNull
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

var kindNames = [...]string{"undefined", "null", "boolean", "number", "string", "array", "object"}

// String returns the JSON type name ("string", "number", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is an immutable JSON value: tool-call arguments, results and expected
// literals. Objects keep the order in which their members were written, because
// some peers compare serialisations whose key order matters; comparisons made by
// the native scorer ignore key order.
//
// The zero Value is undefined (absent).
type Value struct {
	// The flags come first, together, so that they share one word: a
	// Value takes 56 bytes, not 64 (Parse allocates one per element).
	kind Kind
	// isInt records a number literal written without fraction or exponent.
	isInt bool
	// b is the boolean payload.
	b bool
	// unknown marks an undefined value that stands for one the parse left
	// unread: nested deeper than the depth limit (see [Value.IsUnknown]).
	// partial marks a container holding an unknown value somewhere.
	unknown, partial bool
	// num is the number payload.
	num float64
	// str is the string payload; for numbers, the literal as written.
	str string
	// items holds array elements, or object members as alternating key (a
	// KindString Value) and value.
	items []Value
}

// Undefined returns the undefined (absent) value.
func Undefined() Value { return Value{} }

// Null returns the JSON null value.
func Null() Value { return Value{kind: KindNull} }

// Bool returns a boolean value.
func Bool(b bool) Value { return Value{kind: KindBool, b: b} }

// Number returns a number value.
func Number(f float64) Value {
	return Value{kind: KindNumber, num: f, isInt: f == math.Trunc(f) && !math.IsInf(f, 0) && math.Abs(f) < 1e21}
}

// Int returns an integer number value.
func Int(i int64) Value {
	return Value{kind: KindNumber, num: float64(i), isInt: true, str: strconv.FormatInt(i, 10)}
}

// String returns a string value.
func String(s string) Value { return Value{kind: KindString, str: s} }

// Array returns an array value holding items.
func Array(items ...Value) Value {
	if items == nil {
		items = []Value{}
	}
	return Value{kind: KindArray, items: items}
}

// Member is one key and value of an object, used to build objects with [Object].
type Member struct {
	Key   string
	Value Value
}

// Object returns an object value with members in the given order. A later
// member with the same key replaces an earlier one, as JSON.parse does.
func Object(members ...Member) Value {
	items := make([]Value, 0, 2*len(members))
	if len(members) <= dupScanLimit {
		for _, m := range members {
			items = setMember(items, m.Key, m.Value)
		}
		return Value{kind: KindObject, items: items}
	}
	// Many members: index the keys, so the cost stays linear.
	at := make(map[string]int, len(members))
	for _, m := range members {
		if k, ok := at[m.Key]; ok {
			items[k+1] = m.Value
			continue
		}
		at[m.Key] = len(items)
		items = append(items, String(m.Key), m.Value)
	}
	return Value{kind: KindObject, items: items}
}

func setMember(items []Value, key string, v Value) []Value {
	for i := 0; i < len(items); i += 2 {
		if items[i].str == key {
			items[i+1] = v
			return items
		}
	}
	return append(items, String(key), v)
}

// Kind returns the value's JSON type.
func (v *Value) Kind() Kind { return v.kind }

// Items returns the array's elements, or the object's members as
// alternating key (a string Value) and value, in written order. The slice
// is the value's own: callers read it and must not modify it. The scorers'
// walks index it in place, which copies no Value.
func (v *Value) Items() []Value { return v.items }

// ItemsRef returns the address of the value's items (see [Value.Items]),
// for walks that keep one reference per nesting level without copying the
// slice header.
func (v *Value) ItemsRef() *[]Value { return &v.items }

// Literal returns the string payload, or a number's literal as written
// ("" for a number built with [Number]).
func (v *Value) Literal() string { return v.str }

// IsInt reports whether the value is a number written without fraction or
// exponent; unlike [Value.IsInteger] it does not check the kind.
func (v *Value) IsInt() bool { return v.isInt }

// Partial reports whether the value is a container holding an unknown value
// somewhere (see [Value.IsUnknown]).
func (v *Value) Partial() bool { return v.partial }

// ObjectFromItems returns the object whose members are items, alternating
// key (a string Value) and value, kept as given: a repeated key is not
// merged, as a parsed document may hold one. It is for generators and tests
// that build such objects; [Object] is the constructor for everything else.
func ObjectFromItems(items []Value) Value {
	if items == nil {
		items = []Value{}
	}
	return Value{kind: KindObject, items: items}
}

// IsUndefined reports whether the value is absent.
func (v Value) IsUndefined() bool { return v.kind == KindUndefined }

// IsUnknown reports whether the value stands for one that was not read:
// [Parse] reads a value nested more than 256 levels deep as unknown, so
// that the rest of the document can still be checked. An unknown value is
// undefined for every other purpose; the native scorer reports a check on
// it as not evaluable.
func (v *Value) IsUnknown() bool { return v.unknown }

// Unread reports whether the value is unknown or holds an unknown value.
func (v *Value) Unread() bool { return v.unknown || v.partial }

// IsNullish reports whether the value is null or undefined.
func (v Value) IsNullish() bool { return v.kind <= KindNull }

// BoolValue returns the boolean payload (false for other kinds).
func (v *Value) BoolValue() bool { return v.b }

// NumberValue returns the numeric payload (0 for other kinds).
func (v *Value) NumberValue() float64 { return v.num }

// IsInteger reports whether the value is a number written without a fraction
// or exponent (JSON cannot otherwise tell 1 from 1.0).
func (v Value) IsInteger() bool { return v.kind == KindNumber && v.isInt }

// StringValue returns the string payload ("" for other kinds).
func (v Value) StringValue() string {
	if v.kind == KindString {
		return v.str
	}
	return ""
}

// Len returns the number of array elements or object members.
func (v Value) Len() int {
	switch v.kind {
	case KindArray:
		return len(v.items)
	case KindObject:
		return len(v.items) / 2
	}
	return 0
}

// Index returns the i-th array element, or undefined when out of range.
func (v Value) Index(i int) Value {
	if v.kind != KindArray || i < 0 || i >= len(v.items) {
		return Value{}
	}
	return v.items[i]
}

// MemberAt returns the i-th object member in written order.
func (v Value) MemberAt(i int) (string, Value) {
	if v.kind != KindObject || i < 0 || 2*i+1 >= len(v.items) {
		return "", Value{}
	}
	return v.items[2*i].str, v.items[2*i+1]
}

// Get returns the member named key and whether the object has it. A member
// whose value is undefined is reported as present, as in JavaScript.
func (v Value) Get(key string) (Value, bool) {
	if v.kind != KindObject {
		return Value{}, false
	}
	for i := 0; i < len(v.items); i += 2 {
		if v.items[i].str == key {
			return v.items[i+1], true
		}
	}
	return Value{}, false
}

// MemberNear returns a pointer to the member named key of the object v, or
// nil, looking first at the member whose key is items[k]: objects compared or
// matched with each other usually list their keys in the same order. Callers
// have checked that v is an object.
func (v *Value) MemberNear(k int, key string) *Value {
	if k+1 < len(v.items) && v.items[k].str == key {
		return &v.items[k+1]
	}
	return v.GetPtr(key)
}

// GetPtr returns a pointer to the member named key, or nil.
func (v *Value) GetPtr(key string) *Value {
	if v.kind != KindObject {
		return nil
	}
	items := v.items
	for i := 0; i+1 < len(items); i += 2 {
		if items[i].str == key {
			return &items[i+1]
		}
	}
	return nil
}

// Has reports whether the object has a member named key.
func (v Value) Has(key string) bool {
	_, ok := v.Get(key)
	return ok
}

// Keys returns the object's keys in written order.
func (v Value) Keys() []string {
	if v.kind != KindObject {
		return nil
	}
	keys := make([]string, 0, len(v.items)/2)
	for i := 0; i < len(v.items); i += 2 {
		keys = append(keys, v.items[i].str)
	}
	return keys
}

// Equal reports typed deep equality: numbers compare by value (1 equals 1.0),
// strings, booleans and null by value, arrays element by element, and objects
// by key set and member values whatever the key order. Booleans never equal
// numbers and strings never equal numbers. Undefined equals only undefined.
func Equal(a, b Value) bool { return EqualPtr(&a, &b) }

func EqualPtr(a, b *Value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case KindUndefined:
		// An unknown value equals nothing: what it stands for is unknown.
		return !a.unknown && !b.unknown
	case KindNull:
		return true
	case KindBool:
		return a.b == b.b
	case KindNumber:
		return NumbersEqual(a, b)
	case KindString:
		return a.str == b.str
	case KindArray:
		if len(a.items) != len(b.items) {
			return false
		}
		for i := range a.items {
			x, y := &a.items[i], &b.items[i]
			// String elements, the common case, are compared here rather
			// than in a call per element.
			if x.kind == KindString && y.kind == KindString {
				if x.str != y.str {
					return false
				}
				continue
			}
			if !EqualPtr(x, y) {
				return false
			}
		}
		return true
	case KindObject:
		if len(a.items) != len(b.items) {
			return false
		}
		for i := 0; i < len(a.items); i += 2 {
			bv := b.MemberNear(i, a.items[i].str)
			if bv == nil || !EqualPtr(&a.items[i+1], bv) {
				return false
			}
		}
		return true
	}
	return false
}

// NumbersEqual compares two numbers by value. Integers too large for a float64
// to hold exactly compare by their decimal digits.
func NumbersEqual(a, b *Value) bool {
	if a.num != b.num {
		return false
	}
	if a.isInt && b.isInt && math.Abs(a.num) >= 1<<53 && a.str != "" && b.str != "" {
		return CanonicalInt(a.str) == CanonicalInt(b.str)
	}
	return true
}

func CanonicalInt(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(strings.TrimPrefix(s, "-"), "0")
	if s == "" {
		return "0"
	}
	if neg {
		return "-" + s
	}
	return s
}

// JSON returns the compact JSON encoding of the value, members in written
// order. Undefined encodes as "undefined" at the top level and is skipped
// inside objects, as JSON.stringify does.
func (v Value) JSON() string {
	var buf [64]byte
	return string(v.AppendJSON(buf[:0]))
}

// String returns the JSON encoding; it makes values readable in explanations.
func (v Value) String() string { return v.JSON() }

// AppendJSON appends the value's JSON encoding (see JSON) to b.
func (v *Value) AppendJSON(b []byte) []byte {
	switch v.kind {
	case KindUndefined:
		b = append(b, "undefined"...)
	case KindNull:
		b = append(b, "null"...)
	case KindBool:
		b = strconv.AppendBool(b, v.b)
	case KindNumber:
		b = AppendJSNumber(b, v.num)
	case KindString:
		b = AppendJSONString(b, v.str)
	case KindArray:
		b = append(b, '[')
		for i := range v.items {
			if i > 0 {
				b = append(b, ',')
			}
			if v.items[i].kind == KindUndefined {
				b = append(b, "null"...)
				continue
			}
			b = v.items[i].AppendJSON(b)
		}
		b = append(b, ']')
	case KindObject:
		b = append(b, '{')
		first := true
		for i := 0; i < len(v.items); i += 2 {
			if v.items[i+1].kind == KindUndefined {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = AppendJSONString(b, v.items[i].str)
			b = append(b, ':')
			b = v.items[i+1].AppendJSON(b)
		}
		b = append(b, '}')
	}
	return b
}

// FormatJSNumber formats a float64 the way JavaScript's Number#toString does.
func FormatJSNumber(f float64) string {
	var buf [32]byte
	return string(AppendJSNumber(buf[:0], f))
}

// AppendJSNumber appends formatJSNumber(f) to b.
func AppendJSNumber(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f), math.IsInf(f, 0):
		return append(b, "null"...)
	case f == 0:
		return append(b, '0')
	}
	abs := math.Abs(f)
	if abs >= 1e21 || abs < 1e-6 {
		start := len(b)
		b = strconv.AppendFloat(b, f, 'e', -1, 64)
		// Go writes e+21 / e-07; JavaScript writes e+21 / e-7.
		if i := bytes.IndexByte(b[start:], 'e'); i >= 0 {
			exp := start + i + 2 // after the sign
			zeros := 0
			for exp+zeros < len(b)-1 && b[exp+zeros] == '0' {
				zeros++
			}
			b = append(b[:exp], b[exp+zeros:]...)
		}
		return b
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// AppendJSONString appends s as a JSON string to b.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, jsonEscapes[c]...)
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// jsonEscapes holds, for each byte, how a JSON string written by this
// package carries it: "" for a byte written as it is, else its escape.
var jsonEscapes = func() (t [256]string) {
	const hex = "0123456789abcdef"
	for c := 0; c < 0x20; c++ {
		t[c] = `\u00` + string(hex[c>>4]) + string(hex[c&0xf])
	}
	t['"'], t['\\'] = `\"`, `\\`
	t['\n'], t['\r'], t['\t'], t['\b'], t['\f'] = `\n`, `\r`, `\t`, `\b`, `\f`
	return t
}()

// JSONEscape returns how a JSON string written by this package (Value.JSON,
// String(s).JSON()) carries byte c: "" when it is written as it is, else its
// escape. Code writing the same JSON into another kind of buffer builds its
// tables from it.
func JSONEscape(c byte) string { return jsonEscapes[c] }

// ValueOf converts a Go value into a Value. It accepts nil, bool, every integer
// and float type, json.Number, string, []any, []Value, map[string]any (keys
// sorted, since Go maps have no order), Value, and slices or maps of those
// through reflection. It returns an error for anything else (functions,
// channels, NaN).
func ValueOf(x any) (Value, error) {
	switch t := x.(type) {
	case nil:
		return Null(), nil
	case Value:
		return t, nil
	case bool:
		return Bool(t), nil
	case string:
		return String(t), nil
	case int:
		return Int(int64(t)), nil
	case int64:
		return Int(t), nil
	case int32:
		return Int(int64(t)), nil
	case uint64:
		if t > math.MaxInt64 {
			return Value{kind: KindNumber, num: float64(t), isInt: true, str: strconv.FormatUint(t, 10)}, nil
		}
		return Int(int64(t)), nil
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return Value{}, fmt.Errorf("number %v is not representable in JSON", t)
		}
		return Number(t), nil
	case float32:
		return ValueOf(float64(t))
	case json.Number:
		v, err := Parse(string(t))
		if err != nil || v.kind != KindNumber {
			return Value{}, fmt.Errorf("invalid json.Number %q", string(t))
		}
		return v, nil
	case []any:
		items := make([]Value, len(t))
		for i, e := range t {
			v, err := ValueOf(e)
			if err != nil {
				return Value{}, fmt.Errorf("[%d]: %w", i, err)
			}
			items[i] = v
		}
		return Array(items...), nil
	case []Value:
		return Array(t...), nil
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		items := make([]Value, 0, 2*len(keys))
		for _, k := range keys {
			v, err := ValueOf(t[k])
			if err != nil {
				return Value{}, fmt.Errorf("%s: %w", k, err)
			}
			items = append(items, String(k), v)
		}
		return Value{kind: KindObject, items: items}, nil
	}
	return valueOfReflect(reflect.ValueOf(x))
}

func valueOfReflect(rv reflect.Value) (Value, error) {
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Int(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return ValueOf(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return ValueOf(rv.Float())
	case reflect.Bool:
		return Bool(rv.Bool()), nil
	case reflect.String:
		return String(rv.String()), nil
	case reflect.Slice, reflect.Array:
		items := make([]any, rv.Len())
		for i := range items {
			items[i] = rv.Index(i).Interface()
		}
		return ValueOf(items)
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		m := make(map[string]any, rv.Len())
		iter := rv.MapRange()
		for iter.Next() {
			m[iter.Key().String()] = iter.Value().Interface()
		}
		return ValueOf(m)
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return Null(), nil
		}
		return valueOfReflect(rv.Elem())
	}
	return Value{}, fmt.Errorf("unsupported type %s", rv.Type())
}

// MustValueOf is [ValueOf] for literals in code and tests; it panics on error.
func MustValueOf(x any) Value {
	v, err := ValueOf(x)
	if err != nil {
		panic(err)
	}
	return v
}

// Interface converts the value to plain Go values: nil, bool, float64, string,
// []any and map[string]any. Undefined converts to nil.
func (v Value) Interface() any {
	switch v.kind {
	case KindBool:
		return v.b
	case KindNumber:
		return v.num
	case KindString:
		return v.str
	case KindArray:
		out := make([]any, len(v.items))
		for i, it := range v.items {
			out[i] = it.Interface()
		}
		return out
	case KindObject:
		out := make(map[string]any, len(v.items)/2)
		for i := 0; i < len(v.items); i += 2 {
			out[v.items[i].str] = v.items[i+1].Interface()
		}
		return out
	}
	return nil
}
