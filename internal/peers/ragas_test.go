package peers

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall/toolcalltest"
)

func TestRagasToolCallAccuracy(t *testing.T) {
	unordered := map[string]any{"strict_order": false}
	tests := []struct {
		name  string
		opts  map[string]any
		exp   toolcall.Expectation
		calls []toolcall.Call
		want  float64
	}{
		{"both empty: 1", nil, expect(), nil, 1},
		{"no predicted calls: 0", nil, expect(toolcalltest.Want("s", `{}`)), nil, 0},
		{"no reference calls: 0", nil, expect(), []toolcall.Call{toolcalltest.Call("s", `{}`)}, 0},
		{"name sequence must align", nil, expect(toolcalltest.Want("a", `{}`), toolcalltest.Want("b", `{}`)), []toolcall.Call{toolcalltest.Call("b", `{}`), toolcalltest.Call("a", `{}`)}, 0},
		{"any length mismatch: 0", nil, expect(toolcalltest.Want("s", `{}`)), []toolcall.Call{toolcalltest.Call("s", `{}`), toolcalltest.Call("s", `{}`)}, 0},
		{"partial credit from arguments", nil, expect(toolcalltest.Want("s", `{"q":"p","l":10}`), toolcalltest.Want("f", `{"t":"r"}`)),
			[]toolcall.Call{toolcalltest.Call("s", `{"q":"p","l":5}`), toolcalltest.Call("f", `{"t":"r"}`)}, 0.75},
		{"str(): 5 matches \"5\"", nil, expect(toolcalltest.Want("s", `{"x":"5"}`)), []toolcall.Call{toolcalltest.Call("s", `{"x":5}`)}, 1},
		{"str(): None matches \"None\"", nil, expect(toolcalltest.Want("s", `{"x":null}`)), []toolcall.Call{toolcalltest.Call("s", `{"x":"None"}`)}, 1},
		{"str(): True matches \"True\"", nil, expect(toolcalltest.Want("s", `{"x":true}`)), []toolcall.Call{toolcalltest.Call("s", `{"x":"True"}`)}, 1},
		{"str(): 1.0 does not match 1", nil, expect(toolcalltest.Want("s", `{"x":1}`)), []toolcall.Call{toolcalltest.Call("s", `{"x":1.0}`)}, 0},
		{"str(): dicts depend on key order", nil, expect(toolcalltest.Want("s", `{"x":{"b":2,"a":1}}`)), []toolcall.Call{toolcalltest.Call("s", `{"x":{"a":1,"b":2}}`)}, 0},
		{"str(): same dicts match", nil, expect(toolcalltest.Want("s", `{"x":{"a":[1,"b"]}}`)), []toolcall.Call{toolcalltest.Call("s", `{"x":{"a":[1,"b"]}}`)}, 1},
		{"extra predicted arguments are free", nil, expect(toolcalltest.Want("s", `{"x":1}`)), []toolcall.Call{toolcalltest.Call("s", `{"x":1,"y":2}`)}, 1},
		{"reference without arguments fails a call with some", nil, expect(toolcalltest.Want("s", `{}`)), []toolcall.Call{toolcalltest.Call("s", `{"x":1}`)}, 0},
		{"absent reference args read as {}", nil, expect(toolcalltest.Want("s", "")), []toolcall.Call{{Name: "s"}}, 1},
		{"unordered: sorted then aligned", unordered, expect(toolcalltest.Want("a", `{"q":2}`), toolcalltest.Want("b", `{"q":1}`)), []toolcall.Call{toolcalltest.Call("b", `{"q":1}`), toolcalltest.Call("a", `{"q":2}`)}, 1},
		{"unordered pairs by sorted position, not best match", unordered,
			expect(toolcalltest.Want("s", `{"q":"a"}`), toolcalltest.Want("s", `{"q":"b"}`)), []toolcall.Call{toolcalltest.Call("s", `{"q":"b"}`), toolcalltest.Call("s", `{"q":"c"}`)}, 0},
		{"float sums: (1 + 1/3 + 0)/3", nil,
			expect(toolcalltest.Want("a", `{"x":1}`), toolcalltest.Want("b", `{"x":1,"y":2,"z":3}`), toolcalltest.Want("c", `{"x":1}`)),
			[]toolcall.Call{toolcalltest.Call("a", `{"x":1}`), toolcalltest.Call("b", `{"x":1,"y":0,"z":0}`), toolcalltest.Call("c", `{"x":2}`)}, 0.4444444444444444},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreProfile(t, RagasName, toolcall.Settings{Expectation: tt.exp, Options: tt.opts}, tt.calls...)
			require.NoError(t, res.Err)
			assert.Equal(t, tt.want, res.Score, res.Explanation)
		})
	}
	res := scoreProfile(t, RagasName, toolcall.Settings{Expectation: expect(toolcalltest.Want("s", `{}`))}, toolcalltest.Call("s", `{}`), toolcalltest.Call("s", `{}`))
	assert.Equal(t, []string{"Length mismatch: predicted tool calls (2) vs reference tool calls (1). Only the first 1 tool calls will be compared."}, res.Details["warnings"])
	res = scoreProfile(t, RagasName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", `{"x":1}`), toolcalltest.Want("b", `{}`))}, toolcalltest.Call("a", `{"x":1}`), toolcalltest.Call("b", `{}`))
	assert.Equal(t, []toolcall.Pair{{Expected: 0, Actual: 0, Score: 1}, {Expected: 1, Actual: 1, Score: 1}}, res.Breakdown.Pairs)
}

