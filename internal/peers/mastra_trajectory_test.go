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

// step builds a tool_call step with optional JSON toolArgs.
func step(name, args string) toolcall.Call {
	c := toolcall.Call{Name: name, StepType: toolcall.StepToolCall}
	if args != "" {
		c.Args = toolcalltest.MustParse(args)
	}
	return c
}

func trajScore(t *testing.T, opts map[string]any, calls ...toolcall.Call) toolcall.Result {
	t.Helper()
	return scoreProfile(t, MastraTrajectoryName, toolcall.Settings{Options: opts}, calls...)
}

func TestMastraTrajectoryQuirks(t *testing.T) {
	named := func(ns ...string) []any {
		out := make([]any, len(ns))
		for i, n := range ns {
			out[i] = map[string]any{"name": n, "step_type": "tool_call"}
		}
		return out
	}
	ordering := func(o string) map[string]any { return map[string]any{"ordering": o} }
	tests := []struct {
		name     string
		expected []any
		cmp      map[string]any
		calls    []toolcall.Call
		want     float64
		detail   map[string]any
	}{
		{"relaxed: extras between are free", named("a", "b"), nil, []toolcall.Call{step("a", ""), step("x", ""), step("b", "")}, 1,
			map[string]any{"extraSteps": []string{"x"}}},
		{"relaxed: out of order", named("a", "b"), nil, []toolcall.Call{step("b", ""), step("a", "")}, 0.5,
			map[string]any{"outOfOrderSteps": []string{"b"}}},
		{"strict is positional: one leading extra step shifts everything", named("a", "b"), ordering("strict"),
			[]toolcall.Call{step("x", ""), step("a", ""), step("b", "")}, 0, map[string]any{"outOfOrderSteps": []string{"a", "b"}}},
		{"strict: extra-step penalty", named("a", "b"), ordering("strict"), []toolcall.Call{step("a", ""), step("b", ""), step("c", "")}, 0.75, nil},
		{"strict: [a,b,a] vs [a,b]", named("a", "b"), ordering("strict"), []toolcall.Call{step("a", ""), step("b", ""), step("a", "")}, 0.75,
			map[string]any{"outOfOrderSteps": []string{"a"}}},
		{"round2: 1/3 -> 0.33", named("a", "b", "c"), ordering("strict"), []toolcall.Call{step("a", "")}, 0.33, nil},
		{"round2: [a,b,c,d] vs [a,b,c] -> 0.83", named("a", "b", "c"), ordering("strict"), []toolcall.Call{step("a", ""), step("b", ""), step("c", ""), step("d", "")}, 0.83, nil},
		{"strict: a nameless step past the end of the expected steps matches: (2/1 - 0.5) clamped to 1", named("a"), ordering("strict"),
			[]toolcall.Call{step("a", ""), step("", "")}, 1, map[string]any{"matchedSteps": 2, "extraSteps": []any{nil}, "missingSteps": []string{}}},
		{"strict: [x, nameless] vs [a] -> 1/1 - 0.5", named("a"), ordering("strict"), []toolcall.Call{step("x", ""), step("", "")}, 0.5,
			map[string]any{"matchedSteps": 1, "missingSteps": []string{"a"}}},
		{"strict: a nameless step inside the expected steps does not match", named("a", "b"), ordering("strict"), []toolcall.Call{step("a", ""), step("", "")}, 0.5,
			map[string]any{"matchedSteps": 1, "outOfOrderSteps": []string{}}},
		{"relaxed: a nameless extra step is free and unmatched", named("a"), nil, []toolcall.Call{step("a", ""), step("", ""), step("", "")}, 1,
			map[string]any{"matchedSteps": 1, "extraSteps": []any{nil, nil}, "repeatedSteps": []any{nil}, "actualStepNames": []any{"a", nil, nil}}},
		{"repeated steps counted over all actual steps", named("a"), map[string]any{"allow_repeated_steps": false},
			[]toolcall.Call{step("c", ""), step("b", ""), step("c", ""), step("b", ""), step("a", "")}, 0.8, map[string]any{"repeatedSteps": []string{"c", "b"}}},
		{"unordered: order ignored", named("a", "b"), ordering("unordered"), []toolcall.Call{step("b", ""), step("a", "")}, 1, nil},
		{"STRICT is not strict: relaxed", named("a", "b"), ordering("STRICT"), []toolcall.Call{step("x", ""), step("a", ""), step("b", "")}, 1, nil},
		{"strictOrder is ignored", named("a", "b"), map[string]any{"strict_order": true}, []toolcall.Call{step("b", ""), step("a", "")}, 0.5, nil},
		{"no expected steps, steps made: 0", []any{}, nil, []toolcall.Call{step("a", "")}, 0, map[string]any{"extraSteps": []string{"a"}}},
		{"no expected steps, none made: 1", []any{}, nil, nil, 1, nil},
		{"different step type, same name", []any{map[string]any{"name": "a", "step_type": "workflow_step"}}, nil, []toolcall.Call{step("a", "")}, 0, nil},
		{"expected step without step type matches any type", []any{map[string]any{"name": "a"}}, nil,
			[]toolcall.Call{{Name: "a", StepType: toolcall.StepModelGeneration}}, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := map[string]any{"expected_trajectory": tt.expected}
			if tt.cmp != nil {
				opts["comparison_options"] = tt.cmp
			}
			res := trajScore(t, opts, tt.calls...)
			require.NoError(t, res.Err)
			assert.InDelta(t, tt.want, res.Score, 1e-12, res.Explanation)
			for k, v := range tt.detail {
				assert.Equal(t, v, res.Details[k], k)
			}
		})
	}
}

