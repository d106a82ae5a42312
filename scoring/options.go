package scoring

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// optionReader decodes a scorer's options map, collecting every problem and
// rejecting options the scorer does not read. Errors read
// `mongodb: option "x": ...` so a configuration error names the field.
type optionReader struct {
	scorer string
	opts   map[string]any
	known  []string
	errs   []error
}

func newOptionReader(scorer string, opts map[string]any) *optionReader {
	return &optionReader{scorer: scorer, opts: opts}
}

func (r *optionReader) fail(key string, format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf("%s: option %q: %s", r.scorer, key, fmt.Sprintf(format, args...)))
}

// raw returns the option's value and marks the key as known.
func (r *optionReader) raw(key string) (any, bool) {
	r.known = append(r.known, key)
	v, ok := r.opts[key]
	if ok && v == nil {
		return nil, false
	}
	return v, ok
}

// isEmptyList reports whether an option value is an empty list.
func isEmptyList(x any) bool {
	switch l := x.(type) {
	case []any:
		return len(l) == 0
	case []string:
		return len(l) == 0
	}
	return false
}

// Raw returns an option's value as written, for options with a structure of
// their own.
func (r *optionReader) Raw(key string) (any, bool) { return r.raw(key) }

// String reads a string option; allowed, when given, lists the valid values.
func (r *optionReader) String(key, def string, allowed ...string) string {
	x, ok := r.raw(key)
	if !ok {
		return def
	}
	s, isStr := x.(string)
	if !isStr {
		r.fail(key, "expects a string, got %s", describeOperand(x))
		return def
	}
	if len(allowed) > 0 {
		for _, a := range allowed {
			if s == a {
				return s
			}
		}
		r.fail(key, "invalid value %q, expected one of %q", s, allowed)
		return def
	}
	return s
}

// Bool reads a boolean option.
func (r *optionReader) Bool(key string, def bool) bool {
	x, ok := r.raw(key)
	if !ok {
		return def
	}
	b, isBool := x.(bool)
	if !isBool {
		r.fail(key, "expects true or false, got %s", describeOperand(x))
		return def
	}
	return b
}

// Float reads a numeric option and checks it lies in [lo, hi].
func (r *optionReader) Float(key string, def, lo, hi float64) float64 {
	x, ok := r.raw(key)
	if !ok {
		return def
	}
	v, err := ValueOf(x)
	if err != nil || v.Kind() != KindNumber {
		r.fail(key, "expects a number, got %s", describeOperand(x))
		return def
	}
	if v.num < lo || v.num > hi {
		r.fail(key, "%s is outside [%s, %s]", formatJSNumber(v.num), formatJSNumber(lo), formatJSNumber(hi))
		return def
	}
	return v.num
}

// Int reads an integer option in [lo, hi].
func (r *optionReader) Int(key string, def, lo, hi int) int {
	x, ok := r.raw(key)
	if !ok {
		return def
	}
	v, err := ValueOf(x)
	if err != nil || !v.IsInteger() {
		r.fail(key, "expects an integer, got %s", describeOperand(x))
		return def
	}
	if v.num < float64(lo) || v.num > float64(hi) {
		r.fail(key, "%s is outside [%d, %d]", formatJSNumber(v.num), lo, hi)
		return def
	}
	return int(v.num)
}

// OptionalFloat reads a numeric option that may be absent.
func (r *optionReader) OptionalFloat(key string, lo, hi float64) (float64, bool) {
	if _, ok := r.opts[key]; !ok || r.opts[key] == nil {
		r.known = append(r.known, key)
		return 0, false
	}
	return r.Float(key, 0, lo, hi), true
}

// Strings reads a list of strings.
func (r *optionReader) Strings(key string) []string {
	x, ok := r.raw(key)
	if !ok {
		return nil
	}
	list, isList := x.([]any)
	if !isList {
		if ss, isSS := x.([]string); isSS {
			return ss
		}
		r.fail(key, "expects a list of strings, got %s", describeOperand(x))
		return nil
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, isStr := e.(string)
		if !isStr {
			r.fail(key, "[%d]: expects a string, got %s", i, describeOperand(e))
			continue
		}
		out = append(out, s)
	}
	return out
}

// Value reads an option holding JSON-like data.
func (r *optionReader) Value(key string) (Value, bool) {
	x, ok := r.raw(key)
	if !ok {
		return Value{}, false
	}
	v, err := ValueOf(x)
	if err != nil {
		r.fail(key, "%v", err)
		return Value{}, false
	}
	return v, true
}

// Err returns every problem found, including options the scorer never read.
func (r *optionReader) Err() error {
	known := make(map[string]bool, len(r.known))
	for _, k := range r.known {
		known[k] = true
	}
	var unknown []string
	for k := range r.opts {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	names := append([]string(nil), r.known...)
	sort.Strings(names)
	for _, k := range unknown {
		if len(names) == 0 {
			r.errs = append(r.errs, fmt.Errorf("%s: unknown option %q (this scorer takes no options)", r.scorer, k))
			continue
		}
		r.errs = append(r.errs, fmt.Errorf("%s: unknown option %q, expected one of %s", r.scorer, k, quoteJoin(names)))
	}
	return errors.Join(r.errs...)
}

func quoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
