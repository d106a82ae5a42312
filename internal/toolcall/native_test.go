package toolcall

import (
	"context"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// call builds an actual call with JSON arguments ("" means no arguments).
func call(name, args string) Call {
	c := Call{Name: name}
	if args != "" {
		c.Args = mustParse(args)
	}
	return c
}

// want builds an expected call with literal JSON arguments.
func want(name, args string) ExpectedCall {
	e := ExpectedCall{Name: name}
	if args != "" {
		e.Args = mustParse(args)
	}
	return e
}

func mustParse(s string) jsonv.Value {
	v, err := jsonv.Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

func optional(e ExpectedCall) ExpectedCall { e.Optional = true; return e }

func withMatcher(e ExpectedCall, path string, spec any) ExpectedCall {
	m, err := ParseMatcher(spec, MatcherOptions{})
	if err != nil {
		panic(err)
	}
	e.Matchers = append(e.Matchers, PathMatcher{Path: path, Matcher: m})
	return e
}

func scoreNative(t *testing.T, exp Expectation, threshold float64, calls ...Call) Result {
	t.Helper()
	s, err := NewNative(exp, threshold)
	require.NoError(t, err)
	res := s.Score(context.Background(), NumberCalls(calls))
	// Arguments given as documents, as the processor gives them, are
	// scored the same.
	require.Equal(t, res, s.Score(context.Background(), asDocuments(t, NumberCalls(calls))))
	// The explanation of a clean match is kept ready (explain); it must
	// read as the one written for the result.
	n := s.(*native)
	require.Equal(t, n.explanation(&res, calls, len(n.calls)), res.Explanation)
	return res
}

// TestNativeCleanMatchExplanation checks that a run matching every expected
// call, and nothing else, is explained without building a string.
func TestNativeCleanMatchExplanation(t *testing.T) {
	exp := Expectation{Calls: []ExpectedCall{want("a", `{"x":1}`), want("b", ""), optional(want("c", ""))}}
	s, err := NewNative(exp, 1)
	require.NoError(t, err)
	calls := NumberCalls([]Call{call("a", `{"x":1}`), call("b", "")})
	res := s.Score(context.Background(), calls)
	require.Equal(t, "score 1: 2 of 2 expected calls matched", res.Explanation)
	n := s.(*native)
	allocs := testing.AllocsPerRun(20, func() { _ = n.explain(&res, calls, len(n.calls), new(scoreScratch)) })
	assert.Zero(t, allocs)

	// What a score of 1 still allows is explained in full (scoreNative
	// checks the text against the one written for the result).
	inOrder := Expectation{Order: OrderInOrder, Calls: []ExpectedCall{want("a", ""), optional(want("b", ""))}}
	res = scoreNative(t, inOrder, 1, call("b", ""), call("a", ""))
	assert.Equal(t, "score 1: 1 of 2 expected calls matched; out of order b", res.Explanation)
	res = scoreNative(t, Expectation{Calls: []ExpectedCall{want("a", "")}}, 1, call("a", ""), call("z", ""))
	assert.Equal(t, "score 1: 1 of 1 expected calls matched; unexpected z", res.Explanation)
	unknown := call("a", "")
	unknown.ArgsUnknown = true
	res = scoreNative(t, Expectation{Calls: []ExpectedCall{want("a", `{"x":1}`)}}, 1, unknown)
	assert.Equal(t, "score 1: 1 of 1 expected calls matched; arguments unavailable for 1 call (judged by name and order)", res.Explanation)
	res = scoreNative(t, Expectation{Calls: []ExpectedCall{optional(want("a", ""))}}, 1)
	assert.Equal(t, "score 1: 0 of 0 expected calls matched", res.Explanation)
}

// TestNativeUnavailableExplanation checks that a run matching every
// expected call with some arguments unavailable (a trace without content)
// is explained by a text built in advance, as the one written for it reads,
// and that one whose unknown arguments carry a note is written in full.
func TestNativeUnavailableExplanation(t *testing.T) {
	exp := Expectation{Calls: []ExpectedCall{want("a", `{"x":1}`), want("b", `{"y":2}`), want("c", "")}}
	unknown := func(name string) Call {
		c := call(name, "")
		c.ArgsUnknown = true
		return c
	}
	for _, tc := range []struct {
		calls []Call
		want  string
	}{
		{[]Call{unknown("a"), call("b", `{"y":2}`), call("c", "")}, "score 1: 3 of 3 expected calls matched; arguments unavailable for 1 call (judged by name and order)"},
		{[]Call{unknown("a"), unknown("b"), unknown("c")}, "score 1: 3 of 3 expected calls matched; arguments unavailable for 2 calls (judged by name and order)"},
	} {
		res := scoreNative(t, exp, 1, tc.calls...)
		assert.Equal(t, tc.want, res.Explanation)
		n, err := NewNative(exp, 1)
		require.NoError(t, err)
		calls := NumberCalls(tc.calls)
		allocs := testing.AllocsPerRun(20, func() { _ = n.(*native).explain(&res, calls, len(exp.Calls), new(scoreScratch)) })
		assert.Zero(t, allocs)
	}
	noted := unknown("a")
	noted.ArgsNote = "arguments over the size limit"
	res := scoreNative(t, exp, 1, noted, call("b", `{"y":2}`), call("c", ""))
	assert.Equal(t, "score 1: 3 of 3 expected calls matched; arguments unavailable for 1 call (judged by name and order); call 1 a: arguments over the size limit", res.Explanation)
}

// TestNativeFixesPeerBugs pins each peer defect listed in §10 of the peer
// reference, with the peer's wrong answer in the case name.
func TestNativeFixesPeerBugs(t *testing.T) {
	tests := []struct {
		name      string
		exp       Expectation
		calls     []Call
		wantScore float64
	}{
		{
			// MongoDB pairs greedily in config order: the any-matcher takes
			// find{q:1} first and find{q:1} is left with find{q:2} -> 0.
			name: "greedy steal: mongodb gives 0",
			exp: Expectation{Calls: []ExpectedCall{
				withMatcher(want("find", ""), "q", "any"),
				want("find", `{"q":1}`),
			}},
			calls:     []Call{call("find", `{"q":1}`), call("find", `{"q":2}`)},
			wantScore: 1,
		},
		{
			// DeepEval's greedy pass gives the first expectation its best call
			// even when the second expectation needed that call more:
			// greedy = (1.0 + 0) / 2.
			name: "greedy steal with partial credit: greedy pairing gives 0.5",
			exp: Expectation{Calls: []ExpectedCall{
				want("search", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9}`),
				want("search", `{"id":7}`),
			}},
			calls: []Call{
				call("search", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"id":7}`),
				call("search", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":99,"id":8}`),
			},
			// optimal: first expectation takes call 2 (0.9), second takes call 1 (1.0)
			wantScore: 0.95,
		},
		{
			name:      "identical duplicate calls: deepeval gives 0.5",
			exp:       Expectation{Calls: []ExpectedCall{want("a", `{"x":1}`), want("a", `{"x":1}`)}},
			calls:     []Call{call("a", `{"x":1}`), call("a", `{"x":1}`)},
			wantScore: 1,
		},
		{
			name:      "duplicate expected, one call: counted as a multiset",
			exp:       Expectation{Calls: []ExpectedCall{want("a", ""), want("a", "")}},
			calls:     []Call{call("a", "")},
			wantScore: 0.5,
		},
		{
			// MongoDB compares list lengths, so an extra call hides behind an
			// unmet optional expectation.
			name: "extra call behind unmet optional: mongodb gives 1",
			exp: Expectation{
				Calls:      []ExpectedCall{want("a", ""), optional(want("b", ""))},
				ExtraCalls: ExtraPenalize,
			},
			calls:     []Call{call("a", ""), call("c", "")},
			wantScore: 0.75,
		},
		{
			name:      "argument key order: mastra JSON.stringify gives 0",
			exp:       Expectation{Calls: []ExpectedCall{want("search", `{"a":1,"b":{"c":2,"d":3}}`)}},
			calls:     []Call{call("search", `{"b":{"d":3,"c":2},"a":1}`)},
			wantScore: 1,
		},
		{
			name:      "repeated names in order: mastra indexOf gives 0",
			exp:       Expectation{Order: OrderInOrder, Calls: []ExpectedCall{want("a", ""), want("b", ""), want("a", "")}},
			calls:     []Call{call("a", ""), call("b", ""), call("a", "")},
			wantScore: 1,
		},
		{
			name:      "earlier stray occurrence in order: mastra indexOf gives 0",
			exp:       Expectation{Order: OrderInOrder, Calls: []ExpectedCall{want("a", ""), want("b", "")}},
			calls:     []Call{call("b", ""), call("a", ""), call("b", "")},
			wantScore: 1,
		},
		{
			name:      "1 equals 1.0",
			exp:       Expectation{Calls: []ExpectedCall{want("f", `{"n":1}`)}},
			calls:     []Call{call("f", `{"n":1.0}`)},
			wantScore: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreNative(t, tt.exp, 1, tt.calls...)
			assert.InDelta(t, tt.wantScore, res.Score, 1e-9, res.Explanation)
		})
	}
}

// TestNativeEmptyCases pins the one explicit rule for every empty case.
func TestNativeEmptyCases(t *testing.T) {
	tests := []struct {
		name      string
		exp       Expectation
		calls     []Call
		wantScore float64
	}{
		{name: "nothing expected, nothing called", exp: Expectation{}, wantScore: 1},
		{name: "nothing expected, calls made, allow", exp: Expectation{}, calls: []Call{call("a", "")}, wantScore: 1},
		{name: "nothing expected, calls made, penalize", exp: Expectation{ExtraCalls: ExtraPenalize}, calls: []Call{call("a", "")}, wantScore: 0.75},
		{name: "nothing expected, calls made, fail", exp: Expectation{ExtraCalls: ExtraFail}, calls: []Call{call("a", "")}, wantScore: 0},
		{name: "calls expected, nothing called", exp: Expectation{Calls: []ExpectedCall{want("a", "")}}, wantScore: 0},
		{name: "only optional expected, nothing called", exp: Expectation{Calls: []ExpectedCall{optional(want("a", ""))}}, wantScore: 1},
		{name: "exact order, nothing expected, calls made", exp: Expectation{Order: OrderExact}, calls: []Call{call("a", "")}, wantScore: 0},
		{name: "empty expected args, no actual args", exp: Expectation{Calls: []ExpectedCall{want("a", `{}`)}}, calls: []Call{call("a", `{}`)}, wantScore: 1},
		{name: "empty expected args, extra actual args, fail", exp: Expectation{ExtraArgs: ExtraFail, Calls: []ExpectedCall{want("a", `{}`)}}, calls: []Call{call("a", `{"x":1}`)}, wantScore: 0},
		{name: "unchecked args, any actual args", exp: Expectation{ExtraArgs: ExtraFail, Calls: []ExpectedCall{want("a", "")}}, calls: []Call{call("a", `{"x":1}`)}, wantScore: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreNative(t, tt.exp, 1, tt.calls...)
			assert.InDelta(t, tt.wantScore, res.Score, 1e-9, res.Explanation)
		})
	}
}

func TestNativePolicies(t *testing.T) {
	weather := want("get_weather", `{"city":"Paris","unit":"celsius"}`)
	tests := []struct {
		name      string
		exp       Expectation
		calls     []Call
		wantScore float64
		check     func(t *testing.T, r Result)
	}{
		{
			name:      "partial argument credit",
			exp:       Expectation{Calls: []ExpectedCall{weather}},
			calls:     []Call{call("get_weather", `{"city":"Paris","unit":"kelvin"}`)},
			wantScore: 0.5,
			check: func(t *testing.T, r Result) {
				require.Len(t, r.Breakdown.Pairs, 1)
				mm := r.Breakdown.PairMismatches(&r.Breakdown.Pairs[0])
				require.Len(t, mm, 1)
				assert.Equal(t, "unit", mm[0].Path)
				assert.Equal(t, `expected "celsius", got "kelvin"`, mm[0].Reason())
			},
		},
		{
			name:      "all or nothing argument credit",
			exp:       Expectation{Credit: CreditAllOrNothing, Calls: []ExpectedCall{weather}},
			calls:     []Call{call("get_weather", `{"city":"Paris","unit":"kelvin"}`)},
			wantScore: 0,
		},
		{
			name:      "extra argument allowed by default",
			exp:       Expectation{Calls: []ExpectedCall{weather}},
			calls:     []Call{call("get_weather", `{"city":"Paris","unit":"celsius","days":3}`)},
			wantScore: 1,
		},
		{
			name:      "extra argument penalized counts as a failed check",
			exp:       Expectation{ExtraArgs: ExtraPenalize, Calls: []ExpectedCall{weather}},
			calls:     []Call{call("get_weather", `{"city":"Paris","unit":"celsius","days":3}`)},
			wantScore: 2.0 / 3,
		},
		{
			name:      "nested extra argument fails under fail",
			exp:       Expectation{ExtraArgs: ExtraFail, Calls: []ExpectedCall{want("find", `{"filter":{"status":"active"}}`)}},
			calls:     []Call{call("find", `{"filter":{"status":"active","age":{"$gte":18}}}`)},
			wantScore: 0,
		},
		{
			name:      "dollar keys are literal keys",
			exp:       Expectation{Calls: []ExpectedCall{want("find", `{"filter":{"age":{"$gte":18}}}`)}},
			calls:     []Call{call("find", `{"filter":{"age":{"$gte":18}}}`)},
			wantScore: 1,
		},
		{
			name:      "number vs string without coercion",
			exp:       Expectation{Calls: []ExpectedCall{want("f", `{"n":5}`)}},
			calls:     []Call{call("f", `{"n":"5"}`)},
			wantScore: 0,
		},
		{
			name:      "number vs string with coercion",
			exp:       Expectation{CoerceStrings: true, Calls: []ExpectedCall{want("f", `{"n":5}`)}},
			calls:     []Call{call("f", `{"n":"5.0"}`)},
			wantScore: 1,
		},
		{
			name:      "extra call penalized",
			exp:       Expectation{ExtraCalls: ExtraPenalize, Calls: []ExpectedCall{weather}},
			calls:     []Call{call("get_weather", `{"city":"Paris","unit":"celsius"}`), call("search", "")},
			wantScore: 0.75,
			check: func(t *testing.T, r Result) {
				assert.Equal(t, []int{1}, r.Breakdown.Unexpected)
			},
		},
		{
			name:      "extra call fails",
			exp:       Expectation{ExtraCalls: ExtraFail, Calls: []ExpectedCall{weather}},
			calls:     []Call{call("get_weather", `{"city":"Paris","unit":"celsius"}`), call("search", "")},
			wantScore: 0,
		},
		{
			name:      "forbidden tool zeroes the score",
			exp:       Expectation{ForbiddenTools: []string{"delete_all"}, Calls: []ExpectedCall{want("a", "")}},
			calls:     []Call{call("a", ""), call("delete_all", "")},
			wantScore: 0,
			check: func(t *testing.T, r Result) {
				assert.Equal(t, []int{1}, r.Breakdown.Forbidden)
				assert.Empty(t, r.Breakdown.Unexpected)
			},
		},
		{
			name:      "forbidden sequence zeroes the score",
			exp:       Expectation{ForbiddenSequences: [][]string{{"escalate", "admin"}}},
			calls:     []Call{call("auth", ""), call("escalate", ""), call("admin", "")},
			wantScore: 0,
			check: func(t *testing.T, r Result) {
				assert.Equal(t, []int{1}, r.Breakdown.ForbiddenSequences)
			},
		},
		{
			name:      "non-contiguous forbidden sequence is fine",
			exp:       Expectation{ForbiddenSequences: [][]string{{"escalate", "admin"}}},
			calls:     []Call{call("escalate", ""), call("search", ""), call("admin", "")},
			wantScore: 1,
		},
		{
			name:      "hallucinated tool zeroes the score",
			exp:       Expectation{AvailableTools: []string{"a", "b"}, Calls: []ExpectedCall{want("a", "")}},
			calls:     []Call{call("a", ""), call("made_up", "")},
			wantScore: 0,
			check: func(t *testing.T, r Result) {
				assert.Equal(t, []int{1}, r.Breakdown.Hallucinated)
			},
		},
		{
			name:      "in order: wrong order is reported out of order, no extra penalty",
			exp:       Expectation{Order: OrderInOrder, ExtraCalls: ExtraFail, Calls: []ExpectedCall{want("a", ""), want("b", "")}},
			calls:     []Call{call("b", ""), call("a", "")},
			wantScore: 0.5,
			check: func(t *testing.T, r Result) {
				require.Len(t, r.Breakdown.OutOfOrder, 1)
				assert.Empty(t, r.Breakdown.Unexpected)
			},
		},
		{
			name:      "in order allows calls in between",
			exp:       Expectation{Order: OrderInOrder, Calls: []ExpectedCall{want("a", ""), want("b", "")}},
			calls:     []Call{call("a", ""), call("x", ""), call("b", "")},
			wantScore: 1,
		},
		{
			name:      "exact rejects calls in between",
			exp:       Expectation{Order: OrderExact, Calls: []ExpectedCall{want("a", ""), want("b", "")}},
			calls:     []Call{call("a", ""), call("x", ""), call("b", "")},
			wantScore: 0,
		},
		{
			name:      "in order: calls of one turn are unordered among themselves",
			exp:       Expectation{Order: OrderExact, Calls: []ExpectedCall{want("get_weather", ""), want("lookup_stock", ""), want("answer", "")}},
			calls:     []Call{{Name: "lookup_stock", Turn: 1}, {Name: "get_weather", Turn: 1}, {Name: "answer", Turn: 2}},
			wantScore: 1,
		},
		{
			name:      "in order: turns themselves stay ordered",
			exp:       Expectation{Order: OrderInOrder, Calls: []ExpectedCall{want("a", ""), want("b", "")}},
			calls:     []Call{{Name: "b", Turn: 1}, {Name: "a", Turn: 2}},
			wantScore: 0.5,
		},
		{
			name:      "exact with the right sequence",
			exp:       Expectation{Order: OrderExact, Calls: []ExpectedCall{want("a", ""), want("b", "")}},
			calls:     []Call{call("a", ""), call("b", "")},
			wantScore: 1,
		},
		{
			name:  "unknown arguments judged by name only",
			exp:   Expectation{Calls: []ExpectedCall{weather}},
			calls: []Call{{Name: "get_weather", ArgsUnknown: true}},
			check: func(t *testing.T, r Result) {
				assert.Equal(t, 1, r.Breakdown.ArgumentsUnavailable)
				assert.True(t, r.Breakdown.Pairs[0].ArgumentsUnavailable)
				assert.Empty(t, r.Breakdown.PairMismatches(&r.Breakdown.Pairs[0]))
				assert.Contains(t, r.Explanation, "arguments unavailable for 1 call")
			},
			wantScore: 1,
		},
		{
			name:      "must succeed",
			exp:       Expectation{Calls: []ExpectedCall{{Name: "lookup_stock", MustSucceed: true}, want("get_weather", "")}},
			calls:     []Call{{Name: "lookup_stock", Status: StatusError}, call("get_weather", "")},
			wantScore: 0.5,
			check: func(t *testing.T, r Result) {
				assert.Contains(t, r.Explanation, "lookup_stock failed")
			},
		},
		{
			name:      "a call the user or a policy refused did not succeed",
			exp:       Expectation{Calls: []ExpectedCall{{Name: "lookup_stock", MustSucceed: true}, want("get_weather", "")}},
			calls:     []Call{{Name: "lookup_stock", Status: StatusRefused}, call("get_weather", "")},
			wantScore: 0.5,
		},
		{
			name:      "failed call still counts without must_succeed",
			exp:       Expectation{Calls: []ExpectedCall{{Name: "lookup_stock"}}},
			calls:     []Call{{Name: "lookup_stock", Status: StatusError}},
			wantScore: 1,
		},
		{
			name:      "optional call made with wrong args counts",
			exp:       Expectation{Calls: []ExpectedCall{want("a", ""), optional(want("b", `{"x":1}`))}},
			calls:     []Call{call("a", ""), call("b", `{"x":2}`)},
			wantScore: 0.5,
		},
		{
			name:      "required pairing wins over optional",
			exp:       Expectation{Calls: []ExpectedCall{optional(want("a", "")), want("a", `{"x":1}`)}},
			calls:     []Call{call("a", `{"x":1}`)},
			wantScore: 1,
			check: func(t *testing.T, r Result) {
				assert.Equal(t, []int{0}, r.Breakdown.SkippedOptional)
			},
		},
		{
			name:      "type must match when set",
			exp:       Expectation{Calls: []ExpectedCall{{Name: "ask", Type: "MCP"}}},
			calls:     []Call{{Name: "ask", Type: "function"}},
			wantScore: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreNative(t, tt.exp, 1, tt.calls...)
			assert.InDelta(t, tt.wantScore, res.Score, 1e-9, res.Explanation)
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
}

func TestNativeThresholdAndOutcome(t *testing.T) {
	exp := Expectation{Calls: []ExpectedCall{want("a", ""), want("b", "")}}
	res := scoreNative(t, exp, 0.5, call("a", ""))
	assert.Equal(t, OutcomePass, res.Outcome)
	res = scoreNative(t, exp, 0.6, call("a", ""))
	assert.Equal(t, OutcomeFail, res.Outcome)
	assert.Equal(t, "score 0.5: 1 of 2 expected calls matched; missing b", res.Explanation)
}

func TestNativeRejectsOptions(t *testing.T) {
	_, err := New(NativeName, Settings{Options: map[string]any{"strict": true}})
	require.EqualError(t, err, `native: unknown option "strict" (the native scorer is configured by the expectation)`)
}

func TestExpectationValidate(t *testing.T) {
	tests := []struct {
		name string
		exp  Expectation
		err  string
	}{
		{"empty tool", Expectation{Calls: []ExpectedCall{{}}}, "calls[0].tool: must not be empty"},
		{"bad order", Expectation{Order: "sorted"}, `order: invalid value "sorted", expected one of "any", "in_order" or "exact"`},
		{"bad extra calls", Expectation{ExtraCalls: "maybe"}, `extra_calls: invalid value "maybe", expected one of "allow", "penalize" or "fail"`},
		{"exact allows extras", Expectation{Order: OrderExact, ExtraCalls: ExtraAllow}, `extra_calls: "allow" contradicts order "exact"; use order "in_order" to allow extra calls`},
		{"forbidden and expected", Expectation{Calls: []ExpectedCall{{Name: "rm"}}, ForbiddenTools: []string{"rm"}}, `calls[0].tool: "rm" is also listed in forbidden_tools`},
		{"not available", Expectation{Calls: []ExpectedCall{{Name: "x"}}, AvailableTools: []string{"y"}}, `calls[0].tool: "x" is not listed in available_tools`},
		{"cap", Expectation{ExtraCallCap: 2}, "extra_call_cap: 2 is outside [0, 1]"},
		{"unknown type", Expectation{Calls: []ExpectedCall{{Name: "get_weather", Type: "http"}}}, `calls[0].type: invalid value "http", expected "function" or "mcp"`},
		{"NaN cap", Expectation{ExtraCalls: ExtraPenalize, ExtraCallCap: math.NaN()}, "extra_call_cap: NaN is outside [0, 1]"},
		{"path through literal", Expectation{Calls: []ExpectedCall{withMatcher(want("f", `{"city":"Paris"}`), "city.name", "present")}}, `calls[0] (f): match["city.name"]: key "name" needs an object at city, but args give a literal string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.EqualError(t, tt.exp.Validate(), tt.err)
		})
	}
}

// TestNonFiniteNumbersRejected: NaN passes every comparison with a bound, so
// a NaN threshold or cap got past range checks written as "x < lo || x >
// hi"; and an option or matcher given one said "got float64".
func TestNonFiniteNumbersRejected(t *testing.T) {
	_, err := New(NativeName, Settings{Threshold: math.NaN()})
	assert.EqualError(t, err, "threshold NaN is outside [0, 1]")
	_, err = ParseMatcher(map[string]any{"range": map[string]any{"gte": math.NaN()}}, MatcherOptions{})
	assert.EqualError(t, err, "range: gte: expects a number, got .nan (NaN: not a JSON number)")
	assert.Equal(t, "-.inf (infinity: not a JSON number)", DescribeOperand(math.Inf(-1)))
}

// TestFormatScoreMatchesFormatFloat checks the fast score formatting
// against strconv's shortest formatting of the rounded score, across every
// ten-thousandth and values between them, and outside [0, 1].
func TestFormatScoreMatchesFormatFloat(t *testing.T) {
	want := func(x float64) string {
		switch x {
		case 0:
			return "0"
		case 1:
			return "1"
		}
		return strconv.FormatFloat(math.Round(x*10000)/10000, 'f', -1, 64)
	}
	var xs []float64
	for n := 0; n <= 10000; n++ {
		x := float64(n) / 10000
		xs = append(xs, x, x+0.00004, x-0.00004, x+0.00005)
	}
	xs = append(xs, 2.0/3, 1.0/3, -0.5, 1.5, 0.999951, 0.00004999, math.Copysign(0, -1), math.NaN())
	for _, x := range xs {
		if got := FormatScore(x); got != want(x) {
			t.Fatalf("formatScore(%v) = %q, want %q", x, got, want(x))
		}
	}
}
