package scoring

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newProfile builds a registered profile or fails the test.
func newProfile(t *testing.T, name string, s Settings) Scorer {
	t.Helper()
	sc, err := New(name, s)
	require.NoError(t, err)
	return sc
}

// scoreProfile builds a profile and scores calls with it.
func scoreProfile(t *testing.T, name string, s Settings, calls ...Call) Result {
	t.Helper()
	return newProfile(t, name, s).Score(context.Background(), NumberCalls(calls))
}

func expect(calls ...ExpectedCall) Expectation { return Expectation{Calls: calls} }

func unknownArgs(name string) Call { return Call{Name: name, ArgsUnknown: true} }

func TestMongoDBQuirks(t *testing.T) {
	tests := []struct {
		name  string
		exp   Expectation
		calls []Call
		want  float64
	}{
		{"both empty", expect(), nil, 1},
		{"nothing expected, calls made: 0.75", expect(), []Call{call("find", `{}`)}, 0.75},
		{"order is ignored", expect(want("a", `{}`), want("b", `{}`)), []Call{call("b", `{}`), call("a", `{}`)}, 1},
		{"greedy: any-matcher steals the exact call", expect(withMatcher(want("find", ""), "q", "any"), want("find", `{"q":1}`)),
			[]Call{call("find", `{"q":1}`), call("find", `{"q":2}`)}, 0},
		{"greedy: swapped expectations pair", expect(want("find", `{"q":1}`), withMatcher(want("find", ""), "q", "any")),
			[]Call{call("find", `{"q":1}`), call("find", `{"q":2}`)}, 1},
		{"extra call caps at 0.75", expect(want("a", `{}`)), []Call{call("a", `{}`), call("b", `{}`)}, 0.75},
		{"raw-length cap: extra call hidden by unmet optional", expect(want("a", `{}`), optional(want("b", `{}`))),
			[]Call{call("a", `{}`), call("c", `{}`)}, 1},
		{"optional made and extra call: 0.75", expect(want("a", `{}`), optional(want("b", `{}`))),
			[]Call{call("a", `{}`), call("b", `{}`), call("c", `{}`)}, 0.75},
		{"only optional, wrong tool, same count", expect(optional(want("a", `{}`))), []Call{call("z", `{}`)}, 1},
		{"missing required call: 0", expect(want("a", `{}`), want("b", `{}`)), []Call{call("a", `{}`)}, 0},
		{"extra argument: 0, not 0.75", expect(want("find", `{"db":"t"}`)), []Call{call("find", `{"db":"t","limit":1}`)}, 0},
		{"extra nested key: 0", expect(want("find", `{"f":{"a":1}}`)), []Call{call("find", `{"f":{"a":1,"b":2}}`)}, 0},
		{"key-count hole: unknown key hides behind an absent matcher",
			expect(withMatcher(want("f", `{"x":1}`), "y", "absent")), []Call{call("f", `{"x":1,"z":2}`)}, 1},
		{"=== : 5 is not \"5\"", expect(want("f", `{"x":5}`)), []Call{call("f", `{"x":"5"}`)}, 0},
		{"=== : 1 is 1.0", expect(want("f", `{"x":1}`)), []Call{call("f", `{"x":1.0}`)}, 1},
		{"expected null accepts an absent key", expect(want("f", `{"x":null}`)), []Call{call("f", `{}`)}, 1},
		{"expected null rejects a value", expect(want("f", `{"x":null}`)), []Call{call("f", `{"x":0}`)}, 0},
		{"{} expected matches [] actual", expect(want("f", `{"x":{}}`)), []Call{call("f", `{"x":[]}`)}, 1},
		{"[] expected does not match {}", expect(want("f", `{"x":[]}`)), []Call{call("f", `{"x":{}}`)}, 0},
		{"{\"0\":1} matches [1]", expect(want("f", `{"x":{"0":1}}`)), []Call{call("f", `{"x":[1]}`)}, 1},
		{"{length:1} matches [5]", expect(want("f", `{"x":{"length":1}}`)), []Call{call("f", `{"x":[5]}`)}, 1},
		{"array with extra element: 0", expect(want("f", `{"p":[1]}`)), []Call{call("f", `{"p":[1,2]}`)}, 0},
		{"missing trailing element read as undefined", expect(want("f", `{"p":[1,null]}`)), []Call{call("f", `{"p":[1]}`)}, 1},
		{"key order is irrelevant", expect(want("f", `{"a":1,"b":2}`)), []Call{call("f", `{"b":2,"a":1}`)}, 1},
		{"names are case-sensitive", expect(want("Find", `{}`)), []Call{call("find", `{}`)}, 0},
		{"no args and no matchers: any parameters", expect(want("f", "")), []Call{call("f", `{"x":1}`)}, 1},
		{"actual without arguments vs expected object: 0", expect(want("f", `{}`)), []Call{{Name: "f"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreProfile(t, MongoDBName, Settings{Expectation: tt.exp, Threshold: 0.5}, tt.calls...)
			require.NoError(t, res.Err)
			assert.Equal(t, tt.want, res.Score, res.Explanation)
			assert.Nil(t, res.Details)
		})
	}
}

func TestMongoDBMatchersInTree(t *testing.T) {
	pipeline := want("aggregate", `{"pipeline":[{"$match":{"genre":"Horror"}}]}`)
	optionalStage := withMatcher(pipeline, "pipeline[1]", map[string]any{"any_of": []any{"absent", "any"}})
	tests := []struct {
		name string
		e    ExpectedCall
		args string
		want float64
	}{
		{"matcher extends the literal array: stage given", optionalStage, `{"pipeline":[{"$match":{"genre":"Horror"}},{"$sort":{"t":1}}]}`, 1},
		{"matcher extends the literal array: stage omitted", optionalStage, `{"pipeline":[{"$match":{"genre":"Horror"}}]}`, 1},
		{"still no third stage", optionalStage, `{"pipeline":[{"$match":{"genre":"Horror"}},{},{}]}`, 0},
		{"matcher replaces a literal", withMatcher(want("f", `{"limit":10}`), "limit", map[string]any{"type": "number"}), `{"limit":3}`, 1},
		{"matcher at $ replaces everything", withMatcher(want("f", ""), "$", "any"), `[1,2]`, 1},
		{"matcher key counts as expected key", withMatcher(want("f", `{"a":1}`), "b", "any"), `{"a":1,"c":2}`, 1},
		{"[*] extension: every element", withMatcher(want("f", ""), "ids[*]", map[string]any{"type": "integer"}), `{"ids":[1,2,3]}`, 1},
		{"[*] extension: one bad element", withMatcher(want("f", ""), "ids[*]", map[string]any{"type": "integer"}), `{"ids":[1,"x"]}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreProfile(t, MongoDBName, Settings{Expectation: expect(tt.e)}, Call{Name: tt.e.Name, Args: mustParse(tt.args)})
			require.NoError(t, res.Err)
			assert.Equal(t, tt.want, res.Score)
		})
	}
}

func TestMongoDBValueMatcher(t *testing.T) {
	m, err := MongoDBValue(mustParse(`{"a":1}`))
	require.NoError(t, err)
	assert.True(t, m.Match(mustParse(`{"a":1}`)))
	assert.False(t, m.Match(mustParse(`{"a":1,"b":2}`)))
	// Nested in any_of, as Matcher.anyOf(Matcher.undefined, Matcher.value(...)).
	e := ExpectedCall{Name: "f", Matchers: []PathMatcher{{Path: "x", Matcher: AnyOf(Absent(), m)}}}
	res := scoreProfile(t, MongoDBName, Settings{Expectation: expect(e)}, call("f", `{}`))
	assert.Equal(t, 1.0, res.Score)
	nested, err := MongoDBValue(mustParse(`{"a":1}`), PathMatcher{Path: "b", Matcher: OfType("string")})
	require.NoError(t, err)
	assert.True(t, nested.Match(mustParse(`{"a":1,"b":"x"}`)))
	assert.Contains(t, nested.String(), "MongoDB value")
}

func TestMongoDBBreakdown(t *testing.T) {
	res := scoreProfile(t, MongoDBName, Settings{Expectation: expect(want("a", `{}`), optional(want("b", `{}`)))},
		call("x", `{}`), call("a", `{}`), call("y", `{}`))
	assert.Equal(t, 0.75, res.Score)
	assert.Equal(t, []Pair{{Expected: 0, Actual: 1, Score: 1}}, res.Breakdown.Pairs)
	assert.Equal(t, []int{1}, res.Breakdown.SkippedOptional)
	assert.Equal(t, []int{0, 2}, res.Breakdown.Unexpected)
	assert.Equal(t, "0.75: 1 of 2 expected calls matched (1 optional not made); more calls made than expected (capped at 0.75)", res.Explanation)
	missing := scoreProfile(t, MongoDBName, Settings{Expectation: expect(want("a", `{}`))}, call("b", `{}`))
	assert.Equal(t, []int{0}, missing.Breakdown.Missing)
	assert.Equal(t, "0: no call to a with matching parameters", missing.Explanation)
}

func TestMongoDBErrors(t *testing.T) {
	_, err := New(MongoDBName, Settings{Options: map[string]any{"strict": true}})
	assert.EqualError(t, err, `mongodb: unknown option "strict" (this scorer takes no options)`)
	_, err = New(MongoDBName, Settings{Expectation: expect(ExpectedCall{Name: "a", MustSucceed: true})})
	assert.EqualError(t, err, `mongodb: calls[0] (a): must_succeed is not supported by mongodb`)
	_, err = New(MongoDBName, Settings{Expectation: Expectation{ForbiddenTools: []string{"drop"}}})
	assert.ErrorContains(t, err, "forbidden_tools and forbidden_sequences are not supported by mongodb")
	_, err = New(MongoDBName, Settings{Expectation: expect(withMatcher(want("f", `{"a":1}`), "a.b", "any"))})
	assert.ErrorContains(t, err, `mongodb: calls[0] (f): match["a.b"]: key "b" needs an object`)

	// Arguments unknown: an error when the same-name expectation checks them.
	res := scoreProfile(t, MongoDBName, Settings{Expectation: expect(want("f", `{"a":1}`))}, unknownArgs("f"))
	assert.Equal(t, OutcomeError, res.Outcome)
	assert.ErrorContains(t, res.Err, "mongodb: arguments unavailable for call 1 (f)")
	// ... and a normal score when nothing checks them.
	res = scoreProfile(t, MongoDBName, Settings{Expectation: expect(want("f", ""))}, unknownArgs("f"))
	require.NoError(t, res.Err)
	assert.Equal(t, 1.0, res.Score)
}

func TestMongoDBFlattensChildren(t *testing.T) {
	agent := Call{Name: "agent", StepType: StepAgentRun, Children: []Call{call("find", `{}`)}}
	res := scoreProfile(t, MongoDBName, Settings{Expectation: expect(want("find", `{}`))}, agent)
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
			assert.Equal(t, tt.match, MongoDBCaseInsensitive(tt.want).Match(String(tt.got)))
			exp := expect(ExpectedCall{Name: "find", Matchers: []PathMatcher{{Path: "q", Matcher: CaseInsensitive(tt.want)}}})
			args := Object(Member{Key: "q", Value: String(tt.got)})
			res := scoreProfile(t, MongoDBName, Settings{Expectation: exp, Threshold: 1}, Call{Name: "find", Args: args})
			wantScore := 0.0
			if tt.match {
				wantScore = 1
			}
			assert.Equal(t, wantScore, res.Score, "through the profile")
		})
	}
	assert.False(t, MongoDBCaseInsensitive("a").Match(Int(1)), "only strings match")
}

// TestMongoDBUndefinedParameters: MongoDB's Matcher.value(undefined), what a
// test case without expected parameters compiles to, accepts only null or
// absent parameters; the profile's own reading of an expected call without
// arguments (any parameters) is the configuration mapping.
func TestMongoDBUndefinedParameters(t *testing.T) {
	undefinedParams, err := MongoDBValue(Undefined())
	require.NoError(t, err)
	exp := expect(ExpectedCall{Name: "find", Matchers: []PathMatcher{{Path: "$", Matcher: undefinedParams}}})
	s := Settings{Expectation: exp, Threshold: 1}
	assert.Equal(t, 1.0, scoreProfile(t, MongoDBName, s, Call{Name: "find"}).Score, "absent parameters")
	assert.Equal(t, 1.0, scoreProfile(t, MongoDBName, s, call("find", `null`)).Score, "null parameters")
	assert.Equal(t, 0.0, scoreProfile(t, MongoDBName, s, call("find", `{}`)).Score, "empty parameters are not undefined")
	assert.Equal(t, 1.0, scoreProfile(t, MongoDBName, Settings{Expectation: expect(want("find", "")), Threshold: 1}, call("find", `{"q":1}`)).Score,
		"configuration: no arguments accepts any")
}
