package scoring

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// asDocuments returns calls with their arguments given as documents, as the
// processor gives them, parsed from the arguments' JSON serialisation.
func asDocuments(t testing.TB, calls []Call) []Call {
	t.Helper()
	var dp DocumentParser
	out := make([]Call, len(calls))
	for i, c := range calls {
		if c.Args.Kind() != KindUndefined {
			doc, err := dp.Parse(c.Args.JSON())
			require.NoError(t, err)
			c.ArgsDoc, c.Args = &doc, Value{}
		}
		c.Children = asDocuments(t, c.Children)
		out[i] = c
	}
	return out
}

func TestDocumentParseAgreesWithParse(t *testing.T) {
	texts := []string{
		`{"city":"Paris","days":3,"filters":{"unit":"celsius","tags":["a","b"]}}`,
		` [1, -0, 2.5e3, 12345678901234567890, true, false, null, "x\u00e9\n", {}, []] `,
		`{"a":1,"a":2}`,          // repeated key: read as a tree
		`{"k\u0065y":1,"key":2}`, // escaped key, repeated once decoded
		`{"a":{"b":{"c":[{"d":"\ud83d\ude00"}]}}}`,
		`"just a string"`, `42`, `null`,
		`{"a":1`, `{"a":`, `[1,2`, `"abc`, `tru`, `{"a" 1}`, `[1 2]`, `{"a":1}x`, `{1:2}`, `-`, `01`, ``,
		`{"a":"\x01"}`, `{"a":"\q"}`, `{"a":1,}`, `[,]`,
		strings.Repeat("[", maxParseDepth+2) + strings.Repeat("]", maxParseDepth+2),
		`{"m0":0,"m1":1,"m2":2,"m3":3,"m4":4,"m5":5,"m6":6,"m7":7,"m8":8,"m9":9,"m10":10,"m11":11,"m12":12,"m13":13,"m14":14,"m15":15,"m16":16,"m0":"last"}`,
	}
	for _, s := range texts {
		checkDocumentAgrees(t, s)
	}
}

// checkDocumentAgrees checks that a document of s gives what Parse gives:
// the same error, or the same value with its members in the same order.
func checkDocumentAgrees(t *testing.T, s string) {
	t.Helper()
	var dp DocumentParser
	want, werr := Parse(s)
	doc, err := dp.Parse(s)
	if werr != nil {
		require.Error(t, err, "%q", s)
		require.Equal(t, werr.Error(), err.Error(), "%q", s)
		require.Equal(t, errors.Is(werr, ErrTruncated), errors.Is(err, ErrTruncated))
		return
	}
	require.NoError(t, err, "%q", s)
	got := doc.Value()
	require.True(t, Equal(want, got), "%q: %s vs %s", s, want.JSON(), got.JSON())
	require.Equal(t, want.JSON(), got.JSON(), "%q", s)
	require.Equal(t, want.Kind(), doc.Kind())
	require.Equal(t, want.Len(), doc.Len())
}

// TestDocumentStoreIsShared parses several documents into one store and
// checks each still reads back whole, including when the store grows.
func TestDocumentStoreIsShared(t *testing.T) {
	var dp DocumentParser
	dp.Grow(4)
	texts := []string{`{"a":[1,2,3]}`, `{"b":{"c":"d"}}`, `[true]`, `{"e":1,"e":2}`, `{"f":"g"}`}
	docs := make([]Document, len(texts))
	for i, s := range texts {
		var err error
		docs[i], err = dp.Parse(s)
		require.NoError(t, err)
	}
	for i, s := range texts {
		require.Equal(t, mustParse(s).JSON(), docs[i].Value().JSON(), s)
	}
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
	}
	actual := []string{
		`{"city":"Paris","days":3,"filters":{"unit":"celsius","tags":["a","b"]}}`,
		`{"filters":{"tags":["b","a"],"unit":"kelvin"},"days":"3","city":"paris","extra":{"n":[1]}}`,
		`{"city":"Paris","days":3.0,"filters":[],"list":[{"y":[2],"x":1},"z"]}`,
		`{"city":"Par\u0069s","days":1e0,"filters":{"unit":null,"tags":"a"}}`,
		`{"city":"Paris","city":"Lyon"}`,
		`{}`, `[]`, `"Paris"`,
	}
	for ei, exp := range exps {
		for _, a := range actual {
			texts := []string{a, `{"city":"Paris"}`}
			var trees, docs []Call
			var dp DocumentParser
			for _, text := range texts {
				trees = append(trees, call("get_weather", text))
				doc, err := dp.Parse(text)
				require.NoError(t, err)
				docs = append(docs, Call{Name: "get_weather", ArgsDoc: &doc})
			}
			s, err := NewNative(exp, 0.5)
			require.NoError(t, err)
			ctx := context.Background()
			require.Equal(t, s.Score(ctx, NumberCalls(trees)), s.Score(ctx, NumberCalls(docs)), "expectation %d, actual %s", ei, a)
		}
	}
}

// FuzzDocumentParse checks, for any text, that a document agrees with
// Parse: the same error, or the same value.
func FuzzDocumentParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"\u00e9"}`, `{"a":1,"a":2}`, `[1,2`, `"x"`, `{"k\"":true}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkDocumentAgrees(t, s)
	})
}
