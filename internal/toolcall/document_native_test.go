package toolcall

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// asDocuments returns calls with their arguments given as documents, as the
// processor gives them, parsed from the arguments' JSON serialisation.
func asDocuments(t testing.TB, calls []Call) []Call {
	t.Helper()
	var dp jsonv.DocumentParser
	out := make([]Call, len(calls))
	for i, c := range calls {
		if c.Args.Kind() != jsonv.KindUndefined {
			doc, err := dp.Parse(c.Args.JSON())
			require.NoError(t, err)
			c.ArgsDoc, c.Args = &doc, jsonv.Value{}
		}
		c.Children = asDocuments(t, c.Children)
		out[i] = c
	}
	return out
}

// TestNativeReadsDocumentsAsTrees scores the same calls from trees and from
// documents under every argument-check shape, reporting on, and requires the
// same result.
func TestNativeReadsDocumentsAsTrees(t *testing.T) {
	exps := []Expectation{
		{Calls: []ExpectedCall{want("get_weather", `{"city":"Paris","days":3,"filters":{"unit":"celsius","tags":["a","b"]}}`)}},
		{ExtraArgs: ExtraFail, Calls: []ExpectedCall{want("get_weather", `{"city":"Paris"}`)}},
		{ExtraArgs: ExtraPenalize, Credit: CreditAllOrNothing, Calls: []ExpectedCall{want("get_weather", `{"filters":{"unit":"celsius"}}`)}},
		{CoerceStrings: true, Calls: []ExpectedCall{want("get_weather", `{"days":"3","filters":{"tags":["a","b"]}}`)}},
		{Calls: []ExpectedCall{withMatcher(withMatcher(want("get_weather", ""), "filters.tags[*]", map[string]any{"type": "string"}), "days", map[string]any{"range": map[string]any{"gte": 2}})}},
		{Calls: []ExpectedCall{withMatcher(want("get_weather", `{"city":"Paris"}`), "filters.tags[1]", map[string]any{"equals": "b"})}},
		{Calls: []ExpectedCall{want("get_weather", `{"list":[{"x":1,"y":[2]},"z"]}`)}},
		{Calls: []ExpectedCall{want("get_weather", `{"city":"Paris","unit":null,"tags":[null,true,1.5,"a"],"empty":[],"none":{}}`)}},
		{ExtraArgs: ExtraPenalize, Calls: []ExpectedCall{want("get_weather", `{"filters":{"tags":["a","b"]}}`)}},
		// Integers past 2^53 compare by their digits, not as floats.
		{Calls: []ExpectedCall{want("get_weather", `{"id":9007199254740993,"ids":[9007199254740993]}`)}},
	}
	actual := []string{
		`{"city":"Paris","days":3,"filters":{"unit":"celsius","tags":["a","b"]}}`,
		`{"filters":{"tags":["b","a"],"unit":"kelvin"},"days":"3","city":"paris","extra":{"n":[1]}}`,
		`{"city":"Paris","days":3.0,"filters":[],"list":[{"y":[2],"x":1},"z"]}`,
		`{"city":"Par\u0069s","days":1e0,"filters":{"unit":null,"tags":"a"}}`,
		`{"city":"Paris","city":"Lyon"}`,
		`{}`, `[]`, `"Paris"`,
		`{"city":"Paris","unit":null,"tags":[null,true,1.5,"a"],"empty":[],"none":{},"x":{"y":[{"z":"\n"}]}}`,
		`{"city":"Paris","unit":null,"tags":[null,true,15e-1,"a"],"empty":[ ],"none":{ },"x":1,"x":2}`,
		`{"ci\u0074y":"Paris","days":3,"filters":{"unit":"celsius","tags":["a","b"]}}`,
		`{"filters":{"tags":["a","b"],"tags":["a","b"]}}`,
		`{"filters":{"tags":["a","b","c"]}}`,
		`{"filters":{"tags":["a"]},"more":[1,{"k":"v"}]}`,
		` { "city" : "Paris" , "days" : 3 , "filters" : { "unit" : "celsius" , "tags" : [ "a" , "b" ] } } `,
		`{"city": "Paris", "days": 3, "filters": {"unit": "celsius", "tags": ["a", "b"]}}`,
		`{"id":9007199254740992,"ids":[9007199254740992]}`,
		`{"id": 9007199254740993, "ids": [9007199254740993]}`,
	}
	for ei, exp := range exps {
		for _, a := range actual {
			texts := []string{a, `{"city":"Paris"}`}
			var trees, docs, deferred []Call
			var dp jsonv.DocumentParser
			for _, text := range texts {
				trees = append(trees, call("get_weather", text))
				doc, err := dp.Parse(text)
				require.NoError(t, err)
				docs = append(docs, Call{Name: "get_weather", ArgsDoc: &doc})
				d := jsonv.DeferredDocument(text)
				deferred = append(deferred, Call{Name: "get_weather", ArgsDoc: &d})
			}
			s, err := NewNative(exp, 0.5)
			require.NoError(t, err)
			ctx := context.Background()
			fromTrees := s.Score(ctx, NumberCalls(trees))
			require.Equal(t, fromTrees, s.Score(ctx, NumberCalls(docs)), "expectation %d, actual %s", ei, a)
			require.Equal(t, fromTrees, s.Score(ctx, NumberCalls(deferred)), "deferred: expectation %d, actual %s", ei, a)
		}
	}
}
