package peers

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall/toolcalltest"
)

// newProfile builds a registered profile or fails the test.
func newProfile(t *testing.T, name string, s toolcall.Settings) toolcall.Scorer {
	t.Helper()
	sc, err := toolcall.New(name, s)
	require.NoError(t, err)
	return sc
}

// scoreProfile builds a profile and scores calls with it.
func scoreProfile(t *testing.T, name string, s toolcall.Settings, calls ...toolcall.Call) toolcall.Result {
	t.Helper()
	return newProfile(t, name, s).Score(context.Background(), toolcall.NumberCalls(calls))
}

func expect(calls ...toolcall.ExpectedCall) toolcall.Expectation {
	return toolcall.Expectation{Calls: calls}
}

func unknownArgs(name string) toolcall.Call { return toolcall.Call{Name: name, ArgsUnknown: true} }

func TestMongoDBQuirks(t *testing.T) {
	tests := []struct {
		name  string
		exp   toolcall.Expectation
		calls []toolcall.Call
		want  float64
	}{
		{"both empty", expect(), nil, 1},
		{"nothing expected, calls made: 0.75", expect(), []toolcall.Call{toolcalltest.Call("find", `{}`)}, 0.75},
		{"order is ignored", expect(toolcalltest.Want("a", `{}`), toolcalltest.Want("b", `{}`)), []toolcall.Call{toolcalltest.Call("b", `{}`), toolcalltest.Call("a", `{}`)}, 1},
		{"greedy: any-matcher steals the exact call", expect(toolcalltest.WithMatcher(toolcalltest.Want("find", ""), "q", "any"), toolcalltest.Want("find", `{"q":1}`)),
			[]toolcall.Call{toolcalltest.Call("find", `{"q":1}`), toolcalltest.Call("find", `{"q":2}`)}, 0},
		{"greedy: swapped expectations pair", expect(toolcalltest.Want("find", `{"q":1}`), toolcalltest.WithMatcher(toolcalltest.Want("find", ""), "q", "any")),
			[]toolcall.Call{toolcalltest.Call("find", `{"q":1}`), toolcalltest.Call("find", `{"q":2}`)}, 1},
		{"extra call caps at 0.75", expect(toolcalltest.Want("a", `{}`)), []toolcall.Call{toolcalltest.Call("a", `{}`), toolcalltest.Call("b", `{}`)}, 0.75},
		{"raw-length cap: extra call hidden by unmet optional", expect(toolcalltest.Want("a", `{}`), toolcalltest.Optional(toolcalltest.Want("b", `{}`))),
			[]toolcall.Call{toolcalltest.Call("a", `{}`), toolcalltest.Call("c", `{}`)}, 1},
		{"optional made and extra call: 0.75", expect(toolcalltest.Want("a", `{}`), toolcalltest.Optional(toolcalltest.Want("b", `{}`))),
			[]toolcall.Call{toolcalltest.Call("a", `{}`), toolcalltest.Call("b", `{}`), toolcalltest.Call("c", `{}`)}, 0.75},
		{"only optional, wrong tool, same count", expect(toolcalltest.Optional(toolcalltest.Want("a", `{}`))), []toolcall.Call{toolcalltest.Call("z", `{}`)}, 1},
		{"missing required call: 0", expect(toolcalltest.Want("a", `{}`), toolcalltest.Want("b", `{}`)), []toolcall.Call{toolcalltest.Call("a", `{}`)}, 0},
		{"extra argument: 0, not 0.75", expect(toolcalltest.Want("find", `{"db":"t"}`)), []toolcall.Call{toolcalltest.Call("find", `{"db":"t","limit":1}`)}, 0},
		{"extra nested key: 0", expect(toolcalltest.Want("find", `{"f":{"a":1}}`)), []toolcall.Call{toolcalltest.Call("find", `{"f":{"a":1,"b":2}}`)}, 0},
		{"key-count hole: unknown key hides behind an absent matcher",
			expect(toolcalltest.WithMatcher(toolcalltest.Want("f", `{"x":1}`), "y", "absent")), []toolcall.Call{toolcalltest.Call("f", `{"x":1,"z":2}`)}, 1},
		{"=== : 5 is not \"5\"", expect(toolcalltest.Want("f", `{"x":5}`)), []toolcall.Call{toolcalltest.Call("f", `{"x":"5"}`)}, 0},
		{"=== : 1 is 1.0", expect(toolcalltest.Want("f", `{"x":1}`)), []toolcall.Call{toolcalltest.Call("f", `{"x":1.0}`)}, 1},
		{"expected null accepts an absent key", expect(toolcalltest.Want("f", `{"x":null}`)), []toolcall.Call{toolcalltest.Call("f", `{}`)}, 1},
		{"expected null rejects a value", expect(toolcalltest.Want("f", `{"x":null}`)), []toolcall.Call{toolcalltest.Call("f", `{"x":0}`)}, 0},
		{"{} expected matches [] actual", expect(toolcalltest.Want("f", `{"x":{}}`)), []toolcall.Call{toolcalltest.Call("f", `{"x":[]}`)}, 1},
		{"[] expected does not match {}", expect(toolcalltest.Want("f", `{"x":[]}`)), []toolcall.Call{toolcalltest.Call("f", `{"x":{}}`)}, 0},
		{"{\"0\":1} matches [1]", expect(toolcalltest.Want("f", `{"x":{"0":1}}`)), []toolcall.Call{toolcalltest.Call("f", `{"x":[1]}`)}, 1},
		{"{length:1} matches [5]", expect(toolcalltest.Want("f", `{"x":{"length":1}}`)), []toolcall.Call{toolcalltest.Call("f", `{"x":[5]}`)}, 1},
		{"array with extra element: 0", expect(toolcalltest.Want("f", `{"p":[1]}`)), []toolcall.Call{toolcalltest.Call("f", `{"p":[1,2]}`)}, 0},
		{"missing trailing element read as undefined", expect(toolcalltest.Want("f", `{"p":[1,null]}`)), []toolcall.Call{toolcalltest.Call("f", `{"p":[1]}`)}, 1},
		{"key order is irrelevant", expect(toolcalltest.Want("f", `{"a":1,"b":2}`)), []toolcall.Call{toolcalltest.Call("f", `{"b":2,"a":1}`)}, 1},
		{"names are case-sensitive", expect(toolcalltest.Want("Find", `{}`)), []toolcall.Call{toolcalltest.Call("find", `{}`)}, 0},
		{"no args and no matchers: any parameters", expect(toolcalltest.Want("f", "")), []toolcall.Call{toolcalltest.Call("f", `{"x":1}`)}, 1},
		{"actual without arguments vs expected object: 0", expect(toolcalltest.Want("f", `{}`)), []toolcall.Call{{Name: "f"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreProfile(t, MongoDBName, toolcall.Settings{Expectation: tt.exp, Threshold: 0.5}, tt.calls...)
			require.NoError(t, res.Err)
			assert.Equal(t, tt.want, res.Score, res.Explanation)
			assert.Nil(t, res.Details)
		})
	}
}

func TestMongoDBMatchersInTree(t *testing.T) {
	pipeline := toolcalltest.Want("aggregate", `{"pipeline":[{"$match":{"genre":"Horror"}}]}`)
	optionalStage := toolcalltest.WithMatcher(pipeline, "pipeline[1]", map[string]any{"any_of": []any{"absent", "any"}})
	tests := []struct {
		name string
		e    toolcall.ExpectedCall
		args string
		want float64
	}{
		{"matcher extends the literal array: stage given", optionalStage, `{"pipeline":[{"$match":{"genre":"Horror"}},{"$sort":{"t":1}}]}`, 1},
		{"matcher extends the literal array: stage omitted", optionalStage, `{"pipeline":[{"$match":{"genre":"Horror"}}]}`, 1},
		{"still no third stage", optionalStage, `{"pipeline":[{"$match":{"genre":"Horror"}},{},{}]}`, 0},
		{"matcher replaces a literal", toolcalltest.WithMatcher(toolcalltest.Want("f", `{"limit":10}`), "limit", map[string]any{"type": "number"}), `{"limit":3}`, 1},
		{"matcher at $ replaces everything", toolcalltest.WithMatcher(toolcalltest.Want("f", ""), "$", "any"), `[1,2]`, 1},
		{"matcher key counts as expected key", toolcalltest.WithMatcher(toolcalltest.Want("f", `{"a":1}`), "b", "any"), `{"a":1,"c":2}`, 1},
		{"[*] extension: every element", toolcalltest.WithMatcher(toolcalltest.Want("f", ""), "ids[*]", map[string]any{"type": "integer"}), `{"ids":[1,2,3]}`, 1},
		{"[*] extension: one bad element", toolcalltest.WithMatcher(toolcalltest.Want("f", ""), "ids[*]", map[string]any{"type": "integer"}), `{"ids":[1,"x"]}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreProfile(t, MongoDBName, toolcall.Settings{Expectation: expect(tt.e)}, toolcall.Call{Name: tt.e.Name, Args: toolcalltest.MustParse(tt.args)})
			require.NoError(t, res.Err)
			assert.Equal(t, tt.want, res.Score)
		})
	}
}

func TestMongoDBValueMatcher(t *testing.T) {
	m, err := MongoDBValue(toolcalltest.MustParse(`{"a":1}`))
	require.NoError(t, err)
	assert.True(t, m.Match(toolcalltest.MustParse(`{"a":1}`)))
	assert.False(t, m.Match(toolcalltest.MustParse(`{"a":1,"b":2}`)))
	// Nested in any_of, as Matcher.anyOf(Matcher.undefined, Matcher.value(...)).
	e := toolcall.ExpectedCall{Name: "f", Matchers: []toolcall.PathMatcher{{Path: "x", Matcher: toolcall.AnyOf(toolcall.Absent(), m)}}}
	res := scoreProfile(t, MongoDBName, toolcall.Settings{Expectation: expect(e)}, toolcalltest.Call("f", `{}`))
	assert.Equal(t, 1.0, res.Score)
	nested, err := MongoDBValue(toolcalltest.MustParse(`{"a":1}`), toolcall.PathMatcher{Path: "b", Matcher: toolcall.OfType("string")})
	require.NoError(t, err)
	assert.True(t, nested.Match(toolcalltest.MustParse(`{"a":1,"b":"x"}`)))
	assert.Contains(t, nested.String(), "MongoDB value")
}

func TestMongoDBBreakdown(t *testing.T) {
	res := scoreProfile(t, MongoDBName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", `{}`), toolcalltest.Optional(toolcalltest.Want("b", `{}`)))},
		toolcalltest.Call("x", `{}`), toolcalltest.Call("a", `{}`), toolcalltest.Call("y", `{}`))
	assert.Equal(t, 0.75, res.Score)
	assert.Equal(t, []toolcall.Pair{{Expected: 0, Actual: 1, Score: 1}}, res.Breakdown.Pairs)
	assert.Equal(t, []int{1}, res.Breakdown.SkippedOptional)
	assert.Equal(t, []int{0, 2}, res.Breakdown.Unexpected)
	assert.Equal(t, "0.75: 1 of 2 expected calls matched (1 optional not made); more calls made than expected (capped at 0.75)", res.Explanation)
	missing := scoreProfile(t, MongoDBName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", `{}`))}, toolcalltest.Call("b", `{}`))
	assert.Equal(t, []int{0}, missing.Breakdown.Missing)
	assert.Equal(t, "0: no call to a with matching parameters", missing.Explanation)
}

func TestMongoDBErrors(t *testing.T) {
	_, err := toolcall.New(MongoDBName, toolcall.Settings{Options: map[string]any{"strict": true}})
	assert.EqualError(t, err, `mongodb: unknown option "strict" (this scorer takes no options)`)
	_, err = toolcall.New(MongoDBName, toolcall.Settings{Expectation: expect(toolcall.ExpectedCall{Name: "a", MustSucceed: true})})
	assert.EqualError(t, err, `mongodb: calls[0] (a): must_succeed is not supported by mongodb`)
	_, err = toolcall.New(MongoDBName, toolcall.Settings{Expectation: toolcall.Expectation{ForbiddenTools: []string{"drop"}}})
	assert.ErrorContains(t, err, "forbidden_tools and forbidden_sequences are not supported by mongodb")
	_, err = toolcall.New(MongoDBName, toolcall.Settings{Expectation: expect(toolcalltest.WithMatcher(toolcalltest.Want("f", `{"a":1}`), "a.b", "any"))})
	assert.ErrorContains(t, err, `mongodb: calls[0] (f): match["a.b"]: key "b" needs an object`)

	// Arguments unknown: an error when the same-name expectation checks them.
	res := scoreProfile(t, MongoDBName, toolcall.Settings{Expectation: expect(toolcalltest.Want("f", `{"a":1}`))}, unknownArgs("f"))
	assert.Equal(t, toolcall.OutcomeError, res.Outcome)
	assert.ErrorContains(t, res.Err, "mongodb: arguments unavailable for call 1 (f)")
	// ... and a normal score when nothing checks them.
	res = scoreProfile(t, MongoDBName, toolcall.Settings{Expectation: expect(toolcalltest.Want("f", ""))}, unknownArgs("f"))
	require.NoError(t, res.Err)
	assert.Equal(t, 1.0, res.Score)
}

func TestMongoDBFlattensChildren(t *testing.T) {
	agent := toolcall.Call{Name: "agent", StepType: toolcall.StepAgentRun, Children: []toolcall.Call{toolcalltest.Call("find", `{}`)}}
	res := scoreProfile(t, MongoDBName, toolcall.Settings{Expectation: expect(toolcalltest.Want("find", `{}`))}, agent)
	assert.Equal(t, 1.0, res.Score)
}

// TestMongoDBCaseInsensitiveIsToLocaleLowerCase checks MongoDB's
// caseInsensitiveString: equality after JavaScript's full lower-case
// mapping, not case folding. Each row was checked against node's
// toLocaleLowerCase; a case_insensitive matcher placed in the profile's
// parameters takes these semantics.
func TestMongoDBCaseInsensitiveIsToLocaleLowerCase(t *testing.T) {
	tests := []struct {
		want, got string
		match     bool
	}{
		{"HeLLo", "hello", true},
		{"ΟΔΟΣ", "οδος", true},  // a final capital sigma lowers to ς
		{"ΟΔΟΣ", "οδοσ", false}, // ...not to σ, as folding would have it
		{"σ", "ς", false},
		{"µ", "μ", false}, // micro sign and mu fold together, but are not each other's lower case
		{"ſ", "s", false},
		{"İ", "i̇", true}, // dotted capital I lowers to i and a combining dot
		{"İ", "i", false},
	}
	for _, tt := range tests {
		t.Run(tt.want+"/"+tt.got, func(t *testing.T) {
			assert.Equal(t, tt.match, MongoDBCaseInsensitive(tt.want).Match(jsonv.String(tt.got)))
			exp := expect(toolcall.ExpectedCall{Name: "find", Matchers: []toolcall.PathMatcher{{Path: "q", Matcher: toolcall.CaseInsensitive(tt.want)}}})
			args := jsonv.Object(jsonv.Member{Key: "q", Value: jsonv.String(tt.got)})
			res := scoreProfile(t, MongoDBName, toolcall.Settings{Expectation: exp, Threshold: 1}, toolcall.Call{Name: "find", Args: args})
			wantScore := 0.0
			if tt.match {
				wantScore = 1
			}
			assert.Equal(t, wantScore, res.Score, "through the profile")
		})
	}
	assert.False(t, MongoDBCaseInsensitive("a").Match(jsonv.Int(1)), "only strings match")
}

// TestMongoDBUndefinedParameters: MongoDB's Matcher.value(undefined), what a
// test case without expected parameters compiles to, accepts only null or
// absent parameters; the profile's own reading of an expected call without
// arguments (any parameters) is the configuration mapping.
func TestMongoDBUndefinedParameters(t *testing.T) {
	undefinedParams, err := MongoDBValue(jsonv.Undefined())
	require.NoError(t, err)
	exp := expect(toolcall.ExpectedCall{Name: "find", Matchers: []toolcall.PathMatcher{{Path: "$", Matcher: undefinedParams}}})
	s := toolcall.Settings{Expectation: exp, Threshold: 1}
	assert.Equal(t, 1.0, scoreProfile(t, MongoDBName, s, toolcall.Call{Name: "find"}).Score, "absent parameters")
	assert.Equal(t, 1.0, scoreProfile(t, MongoDBName, s, toolcalltest.Call("find", `null`)).Score, "null parameters")
	assert.Equal(t, 0.0, scoreProfile(t, MongoDBName, s, toolcalltest.Call("find", `{}`)).Score, "empty parameters are not undefined")
	assert.Equal(t, 1.0, scoreProfile(t, MongoDBName, toolcall.Settings{Expectation: expect(toolcalltest.Want("find", "")), Threshold: 1}, toolcalltest.Call("find", `{"q":1}`)).Score,
		"configuration: no arguments accepts any")
}