func TestRagasToolCallF1(t *testing.T) {
	f1 := map[string]any{"metric": "tool_call_f1"}
	tests := []struct {
		name  string
		exp   toolcall.Expectation
		calls []toolcall.Call
		want  float64
	}{
		{"both empty: 0, not 1", expect(), nil, 0},
		{"duplicates collapse", expect(toolcalltest.Want("S", `{}`)), []toolcall.Call{toolcalltest.Call("S", `{}`), toolcalltest.Call("S", `{}`)}, 1},
		{"1 == True", expect(toolcalltest.Want("s", `{"x":1}`)), []toolcall.Call{toolcalltest.Call("s", `{"x":true}`)}, 1},
		{"1 == 1.0", expect(toolcalltest.Want("s", `{"x":1}`)), []toolcall.Call{toolcalltest.Call("s", `{"x":1.0}`)}, 1},
		{"\"1\" != 1", expect(toolcalltest.Want("s", `{"x":1}`)), []toolcall.Call{toolcalltest.Call("s", `{"x":"1"}`)}, 0},
		{"key order irrelevant", expect(toolcalltest.Want("s", `{"a":1,"b":2}`)), []toolcall.Call{toolcalltest.Call("s", `{"b":2,"a":1}`)}, 1},
		{"P=1/2 R=1/3 -> 0.4", expect(toolcalltest.Want("S", `{}`), toolcalltest.Want("u", `{}`), toolcalltest.Want("v", `{}`)), []toolcall.Call{toolcalltest.Call("S", `{}`), toolcalltest.Call("t", `{}`)}, 0.4},
		{"rounded to 4 decimals: 2/3", expect(toolcalltest.Want("W", `{}`), toolcalltest.Want("U", `{}`)), []toolcall.Call{toolcalltest.Call("W", `{}`)}, 0.6667},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreProfile(t, RagasName, toolcall.Settings{Expectation: tt.exp, Options: f1}, tt.calls...)
			require.NoError(t, res.Err)
			assert.Equal(t, tt.want, res.Score, res.Explanation)
		})
	}
	// round(f1, 4) is correct decimal rounding, ties to even: 0.03125 -> 0.0312.
	assert.Equal(t, 0.0312, pyRound4(0.03125))
	assert.Equal(t, 0.6667, pyRound4(2.0/3))

	res := scoreProfile(t, RagasName, toolcall.Settings{Expectation: expect(toolcalltest.Want("s", `{"x":{"a":1}}`)), Options: f1}, toolcalltest.Call("s", `{"x":{"a":1}}`))
	assert.Equal(t, toolcall.OutcomeError, res.Outcome)
	assert.ErrorContains(t, res.Err, "TypeError: unhashable type: 'dict'")
	res = scoreProfile(t, RagasName, toolcall.Settings{Expectation: expect(toolcalltest.Want("s", `{}`)), Options: f1}, toolcalltest.Call("s", `{"x":[1]}`))
	assert.ErrorContains(t, res.Err, "TypeError: unhashable type: 'list'")
	res = scoreProfile(t, RagasName, toolcall.Settings{Expectation: expect(toolcalltest.Want("s", `{}`)), Options: f1}, unknownArgs("s"))
	assert.ErrorContains(t, res.Err, "ragas: arguments unavailable for call 1 (s)")
	res = scoreProfile(t, RagasName, toolcall.Settings{Expectation: expect(toolcalltest.Want("s", `{"x":1}`)), Options: f1}, toolcalltest.Call("s", `{"x":1}`), toolcalltest.Call("t", `{}`))
	assert.Equal(t, map[string]any{"tp": 1, "fp": 1, "fn": 0}, res.Details)
}

