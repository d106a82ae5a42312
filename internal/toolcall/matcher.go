package toolcall

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// Matcher tests one argument value. Matchers are immutable and safe for
// concurrent use.
type Matcher interface {
	// Match reports whether v satisfies the matcher; v is undefined when the
	// argument is absent.
	Match(v jsonv.Value) bool
	// String describes what the matcher accepts, for explanations.
	String() string
}

// MatcherOptions changes how matchers built by [ParseMatcher] compare values.
type MatcherOptions struct {
	// CoerceStrings compares numeric strings and numbers as numbers.
	CoerceStrings bool
}

// matcherFactory builds a matcher from the operand written after its name.
type matcherFactory func(operand any, opts MatcherOptions) (Matcher, error)

// matcherFactories maps each matcher name, as written in configuration, to
// its constructor. Matchers without an operand are also accepted as a bare
// string ("present").
var matcherFactories map[string]matcherFactory

// operandless lists the matchers that take no operand.
var operandless = map[string]Matcher{
	"any":     anyMatcher{},
	"present": presentMatcher{},
	"absent":  absentMatcher{},
	"null":    nullMatcher{},
	"empty":   emptyMatcher{},
}

func init() {
	matcherFactories = map[string]matcherFactory{
		"equals":           newEqualsMatcher,
		"one_of":           newOneOfMatcher,
		"type":             newTypeMatcher,
		"regex":            newRegexMatcher,
		"case_insensitive": newCaseInsensitiveMatcher,
		"normalized":       newNormalizedMatcher,
		"contains":         newContainsMatcher,
		"prefix":           newPrefixMatcher,
		"suffix":           newSuffixMatcher,
		"range":            newRangeMatcher,
		"tolerance":        newToleranceMatcher,
		"not":              newNotMatcher,
		"any_of":           newAnyOfMatcher,
		"all_of":           newAllOfMatcher,
		"array_or_single":  newArrayOrSingleMatcher,
		"subset_of":        newSubsetOfMatcher,
		"superset_of":      newSupersetOfMatcher,
		"array_ordered":    newArrayOrderedMatcher,
		"array_unordered":  newArrayUnorderedMatcher,
		"array_contains":   newArrayContainsMatcher,
		"each":             newEachMatcher,
	}
	for name, m := range operandless {
		m := m
		matcherFactories[name] = func(operand any, _ MatcherOptions) (Matcher, error) {
			if b, ok := operand.(bool); ok && b {
				return m, nil
			}
			if operand == nil {
				return m, nil
			}
			return nil, fmt.Errorf("takes no operand (write %q or %s: true)", m.String(), m.String())
		}
	}
}

// MatcherNames lists every matcher name ParseMatcher accepts, sorted.
func MatcherNames() []string {
	names := make([]string, 0, len(matcherFactories))
	for n := range matcherFactories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParseMatcher builds a matcher from its configuration form: a bare name for
// matchers without operand ("present", "absent", "any", "null", "empty"), or a
// map from matcher name to operand ({regex: "^Par"}, {one_of: [a, b]},
// {range: {gte: 1, lte: 7}}). A map with several names means all of them
// must match. Operands that are values (equals, one_of, subset_of, array_*)
// are literals; operands that are matchers (not, any_of, all_of, each,
// array_or_single) use this same form.
func ParseMatcher(spec any, opts MatcherOptions) (Matcher, error) {
	switch t := spec.(type) {
	case string:
		if m, ok := operandless[t]; ok {
			return m, nil
		}
		if _, ok := matcherFactories[t]; ok {
			return nil, fmt.Errorf("matcher %q needs an operand", t)
		}
		return nil, unknownMatcher(t)
	case map[string]any:
		if len(t) == 0 {
			return nil, fmt.Errorf("empty matcher")
		}
		names := make([]string, 0, len(t))
		for n := range t {
			names = append(names, n)
		}
		sort.Strings(names)
		ms := make([]Matcher, 0, len(names))
		for _, n := range names {
			f, ok := matcherFactories[n]
			if !ok {
				return nil, unknownMatcher(n)
			}
			m, err := f(t[n], opts)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", n, err)
			}
			ms = append(ms, m)
		}
		if len(ms) == 1 {
			return ms[0], nil
		}
		return allOfMatcher{ms: ms}, nil
	case Matcher:
		return t, nil
	}
	return nil, fmt.Errorf("a matcher is a name or a map of name to operand, got %T", spec)
}

func unknownMatcher(name string) error {
	return fmt.Errorf("unknown matcher %q (literal values belong in args; matchers are: %s)", name, strings.Join(MatcherNames(), ", "))
}

// parseMatcherList parses the operand of any_of / all_of.
func parseMatcherList(operand any, opts MatcherOptions) ([]Matcher, error) {
	list, ok := operand.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("expects a non-empty list of matchers, got %s", DescribeOperand(operand))
	}
	ms := make([]Matcher, len(list))
	for i, spec := range list {
		m, err := ParseMatcher(spec, opts)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		ms[i] = m
	}
	return ms, nil
}

func DescribeOperand(x any) string {
	if x == nil {
		return "nothing"
	}
	if v, err := jsonv.ValueOf(x); err == nil {
		return fmt.Sprintf("%s %s", v.Kind(), TruncateText(v.JSON(), 60))
	}
	switch f := x.(type) {
	case float64:
		return describeNonFinite(f)
	case float32:
		return describeNonFinite(float64(f))
	}
	return fmt.Sprintf("%T", x)
}

// describeNonFinite names a float that JSON cannot hold (the only floats
// jsonv.ValueOf refuses) as YAML writes it.
func describeNonFinite(f float64) string {
	switch {
	case math.IsNaN(f):
		return ".nan (NaN: not a JSON number)"
	case f > 0:
		return ".inf (infinity: not a JSON number)"
	}
	return "-.inf (infinity: not a JSON number)"
}

func joinMatchers(ms []Matcher, sep string) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.String()
	}
	return strings.Join(parts, sep)
}

// TruncateText shortens s to at most n bytes on a rune boundary, adding "…".
func TruncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
