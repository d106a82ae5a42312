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

func names(ns ...string) []toolcall.Call {
	out := make([]toolcall.Call, len(ns))
	for i, n := range ns {
		out[i] = toolcall.Call{Name: n, Args: toolcalltest.MustParse(`{"q":1}`)}
	}
	return out
}

func TestMastraToolCallQuirks(t *testing.T) {
	order := func(ns ...string) []any {
		out := make([]any, len(ns))
		for i, n := range ns {
			out[i] = n
		}
		return out
	}
	tests := []struct {
		name        string
		opts        map[string]any
		calls       []toolcall.Call
		want        float64
		correctTool bool
		correctOrd  any
	}{
		{"expected tool among calls", map[string]any{"expected_tool": "a"}, names("b", "a"), 1, true, nil},
		{"strict: exactly one call", map[string]any{"expected_tool": "a", "strict_mode": true}, names("a"), 1, true, nil},
		{"strict: [a,a] scores 0", map[string]any{"expected_tool": "a", "strict_mode": true}, names("a", "a"), 0, false, nil},
		{"no tool called: 0", map[string]any{"expected_tool": "a"}, nil, 0, false, nil},
		{"relaxed order with extras", map[string]any{"expected_tool_order": order("a", "b")}, names("a", "x", "b"), 1, false, true},
		{"indexOf: repeated expected name never matches", map[string]any{"expected_tool_order": order("a", "b", "a")}, names("a", "b", "a"), 0, false, false},
		{"indexOf: earlier stray call breaks order", map[string]any{"expected_tool_order": order("a", "b")}, names("b", "a", "b"), 0, false, false},
		{"strict order: exact sequence", map[string]any{"expected_tool_order": order("a", "b"), "strict_mode": true}, names("a", "b"), 1, false, true},
		{"strict order: extra call", map[string]any{"expected_tool_order": order("a", "b"), "strict_mode": true}, names("a", "x", "b"), 0, false, false},
		{"empty order is ignored by the score", map[string]any{"expected_tool_order": order()}, names("a"), 0, false, true},
		{"empty order falls back to expected tool", map[string]any{"expected_tool_order": order(), "expected_tool": "a"}, names("a"), 1, true, true},
		{"order decides, correctToolCalled still strict rule", map[string]any{"expected_tool_order": order("a", "b"), "expected_tool": "a", "strict_mode": true}, names("a", "b"), 1, false, true},
		{"arguments are ignored", map[string]any{"expected_tool": "a"}, []toolcall.Call{unknownArgs("a")}, 1, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreProfile(t, MastraToolCallName, toolcall.Settings{Options: tt.opts, Threshold: 1}, tt.calls...)
			require.NoError(t, res.Err)
			assert.Equal(t, tt.want, res.Score, res.Explanation)
			assert.Equal(t, tt.correctTool, res.Details["correctToolCalled"])
			assert.Equal(t, tt.correctOrd, res.Details["correctOrderCalled"])
		})
	}
}

func TestMastraToolCallStates(t *testing.T) {
	threw := toolcall.Call{Name: "a", Status: toolcall.StatusError}
	partial := toolcall.Call{Name: "a", Fields: map[string]jsonv.Value{"state": jsonv.String("partial-call")}}
	stateErr := toolcall.Call{Name: "a", Fields: map[string]jsonv.Value{"state": jsonv.String("output-error")}}
	for _, tt := range []struct {
		name    string
		version string
		c       toolcall.Call
		want    float64
	}{
		{"1.10.2 counts a call that threw", MastraVersion1102, threw, 1},
		{"1.2.0 does not", MastraVersion120, threw, 0},
		{"state output-error in 1.10.2", MastraVersion1102, stateErr, 1},
		{"state output-error in 1.2.0", MastraVersion120, stateErr, 0},
		{"partial-call never counts", MastraVersion1102, partial, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreProfile(t, MastraToolCallName, toolcall.Settings{Options: map[string]any{"expected_tool": "a", "version": tt.version}}, tt.c)
			assert.Equal(t, tt.want, res.Score)
		})
	}
}

