package toolcall

import (
	"fmt"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

type notMatcher struct{ m Matcher }

func newNotMatcher(operand any, opts MatcherOptions) (Matcher, error) {
	m, err := ParseMatcher(operand, opts)
	if err != nil {
		return nil, err
	}
	return Not(m), nil
}

// Not returns a matcher that accepts what m rejects.
func Not(m Matcher) Matcher { return notMatcher{m: m} }

func (m notMatcher) Match(v jsonv.Value) bool { return !m.m.Match(v) }
func (m notMatcher) String() string           { return "not (" + m.m.String() + ")" }

type anyOfMatcher struct{ ms []Matcher }

func newAnyOfMatcher(operand any, opts MatcherOptions) (Matcher, error) {
	ms, err := parseMatcherList(operand, opts)
	if err != nil {
		return nil, err
	}
	return AnyOf(ms...), nil
}

// AnyOf returns a matcher that accepts what any of ms accepts. The common
// "optional argument" idiom is AnyOf(Absent(), m).
func AnyOf(ms ...Matcher) Matcher { return anyOfMatcher{ms: ms} }

func (m anyOfMatcher) Match(v jsonv.Value) bool {
	for _, x := range m.ms {
		if x.Match(v) {
			return true
		}
	}
	return false
}
func (m anyOfMatcher) String() string { return "any of (" + joinMatchers(m.ms, " | ") + ")" }

type allOfMatcher struct{ ms []Matcher }

func newAllOfMatcher(operand any, opts MatcherOptions) (Matcher, error) {
	ms, err := parseMatcherList(operand, opts)
	if err != nil {
		return nil, err
	}
	return AllOf(ms...), nil
}

// AllOf returns a matcher that accepts what every one of ms accepts.
func AllOf(ms ...Matcher) Matcher { return allOfMatcher{ms: ms} }

func (m allOfMatcher) Match(v jsonv.Value) bool {
	for _, x := range m.ms {
		if !x.Match(v) {
			return false
		}
	}
	return true
}
func (m allOfMatcher) String() string { return "all of (" + joinMatchers(m.ms, " & ") + ")" }

type arrayOrSingleMatcher struct{ m Matcher }

func newArrayOrSingleMatcher(operand any, opts MatcherOptions) (Matcher, error) {
	m, err := ParseMatcher(operand, opts)
	if err != nil {
		return nil, err
	}
	return ArrayOrSingle(m), nil
}

// ArrayOrSingle returns a matcher that accepts a value m accepts, or a
// one-element array whose element m accepts.
func ArrayOrSingle(m Matcher) Matcher { return arrayOrSingleMatcher{m: m} }

func (m arrayOrSingleMatcher) Match(v jsonv.Value) bool {
	if v.Kind() == jsonv.KindArray {
		return len(v.Items()) == 1 && m.m.Match(v.Items()[0])
	}
	return m.m.Match(v)
}
func (m arrayOrSingleMatcher) String() string {
	return fmt.Sprintf("%s or [%s]", m.m.String(), m.m.String())
}