func TestRagasErrorsAndMapping(t *testing.T) {
	_, err := toolcall.New(RagasName, toolcall.Settings{Options: map[string]any{"arg_comparison_metric": "levenshtein"}})
	assert.EqualError(t, err, `ragas: option "arg_comparison_metric": only "exact_match" is supported, got string "levenshtein"`)
	_, err = toolcall.New(RagasName, toolcall.Settings{Options: map[string]any{"metric": "tool_call_f1", "strict_order": false}})
	assert.EqualError(t, err, `ragas: option "strict_order": applies only to metric "tool_call_accuracy"`)
	_, err = toolcall.New(RagasName, toolcall.Settings{Expectation: expect(toolcalltest.Want("s", `[1]`))})
	assert.EqualError(t, err, "ragas: calls[0] (s): args must be a dict, got array")
	_, err = toolcall.New(RagasName, toolcall.Settings{Expectation: expect(toolcalltest.Optional(toolcalltest.Want("s", "")))})
	assert.EqualError(t, err, "ragas: calls[0] (s): optional expected calls are not supported by ragas")

	res := scoreProfile(t, RagasName, toolcall.Settings{Expectation: expect(toolcalltest.Want("s", `{}`))}, toolcalltest.Call("s", `null`))
	assert.ErrorContains(t, res.Err, "ToolCall.args must be a dict, got null (pydantic ValidationError)")
	res = scoreProfile(t, RagasName, toolcall.Settings{Expectation: expect(toolcalltest.Want("s", `{"x":1}`))}, unknownArgs("s"))
	assert.ErrorContains(t, res.Err, "ragas: arguments unavailable for call 1 (s)")
	res = scoreProfile(t, RagasName, toolcall.Settings{Expectation: expect(toolcalltest.Want("s", `{"x":1}`))}, unknownArgs("t"))
	require.NoError(t, res.Err, "names differ: arguments never compared")
	assert.Equal(t, 0.0, res.Score)

	// Order any maps to strict_order false unless strict_order is given.
	anyOrder := toolcall.Expectation{Calls: []toolcall.ExpectedCall{toolcalltest.Want("a", `{}`), toolcalltest.Want("b", `{}`)}, Order: toolcall.OrderAny}
	res = scoreProfile(t, RagasName, toolcall.Settings{Expectation: anyOrder}, toolcalltest.Call("b", `{}`), toolcalltest.Call("a", `{}`))
	assert.Equal(t, 1.0, res.Score)
	res = scoreProfile(t, RagasName, toolcall.Settings{Expectation: anyOrder, Options: map[string]any{"strict_order": true}}, toolcalltest.Call("b", `{}`), toolcalltest.Call("a", `{}`))
	assert.Equal(t, 0.0, res.Score)
}

// TestRagasNoneReference: ToolCallAccuracy asserts reference_tool_calls is
// set; ToolCallF1 reads None as an empty list.
func TestRagasNoneReference(t *testing.T) {
	ctx := context.Background()
	sample := func(metric string) interface {
		ScoreSample(context.Context, []toolcall.Call, bool) toolcall.Result
	} {
		sc := newProfile(t, RagasName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", `{}`)), Threshold: 0.5, Options: map[string]any{"metric": metric}})
		return sc.(interface {
			ScoreSample(context.Context, []toolcall.Call, bool) toolcall.Result
		})
	}
	calls := toolcall.NumberCalls([]toolcall.Call{toolcalltest.Call("a", `{}`)})

	res := sample(RagasToolCallAccuracy).ScoreSample(ctx, calls, true)
	require.Error(t, res.Err)
	assert.Contains(t, res.Err.Error(), "Reference tool calls is not set")
	assert.Equal(t, toolcall.OutcomeError, res.Outcome)

	res = sample(RagasToolCallF1).ScoreSample(ctx, calls, true)
	require.NoError(t, res.Err)
	assert.Equal(t, 0.0, res.Score, "None reads as no reference calls: F1 0 with a prediction")

	res = sample(RagasToolCallAccuracy).ScoreSample(ctx, calls, false)
	assert.Equal(t, 1.0, res.Score, "a set reference scores as Score does")
}
