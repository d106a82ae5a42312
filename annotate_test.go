package toolcallaccuracyprocessor

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"
)

// TestToolCallsOutput checks when the run's tool names are listed: the
// mastra capture's run passes paris_trip and fails stock_must_succeed, so
// with only paris_trip it passes and with both it does not.
func TestToolCallsOutput(t *testing.T) {
	calls := []string{"get_weather", "lookup_stock"}
	tests := []struct {
		mode      string
		bothRules bool
		want      []string
	}{
		{ToolCallsOnFailure, true, calls},
		{ToolCallsOnFailure, false, nil},
		{ToolCallsAlways, true, calls},
		{ToolCallsAlways, false, calls},
		{ToolCallsNever, true, nil},
		{ToolCallsNever, false, nil},
	}
	for _, tt := range tests {
		name := tt.mode + "/passing"
		if tt.bothRules {
			name = tt.mode + "/failing"
		}
		t.Run(name, func(t *testing.T) {
			cfg := parisConfig(t)
			cfg.Output.ToolCalls = tt.mode
			if !tt.bothRules {
				cfg.Rules = cfg.Rules[:1]
			}
			in := readTraceFile(t, filepath.Join("testdata", "traces", "emitters", "mastra-otel-mock.otlp.jsonl"))
			out := newHarness(t, cfg).run(t, cloneAll(in))
			assertConserved(t, in, out)
			agent := onlyScored(t, out)
			passed, ok := agent.Attributes().Get(attrPassed)
			require.True(t, ok)
			require.Equal(t, !tt.bothRules, passed.Bool())
			_, listed := agent.Attributes().Get(attrToolCalls)
			assert.Equal(t, tt.want != nil, listed)
			assert.Equal(t, tt.want, stringSlice(agent.Attributes(), attrToolCalls))
		})
	}
}

// TestAttributeCount checks that attributeCount, which sizes the span's
// attributes before they are written, counts exactly what
// annotateAttributes writes, for every outcome and list combination, and
// which outcomes make the run fail.
func TestAttributeCount(t *testing.T) {
	cfg := parisConfig(t) // paris_trip, then stock_must_succeed
	p, err := newProcessor(processortest.NewNopSettings(NewFactory().Type()), cfg, consumertest.NewNop())
	require.NoError(t, err)
	calls := []scoring.Call{{Name: "get_weather"}, {Name: "lookup_stock"}, {Name: "search"}}
	eval := func(rule, scorer int, outcome scoring.Outcome, b scoring.Breakdown) evaluation {
		res := scoring.Result{Outcome: outcome, Score: 0.5, Breakdown: b, Explanation: "x"}
		if outcome == scoring.OutcomeError {
			res.Err = errors.New("boom")
		}
		return evaluation{rule: rule, scorer: scorer, result: res, calls: calls}
	}
	full := scoring.Breakdown{Missing: []int{0}, Unexpected: []int{2}}
	tests := []struct {
		name   string
		passed bool
		evals  []evaluation
	}{
		{"one rule passes", true, []evaluation{eval(0, 0, scoring.OutcomePass, scoring.Breakdown{})}},
		{"one rule fails with lists", false, []evaluation{eval(0, 0, scoring.OutcomeFail, full)}},
		{"only forbidden and hallucinated calls", true, []evaluation{eval(0, 0, scoring.OutcomePass, scoring.Breakdown{Forbidden: []int{1}, Hallucinated: []int{2}})}},
		{"an error", false, []evaluation{eval(0, 0, scoring.OutcomeError, scoring.Breakdown{})}},
		// A run no scorer evaluated does not fail.
		{"not evaluated", true, []evaluation{eval(0, 0, scoring.OutcomeNotEvaluated, scoring.Breakdown{})}},
		{"two rules, one fails", false, []evaluation{eval(0, 0, scoring.OutcomePass, scoring.Breakdown{}), eval(1, 0, scoring.OutcomeFail, full)}},
		// Only the primary scorer decides the attributes.
		{"a second scorer writes no attributes", true, []evaluation{eval(0, 0, scoring.OutcomePass, scoring.Breakdown{}), eval(0, 1, scoring.OutcomeFail, full)}},
	}
	for _, tt := range tests {
		for _, mode := range []string{ToolCallsOnFailure, ToolCallsAlways, ToolCallsNever} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				out := p.cfg.Output
				out.ToolCalls = mode
				outs := p.outputs
				if tt.evals[len(tt.evals)-1].scorer == 1 {
					// A second scorer for the first rule.
					outs = append([]ruleOutput(nil), p.outputs...)
					outs[0].labels = append(outs[0].labels, "mongodb")
					outs[0].evalNames = append(outs[0].evalNames, "paris_trip/mongodb")
				}
				run := &scoredRun{calls: calls, evals: tt.evals}
				attrs := pcommon.NewMap()
				annotateAttributes(attrs, run, p.rules, outs, &out)
				assert.Equal(t, attrs.Len(), attributeCount(run, &out), "written: %v", attrs.AsRaw())
				passed, _ := attrs.Get(attrPassed)
				assert.Equal(t, tt.passed, passed.Bool())
				_, hasFailed := attrs.Get(attrFailedRules)
				assert.Equal(t, !tt.passed, hasFailed)
			})
		}
	}
}
