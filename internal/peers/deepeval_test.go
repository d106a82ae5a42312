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

func typed(c toolcall.Call, typ string) toolcall.Call { c.Type = typ; return c }

func typedExp(e toolcall.ExpectedCall, typ string) toolcall.ExpectedCall { e.Type = typ; return e }

func withOutput(c toolcall.Call, out string) toolcall.Call {
	c.Result = toolcalltest.MustParse(out)
	return c
}

func expOutput(e toolcall.ExpectedCall, out string) toolcall.ExpectedCall {
	e.Result = toolcalltest.MustParse(out)
	return e
}

func TestDeepEvalQuirks(t *testing.T) {
	ip := map[string]any{"evaluation_params": []any{"input_parameters"}}
	ordering := map[string]any{"should_consider_ordering": true}
	tests := []struct {
		name  string
		opts  map[string]any
		exp   toolcall.Expectation
		calls []toolcall.Call
		want  float64
	}{
		{"identical duplicates collapse in the used-set: 0.5", nil, expect(toolcalltest.Want("a", `{}`), toolcalltest.Want("a", `{}`)), []toolcall.Call{toolcalltest.Call("a", `{}`), toolcalltest.Call("a", `{}`)}, 0.5},
		{"no used-set in ordering mode", ordering, expect(toolcalltest.Want("a", `{}`), toolcalltest.Want("a", `{}`)), []toolcall.Call{toolcalltest.Call("a", `{}`), toolcalltest.Call("a", `{}`)}, 1},
		{"arguments matter to the used-set even unevaluated", nil, expect(toolcalltest.Want("a", `{"x":1}`), toolcalltest.Want("a", `{"x":1}`)), []toolcall.Call{toolcalltest.Call("a", `{"x":1}`), toolcalltest.Call("a", `{"x":2}`)}, 1},
		{"FUNCTION/MCP twins collapse (eq ignores type)", nil,
			expect(typedExp(toolcalltest.Want("a", `{}`), "FUNCTION"), typedExp(toolcalltest.Want("a", `{}`), "MCP")),
			[]toolcall.Call{typed(toolcalltest.Call("a", `{}`), "MCP"), typed(toolcalltest.Call("a", `{}`), "FUNCTION")}, 0.5},
		{"greedy steal: 0.25", ip, expect(toolcalltest.Want("a", `{"x":1,"y":1}`), toolcalltest.Want("a", `{"x":1,"y":2}`)),
			[]toolcall.Call{toolcalltest.Call("a", `{"x":1,"y":2}`), toolcalltest.Call("a", `{"x":9,"y":9}`)}, 0.25},
		{"extra key halves the parameter score", ip, expect(toolcalltest.Want("a", `{"a":1}`)), []toolcall.Call{toolcalltest.Call("a", `{"a":1,"b":2}`)}, 0.5},
		{"nested dicts give partial credit", ip, expect(toolcalltest.Want("a", `{"x":{"p":1,"q":2},"y":1}`)), []toolcall.Call{toolcalltest.Call("a", `{"x":{"p":1,"q":3},"y":1}`)}, 0.75},
		{"lists count only when equal", ip, expect(toolcalltest.Want("a", `{"x":[1,2],"y":1}`)), []toolcall.Call{toolcalltest.Call("a", `{"x":[1,3],"y":1}`)}, 0.5},
		{"Python ==: True == 1", ip, expect(toolcalltest.Want("a", `{"x":true}`)), []toolcall.Call{toolcalltest.Call("a", `{"x":1}`)}, 1},
		{"Python ==: \"5\" != 5", ip, expect(toolcalltest.Want("a", `{"x":"5"}`)), []toolcall.Call{toolcalltest.Call("a", `{"x":5}`)}, 0},
		{"dict vs non-dict adds 0", ip, expect(toolcalltest.Want("a", `{"x":{"p":1},"y":1}`)), []toolcall.Call{toolcalltest.Call("a", `{"x":"p","y":1}`)}, 0.5},
		{"docs' ordering example gives 2/3", ordering, expect(toolcalltest.Want("W", ""), toolcalltest.Want("T", ""), toolcalltest.Want("W", "")), []toolcall.Call{toolcalltest.Call("W", ""), toolcalltest.Call("W", ""), toolcalltest.Call("T", "")}, 2.0 / 3},
		{"arguments ignored by default", nil, expect(toolcalltest.Want("a", `{"x":1}`)), []toolcall.Call{toolcalltest.Call("a", `{"x":2}`)}, 1},
		{"type mismatch fails", nil, expect(toolcalltest.Want("a", "")), []toolcall.Call{typed(toolcalltest.Call("a", ""), "mcp")}, 0},
		{"extra calls are free", nil, expect(toolcalltest.Want("a", "")), []toolcall.Call{toolcalltest.Call("b", ""), toolcalltest.Call("a", "")}, 1},
		{"nothing expected, calls made: 0", nil, expect(), []toolcall.Call{toolcalltest.Call("a", "")}, 0},
		{"both empty: 1", nil, expect(), nil, 1},
		{"output compared", map[string]any{"evaluation_params": []any{"output"}}, expect(expOutput(toolcalltest.Want("a", ""), `"r"`)), []toolcall.Call{withOutput(toolcalltest.Call("a", ""), `"s"`)}, 0},
		{"exact: order matters", map[string]any{"should_exact_match": true}, expect(toolcalltest.Want("a", ""), toolcalltest.Want("b", "")), []toolcall.Call{toolcalltest.Call("b", ""), toolcalltest.Call("a", "")}, 0},
		{"exact wins over ordering", map[string]any{"should_exact_match": true, "should_consider_ordering": true}, expect(toolcalltest.Want("W", ""), toolcalltest.Want("T", "")), []toolcall.Call{toolcalltest.Call("T", ""), toolcalltest.Call("W", "")}, 0},
		{"exact with None vs {}: 0, no crash", map[string]any{"should_exact_match": true, "evaluation_params": []any{"input_parameters"}}, expect(toolcalltest.Want("a", "")), []toolcall.Call{toolcalltest.Call("a", `{}`)}, 0},
		{"None vs None: 1", ip, expect(toolcalltest.Want("a", "")), []toolcall.Call{{Name: "a"}}, 1},
		{"strict mode zeroes scores below 1", map[string]any{"strict_mode": true}, expect(toolcalltest.Want("a", ""), toolcalltest.Want("b", "")), []toolcall.Call{toolcalltest.Call("a", "")}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: tt.exp, Options: tt.opts, Threshold: 0.5}, tt.calls...)
			require.NoError(t, res.Err)
			assert.InDelta(t, tt.want, res.Score, 1e-15, res.Explanation)
		})
	}
}

