package scoring

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPythonSemantics(t *testing.T) {
	repr := []struct{ json, want string }{
		{`"a'b"`, `a'b`},
		{`{"a":"x","b":[1,2.5,true,null]}`, `{'a': 'x', 'b': [1, 2.5, True, None]}`},
		{`{"s":"it's"}`, `{'s': "it's"}`},
		{`{"s":"a\"b'c\n"}`, `{'s': 'a"b\'c\n'}`},
		{`1.0`, `1.0`},
		{`100.0`, `100.0`},
		{`1e16`, `1e+16`},
		{`1.5e-5`, `1.5e-05`},
		{`0.0001`, `0.0001`},
		{`123456789012345678901234567890`, `123456789012345678901234567890`},
		{`-0`, `0`},
		{`-0.0`, `-0.0`},
		{`9999999999999998.0`, `9999999999999998.0`},
		{`{"k":"\u0001é"}`, `{'k': '\x01é'}`},
	}
	for _, tt := range repr {
		assert.Equal(t, tt.want, pyStr(mustParse(tt.json)), tt.json)
	}
	eq := []struct {
		a, b string
		want bool
	}{
		{`1`, `1.0`, true},
		{`true`, `1`, true},
		{`false`, `0.0`, true},
		{`"5"`, `5`, false},
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2.0],"a":true}`, true},
		{`[1,2]`, `[2,1]`, false},
		{`null`, `{}`, false},
		{`{"a":null}`, `{}`, false},
	}
	for _, tt := range eq {
		assert.Equal(t, tt.want, pyEqual(mustParse(tt.a), mustParse(tt.b)), "%s == %s", tt.a, tt.b)
	}
	assert.True(t, pyEqual(Undefined(), Null()), "both None")
	assert.Equal(t, "['a', \"b'\"]", pyListRepr([]string{"a", "b'"}))
}

func TestJavaScriptSemantics(t *testing.T) {
	same := []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":2}`, `{"a":1,"b":2}`, true},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, false},
		{`{"b":1,"1":2}`, `{"1":2,"b":1}`, true},
		{`{"b":1,"01":2}`, `{"01":2,"b":1}`, false},
		{`{"2":1,"10":2}`, `{"10":2,"2":1}`, true},
		{`[1,{"x":[true]}]`, `[1.0,{"x":[true]}]`, true},
		{`5`, `"5"`, false},
		{`null`, `null`, true},
	}
	for _, tt := range same {
		assert.Equal(t, tt.want, jsStringifyEqual(mustParse(tt.a), mustParse(tt.b)), "%s vs %s", tt.a, tt.b)
	}
	withUndef := Object(Member{"x", Int(1)}, Member{"y", Undefined()})
	assert.True(t, jsStringifyEqual(withUndef, mustParse(`{"x":1}`)), "undefined members vanish")
	assert.True(t, jsStringifyEqual(Array(Undefined()), mustParse(`[null]`)), "undefined elements are null")
	assert.True(t, jsStringifyEqual(Undefined(), Undefined()))
	assert.False(t, jsStringifyEqual(Undefined(), Null()))

	assert.Equal(t, 3.0, jsMathRound(2.5))
	assert.Equal(t, -2.0, jsMathRound(-2.5), "ties toward +Infinity")
	assert.Equal(t, 0.33, mastraRound2(1.0/3))
	assert.Equal(t, 0.67, mastraRound2(2.0/3))
	for _, k := range []string{"0", "17", "4294967294"} {
		_, ok := jsArrayIndex(k)
		assert.True(t, ok, k)
	}
	for _, k := range []string{"01", "-1", "4294967295", "1.0", ""} {
		_, ok := jsArrayIndex(k)
		assert.False(t, ok, k)
	}
}

func TestFlattenToolCalls(t *testing.T) {
	flat := []Call{call("a", ""), call("b", "")}
	assert.Equal(t, flat, flattenToolCalls(flat))
	nested := []Call{
		{Name: "plan", StepType: StepModelGeneration},
		{Name: "agent", StepType: StepAgentRun, Children: []Call{call("x", ""), {Name: "mcp", StepType: StepMCPToolCall}}},
		msg("user"),
		call("y", ""),
	}
	assert.Equal(t, []string{"x", "mcp", "y"}, toolNames(flattenToolCalls(nested)))
}

func TestJSFunctionTranslator(t *testing.T) {
	m, err := jsPredicateMatcher("(v) => v > 10")
	require.NoError(t, err)
	assert.True(t, m.Match(Int(11)))
	assert.False(t, m.Match(Int(10)))
	m, err = jsPredicateMatcher("()=>true")
	require.NoError(t, err)
	assert.Nil(t, m)
	m, err = jsPredicateMatcher(`(s) => s.startsWith("ab") && s.endsWith("z") || s === "q"`)
	require.NoError(t, err)
	assert.True(t, m.Match(String("abz")))
	assert.True(t, m.Match(String("q")))
	assert.False(t, m.Match(String("ab")))
	m, err = jsPredicateMatcher(`(v) => typeof v === "string" && !v.includes("x")`)
	require.NoError(t, err)
	assert.True(t, m.Match(String("abc")))
	assert.False(t, m.Match(String("axc")))
	_, err = jsPredicateMatcher("(v) => v % 2 === 0")
	assert.Error(t, err)

	spec, err := jsComparatorSpec(`(toolArgs,referenceToolArgs)=>{if(referenceToolArgs.query&&referenceToolArgs.query.includes("upgrade")){return toolArgs.query?.includes("upgrade")??false}return true}`)
	require.NoError(t, err)
	assert.Contains(t, spec, "when_reference")
	assert.Contains(t, spec, "actual")
	_, err = jsComparatorSpec(`(a, b) => a.query === b.query`)
	assert.ErrorContains(t, err, "unsupported")
}

