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

func okStep(name string) toolcall.Call {
	return toolcall.Call{Name: name, StepType: toolcall.StepToolCall, Status: toolcall.StatusOK}
}
func failStep(name string) toolcall.Call {
	return toolcall.Call{Name: name, StepType: toolcall.StepToolCall, Status: toolcall.StatusError}
}

func agentStep(name string, children ...toolcall.Call) toolcall.Call {
	return toolcall.Call{Name: name, StepType: toolcall.StepAgentRun, Children: children}
}

func fullRun(t *testing.T, opts map[string]any, r MastraRun) toolcall.Result {
	t.Helper()
	sc := newProfile(t, MastraTrajectoryFullName, toolcall.Settings{Options: opts})
	return sc.(interface {
		ScoreRun(context.Context, MastraRun) toolcall.Result
	}).ScoreRun(context.Background(), r)
}

func stepsNamed(ns ...string) []any {
	out := make([]any, len(ns))
	for i, n := range ns {
		out[i] = map[string]any{"name": n}
	}
	return out
}

func TestMastraTrajectoryFullScores(t *testing.T) {
	tests := []struct {
		name  string
		opts  map[string]any
		steps []toolcall.Call
		want  float64
	}{
		{"no configuration: 1", nil, []toolcall.Call{okStep("a")}, 1},
		{"accuracy and efficiency: (0.4*0.5 + 0.3*1)/0.7 = 0.71",
			map[string]any{"defaults": map[string]any{"steps": stepsNamed("a", "b"), "max_steps": 5}}, []toolcall.Call{okStep("a")}, 0.71},
		{"zero weights for active dimensions: 1",
			map[string]any{"defaults": map[string]any{"steps": stepsNamed("a", "b"), "max_steps": 5}, "weights": map[string]any{"accuracy": 0, "efficiency": 0}}, []toolcall.Call{okStep("a")}, 1},
		{"negative weight counts as 0",
			map[string]any{"defaults": map[string]any{"steps": stepsNamed("a", "b"), "max_steps": 5}, "weights": map[string]any{"accuracy": -1}}, []toolcall.Call{okStep("a")}, 1},
		{"acc 0.33, eff mean(0.5, 1) -> 0.51",
			map[string]any{"defaults": map[string]any{"steps": stepsNamed("a", "b", "c"), "max_steps": 2}}, []toolcall.Call{okStep("a"), okStep("x"), okStep("y")}, 0.51},
		{"tool failures become a dimension once a retry exists: 0.93",
			map[string]any{"defaults": map[string]any{"steps": stepsNamed("a")}}, []toolcall.Call{failStep("a"), failStep("a"), failStep("a"), failStep("a")}, 0.93},
		{"a lone failing call is no pattern", map[string]any{"defaults": map[string]any{"steps": stepsNamed("a")}}, []toolcall.Call{failStep("a")}, 1},
		{"only success === false counts as a failure", map[string]any{"defaults": map[string]any{"steps": stepsNamed("a")}},
			[]toolcall.Call{step("a", `{"i":1}`), step("a", `{"i":2}`), step("a", `{"i":3}`), step("a", `{"i":4}`)}, 1},
		{"an active clean blacklist raises the score: (0.4*0.5+0.1)/0.5",
			map[string]any{"defaults": map[string]any{"steps": stepsNamed("a", "b"), "blacklisted_tools": []any{"zz"}}}, []toolcall.Call{okStep("a")}, 0.6},
		{"blacklisted tool: hard 0", map[string]any{"defaults": map[string]any{"blacklisted_tools": []any{"drop"}}}, []toolcall.Call{okStep("a"), okStep("drop")}, 0},
		{"blacklisted sequence must be contiguous", map[string]any{"defaults": map[string]any{"blacklisted_sequences": []any{[]any{"a", "b"}}}},
			[]toolcall.Call{okStep("a"), okStep("x"), okStep("b")}, 1},
		{"redundant identical calls without arguments", map[string]any{"defaults": map[string]any{"no_redundant_calls": true}},
			[]toolcall.Call{okStep("a"), okStep("a")}, 0.8},
		{"nested: one of two children -> node 0.5, top 0.85",
			map[string]any{"defaults": map[string]any{"steps": []any{map[string]any{"name": "p", "children": map[string]any{"steps": stepsNamed("x", "y")}}}}},
			[]toolcall.Call{agentStep("p", okStep("x"))}, 0.85},
		{"nested: missing parent", map[string]any{"defaults": map[string]any{"steps": []any{map[string]any{"name": "p", "children": map[string]any{"steps": stepsNamed("x")}}}}},
			[]toolcall.Call{okStep("q")}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := fullRun(t, tt.opts, MastraRun{Steps: tt.steps})
			require.NoError(t, res.Err)
			assert.InDelta(t, tt.want, res.Score, 1e-12, res.Explanation)
		})
	}
}

