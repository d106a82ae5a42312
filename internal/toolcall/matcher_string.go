package toolcall

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// textOf returns the text a value is matched as by string matchers: the
// string itself, or with coercion a number's JSON text.
func textOf(v jsonv.Value, coerce bool) (string, bool) {
	switch {
	case v.Kind() == jsonv.KindString:
		return v.Literal(), true
	case coerce && v.Kind() == jsonv.KindNumber:
		return jsonv.FormatJSNumber(v.NumberValue()), true
	}
	return "", false
}

func stringOperand(operand any) (string, error) {
	s, ok := operand.(string)
	if !ok {
		return "", fmt.Errorf("expects a string, got %s", DescribeOperand(operand))
	}
	return s, nil
}

type regexMatcher struct {
	re     *regexp.Regexp
	coerce bool
}

func newRegexMatcher(operand any, opts MatcherOptions) (Matcher, error) {
	s, err := stringOperand(operand)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("invalid regex %q: %w", s, err)
	}
	return regexMatcher{re: re, coerce: opts.CoerceStrings}, nil
}

// Regex returns a matcher for strings matched by the RE2 expression re
// (unanchored: add ^ and $ to match the whole string).
func Regex(re *regexp.Regexp) Matcher { return regexMatcher{re: re} }

func (m regexMatcher) Match(v jsonv.Value) bool {
	s, ok := textOf(v, m.coerce)
	return ok && m.re.MatchString(s)
}
func (m regexMatcher) String() string { return "regex " + strconv.Quote(m.re.String()) }

type CaseInsensitiveMatcher struct {
	Want string
}

func newCaseInsensitiveMatcher(operand any, _ MatcherOptions) (Matcher, error) {
	s, err := stringOperand(operand)
	if err != nil {
		return nil, err
	}
	return CaseInsensitive(s), nil
}

// CaseInsensitive returns a matcher for strings equal to want ignoring case
// (Unicode simple folding).
func CaseInsensitive(want string) Matcher { return CaseInsensitiveMatcher{Want: want} }

func (m CaseInsensitiveMatcher) Match(v jsonv.Value) bool {
	return v.Kind() == jsonv.KindString && strings.EqualFold(v.Literal(), m.Want)
}
func (m CaseInsensitiveMatcher) String() string {
	return "case-insensitive " + strconv.Quote(m.Want)
}

type normalizedMatcher struct {
	want string
	norm string
}

func newNormalizedMatcher(operand any, _ MatcherOptions) (Matcher, error) {
	s, err := stringOperand(operand)
	if err != nil {
		return nil, err
	}
	return Normalized(s), nil
}

// Normalized returns a matcher that compares strings after the Berkeley
// Function Calling Leaderboard's normalisation: lower-case, drop spaces and
// the characters , . / - _ * ^, and read ' as ".
func Normalized(want string) Matcher { return normalizedMatcher{want: want, norm: NormalizeBFCL(want)} }

// NormalizeBFCL applies the BFCL AST checker's string normalisation.
func NormalizeBFCL(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	for _, r := range strings.ToLower(s) {
		switch r {
		case ' ', ',', '.', '/', '-', '_', '*', '^':
			continue
		case '\'':
			sb.WriteByte('"')
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

func (m normalizedMatcher) Match(v jsonv.Value) bool {
	return v.Kind() == jsonv.KindString && NormalizeBFCL(v.Literal()) == m.norm
}
func (m normalizedMatcher) String() string { return "normalized " + strconv.Quote(m.want) }

// affixMatcher implements contains, prefix and suffix.
type affixMatcher struct {
	op     string
	text   string
	test   func(s, sub string) bool
	coerce bool
}

func newAffix(op string, test func(s, sub string) bool) matcherFactory {
	return func(operand any, opts MatcherOptions) (Matcher, error) {
		s, err := stringOperand(operand)
		if err != nil {
			return nil, err
		}
		return affixMatcher{op: op, text: s, test: test, coerce: opts.CoerceStrings}, nil
	}
}

var (
	newContainsMatcher = newAffix("contains", strings.Contains)
	newPrefixMatcher   = newAffix("prefix", strings.HasPrefix)
	newSuffixMatcher   = newAffix("suffix", strings.HasSuffix)
)

// Contains returns a matcher for strings containing sub.
func Contains(sub string) Matcher {
	return affixMatcher{op: "contains", text: sub, test: strings.Contains}
}

// HasPrefix returns a matcher for strings starting with prefix.
func HasPrefix(prefix string) Matcher {
	return affixMatcher{op: "prefix", text: prefix, test: strings.HasPrefix}
}

// HasSuffix returns a matcher for strings ending with suffix.
func HasSuffix(suffix string) Matcher {
	return affixMatcher{op: "suffix", text: suffix, test: strings.HasSuffix}
}

func (m affixMatcher) Match(v jsonv.Value) bool {
	s, ok := textOf(v, m.coerce)
	return ok && m.test(s, m.text)
}
func (m affixMatcher) String() string { return m.op + " " + strconv.Quote(m.text) }