func TestMastraTrajectoryData(t *testing.T) {
	withArgs := func(stepType, args string) []any {
		s := map[string]any{"name": "a", "tool_args": toolcalltest.MustParse(args)}
		if stepType != "" {
			s["step_type"] = stepType
		}
		return []any{s}
	}
	tests := []struct {
		name     string
		expected []any
		actual   toolcall.Call
		want     float64
	}{
		{"same toolArgs", withArgs("tool_call", `{"q":"x"}`), step("a", `{"q":"x"}`), 1},
		{"JSON.stringify: key order matters", withArgs("tool_call", `{"a":1,"b":2}`), step("a", `{"b":2,"a":1}`), 0},
		{"JSON.stringify: index keys come first", withArgs("tool_call", `{"b":1,"1":2}`), step("a", `{"1":2,"b":1}`), 1},
		{"5 is not \"5\"", withArgs("tool_call", `{"x":5}`), step("a", `{"x":"5"}`), 0},
		{"expected subset does not match extra keys", withArgs("tool_call", `{"x":1}`), step("a", `{"x":1,"y":2}`), 0},
		{"data ignored without step type", withArgs("", `{"x":1}`), step("a", `{"x":2}`), 1},
		{"undefined members vanish", withArgs("tool_call", `{"x":1}`), toolcall.Call{Name: "a", Args: jsonv.Object(jsonv.Member{Key: "x", Value: jsonv.Int(1)}, jsonv.Member{Key: "y", Value: jsonv.Undefined()})}, 1},
		{"toolArgs expected, none recorded", withArgs("tool_call", `{}`), toolcall.Call{Name: "a"}, 0},
		{"null expected does not match absent", []any{map[string]any{"name": "a", "step_type": "tool_call", "tool_result": nil}}, step("a", ""), 0},
		{"success compared", []any{map[string]any{"name": "a", "step_type": "tool_call", "success": true}}, toolcall.Call{Name: "a", Status: toolcall.StatusError}, 0},
		{"model fields", []any{map[string]any{"name": "gen", "step_type": "model_generation", "prompt_tokens": 10}},
			toolcall.Call{Name: "gen", StepType: toolcall.StepModelGeneration, Fields: map[string]jsonv.Value{"promptTokens": jsonv.Int(10)}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := trajScore(t, map[string]any{"expected_trajectory": tt.expected}, tt.actual)
			require.NoError(t, res.Err)
			assert.Equal(t, tt.want, res.Score)
		})
	}
	// Relaxed: a same-name step with other data is missing AND out of order.
	res := trajScore(t, map[string]any{"expected_trajectory": withArgs("tool_call", `{"x":2}`)}, step("a", `{"x":1}`))
	assert.Equal(t, []string{"a"}, res.Details["missingSteps"])
	assert.Equal(t, []string{"a"}, res.Details["outOfOrderSteps"])
	// Strict: a same-name step with other data is neither matched nor out
	// of order.
	res = trajScore(t, map[string]any{"expected_trajectory": withArgs("tool_call", `{"x":2}`), "comparison_options": map[string]any{"ordering": "strict"}}, step("a", `{"x":1}`))
	assert.Equal(t, 0.0, res.Score)
	assert.Equal(t, []string{}, res.Details["outOfOrderSteps"])
	assert.Equal(t, []string{"a"}, res.Details["missingSteps"])
	// Unordered is greedy first fit.
	res = trajScore(t, map[string]any{
		"expected_trajectory": []any{map[string]any{"name": "a"}, map[string]any{"name": "a", "step_type": "tool_call", "tool_args": toolcalltest.MustParse(`{"x":1}`)}},
		"comparison_options":  map[string]any{"ordering": "unordered"},
	}, step("a", `{"x":1}`), step("a", `{"x":2}`))
	assert.Equal(t, 0.5, res.Score)
}

