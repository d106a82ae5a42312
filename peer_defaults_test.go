package toolcallaccuracyprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"
)

// scoreRule compiles rule as the processor does and scores calls with its
// first scorer.
func scoreRule(t *testing.T, rule RuleConfig, calls []scoring.Call) scoring.Result {
	t.Helper()
	r, err := compileRule(&rule, nopTelemetry(), nil)
	require.NoError(t, err)
	var res scoring.Result
	scoring.ScoreInto(context.Background(), r.Scorers[0].Scorer, r.Calls(scoring.NumberCalls(calls)), nil, &res)
	require.NoError(t, res.Err)
	return res
}

// TestDeepEvalPassesAsDeepEval pins that a rule without a threshold passes
// or fails a deepeval run as DeepEval's success does: score >= threshold
// (deepeval/metrics/base_metric.py, is_successful), with threshold 0.5 by
// default and 1 under strict_mode (metrics/tool_correctness/
// tool_correctness.py, __init__: threshold: Optional[float] = 0.5,
// self.threshold = 1 if strict_mode else threshold). A rule's own
// threshold still decides.
func TestDeepEvalPassesAsDeepEval(t *testing.T) {
	// DeepEval's TestToolCorrectnessMetricType::test_mixed_types_score_partially
	// (tests/test_metrics/test_tool_correctness_metric.py): 0.5 with the
	// default threshold, a success.
	mixed := RuleConfig{Name: "mixed", Scorers: []ScorerConfig{{Name: "deepeval"}}, Expect: ExpectConfig{Calls: []ExpectedCallConfig{{Tool: "get_weather"}, {Tool: "ask_question"}}}}
	mixedCalls := []scoring.Call{{Name: "get_weather", Type: "function"}, {Name: "ask_question", Type: "mcp"}}
	res := scoreRule(t, mixed, mixedCalls)
	assert.Equal(t, 0.5, res.Score)
	assert.Equal(t, scoring.OutcomePass, res.Outcome)
	assert.Equal(t, 0.5, res.Threshold)

	// Issue #34's case: three expected, the first two called, 2/3.
	three := func(opts map[string]any, threshold *float64) RuleConfig {
		return RuleConfig{Name: "three", Threshold: threshold, Scorers: []ScorerConfig{{Name: "deepeval", Options: opts}},
			Expect: ExpectConfig{Calls: []ExpectedCallConfig{{Tool: "get_weather"}, {Tool: "lookup_stock"}, {Tool: "get_time"}}}}
	}
	twoCalls := []scoring.Call{{Name: "get_weather"}, {Name: "lookup_stock"}}
	one, low := 1.0, 0.6
	for _, tc := range []struct {
		name      string
		rule      RuleConfig
		outcome   scoring.Outcome
		threshold float64
	}{
		{"DeepEval's default 0.5", three(nil, nil), scoring.OutcomePass, 0.5},
		{"DeepEval's threshold option", three(map[string]any{"threshold": 0.7}, nil), scoring.OutcomeFail, 0.7},
		{"strict_mode makes it 1 (and the score 0)", three(map[string]any{"strict_mode": true}, nil), scoring.OutcomeFail, 1},
		{"a rule's threshold decides", three(nil, &one), scoring.OutcomeFail, 1},
		{"a rule's threshold decides over the option", three(map[string]any{"threshold": 0.9}, &low), scoring.OutcomePass, 0.6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := scoreRule(t, tc.rule, twoCalls)
			assert.Equal(t, tc.outcome, res.Outcome)
			assert.Equal(t, tc.threshold, res.Threshold)
		})
	}

	// The other peers have no pass rule of their own: the rule's default,
	// 1, decides (MongoDB's report marks 1 "perfect", generateTestSummary.ts
	// getAccuracyClass; Mastra's runEvals has thresholds only when given).
	for _, name := range []string{"mongodb", "mastra_trajectory", "agentevals", "ragas", "native"} {
		rule := RuleConfig{Name: "r", Scorers: []ScorerConfig{{Name: name}}, Expect: ExpectConfig{Calls: []ExpectedCallConfig{{Tool: "get_weather"}}}}
		res := scoreRule(t, rule, []scoring.Call{{Name: "get_weather"}})
		assert.Equal(t, 1.0, res.Threshold, name)
	}
}