func TestDeepEvalLCSBacktrackSum(t *testing.T) {
	// The score is the sum of dp differences along the backtrack, not
	// dp[m][n]: with partial credit they differ in the last bits.
	exp := expect(toolcalltest.Want("a", `{"p":1,"q":1,"r":1}`), toolcalltest.Want("a", `{"p":1,"q":1,"r":1}`), toolcalltest.Want("a", `{"p":1,"q":1,"r":1}`))
	calls := []toolcall.Call{toolcalltest.Call("a", `{"p":1,"q":1,"r":2}`), toolcalltest.Call("a", `{"p":1,"q":2,"r":2}`), toolcalltest.Call("a", `{"p":1,"q":1,"r":2}`)}
	res := scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: exp, Options: map[string]any{"should_consider_ordering": true, "evaluation_params": []any{"input_parameters"}}}, calls...)
	third := 1.0 / 3
	two := third + third
	gains := []float64{two, third, two}
	total := 0.0
	for i := len(gains) - 1; i >= 0; i-- {
		total += gains[i]
	}
	assert.Equal(t, total/3, res.Score)
	assert.Len(t, res.Breakdown.Pairs, 3)
}

func TestDeepEvalDetailsAndThreshold(t *testing.T) {
	res := scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", ""), toolcalltest.Want("b", "")), Threshold: 0.5}, toolcalltest.Call("a", ""))
	assert.Equal(t, 0.5, res.Score)
	assert.Equal(t, true, res.Details["success"])
	assert.Equal(t, toolcall.OutcomePass, res.Outcome)
	// DeepEval lists the missing ToolCalls as it prints them (ToolCall.__repr__).
	assert.Equal(t, "0.5: Incomplete tool usage: missing tools [ToolCall(\n    name=\"b\",\n    type=\"FUNCTION\"\n)]; expected ['a', 'b'], called ['a']. See more details above.", res.Explanation)
	assert.Contains(t, res.Details["reason"], "\t Tool Selection Reason: No available tools were provided to assess tool selection criteria\n")

	res = scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", "")), Options: map[string]any{"threshold": 0.9}}, toolcalltest.Call("a", ""), toolcalltest.Call("b", ""))
	assert.Equal(t, 1.0, res.Score)
	assert.Equal(t, 0.9, res.Threshold)
	assert.Equal(t, "1: All expected tools ['a'] were called (order not considered).", res.Explanation)

	res = scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", "")), Options: map[string]any{"strict_mode": true, "threshold": 0.2}}, toolcalltest.Call("a", ""))
	assert.Equal(t, 1.0, res.Threshold, "strict mode forces threshold 1")
	assert.Equal(t, true, res.Details["success"])

	res = scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", "")), Options: map[string]any{"threshold": 0.0}}, toolcalltest.Call("b", ""))
	assert.Equal(t, true, res.Details["success"], "score 0 >= threshold 0")

	res = scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", ""))}, typed(toolcalltest.Call("a", ""), "mcp"))
	assert.Contains(t, res.Explanation, "tool type mismatches ['a (expected FUNCTION, called MCP)']")

	// is_successful: a None threshold gives success None, unless strict
	// mode has replaced it by 1.
	res = scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: expect(), Threshold: 0.5, Options: map[string]any{"threshold": nil}})
	assert.Equal(t, 1.0, res.Score)
	assert.Contains(t, res.Details, "success")
	assert.Nil(t, res.Details["success"], "threshold None: success None")
	res = scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: expect(), Options: map[string]any{"threshold": nil, "strict_mode": true}})
	assert.Equal(t, true, res.Details["success"], "strict mode: threshold 1")
}