func TestMastraTrajectoryRunAndVersions(t *testing.T) {
	run := func(t *testing.T, opts map[string]any, r MastraRun) toolcall.Result {
		sc := newProfile(t, MastraTrajectoryName, toolcall.Settings{Options: opts})
		return sc.(interface {
			ScoreRun(context.Context, MastraRun) toolcall.Result
		}).ScoreRun(context.Background(), r)
	}
	item := map[string]any{"steps": []any{map[string]any{"name": "a"}}}
	tests := []struct {
		name string
		opts map[string]any
		run  MastraRun
		want map[string]float64
	}{
		{"explicit empty expected, empty run", map[string]any{"expected_trajectory": []any{}}, MastraRun{},
			map[string]float64{"1.10.2": 1, "1.2.0": 0}},
		{"explicit empty expected beats the item (1.10.2)", map[string]any{"expected_trajectory": []any{}},
			MastraRun{Steps: []toolcall.Call{step("a", "")}, ExpectedTrajectory: item}, map[string]float64{"1.10.2": 0, "1.2.0": 1}},
		{"item with empty steps", map[string]any{}, MastraRun{ExpectedTrajectory: map[string]any{"steps": []any{}}},
			map[string]float64{"1.10.2": 1, "1.2.0": 0}},
		{"item ordering overrides the option", map[string]any{"expected_trajectory": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}},
			MastraRun{Steps: []toolcall.Call{step("b", ""), step("a", "")}, ExpectedTrajectory: map[string]any{"ordering": "unordered"}},
			map[string]float64{"1.10.2": 1, "1.2.0": 1}},
	}
	for _, tt := range tests {
		for version, want := range tt.want {
			t.Run(tt.name+"/"+version, func(t *testing.T) {
				opts := map[string]any{"version": version}
				for k, v := range tt.opts {
					opts[k] = v
				}
				res := run(t, opts, tt.run)
				require.NoError(t, res.Err)
				assert.Equal(t, want, res.Score)
			})
		}
	}
	res := run(t, map[string]any{}, MastraRun{Steps: []toolcall.Call{step("a", "")}})
	assert.Equal(t, 0.0, res.Score)
	assert.Equal(t, "No expected trajectory provided (pass via options or dataset item expectedTrajectory)", res.Details["error"])

	// A trajectory {steps} is converted; durationMs is dropped.
	res = trajScore(t, map[string]any{"expected_trajectory": map[string]any{"steps": []any{map[string]any{"name": "a", "step_type": "tool_call", "duration_ms": 5}}}}, step("a", ""))
	assert.Equal(t, 1.0, res.Score)
}