func TestMastraTrajectoryFullRounding(t *testing.T) {
	// The final combination uses Math.round(x*100)/100 without epsilon
	// (variables, so that Go does not fold the products exactly).
	x, y, hundred := 0.285, 1.005, 100.0
	assert.Equal(t, 0.28, jsMathRound(x*hundred)/100)
	assert.Equal(t, 0.29, MastraRound2(x))
	assert.Equal(t, 1.01, MastraRound2(y))
	assert.Equal(t, 1.0, jsMathRound(y*hundred)/100)
}

func TestMastraTrajectoryFullVersions(t *testing.T) {
	nestedBL := map[string]any{"defaults": map[string]any{"steps": []any{map[string]any{"name": "p", "children": map[string]any{
		"steps": []any{map[string]any{"name": "q", "children": map[string]any{"blacklisted_tools": []any{"bad"}}}}}}}}}
	childless := map[string]any{"defaults": map[string]any{"steps": []any{map[string]any{"name": "p", "children": map[string]any{"steps": []any{}}}}}}
	tokens := map[string]any{"defaults": map[string]any{"max_total_tokens": 100}}
	// children written as a list: Mastra reads the array as a children
	// config, which has no steps, budgets or blacklist.
	listChildren := func(children []any) map[string]any {
		return map[string]any{"defaults": map[string]any{"steps": []any{map[string]any{"name": "p", "step_type": "agent_run", "children": children}}}}
	}
	gen := func(name string, p, c int64, children ...toolcall.Call) toolcall.Call {
		return toolcall.Call{Name: name, StepType: toolcall.StepModelGeneration, Fields: map[string]jsonv.Value{"promptTokens": jsonv.Int(p), "completionTokens": jsonv.Int(c)}, Children: children}
	}
	tests := []struct {
		name  string
		opts  map[string]any
		steps []toolcall.Call
		want  map[string]float64
	}{
		{"blacklist violation two levels down", nestedBL, []toolcall.Call{agentStep("p", agentStep("q", okStep("bad")))}, map[string]float64{"1.10.2": 0, "1.2.0": 0.7}},
		{"empty steps: accuracy active only in 1.10.2", map[string]any{"defaults": map[string]any{"steps": []any{}}}, []toolcall.Call{okStep("a")}, map[string]float64{"1.10.2": 0, "1.2.0": 1}},
		{"childless parent with empty child steps", childless, []toolcall.Call{agentStep("p")}, map[string]float64{"1.10.2": 1, "1.2.0": 0.7}},
		{"children list: the listed steps are never compared, node 1", listChildren(stepsNamed("x", "y")),
			[]toolcall.Call{agentStep("p", okStep("q"))}, map[string]float64{"1.10.2": 1, "1.2.0": 1}},
		{"children list: node scored by its tool failures only: 0.7 + 0.3*0.8", listChildren(stepsNamed("q")),
			[]toolcall.Call{agentStep("p", failStep("q"), failStep("q"), failStep("q"), failStep("q"))}, map[string]float64{"1.10.2": 0.94, "1.2.0": 0.94}},
		{"children empty list is a children config (1.2.0 fails a childless parent)", listChildren([]any{}),
			[]toolcall.Call{agentStep("p")}, map[string]float64{"1.10.2": 1, "1.2.0": 0.7}},
		{"tokens of nested generations", tokens, []toolcall.Call{gen("g", 10, 5, gen("h", 100, 50))}, map[string]float64{"1.10.2": 0.68, "1.2.0": 1}},
	}
	for _, tt := range tests {
		for version, want := range tt.want {
			t.Run(tt.name+"/"+version, func(t *testing.T) {
				opts := map[string]any{"version": version}
				for k, v := range tt.opts {
					opts[k] = v
				}
				res := fullRun(t, opts, MastraRun{Steps: tt.steps})
				require.NoError(t, res.Err)
				assert.InDelta(t, want, res.Score, 1e-12, res.Explanation)
			})
		}
	}
}

func TestMastraTrajectoryFullErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts map[string]any
		run  MastraRun
		err  string
	}{
		{"invalid budget", map[string]any{"defaults": map[string]any{"max_steps": -1}}, MastraRun{Steps: []toolcall.Call{okStep("a")}},
			"mastra_trajectory_full: Invalid maxSteps budget: expected a finite nonnegative number"},
		{"token budget without token counts", map[string]any{"defaults": map[string]any{"max_total_tokens": 10}},
			MastraRun{Steps: []toolcall.Call{{Name: "g", StepType: toolcall.StepModelGeneration}}},
			`mastra_trajectory_full: Cannot evaluate token budget: model generation "g" has missing or invalid token counts`},
		{"token budget without generations", map[string]any{"defaults": map[string]any{"max_total_tokens": 10}},
			MastraRun{Steps: []toolcall.Call{okStep("a")}}, "mastra_trajectory_full: Cannot evaluate token budget: missing model-generation measurements or invalid total tokens"},
		{"duration budget without durations", map[string]any{"defaults": map[string]any{"max_total_duration_ms": 10}},
			MastraRun{Steps: []toolcall.Call{okStep("a")}}, "mastra_trajectory_full: Cannot evaluate duration budget: missing or invalid duration measurements"},
		{"redundancy needs unknown arguments", map[string]any{"defaults": map[string]any{"no_redundant_calls": true}},
			MastraRun{Steps: []toolcall.Call{unknownArgs("a"), unknownArgs("a")}}, "mastra_trajectory_full: arguments unavailable for step 1 (a)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := fullRun(t, tt.opts, tt.run)
			assert.Equal(t, toolcall.OutcomeError, res.Outcome)
			assert.ErrorContains(t, res.Err, tt.err)
		})
	}
	// 1.2.0 accepts a negative budget silently.
	res := fullRun(t, map[string]any{"version": "1.2.0", "defaults": map[string]any{"max_steps": -1}}, MastraRun{Steps: []toolcall.Call{okStep("a")}})
	require.NoError(t, res.Err)
	assert.Equal(t, 1.0, res.Score)

	_, err := toolcall.New(MastraTrajectoryFullName, toolcall.Settings{Options: map[string]any{"weights": map[string]any{"toolFailures": 1}}})
	assert.EqualError(t, err, `mastra_trajectory_full: option "weights": unknown option "toolFailures", expected one of "accuracy", "blacklist", "efficiency", "tool_failures"`)
	_, err = toolcall.New(MastraTrajectoryFullName, toolcall.Settings{Options: map[string]any{"defaults": map[string]any{"maxSteps": 1}}})
	assert.ErrorContains(t, err, `mastra_trajectory_full: option "defaults": unknown option "maxSteps"`)
	_, err = toolcall.New(MastraTrajectoryFullName, toolcall.Settings{Expectation: expect(toolcalltest.Optional(toolcalltest.Want("a", "")))})
	assert.ErrorContains(t, err, "optional expected calls are not supported by mastra_trajectory_full")
}