// TestProfilesNeverPanic feeds odd trajectories to every profile in several
// configurations: each must return a result (possibly an error), never panic.
func TestProfilesNeverPanic(t *testing.T) {
	exp := Expectation{Calls: []ExpectedCall{want("a", `{"x":[1,{"y":null}]}`), want("b", ""), {Name: "user", StepType: StepMessage}, turnExp(want("a", `{}`), 2)}}
	odd := [][]Call{
		nil,
		{call("a", `null`), call("a", `"str"`), call("a", `[1,2]`), call("a", `7`)},
		{{Name: "a", ArgsUnknown: true}, {Name: "b", Status: StatusError, Type: "mcp"}},
		{msg("user"), turn(call("a", `{"x":[1,{"y":null}]}`), 1), msg("tool"), {Name: "p", StepType: StepAgentRun, Children: []Call{call("b", `{}`), {Name: "g", StepType: StepModelGeneration}}}},
		{{Name: "", StepType: StepMessage, Fields: map[string]Value{"tool_calls": Array()}}, {Name: "a", Args: Object(Member{"u", Undefined()})}},
	}
	configs := map[string][]map[string]any{
		MongoDBName:              {nil},
		MastraToolCallName:       {nil, {"expected_tool_order": []any{"a", "b"}, "strict_mode": true, "version": "1.2.0"}},
		MastraTrajectoryName:     {nil, {"comparison_options": map[string]any{"ordering": "strict", "allow_repeated_steps": false}}, {"comparison_options": map[string]any{"ordering": "unordered"}}},
		MastraTrajectoryFullName: {nil, {"defaults": map[string]any{"max_steps": 1, "max_total_tokens": 5, "no_redundant_calls": true, "blacklisted_tools": []any{"b"}, "steps": []any{map[string]any{"name": "p", "children": map[string]any{"steps": []any{map[string]any{"name": "b"}}}}}}}},
		DeepEvalName:             {nil, {"evaluation_params": []any{"input_parameters", "output"}}, {"should_consider_ordering": true, "evaluation_params": []any{"input_parameters"}}, {"should_exact_match": true}},
		AgentEvalsName:           {nil, {"trajectory_match_mode": "unordered", "tool_args_match_mode": "subset"}, {"trajectory_match_mode": "superset", "tool_args_match_overrides": map[string]any{"a": []any{"x.1.y"}}}},
		ADKName:                  {nil, {"match_type": "ANY_ORDER"}, {"metric": "tool_parameter_match"}},
		RagasName:                {nil, {"strict_order": false}, {"metric": "tool_call_f1"}},
	}
	for name, cfgs := range configs {
		for i, opts := range cfgs {
			e := exp
			if name == MongoDBName || name == MastraToolCallName || name == MastraTrajectoryName || name == MastraTrajectoryFullName ||
				name == DeepEvalName || name == ADKName || name == RagasName {
				e = Expectation{Calls: []ExpectedCall{want("a", `{"x":[1,{"y":null}]}`), want("b", "")}}
			}
			sc, err := New(name, Settings{Expectation: e, Options: opts, Threshold: 0.5})
			require.NoError(t, err, "%s config %d", name, i)
			for j, calls := range odd {
				assert.NotPanics(t, func() {
					res := sc.Score(t.Context(), calls)
					assert.Equal(t, name, res.Scorer, "%s config %d input %d", name, i, j)
					if res.Outcome == OutcomeError {
						assert.Error(t, res.Err)
					}
				}, "%s config %d input %d", name, i, j)
			}
		}
	}
}

// TestProfilesAcceptAnEmptyToolName: the peers take a tool call named "";
// so do their profiles (the processor's configuration rejects such a name
// before any scorer is built).
func TestProfilesAcceptAnEmptyToolName(t *testing.T) {
	for _, name := range []string{MongoDBName, MastraToolCallName, MastraTrajectoryName, MastraTrajectoryFullName, DeepEvalName, AgentEvalsName, ADKName, RagasName} {
		t.Run(name, func(t *testing.T) {
			s := Settings{Expectation: Expectation{Calls: []ExpectedCall{{Name: "", Args: mustParse(`{}`)}}}, Threshold: 0.5}
			if name == MastraToolCallName {
				// "" is falsy in JavaScript: Mastra's own constructor check.
				_, err := New(name, s)
				require.ErrorContains(t, err, "Either expectedTool or expectedToolOrder must be provided")
				return
			}
			res := scoreProfile(t, name, s, call("", `{}`))
			assert.NoError(t, res.Err)
			assert.GreaterOrEqual(t, res.Score, 0.0)
			assert.LessOrEqual(t, res.Score, 1.0)
		})
	}
}