func TestMastraTrajectoryExpectationMapping(t *testing.T) {
	exp := toolcall.Expectation{Calls: []toolcall.ExpectedCall{toolcalltest.Want("search", `{"q":"x"}`), toolcalltest.Want("sum", "")}, Order: toolcall.OrderExact}
	res := scoreProfile(t, MastraTrajectoryName, toolcall.Settings{Expectation: exp}, step("search", `{"q":"x"}`), step("sum", ""), step("extra", ""))
	assert.Equal(t, 0.75, res.Score, "exact maps to strict, with its extra-step penalty")
	res = scoreProfile(t, MastraTrajectoryName, toolcall.Settings{Expectation: exp}, step("search", `{"q":"y"}`), step("sum", ""))
	assert.Equal(t, 0.5, res.Score, "args map to toolArgs of a tool_call step")
	anyOrder := toolcall.Expectation{Calls: exp.Calls, Order: toolcall.OrderAny}
	res = scoreProfile(t, MastraTrajectoryName, toolcall.Settings{Expectation: anyOrder}, step("sum", ""), step("search", `{"q":"x"}`))
	assert.Equal(t, 1.0, res.Score, "any maps to unordered")
	// The option wins over the expectation's order.
	res = scoreProfile(t, MastraTrajectoryName, toolcall.Settings{Expectation: anyOrder, Options: map[string]any{"comparison_options": map[string]any{"ordering": "relaxed"}}},
		step("sum", ""), step("search", `{"q":"x"}`))
	assert.Equal(t, 0.5, res.Score)
	// must_succeed maps to success: true.
	ms := toolcall.ExpectedCall{Name: "a", MustSucceed: true}
	res = scoreProfile(t, MastraTrajectoryName, toolcall.Settings{Expectation: expect(ms)}, toolcall.Call{Name: "a", Status: toolcall.StatusError})
	assert.Equal(t, 0.0, res.Score)
	res = scoreProfile(t, MastraTrajectoryName, toolcall.Settings{Expectation: expect(ms)}, toolcall.Call{Name: "a", Status: toolcall.StatusOK})
	assert.Equal(t, 1.0, res.Score)
	// Breakdown pairs the matched steps.
	res = scoreProfile(t, MastraTrajectoryName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", ""), toolcalltest.Want("b", ""))}, step("x", ""), step("a", ""))
	assert.Equal(t, []toolcall.Pair{{Expected: 0, Actual: 1, Score: 1}}, res.Breakdown.Pairs)
	assert.Equal(t, []int{1}, res.Breakdown.Missing)
	assert.Equal(t, []int{0}, res.Breakdown.Unexpected)
}

func TestMastraTrajectoryArgsUnknown(t *testing.T) {
	opts := map[string]any{"expected_trajectory": []any{map[string]any{"name": "a", "step_type": "tool_call", "tool_args": map[string]any{"x": 1}}}}
	res := trajScore(t, opts, unknownArgs("a"))
	assert.Equal(t, toolcall.OutcomeError, res.Outcome)
	assert.ErrorContains(t, res.Err, "arguments unavailable for step 1 (a)")
	// Steps without toolArgs do not need the arguments.
	res = trajScore(t, map[string]any{"expected_trajectory": []any{map[string]any{"name": "a", "step_type": "tool_call"}}}, unknownArgs("a"))
	require.NoError(t, res.Err)
	assert.Equal(t, 1.0, res.Score)
}

func TestMastraTrajectoryOptionErrors(t *testing.T) {
	_, err := toolcall.New(MastraTrajectoryName, toolcall.Settings{Options: map[string]any{"expected_trajectory": map[string]any{}}})
	assert.EqualError(t, err, `mastra_trajectory: option "expected_trajectory": TypeError: Cannot read properties of undefined (reading 'map'): a trajectory needs steps`)
	_, err = toolcall.New(MastraTrajectoryName, toolcall.Settings{Options: map[string]any{"expected_trajectory": []any{map[string]any{"name": "a", "toolArgs": 1}}}})
	assert.ErrorContains(t, err, `expected_trajectory[0]: unknown key "toolArgs", expected one of`)
	_, err = toolcall.New(MastraTrajectoryName, toolcall.Settings{Options: map[string]any{"comparison_options": map[string]any{"allowRepeatedSteps": false}}})
	assert.EqualError(t, err, `mastra_trajectory: option "comparison_options": unknown option "allowRepeatedSteps", expected one of "allow_repeated_steps", "compare_step_data", "ordering", "strict_order"`)
	_, err = toolcall.New(MastraTrajectoryName, toolcall.Settings{Options: map[string]any{"expected_trajectory": []any{map[string]any{"step_type": "tool_call"}}}})
	assert.ErrorContains(t, err, "expected_trajectory[0].name: expects a string, got nothing")
	_, err = toolcall.New(MastraTrajectoryName, toolcall.Settings{Expectation: toolcall.Expectation{ForbiddenTools: []string{"x"}}})
	assert.ErrorContains(t, err, "mastra_trajectory: forbidden_tools and forbidden_sequences are not supported by mastra_trajectory (use mastra_trajectory_full)")
}

// TestMastraTrajectoryJSONOption checks that expected_trajectory (and
// mastra_trajectory_full's defaults) may be JSON text written as in
// Mastra's code, whose data keeps its key order: JSON.stringify compares
// {"b":1,"a":2} and {"a":2,"b":1} as different (src/scorers/utils.ts,
// expectedStepMatches).
func TestMastraTrajectoryJSONOption(t *testing.T) {
	ba, ab := step("s", `{"b":1,"a":2}`), step("s", `{"a":2,"b":1}`)
	for _, text := range []string{
		`[{"name":"s","stepType":"tool_call","toolArgs":{"b":1,"a":2}}]`,
		`{"steps":[{"name":"s","step_type":"tool_call","tool_args":{"b":1,"a":2}}]}`,
	} {
		opts := map[string]any{"expected_trajectory": text}
		assert.Equal(t, 1.0, trajScore(t, opts, ba).Score, text)
		assert.Equal(t, 0.0, trajScore(t, opts, ab).Score, text)
	}
	full := toolcall.Settings{Options: map[string]any{"defaults": `{"steps":[{"name":"s","stepType":"tool_call","toolArgs":{"b":1,"a":2}}],"maxSteps":1}`}}
	assert.Equal(t, 1.0, scoreProfile(t, MastraTrajectoryFullName, full, ba).Score)
	assert.Less(t, scoreProfile(t, MastraTrajectoryFullName, full, ab).Score, 1.0)

	_, err := toolcall.New(MastraTrajectoryName, toolcall.Settings{Options: map[string]any{"expected_trajectory": `[{"name":`}})
	assert.ErrorContains(t, err, `mastra_trajectory: option "expected_trajectory": JSON text:`)
	_, err = toolcall.New(MastraTrajectoryFullName, toolcall.Settings{Options: map[string]any{"defaults": `[1]`}})
	assert.ErrorContains(t, err, `option "defaults": expects a map`)
}