func TestDeepEvalCrashes(t *testing.T) {
	ip := map[string]any{"evaluation_params": []any{"input_parameters"}}
	for _, tt := range []struct {
		name string
		opts map[string]any
		exp  toolcall.ExpectedCall
		call toolcall.Call
		err  string
	}{
		{"None vs dict in default mode", ip, toolcalltest.Want("a", ""), toolcalltest.Call("a", `{}`), "AttributeError: 'NoneType' object has no attribute 'keys'"},
		{"dict vs None in ordering mode", map[string]any{"evaluation_params": []any{"input_parameters"}, "should_consider_ordering": true}, toolcalltest.Want("a", `{"x":1}`), toolcall.Call{Name: "a"}, "AttributeError"},
		{"non-dict arguments", nil, toolcalltest.Want("a", ""), toolcalltest.Call("a", `[1]`), "ToolCall input_parameters must be a dict, got array (pydantic ValidationError)"},
		{"unknown arguments with input_parameters", ip, toolcalltest.Want("a", `{}`), unknownArgs("a"), "deepeval: arguments unavailable for call 1 (a)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: expect(tt.exp), Options: tt.opts}, tt.call)
			assert.Equal(t, toolcall.OutcomeError, res.Outcome)
			assert.ErrorContains(t, res.Err, tt.err)
		})
	}
	// The profile's name once, as in the other profiles' messages.
	res := scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", `{}`)), Options: ip}, unknownArgs("a"))
	assert.EqualError(t, res.Err, "deepeval: arguments unavailable for call 1 (a); deepeval judges arguments in this configuration")
	// Unknown arguments on a single call, arguments not evaluated: fine.
	res = scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", ""))}, unknownArgs("a"))
	require.NoError(t, res.Err)
	assert.Equal(t, 1.0, res.Score)
	// Two same-name calls: the used-set must compare their arguments.
	res = scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", ""), toolcalltest.Want("a", ""))}, unknownArgs("a"), unknownArgs("a"))
	assert.ErrorContains(t, res.Err, "DeepEval's used-set compares the arguments")
}

