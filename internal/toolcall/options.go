package toolcall

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// OptionReader decodes a scorer's options map, collecting every problem and
// rejecting options the scorer does not read. Errors read
// `mongodb: option "x": ...` so a configuration error names the field.
type OptionReader struct {
	Scorer string
	Opts   map[string]any
	Known  []string
	Errs   []error
}

func NewOptionReader(scorer string, opts map[string]any) *OptionReader {
	return &OptionReader{Scorer: scorer, Opts: opts}
}

func (r *OptionReader) Fail(key string, format string, args ...any) {
	r.Errs = append(r.Errs, fmt.Errorf("%s: option %q: %s", r.Scorer, key, fmt.Sprintf(format, args...)))
}

// Raw returns the option's value as written, for options with a structure
// of their own, and marks the key as known.
func (r *OptionReader) Raw(key string) (any, bool) {
	r.Known = append(r.Known, key)
	v, ok := r.Opts[key]
	if ok && v == nil {
		return nil, false
	}
	return v, ok
}

// IsEmptyList reports whether an option value is an empty list.
func IsEmptyList(x any) bool {
	switch l := x.(type) {
	case []any:
		return len(l) == 0
	case []string:
		return len(l) == 0
	}
	return false
}

// String reads a string option; allowed, when given, lists the valid values.
func (r *OptionReader) String(key, def string, allowed ...string) string {
	x, ok := r.Raw(key)
	if !ok {
		return def
	}
	s, isStr := x.(string)
	if !isStr {
		r.Fail(key, "expects a string, got %s", DescribeOperand(x))
		return def
	}
	if len(allowed) > 0 {
		for _, a := range allowed {
			if s == a {
				return s
			}
		}
		r.Fail(key, "invalid value %q, expected one of %q", s, allowed)
		return def
	}
	return s
}

// Bool reads a boolean option.
func (r *OptionReader) Bool(key string, def bool) bool {
	x, ok := r.Raw(key)
	if !ok {
		return def
	}
	b, isBool := x.(bool)
	if !isBool {
		r.Fail(key, "expects true or false, got %s", DescribeOperand(x))
		return def
	}
	return b
}

// Float reads a numeric option and checks it lies in [lo, hi].
func (r *OptionReader) Float(key string, def, lo, hi float64) float64 {
	x, ok := r.Raw(key)
	if !ok {
		return def
	}
	v, err := jsonv.ValueOf(x)
	if err != nil || v.Kind() != jsonv.KindNumber {
		r.Fail(key, "expects a number, got %s", DescribeOperand(x))
		return def
	}
	if v.NumberValue() < lo || v.NumberValue() > hi {
		r.Fail(key, "%s is outside [%s, %s]", jsonv.FormatJSNumber(v.NumberValue()), jsonv.FormatJSNumber(lo), jsonv.FormatJSNumber(hi))
		return def
	}
	return v.NumberValue()
}

// Int reads an integer option in [lo, hi].
func (r *OptionReader) Int(key string, def, lo, hi int) int {
	x, ok := r.Raw(key)
	if !ok {
		return def
	}
	v, err := jsonv.ValueOf(x)
	if err != nil || !v.IsInteger() {
		r.Fail(key, "expects an integer, got %s", DescribeOperand(x))
		return def
	}
	if v.NumberValue() < float64(lo) || v.NumberValue() > float64(hi) {
		r.Fail(key, "%s is outside [%d, %d]", jsonv.FormatJSNumber(v.NumberValue()), lo, hi)
		return def
	}
	return int(v.NumberValue())
}

// OptionalFloat reads a numeric option that may be absent.
func (r *OptionReader) OptionalFloat(key string, lo, hi float64) (float64, bool) {
	if _, ok := r.Opts[key]; !ok || r.Opts[key] == nil {
		r.Known = append(r.Known, key)
		return 0, false
	}
	return r.Float(key, 0, lo, hi), true
}

// Strings reads a list of strings.
func (r *OptionReader) Strings(key string) []string {
	x, ok := r.Raw(key)
	if !ok {
		return nil
	}
	list, isList := x.([]any)
	if !isList {
		if ss, isSS := x.([]string); isSS {
			return ss
		}
		r.Fail(key, "expects a list of strings, got %s", DescribeOperand(x))
		return nil
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, isStr := e.(string)
		if !isStr {
			r.Fail(key, "[%d]: expects a string, got %s", i, DescribeOperand(e))
			continue
		}
		out = append(out, s)
	}
	return out
}

// Value reads an option holding JSON-like data.
func (r *OptionReader) Value(key string) (jsonv.Value, bool) {
	x, ok := r.Raw(key)
	if !ok {
		return jsonv.Value{}, false
	}
	v, err := jsonv.ValueOf(x)
	if err != nil {
		r.Fail(key, "%v", err)
		return jsonv.Value{}, false
	}
	return v, true
}

// Err returns every problem found, including options the scorer never read.
func (r *OptionReader) Err() error {
	known := make(map[string]bool, len(r.Known))
	for _, k := range r.Known {
		known[k] = true
	}
	var unknown []string
	for k := range r.Opts {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	names := append([]string(nil), r.Known...)
	sort.Strings(names)
	for _, k := range unknown {
		if len(names) == 0 {
			r.Errs = append(r.Errs, fmt.Errorf("%s: unknown option %q (this scorer takes no options)", r.Scorer, k))
			continue
		}
		r.Errs = append(r.Errs, fmt.Errorf("%s: unknown option %q, expected one of %s", r.Scorer, k, QuoteJoin(names)))
	}
	return errors.Join(r.Errs...)
}

func QuoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