func TestMastraTrajectoryFullDetails(t *testing.T) {
	opts := map[string]any{"defaults": map[string]any{
		"steps": []any{
			map[string]any{"name": "search"},
			map[string]any{"name": "agent", "step_type": "agent_run", "children": map[string]any{"steps": stepsNamed("x", "y"), "blacklisted_tools": []any{"bad"}}},
		},
		"max_steps":          5,
		"no_redundant_calls": true,
	}}
	res := fullRun(t, opts, MastraRun{Steps: []toolcall.Call{okStep("search"), failStep("search"), okStep("search"), agentStep("agent", okStep("x"))}})
	require.NoError(t, res.Err)
	acc := res.Details["accuracy"].(map[string]any)
	assert.Equal(t, 2, acc["matchedSteps"])
	eff := res.Details["efficiency"].(map[string]any)
	assert.Equal(t, 4, eff["totalSteps"])
	assert.Len(t, eff["redundantCalls"], 2, "three identical consecutive calls: two redundant")
	tf := res.Details["toolFailures"].(map[string]any)
	assert.Equal(t, 1, tf["totalRetries"])
	p := tf["patterns"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{"toolName": "search", "retryCount": 1, "fellBackToAlternative": false, "alternativeTool": nil, "eventuallySucceeded": true}, p)
	nested := res.Details["nested"].([]any)[0].(map[string]any)
	assert.Equal(t, "agent", nested["stepName"])
	assert.Equal(t, 1, nested["matchedSteps"], "shorthand: the node's accuracy fields")
	assert.Equal(t, []string{"y"}, nested["missingSteps"])
	assert.Equal(t, 1.0, nested["blacklist"].(map[string]any)["score"])
	assert.NotContains(t, res.Details, "blacklist")
	assert.Contains(t, res.Explanation, "Score: ")
	assert.Contains(t, res.Explanation, "Accuracy (1): 2/2 expected steps matched.")
	assert.Contains(t, res.Explanation, "Efficiency (0.8): redundant calls: search, search.")
	assert.Contains(t, res.Explanation, "Tool failures (1): 1 total retries.")
	assert.Contains(t, res.Explanation, "Nested scores: agent: ")

	// A children list under a missing parent: node 0 without an accuracy
	// (the array has no steps to report missing).
	res = fullRun(t, map[string]any{"defaults": map[string]any{"steps": []any{
		map[string]any{"name": "p", "children": stepsNamed("x")}, map[string]any{"name": "a"}}}}, MastraRun{Steps: []toolcall.Call{okStep("a")}})
	require.NoError(t, res.Err)
	assert.InDelta(t, 0.35, res.Score, 1e-12, res.Explanation)
	node := res.Details["nested"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{"stepName": "p", "score": 0.0}, node)

	bl := fullRun(t, map[string]any{"defaults": map[string]any{"blacklisted_tools": []any{"deleteAll"}, "blacklisted_sequences": []any{[]any{"a", "b"}}}},
		MastraRun{Steps: []toolcall.Call{okStep("deleteAll"), okStep("a"), okStep("b")}})
	assert.Equal(t, "Score: 0\nBlacklist violation: forbidden tools used: deleteAll. forbidden sequences: a → b.", bl.Explanation)
	assert.Equal(t, map[string]any{"score": 0.0, "violatedTools": []string{"deleteAll"}, "violatedSequences": []any{[]string{"a", "b"}}}, bl.Details["blacklist"])
}

