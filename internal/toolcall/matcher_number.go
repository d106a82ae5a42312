package toolcall

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// numberOf returns the number a matcher compares: a number, or with coercion
// a numeric string.
func numberOf(v jsonv.Value, coerce bool) (float64, bool) {
	if v.Kind() == jsonv.KindNumber {
		return v.NumberValue(), true
	}
	if coerce {
		return numericOf(v)
	}
	return 0, false
}

func numberOperand(x any) (float64, error) {
	v, err := jsonv.ValueOf(x)
	if err != nil || v.Kind() != jsonv.KindNumber {
		return 0, fmt.Errorf("expects a number, got %s", DescribeOperand(x))
	}
	return v.NumberValue(), nil
}

// numberFields decodes a map of numeric fields, rejecting unknown keys.
func numberFields(operand any, allowed ...string) (map[string]float64, error) {
	m, ok := operand.(map[string]any)
	if !ok || len(m) == 0 {
		return nil, fmt.Errorf("expects a map with %s, got %s", strings.Join(allowed, ", "), DescribeOperand(operand))
	}
	out := make(map[string]float64, len(m))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		known := false
		for _, a := range allowed {
			known = known || a == k
		}
		if !known {
			return nil, fmt.Errorf("unknown key %q, expected %s", k, strings.Join(allowed, ", "))
		}
		f, err := numberOperand(m[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = f
	}
	return out, nil
}

// RangeBounds are the bounds of a numeric range; nil bounds are open.
type RangeBounds struct {
	GT, GTE, LT, LTE *float64
}

type rangeMatcher struct {
	b      RangeBounds
	coerce bool
}

func newRangeMatcher(operand any, opts MatcherOptions) (Matcher, error) {
	f, err := numberFields(operand, "gt", "gte", "lt", "lte")
	if err != nil {
		return nil, err
	}
	var b RangeBounds
	for k, v := range f {
		v := v
		switch k {
		case "gt":
			b.GT = &v
		case "gte":
			b.GTE = &v
		case "lt":
			b.LT = &v
		case "lte":
			b.LTE = &v
		}
	}
	if b.GT != nil && b.GTE != nil || b.LT != nil && b.LTE != nil {
		return nil, fmt.Errorf("give at most one lower bound (gt or gte) and one upper bound (lt or lte)")
	}
	lo, hi := b.lower(), b.upper()
	if lo > hi {
		return nil, fmt.Errorf("lower bound %v is above upper bound %v", lo, hi)
	}
	return rangeMatcher{b: b, coerce: opts.CoerceStrings}, nil
}

// InRange returns a matcher for numbers within the bounds.
func InRange(b RangeBounds) Matcher { return rangeMatcher{b: b} }

func (b RangeBounds) lower() float64 {
	switch {
	case b.GT != nil:
		return *b.GT
	case b.GTE != nil:
		return *b.GTE
	}
	return math.Inf(-1)
}

func (b RangeBounds) upper() float64 {
	switch {
	case b.LT != nil:
		return *b.LT
	case b.LTE != nil:
		return *b.LTE
	}
	return math.Inf(1)
}

func (m rangeMatcher) Match(v jsonv.Value) bool {
	f, ok := numberOf(v, m.coerce)
	if !ok || math.IsNaN(f) {
		return false
	}
	b := m.b
	return (b.GT == nil || f > *b.GT) && (b.GTE == nil || f >= *b.GTE) &&
		(b.LT == nil || f < *b.LT) && (b.LTE == nil || f <= *b.LTE)
}

func (m rangeMatcher) String() string {
	var parts []string
	add := func(op string, p *float64) {
		if p != nil {
			parts = append(parts, op+" "+jsonv.FormatJSNumber(*p))
		}
	}
	add(">", m.b.GT)
	add(">=", m.b.GTE)
	add("<", m.b.LT)
	add("<=", m.b.LTE)
	return "number " + strings.Join(parts, " and ")
}

type toleranceMatcher struct {
	value, abs, rel float64
	coerce          bool
}

func newToleranceMatcher(operand any, opts MatcherOptions) (Matcher, error) {
	f, err := numberFields(operand, "value", "abs", "rel")
	if err != nil {
		return nil, err
	}
	value, ok := f["value"]
	if !ok {
		return nil, fmt.Errorf("value is required")
	}
	if f["abs"] < 0 || f["rel"] < 0 {
		return nil, fmt.Errorf("abs and rel must not be negative")
	}
	if _, hasAbs := f["abs"]; !hasAbs {
		if _, hasRel := f["rel"]; !hasRel {
			return nil, fmt.Errorf("give abs, rel or both")
		}
	}
	return toleranceMatcher{value: value, abs: f["abs"], rel: f["rel"], coerce: opts.CoerceStrings}, nil
}

// Approx returns a matcher for numbers within abs, or within rel times the
// larger magnitude, of value (the rule of Python's math.isclose).
func Approx(value, abs, rel float64) Matcher {
	return toleranceMatcher{value: value, abs: abs, rel: rel}
}

func (m toleranceMatcher) Match(v jsonv.Value) bool {
	f, ok := numberOf(v, m.coerce)
	if !ok {
		return false
	}
	diff := math.Abs(f - m.value)
	return diff <= m.abs || diff <= m.rel*math.Max(math.Abs(f), math.Abs(m.value))
}

func (m toleranceMatcher) String() string {
	s := "≈ " + jsonv.FormatJSNumber(m.value)
	if m.abs > 0 {
		s += " ±" + jsonv.FormatJSNumber(m.abs)
	}
	if m.rel > 0 {
		s += fmt.Sprintf(" (rel %s)", jsonv.FormatJSNumber(m.rel))
	}
	return s
}