func TestMastraToolCallAgentRun(t *testing.T) {
	sc := newProfile(t, MastraToolCallName, toolcall.Settings{Options: map[string]any{"expected_tool_order": []any{"B", "C", "A"}, "strict_mode": true}})
	runner := sc.(interface {
		ScoreAgentRun(context.Context, MastraAgentRun) toolcall.Result
	})
	input := toolcalltest.MustParse(`[{"role":"user","content":"hi"}]`)
	inv := func(name, id string) string {
		return `{"toolName":"` + name + `","toolCallId":"` + id + `","state":"result"}`
	}
	// Legacy [A,B,C] merged with parts [C,A]: parts win for shared ids and
	// legacy-only B stays before its next shared anchor -> [B, C, A].
	output := toolcalltest.MustParse(`[{"role":"assistant","content":{"toolInvocations":[` + inv("A", "1") + `,` + inv("B", "2") + `,` + inv("C", "3") +
		`],"parts":[{"type":"tool-invocation","toolInvocation":` + inv("C", "3") + `},{"type":"tool-invocation","toolInvocation":` + inv("A", "1") + `}]}}]`)
	res := runner.ScoreAgentRun(context.Background(), MastraAgentRun{InputMessages: input, Output: output})
	require.NoError(t, res.Err)
	assert.Equal(t, 1.0, res.Score)
	assert.Equal(t, []string{"B", "C", "A"}, res.Details["actualTools"])
	infos := res.Details["toolCallInfos"].([]MastraToolCallInfo)
	assert.Equal(t, MastraToolCallInfo{ToolName: "B", ToolCallID: "2", MessageIndex: 0, InvocationIndex: 0}, infos[0])

	// 1.2.0 reads only the legacy list.
	old := newProfile(t, MastraToolCallName, toolcall.Settings{Options: map[string]any{"expected_tool_order": []any{"B", "C", "A"}, "strict_mode": true, "version": "1.2.0"}})
	res = old.(interface {
		ScoreAgentRun(context.Context, MastraAgentRun) toolcall.Result
	}).ScoreAgentRun(context.Background(), MastraAgentRun{InputMessages: input, Output: output})
	assert.Equal(t, 0.0, res.Score)
	assert.Equal(t, []string{"A", "B", "C"}, res.Details["actualTools"])

	// Preprocess errors.
	for _, run := range []MastraAgentRun{
		{Output: output},
		{InputMessages: toolcalltest.MustParse(`[]`), Output: output},
		{InputMessages: input, Output: toolcalltest.MustParse(`[]`)},
		{InputMessages: input},
	} {
		res := runner.ScoreAgentRun(context.Background(), run)
		assert.Equal(t, toolcall.OutcomeError, res.Outcome)
		assert.EqualError(t, res.Err, "mastra_tool_call: Input and output messages cannot be null or empty")
	}
}

func TestMastraToolCallExpectationMapping(t *testing.T) {
	one := scoreProfile(t, MastraToolCallName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", ""))}, names("x", "a")...)
	assert.Equal(t, 1.0, one.Score)
	assert.Equal(t, "a", one.Details["expectedTool"])
	assert.Nil(t, one.Details["expectedToolOrder"])

	many := scoreProfile(t, MastraToolCallName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", ""), toolcalltest.Want("b", ""))}, names("a", "x", "b")...)
	assert.Equal(t, 1.0, many.Score)
	assert.Equal(t, []string{"a", "b"}, many.Details["expectedToolOrder"])

	exact := toolcall.Expectation{Calls: []toolcall.ExpectedCall{toolcalltest.Want("a", ""), toolcalltest.Want("b", "")}, Order: toolcall.OrderExact}
	res := scoreProfile(t, MastraToolCallName, toolcall.Settings{Expectation: exact}, names("a", "x", "b")...)
	assert.Equal(t, 0.0, res.Score)
	assert.Equal(t, true, res.Details["strictMode"])

	// An explicit option wins over the expectation.
	res = scoreProfile(t, MastraToolCallName, toolcall.Settings{Expectation: exact, Options: map[string]any{"expected_tool": "x", "strict_mode": false}}, names("a", "x", "b")...)
	assert.Equal(t, 1.0, res.Score)
}

func TestMastraToolCallOptionErrors(t *testing.T) {
	_, err := toolcall.New(MastraToolCallName, toolcall.Settings{})
	assert.EqualError(t, err, "mastra_tool_call: Either expectedTool or expectedToolOrder must be provided (set expected_tool, expected_tool_order, or expected calls)")
	_, err = toolcall.New(MastraToolCallName, toolcall.Settings{Options: map[string]any{"expectedTool": "a"}})
	assert.EqualError(t, err, `mastra_tool_call: unknown option "expectedTool", expected one of "expected_tool", "expected_tool_order", "strict_mode", "version"`)
	_, err = toolcall.New(MastraToolCallName, toolcall.Settings{Options: map[string]any{"expected_tool": "a", "version": "1.5"}})
	assert.EqualError(t, err, `mastra_tool_call: option "version": invalid value "1.5", expected one of ["1.10.2" "1.2.0"]`)
	_, err = toolcall.New(MastraToolCallName, toolcall.Settings{Options: map[string]any{"expected_tool": 3}})
	assert.EqualError(t, err, `mastra_tool_call: option "expected_tool": expects a string, got number 3`)
	_, err = toolcall.New(MastraToolCallName, toolcall.Settings{Expectation: expect(toolcalltest.Optional(toolcalltest.Want("a", "")))})
	assert.EqualError(t, err, "mastra_tool_call: calls[0] (a): optional expected calls are not supported by mastra_tool_call")
	_, err = toolcall.New(MastraToolCallName, toolcall.Settings{Expectation: expect(toolcalltest.WithMatcher(toolcalltest.Want("a", ""), "x", "any"))})
	assert.ErrorContains(t, err, "mastra_tool_call: calls[0] (a): argument matchers are not supported")
}