func TestDeepEvalOptionsAndMapping(t *testing.T) {
	_, err := toolcall.New(DeepEvalName, toolcall.Settings{Options: map[string]any{"available_tools": []any{"a"}}})
	assert.EqualError(t, err, `deepeval: option "available_tools": needs DeepEval's LLM tool-selection judge: use the deepeval_llm scorer, or remove it to score tool correctness deterministically`)
	// An empty list is falsy in Python: no judge, deterministic scoring.
	_, err = toolcall.New(DeepEvalName, toolcall.Settings{Options: map[string]any{"available_tools": []any{}, "evaluation_template": "MyTemplate"}})
	assert.NoError(t, err)
	_, err = toolcall.New(DeepEvalName, toolcall.Settings{Options: map[string]any{"evaluation_params": []any{"args"}}})
	assert.EqualError(t, err, `deepeval: option "evaluation_params": invalid value "args", expected "input_parameters" or "output"`)
	_, err = toolcall.New(DeepEvalName, toolcall.Settings{Options: map[string]any{"threshold": 2}})
	assert.EqualError(t, err, `deepeval: option "threshold": 2 is outside [0, 1]`)
	_, err = toolcall.New(DeepEvalName, toolcall.Settings{Options: map[string]any{"flaky": true}})
	assert.ErrorContains(t, err, `deepeval: unknown option "flaky", expected one of`)
	_, err = toolcall.New(DeepEvalName, toolcall.Settings{Expectation: expect(typedExp(toolcalltest.Want("a", ""), "datastore"))})
	assert.EqualError(t, err, `deepeval: calls[0] (a): type "datastore": DeepEval knows FUNCTION and MCP`)
	_, err = toolcall.New(DeepEvalName, toolcall.Settings{Expectation: expect(toolcalltest.WithMatcher(toolcalltest.Want("a", ""), "x", "any"))})
	assert.ErrorContains(t, err, "deepeval: calls[0] (a): argument matchers are not supported: deepeval compares arguments by plain equality")
	_, err = toolcall.New(DeepEvalName, toolcall.Settings{Options: map[string]any{"evaluation_params": []any{"ToolCallParams.INPUT_PARAMETERS"}, "async_mode": false, "include_reason": true}})
	assert.NoError(t, err)

	// Order maps to the mode unless a mode option is given.
	inOrder := toolcall.Expectation{Calls: []toolcall.ExpectedCall{toolcalltest.Want("W", ""), toolcalltest.Want("T", ""), toolcalltest.Want("W", "")}, Order: toolcall.OrderInOrder}
	res := scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: inOrder}, toolcalltest.Call("W", ""), toolcalltest.Call("W", ""), toolcalltest.Call("T", ""))
	assert.InDelta(t, 2.0/3, res.Score, 1e-15)
	exact := toolcall.Expectation{Calls: []toolcall.ExpectedCall{toolcalltest.Want("a", ""), toolcalltest.Want("b", "")}, Order: toolcall.OrderExact}
	res = scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: exact}, toolcalltest.Call("a", ""), toolcalltest.Call("b", ""), toolcalltest.Call("c", ""))
	assert.Equal(t, 0.0, res.Score)
	res = scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: exact, Options: map[string]any{"should_exact_match": false}}, toolcalltest.Call("a", ""), toolcalltest.Call("b", ""), toolcalltest.Call("c", ""))
	assert.Equal(t, 1.0, res.Score)
	// Type maps case-insensitively; Result maps to output.
	res = scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: expect(typedExp(toolcalltest.Want("a", ""), "mcp"))}, typed(toolcalltest.Call("a", ""), "MCP"))
	assert.Equal(t, 1.0, res.Score)
}