func TestMastraTrajectoryFullExpectationMapping(t *testing.T) {
	exp := toolcall.Expectation{
		Calls:              []toolcall.ExpectedCall{toolcalltest.Want("search", ""), toolcalltest.Want("sum", "")},
		Order:              toolcall.OrderExact,
		ForbiddenTools:     []string{"drop"},
		ForbiddenSequences: [][]string{{"a", "b"}},
	}
	res := scoreProfile(t, MastraTrajectoryFullName, toolcall.Settings{Expectation: exp}, okStep("search"), okStep("sum"))
	require.NoError(t, res.Err)
	assert.Equal(t, 1.0, res.Score)
	res = scoreProfile(t, MastraTrajectoryFullName, toolcall.Settings{Expectation: exp}, okStep("search"), okStep("sum"), okStep("drop"))
	assert.Equal(t, 0.0, res.Score)
	res = scoreProfile(t, MastraTrajectoryFullName, toolcall.Settings{Expectation: exp}, okStep("sum"), okStep("search"))
	assert.Equal(t, 0.2, res.Score, "exact maps to strict ordering: reversed scores accuracy 0; the clean blacklist adds (0.1*1)/0.5")
	// defaults win over the expectation; the run's item wins over both.
	opts := map[string]any{"defaults": map[string]any{"ordering": "unordered"}}
	res = scoreProfile(t, MastraTrajectoryFullName, toolcall.Settings{Expectation: exp, Options: opts}, okStep("sum"), okStep("search"))
	assert.Equal(t, 1.0, res.Score)
	sc := newProfile(t, MastraTrajectoryFullName, toolcall.Settings{Expectation: exp, Options: opts})
	res = sc.(interface {
		ScoreRun(context.Context, MastraRun) toolcall.Result
	}).ScoreRun(context.Background(), MastraRun{Steps: []toolcall.Call{okStep("sum"), okStep("search")}, ExpectedTrajectory: map[string]any{"ordering": "strict"}})
	assert.Equal(t, 0.2, res.Score)
}

func TestMastraHelpers(t *testing.T) {
	run := MastraRun{Steps: []toolcall.Call{
		{Name: "a", StepType: toolcall.StepToolCall, Fields: map[string]jsonv.Value{"durationMs": jsonv.Int(500)}},
		{Name: "b", StepType: toolcall.StepToolCall, Fields: map[string]jsonv.Value{"durationMs": jsonv.Int(700)}},
	}}
	eff, err := MastraCheckTrajectoryEfficiency(run, map[string]any{"max_total_duration_ms": 1000})
	require.NoError(t, err)
	assert.Equal(t, 0.9, eff["score"])
	assert.Equal(t, 1200.0, eff["totalDurationMs"])
	run.TotalDurationMs = jsonv.Int(900)
	eff, err = MastraCheckTrajectoryEfficiency(run, map[string]any{"max_total_duration_ms": 1000})
	require.NoError(t, err)
	assert.Equal(t, 1.0, eff["score"], "the trajectory's own duration wins over the step sum")
	run.TotalDurationMs = jsonv.Null()
	_, err = MastraCheckTrajectoryEfficiency(run, map[string]any{"max_total_duration_ms": 1000})
	assert.EqualError(t, err, "Cannot evaluate duration budget: missing or invalid duration measurements",
		"an explicit null total is checked (!== undefined) and is not a measurement")

	bl, err := MastraCheckTrajectoryBlacklist(MastraRun{Steps: []toolcall.Call{okStep("a"), okStep("b"), okStep("a"), okStep("b")}},
		map[string]any{"blacklisted_sequences": []any{[]any{"a", "b"}, []any{"a", "b"}}})
	require.NoError(t, err)
	assert.Len(t, bl["violatedSequences"], 2, "duplicate entries are reported twice, each once")

	tf, err := MastraAnalyzeToolFailures(MastraRun{Steps: []toolcall.Call{failStep("a"), failStep("a"), okStep("b")}}, nil)
	require.NoError(t, err)
	p := tf["patterns"].([]any)[0].(map[string]any)
	assert.Equal(t, true, p["fellBackToAlternative"])
	assert.Equal(t, "b", p["alternativeTool"])
	assert.Equal(t, false, p["eventuallySucceeded"])

	_, err = MastraAnalyzeToolFailures(MastraRun{}, map[string]any{"max_retries": 1})
	assert.EqualError(t, err, `analyzeToolFailures: unknown option "max_retries", expected one of "max_retries_per_tool"`)
}
