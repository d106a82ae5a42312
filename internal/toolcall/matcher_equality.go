package toolcall

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// equalValues is typed deep equality ([Equal]), optionally comparing numeric
// strings with numbers by value.
func equalValues(a, b jsonv.Value, coerce bool) bool { return equalValuesPtr(&a, &b, coerce) }

func equalValuesPtr(a, b *jsonv.Value, coerce bool) bool {
	if !coerce {
		return jsonv.EqualPtr(a, b)
	}
	if a.Kind() != b.Kind() {
		if fa, ok := numericOf(*a); ok {
			if fb, ok := numericOf(*b); ok {
				return fa == fb
			}
		}
		return false
	}
	switch a.Kind() {
	case jsonv.KindArray:
		if len(a.Items()) != len(b.Items()) {
			return false
		}
		for i := range a.Items() {
			if !equalValuesPtr(&a.Items()[i], &b.Items()[i], true) {
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
			if bv == nil || !equalValuesPtr(&a.Items()[i+1], bv, true) {
				return false
			}
		}
		return true
	}
	return jsonv.EqualPtr(a, b)
}

// numericOf returns the number a value stands for: a number, or a string that
// parses as a finite decimal number.
func numericOf(v jsonv.Value) (float64, bool) {
	switch v.Kind() {
	case jsonv.KindNumber:
		return v.NumberValue(), true
	case jsonv.KindString:
		s := strings.TrimSpace(v.Literal())
		if s == "" {
			return 0, false
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false
		}
		return f, true
	}
	return 0, false
}

// literalOperand converts a configuration operand to a Value.
func literalOperand(operand any) (jsonv.Value, error) {
	v, err := jsonv.ValueOf(operand)
	if err != nil {
		return jsonv.Value{}, fmt.Errorf("invalid value: %w", err)
	}
	return v, nil
}

type equalsMatcher struct {
	want   jsonv.Value
	coerce bool
}

func newEqualsMatcher(operand any, opts MatcherOptions) (Matcher, error) {
	v, err := literalOperand(operand)
	if err != nil {
		return nil, err
	}
	return Equals(v, opts.CoerceStrings), nil
}

// Equals returns a matcher for typed deep equality with want ([Equal]);
// coerce also accepts numeric strings for numbers and vice versa.
func Equals(want jsonv.Value, coerce bool) Matcher { return equalsMatcher{want: want, coerce: coerce} }

func (m equalsMatcher) Match(v jsonv.Value) bool { return equalValues(v, m.want, m.coerce) }
func (m equalsMatcher) String() string           { return TruncateText(m.want.JSON(), 80) }

type anyMatcher struct{}

// Any returns a matcher that accepts every value, absent included.
func Any() Matcher { return anyMatcher{} }

func (anyMatcher) Match(jsonv.Value) bool { return true }
func (anyMatcher) String() string         { return "any" }

type presentMatcher struct{}

// Present returns a matcher that accepts any value that is present, null
// included.
func Present() Matcher { return presentMatcher{} }

func (presentMatcher) Match(v jsonv.Value) bool { return v.Kind() != jsonv.KindUndefined }
func (presentMatcher) String() string           { return "present" }

type absentMatcher struct{}

// Absent returns a matcher that accepts only an absent argument.
func Absent() Matcher { return absentMatcher{} }

func (absentMatcher) Match(v jsonv.Value) bool { return v.Kind() == jsonv.KindUndefined }
func (absentMatcher) String() string           { return "absent" }

type nullMatcher struct{}

// IsNull returns a matcher that accepts only null.
func IsNull() Matcher { return nullMatcher{} }

func (nullMatcher) Match(v jsonv.Value) bool { return v.Kind() == jsonv.KindNull }
func (nullMatcher) String() string           { return "null" }

type emptyMatcher struct{}

// Empty returns a matcher that accepts an absent argument, null, "", [] and {}.
func Empty() Matcher { return emptyMatcher{} }

func (emptyMatcher) Match(v jsonv.Value) bool {
	switch v.Kind() {
	case jsonv.KindUndefined, jsonv.KindNull:
		return true
	case jsonv.KindString:
		return v.Literal() == ""
	case jsonv.KindArray, jsonv.KindObject:
		return len(v.Items()) == 0
	}
	return false
}
func (emptyMatcher) String() string { return "empty" }

type oneOfMatcher struct {
	values []jsonv.Value
	coerce bool
}

func newOneOfMatcher(operand any, opts MatcherOptions) (Matcher, error) {
	list, ok := operand.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("expects a non-empty list of values, got %s", DescribeOperand(operand))
	}
	values := make([]jsonv.Value, len(list))
	for i, x := range list {
		v, err := literalOperand(x)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		values[i] = v
	}
	return OneOf(values, opts.CoerceStrings), nil
}

// OneOf returns a matcher that accepts a value equal to any of values (BFCL's
// list of acceptable values).
func OneOf(values []jsonv.Value, coerce bool) Matcher {
	return oneOfMatcher{values: values, coerce: coerce}
}

func (m oneOfMatcher) Match(v jsonv.Value) bool {
	for _, w := range m.values {
		if equalValues(v, w, m.coerce) {
			return true
		}
	}
	return false
}

func (m oneOfMatcher) String() string {
	parts := make([]string, len(m.values))
	for i, v := range m.values {
		parts[i] = v.JSON()
	}
	return TruncateText("one of ["+strings.Join(parts, ", ")+"]", 100)
}

// typeMatcher accepts values of any of a set of JSON types; "integer" is a
// number written without fraction.
type typeMatcher struct {
	names []string
}

var validTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "object": true, "array": true, "null": true}

func newTypeMatcher(operand any, _ MatcherOptions) (Matcher, error) {
	var names []string
	switch t := operand.(type) {
	case string:
		names = []string{t}
	case []any:
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("expects type names, got %s", DescribeOperand(x))
			}
			names = append(names, s)
		}
	default:
		return nil, fmt.Errorf("expects a type name or a list of them, got %s", DescribeOperand(operand))
	}
	for _, n := range names {
		if !validTypes[n] {
			return nil, fmt.Errorf("unknown type %q, expected string, number, integer, boolean, object, array or null", n)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("expects at least one type name")
	}
	return typeMatcher{names: names}, nil
}

// OfType returns a matcher for values of one of the named JSON types
// ("string", "number", "integer", "boolean", "object", "array", "null").
func OfType(names ...string) Matcher { return typeMatcher{names: names} }

func (m typeMatcher) Match(v jsonv.Value) bool {
	for _, n := range m.names {
		switch n {
		case "integer":
			if v.Kind() == jsonv.KindNumber && v.NumberValue() == math.Trunc(v.NumberValue()) && !math.IsInf(v.NumberValue(), 0) {
				return true
			}
		default:
			if v.Kind() != jsonv.KindUndefined && v.Kind().String() == n {
				return true
			}
		}
	}
	return false
}

func (m typeMatcher) String() string { return "type " + strings.Join(m.names, "|") }