func TestDeepEvalNoneLists(t *testing.T) {
	sc := newProfile(t, DeepEvalName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", ""))})
	tc := sc.(interface {
		ScoreTestCase(context.Context, []toolcall.Call, bool, bool) toolcall.Result
	})
	res := tc.ScoreTestCase(t.Context(), []toolcall.Call{toolcalltest.Call("a", `{}`)}, false, true)
	assert.EqualError(t, res.Err, "deepeval: 'expected_tools' cannot be None for the 'Tool Correctness' metric (MissingTestCaseParamsError)")
	assert.Equal(t, toolcall.OutcomeError, res.Outcome)
	res = tc.ScoreTestCase(t.Context(), nil, true, true)
	assert.EqualError(t, res.Err, "deepeval: 'tools_called' and 'expected_tools' cannot be None for the 'Tool Correctness' metric (MissingTestCaseParamsError)")
	// Empty lists are not None.
	res = tc.ScoreTestCase(t.Context(), nil, false, false)
	require.NoError(t, res.Err)
	assert.Equal(t, 0.0, res.Score)
}

// TestDeepEvalReasonListsToolCalls pins DeepEval's unordered reason
// (_generate_reason in metrics/tool_correctness/tool_correctness.py):
// "missing tools" is list(set(expected_tools) - used), so it lists the
// missing expected ToolCalls, one per group of equal ones (name, arguments
// and output, Python ==: 1, 1.0 and True are one), each as
// ToolCall.__repr__ prints it (test_case/llm_test_case.py): name, type, a
// non-empty input_parameters and a dict output as json.dumps(indent=4,
// ensure_ascii=False) split with str.splitlines (so U+2028 and U+0085 end
// lines, and an empty dict output leaves a blank line), any other output
// as repr(). The expected texts are what DeepEval 4.1.10's own code
// returned for these inputs (tools/peers/deepeval/record.py), with the
// missing ToolCalls in expected order: DeepEval's set gives them in an
// order that depends on the process's hash seed.
func TestDeepEvalReasonListsToolCalls(t *testing.T) {
	exp := func(name, args, output, typ string) toolcall.ExpectedCall {
		e := toolcall.ExpectedCall{Name: name, Type: typ}
		if args != "" {
			e.Args = toolcalltest.MustParse(args)
		}
		if output != "" {
			e.Result = toolcalltest.MustParse(output)
		}
		return e
	}
	reason := func(calls []toolcall.ExpectedCall, made ...toolcall.Call) string {
		res := scoreProfile(t, DeepEvalName, toolcall.Settings{Expectation: toolcall.Expectation{Calls: calls}}, made...)
		require.NoError(t, res.Err)
		return res.Details["reason"].(string)
	}
	const selection = "\n\t Tool Selection Reason: No available tools were provided to assess tool selection criteria\n]\n"

	got := reason([]toolcall.ExpectedCall{
		exp("a", `{"k":"v"}`, `{}`, ""), exp("b", "", `0`, ""), exp("c", "", `""`, ""), exp("d", "", `false`, ""),
		exp("e", `{"s":"x\u2028y\u0085z"}`, `"it's \"q\""`, ""),
	})
	assert.Equal(t, "[\n\t Tool Calling Reason: Incomplete tool usage: missing tools [ToolCall(\n    name=\"a\",\n    type=\"FUNCTION\",\n    input_parameters={\n        \"k\": \"v\"\n    },\n    output={}\n\n), "+
		"ToolCall(\n    name=\"b\",\n    type=\"FUNCTION\",\n    output=0\n), ToolCall(\n    name=\"c\",\n    type=\"FUNCTION\",\n    output=''\n), ToolCall(\n    name=\"d\",\n    type=\"FUNCTION\",\n    output=False\n), "+
		"ToolCall(\n    name=\"e\",\n    type=\"FUNCTION\",\n    input_parameters={\n        \"s\": \"x\n    y\n    z\"\n    },\n    output='it\\'s \"q\"'\n)]; expected ['a', 'b', 'c', 'd', 'e'], called []. See more details above."+selection, got)

	got = reason([]toolcall.ExpectedCall{
		exp("a", `{"n":1,"f":2.5,"e":1e-7,"big":1e16}`, "", ""),
		exp("a", `{"n":1.0,"f":2.5,"e":1e-7,"big":1e16}`, "", ""),
		exp("a", `{"n":true,"f":2.5,"e":1e-7,"big":1e16}`, "", "mcp"),
	}, toolcall.Call{Name: "b", Args: jsonv.Object()})
	assert.Equal(t, "[\n\t Tool Calling Reason: Incomplete tool usage: missing tools [ToolCall(\n    name=\"a\",\n    type=\"FUNCTION\",\n    input_parameters={\n        \"n\": 1,\n        \"f\": 2.5,\n        \"e\": 1e-07,\n        \"big\": 1e+16\n    }\n)]; expected ['a', 'a', 'a'], called ['b']. See more details above."+selection, got)
}
