package toolcall

import (
	"fmt"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// objectMatcher implements subset_of and superset_of.
type objectMatcher struct {
	ref      jsonv.Value
	superset bool
	coerce   bool
}

func newObjectMatcher(superset bool) matcherFactory {
	return func(operand any, opts MatcherOptions) (Matcher, error) {
		v, err := literalOperand(operand)
		if err != nil {
			return nil, err
		}
		if v.Kind() != jsonv.KindObject {
			return nil, fmt.Errorf("expects an object, got %s", DescribeOperand(operand))
		}
		return objectMatcher{ref: v, superset: superset, coerce: opts.CoerceStrings}, nil
	}
}

var (
	newSubsetOfMatcher   = newObjectMatcher(false)
	newSupersetOfMatcher = newObjectMatcher(true)
)

// SupersetOf returns a matcher for objects that have every member of ref with
// an equal value; other members are allowed.
func SupersetOf(ref jsonv.Value) Matcher { return objectMatcher{ref: ref, superset: true} }

// SubsetOf returns a matcher for objects whose every member appears in ref
// with an equal value; members of ref may be missing.
func SubsetOf(ref jsonv.Value) Matcher { return objectMatcher{ref: ref} }

func (m objectMatcher) Match(v jsonv.Value) bool {
	if v.Kind() != jsonv.KindObject {
		return false
	}
	small, big := v, m.ref
	if m.superset {
		small, big = m.ref, v
	}
	for i := 0; i < len(small.Items()); i += 2 {
		bv, ok := big.Get(small.Items()[i].Literal())
		if !ok || !equalValues(small.Items()[i+1], bv, m.coerce) {
			return false
		}
	}
	return true
}

func (m objectMatcher) String() string {
	if m.superset {
		return "object containing " + TruncateText(m.ref.JSON(), 80)
	}
	return "object within " + TruncateText(m.ref.JSON(), 80)
}

// arrayMode says how array_* matchers compare elements.
type arrayMode uint8

const (
	arrayOrdered arrayMode = iota
	arrayUnordered
	arrayContains
)

var arrayModeNames = [...]string{"array", "array in any order", "array containing"}

type arrayMatcher struct {
	items  []jsonv.Value
	mode   arrayMode
	coerce bool
}

func newArrayMatcher(mode arrayMode) matcherFactory {
	return func(operand any, opts MatcherOptions) (Matcher, error) {
		v, err := literalOperand(operand)
		if err != nil {
			return nil, err
		}
		if v.Kind() != jsonv.KindArray {
			return nil, fmt.Errorf("expects a list, got %s", DescribeOperand(operand))
		}
		return arrayMatcher{items: v.Items(), mode: mode, coerce: opts.CoerceStrings}, nil
	}
}

var (
	newArrayOrderedMatcher   = newArrayMatcher(arrayOrdered)
	newArrayUnorderedMatcher = newArrayMatcher(arrayUnordered)
	newArrayContainsMatcher  = newArrayMatcher(arrayContains)
)

// ArrayOrdered returns a matcher for arrays equal to items element by element.
func ArrayOrdered(items ...jsonv.Value) Matcher {
	return arrayMatcher{items: items, mode: arrayOrdered}
}

// ArrayUnordered returns a matcher for arrays holding the same elements as
// items, as a multiset, in any order.
func ArrayUnordered(items ...jsonv.Value) Matcher {
	return arrayMatcher{items: items, mode: arrayUnordered}
}

// ArrayContains returns a matcher for arrays that hold every one of items
// (duplicates counted); other elements are allowed.
func ArrayContains(items ...jsonv.Value) Matcher {
	return arrayMatcher{items: items, mode: arrayContains}
}

func (m arrayMatcher) Match(v jsonv.Value) bool {
	if v.Kind() != jsonv.KindArray {
		return false
	}
	switch m.mode {
	case arrayOrdered:
		if len(v.Items()) != len(m.items) {
			return false
		}
		for i := range m.items {
			if !equalValues(v.Items()[i], m.items[i], m.coerce) {
				return false
			}
		}
		return true
	case arrayUnordered:
		if len(v.Items()) != len(m.items) {
			return false
		}
	}
	// Equality is transitive, so greedy multiset matching is exact here.
	used := make([]bool, len(v.Items()))
	for _, want := range m.items {
		found := false
		for j, got := range v.Items() {
			if !used[j] && equalValues(got, want, m.coerce) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (m arrayMatcher) String() string {
	return arrayModeNames[m.mode] + " " + TruncateText(jsonv.Array(m.items...).JSON(), 80)
}

type eachMatcher struct{ m Matcher }

func newEachMatcher(operand any, opts MatcherOptions) (Matcher, error) {
	m, err := ParseMatcher(operand, opts)
	if err != nil {
		return nil, err
	}
	return Each(m), nil
}

// Each returns a matcher for arrays whose every element m accepts (an empty
// array passes).
func Each(m Matcher) Matcher { return eachMatcher{m: m} }

func (m eachMatcher) Match(v jsonv.Value) bool {
	if v.Kind() != jsonv.KindArray {
		return false
	}
	for _, it := range v.Items() {
		if !m.m.Match(it) {
			return false
		}
	}
	return true
}
func (m eachMatcher) String() string { return "each element " + m.m.String() }
