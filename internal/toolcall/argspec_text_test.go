package toolcall

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// TestEvaluateTextDecides pins down which arguments the one-pass check
// decides by itself: plain comparisons that pass. Everything else must be
// left to the index (TestNativeReadsDocumentsAsTrees checks that both give
// the same result); a case that flips to false here means the common case
// lost its fast path.
func TestEvaluateTextDecides(t *testing.T) {
	const weather = `{"city":"Paris","days":3,"filters":{"unit":"celsius","tags":["a","b"]}}`
	tests := []struct {
		name, want, text string
		extra            ExtraPolicy
		coerce           bool
		decided          bool
	}{
		{name: "every check passes", want: weather, text: weather, decided: true},
		{name: "members in another order, spaced", want: weather, text: ` {"filters" : {"tags":[ "a","b" ],"unit":"celsius"}, "days":3, "city":"Paris"} `, decided: true},
		{name: "extras allowed", want: `{"city":"Paris"}`, text: `{"units":{"a":[1,{"b":"\u00e9"}]},"city":"Paris","n":-1.5e3,"ok":false,"x":null}`, decided: true},
		{name: "number written another way", want: `{"days":3}`, text: `{"days":3.0}`, decided: true},
		{name: "null, booleans and empty containers", want: `{"a":null,"b":[true,null],"c":[],"d":{}}`, text: `{"a":null,"b":[true,null],"c":[],"d":{}}`, decided: true},
		{name: "scalars of the same kind under coercion", want: `{"city":"Paris"}`, text: `{"city":"Paris"}`, coerce: true, decided: true},
		{name: "a value differs", want: weather, text: `{"city":"Lyon","days":3,"filters":{"unit":"celsius","tags":["a","b"]}}`},
		{name: "a member is missing", want: weather, text: `{"city":"Paris","days":3}`},
		{name: "an array is longer", want: `{"tags":["a"]}`, text: `{"tags":["a","b"]}`},
		{name: "an array is shorter", want: `{"tags":["a","b"]}`, text: `{"tags":["a"]}`},
		{name: "an expected member repeats", want: `{"city":"Paris"}`, text: `{"city":"Paris","city":"Paris"}`},
		{name: "an escaped key", want: `{"city":"Paris"}`, text: `{"ci\u0074y":"Paris"}`},
		{name: "an escaped value", want: `{"city":"Paris"}`, text: `{"city":"Par\u0069s"}`},
		{name: "null for a number", want: `{"days":3}`, text: `{"days":null}`},
		{name: "a number for null", want: `{"days":null}`, text: `{"days":3}`},
		{name: "kinds differ", want: `{"days":3}`, text: `{"days":"3"}`},
		{name: "kinds differ under coercion", want: `{"days":3}`, text: `{"days":"3"}`, coerce: true},
		{name: "an array under coercion, written as expected", want: `{"tags":["a","b"]}`, text: `{"tags": ["a", "b"]}`, coerce: true, decided: true},
		{name: "an array under coercion, written otherwise", want: `{"tags":["a","b"]}`, text: `{"tags":[ "a","b"]}`, coerce: true},
		{name: "written as Python writes it", want: weather, text: `{"city": "Paris", "days": 3, "filters": {"unit": "celsius", "tags": ["a", "b"]}}`, decided: true},
		{name: "a number that starts as expected", want: `{"days":3}`, text: `{"days":30}`},
		{name: "a number that starts as expected, spaced", want: `{"days":3,"n":1}`, text: `{"days": 3.5, "n": 1}`},
		{name: "an integer past 2^53 that rounds to the expected one", want: `{"id":9007199254740993}`, text: `{"id":9007199254740992}`},
		{name: "an integer past 2^53 written as expected", want: `{"id":9007199254740993}`, text: `{"id":9007199254740993}`, decided: true},
		{name: "a template that is only a prefix of the key", want: `{"city":"Paris"}`, text: `{"city":"Paris","cityx":1}`, decided: true},
		{name: "an array of objects", want: `{"list":[{"x":1}]}`, text: `{"list":[{"x":1}]}`},
		{name: "extras counted", want: `{"city":"Paris"}`, text: `{"city":"Paris","n":1}`, extra: ExtraPenalize},
		{name: "no extras, policy counts them", want: `{"city":"Paris"}`, text: `{"city":"Paris"}`, extra: ExtraFail, decided: true},
		{name: "not an object", want: `{"city":"Paris"}`, text: `["Paris"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp := Expectation{ExtraArgs: tt.extra, CoerceStrings: tt.coerce, Calls: []ExpectedCall{want("f", tt.want)}}
			calls, err := compileExpectation(exp)
			require.NoError(t, err)
			spec := &calls[0].spec
			var tally argTally
			score, decided := spec.evaluateText(tt.text, &tally)
			require.Equal(t, tt.decided, decided)
			if !decided {
				require.Equal(t, argTally{}, tally, "an undecided check must leave the tally as it was")
				return
			}
			require.Equal(t, 1.0, score)
			require.Equal(t, spec.root.checks, tally.total)
			require.Equal(t, tally.total, tally.passed)
		})
	}
}

// TestNativeReportsInvalidDeferredDocument checks that a deferred document
// found not to be JSON when the native scorer reads it makes the result
// ErrInvalidDocument (the caller then scores from decoded arguments), and
// that one the scorer never reads does not.
func TestNativeReportsInvalidDeferredDocument(t *testing.T) {
	s, err := NewNative(Expectation{Calls: []ExpectedCall{want("get_weather", `{"city":"Paris"}`)}}, 0.5)
	require.NoError(t, err)
	for _, tt := range []struct {
		name, tool, text string
		invalid          bool
	}{
		{"truncated", "get_weather", `{"city":"Par`, true},
		{"a Python literal", "get_weather", `{'city': 'Paris'}`, true},
		{"trailing text", "get_weather", `{"city":"Paris"} x`, true},
		{"JSON", "get_weather", `{"city":"Paris"}`, false},
		{"not read: another tool", "search", `{'q': 1}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := jsonv.DeferredDocument(tt.text)
			kind := jsonv.KindObject
			if _, err := jsonv.Parse(tt.text); err != nil {
				kind = jsonv.KindUndefined // as Value reads it
			}
			require.Equal(t, kind, doc.Kind())
			res := s.Score(context.Background(), NumberCalls([]Call{{Name: tt.tool, ArgsDoc: &doc}}))
			require.Equal(t, tt.invalid, errors.Is(res.Err, jsonv.ErrInvalidDocument), "result %+v", res)
			if tt.invalid {
				require.Equal(t, OutcomeError, res.Outcome)
			}
		})
	}
}
