package toolcall

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// deepArgs is arguments with a member nested deeper than maxParseDepth
// beside a plain one.
func deepArgs(city string) string {
	const levels = 300
	return `{"city":"` + city + `","deep":` + strings.Repeat("[", levels) + "1" + strings.Repeat("]", levels) + `}`
}

// TestParseDeepMemberIsUnknown checks that a member nested too deep is an
// unknown value, not a failure of the whole document.
func TestParseDeepMemberIsUnknown(t *testing.T) {
	v, err := jsonv.Parse(deepArgs("Paris"))
	require.NoError(t, err)
	city, _ := v.Get("city")
	assert.Equal(t, "Paris", city.StringValue())
	deep, ok := v.Get("deep")
	require.True(t, ok)
	for d := 1; d < jsonv.MaxParseDepth; d++ {
		require.Equal(t, jsonv.KindArray, deep.Kind(), "depth %d", d)
		deep = deep.Index(0)
	}
	assert.False(t, deep.IsUnknown())
	deep = deep.Index(0)
	assert.True(t, deep.IsUnknown(), "the value past the depth limit")

	var dp jsonv.DocumentParser
	doc, err := dp.Parse(deepArgs("Paris"))
	require.NoError(t, err)
	assert.Equal(t, v.JSON(), doc.Value().JSON())

	// Malformed text deep inside is still malformed, with Parse's error.
	for _, bad := range []string{
		`{"deep":` + strings.Repeat("[", 300) + "1" + strings.Repeat("]", 299) + `}`,
		`{"deep":` + strings.Repeat("[", 300) + "1,]" + strings.Repeat("]", 299) + `}`,
		strings.Repeat("[", 300),
	} {
		_, err := jsonv.Parse(bad)
		require.Error(t, err)
		_, derr := dp.Parse(bad)
		assert.Equal(t, err, derr)
	}
}

// TestNativeDeepMember checks that a member nested too deep leaves only the
// checks on it unevaluated: the other members are still checked.
func TestNativeDeepMember(t *testing.T) {
	score := func(t *testing.T, exp ExpectedCall, args string) []Result {
		t.Helper()
		s, err := NewNative(Expectation{Calls: []ExpectedCall{exp}}, 1)
		require.NoError(t, err)
		v, err := jsonv.Parse(args)
		require.NoError(t, err)
		var dp jsonv.DocumentParser
		doc, err := dp.Parse(args)
		require.NoError(t, err)
		deferred := jsonv.DeferredDocument(args)
		var out []Result
		for _, c := range []Call{{Name: "weather", Args: v}, {Name: "weather", ArgsDoc: &doc}, {Name: "weather", ArgsDoc: &deferred}} {
			res := s.Score(context.Background(), NumberCalls([]Call{c}))
			require.NoError(t, res.Err)
			out = append(out, res)
		}
		return out
	}
	t.Run("wrong city fails", func(t *testing.T) {
		for _, res := range score(t, want("weather", `{"city":"London"}`), deepArgs("Paris")) {
			assert.False(t, res.Passed(), res.Explanation)
			assert.Contains(t, res.Explanation, `city: expected "London", got "Paris"`)
		}
	})
	t.Run("right city passes", func(t *testing.T) {
		for _, res := range score(t, want("weather", `{"city":"Paris"}`), deepArgs("Paris")) {
			assert.True(t, res.Passed(), res.Explanation)
		}
	})
	t.Run("check on the deep member is not evaluable", func(t *testing.T) {
		exp := withMatcher(want("weather", `{"city":"Paris"}`), "deep", "present")
		for _, res := range score(t, exp, deepArgs("Paris")) {
			require.Len(t, res.Breakdown.Pairs, 1)
			mms := res.Breakdown.PairMismatches(&res.Breakdown.Pairs[0])
			require.Len(t, mms, 1, res.Explanation)
			mm := mms[0]
			assert.True(t, mm.Unevaluable(), "reported as not evaluable")
			assert.Equal(t, "deep", mm.Path)
			assert.Contains(t, res.Explanation, "deep: not evaluable")
		}
	})
	t.Run("deep literal is not matched", func(t *testing.T) {
		// The expected literal is as deep: neither side is read whole.
		for _, res := range score(t, want("weather", deepArgs("Paris")), deepArgs("Paris")) {
			require.Len(t, res.Breakdown.Pairs, 1)
			mms := res.Breakdown.PairMismatches(&res.Breakdown.Pairs[0])
			require.Len(t, mms, 1, res.Explanation)
			assert.True(t, mms[0].Unevaluable())
			assert.Equal(t, "deep", mms[0].Path)
		}
	})
}
