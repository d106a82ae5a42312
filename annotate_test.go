package toolcallaccuracyprocessor

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
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
	calls := []toolcall.Call{{Name: "get_weather"}, {Name: "lookup_stock"}, {Name: "search"}}
	eval := func(rule, scorer int, outcome toolcall.Outcome, b toolcall.Breakdown) evaluation {
		res := toolcall.Result{Outcome: outcome, Score: 0.5, Breakdown: b, Explanation: "x"}
		if outcome == toolcall.OutcomeError {
			res.Err = errors.New("boom")
		}
		return evaluation{rule: rule, scorer: scorer, result: res, calls: calls}
	}
	full := toolcall.Breakdown{Missing: []int{0}, Unexpected: []int{2}}
	tests := []struct {
		name   string
		passed bool
		evals  []evaluation
	}{
		{"one rule passes", true, []evaluation{eval(0, 0, toolcall.OutcomePass, toolcall.Breakdown{})}},
		{"one rule fails with lists", false, []evaluation{eval(0, 0, toolcall.OutcomeFail, full)}},
		{"only forbidden and hallucinated calls", true, []evaluation{eval(0, 0, toolcall.OutcomePass, toolcall.Breakdown{Forbidden: []int{1}, Hallucinated: []int{2}})}},
		{"an error", false, []evaluation{eval(0, 0, toolcall.OutcomeError, toolcall.Breakdown{})}},
		// A run no scorer evaluated does not fail.
		{"not evaluated", true, []evaluation{eval(0, 0, toolcall.OutcomeNotEvaluated, toolcall.Breakdown{})}},
		{"two rules, one fails", false, []evaluation{eval(0, 0, toolcall.OutcomePass, toolcall.Breakdown{}), eval(1, 0, toolcall.OutcomeFail, full)}},
		{"two rules fail", false, []evaluation{eval(0, 0, toolcall.OutcomeFail, full), eval(1, 0, toolcall.OutcomeError, toolcall.Breakdown{})}},
		// Only the primary scorer decides the attributes.
		{"a second scorer writes no attributes", true, []evaluation{eval(0, 0, toolcall.OutcomePass, toolcall.Breakdown{}), eval(0, 1, toolcall.OutcomeFail, full)}},
	}
	type modes struct{ toolCalls, ruleAttributes string }
	var all []modes
	for _, tc := range []string{ToolCallsOnFailure, ToolCallsAlways, ToolCallsNever} {
		for _, ra := range []string{RuleAttributesAlways, RuleAttributesOnFailure} {
			all = append(all, modes{tc, ra})
		}
	}
	for _, tt := range tests {
		for _, mode := range all {
			t.Run(tt.name+"/"+mode.toolCalls+"/"+mode.ruleAttributes, func(t *testing.T) {
				out := p.cfg.Output
				out.ToolCalls, out.RuleAttributes = mode.toolCalls, mode.ruleAttributes
				outs := p.outputs
				if tt.evals[len(tt.evals)-1].scorer == 1 {
					// A second scorer for the first rule.
					outs = append([]ruleOutput(nil), p.outputs...)
					outs[0].labels = append(outs[0].labels, "mongodb")
					outs[0].evalNames = append(outs[0].evalNames, "paris_trip/mongodb")
				}
				run := &scoredRun{calls: calls, evals: tt.evals}
				span := ptrace.NewSpan()
				attrs := span.Attributes()
				w := annotationWriter{pack: true}
				annotateAttributes(&w, attrs, run, p.rules, outs, &out)
				assert.Equal(t, attrs.Len(), attributeCount(run, &out), "written: %v", attrs.AsRaw())
				w.end(w.begin(), 0) // no events
				assert.Equal(t, packAnnotations(nil, span), w.buf, "packed as written, packed from the span")
				passed, _ := attrs.Get(attrPassed)
				assert.Equal(t, tt.passed, passed.Bool())
				_, hasFailed := attrs.Get(attrFailedRules)
				assert.Equal(t, !tt.passed, hasFailed)
				var failed []string
				for _, ev := range tt.evals {
					if ev.scorer == 0 && failsRun(ev.result.Outcome) {
						failed = append(failed, p.rules[ev.rule].Name)
					}
				}
				assert.Equal(t, failed, stringSlice(attrs, attrFailedRules))
				// A rule's group is there when the rule failed the run, or
				// when every rule gets one.
				for _, ev := range tt.evals {
					if ev.scorer != 0 {
						continue
					}
					_, grouped := attrs.Get(attrPrefix + p.rules[ev.rule].Name + ".outcome")
					assert.Equal(t, failsRun(ev.result.Outcome) || mode.ruleAttributes == RuleAttributesAlways, grouped, p.rules[ev.rule].Name)
				}
			})
		}
	}
}

// TestRuleAttributesOnFailure runs the mastra capture, which passes
// paris_trip and fails stock_must_succeed, with rule_attributes on_failure:
// only the failing rule has its attribute group, the summary names both,
// and both rules' results are in their events, as with the default.
func TestRuleAttributesOnFailure(t *testing.T) {
	in := readTraceFile(t, filepath.Join("testdata", "traces", "emitters", "mastra-otel-mock.otlp.jsonl"))
	agentOf := func(mode string) ptrace.Span {
		cfg := parisConfig(t)
		cfg.Output.RuleAttributes = mode
		require.NoError(t, cfg.Validate())
		out := newHarness(t, cfg).run(t, cloneAll(in))
		assertConserved(t, in, out)
		return onlyScored(t, out)
	}
	always, onFailure := agentOf(RuleAttributesAlways), agentOf(RuleAttributesOnFailure)

	groups := func(span ptrace.Span) map[string]bool {
		seen := map[string]bool{}
		for k := range span.Attributes().All() {
			for _, rule := range []string{"paris_trip", "stock_must_succeed"} {
				if strings.HasPrefix(k, attrPrefix+rule+".") {
					seen[rule] = true
				}
			}
		}
		return seen
	}
	assert.Equal(t, map[string]bool{"paris_trip": true, "stock_must_succeed": true}, groups(always))
	assert.Equal(t, map[string]bool{"stock_must_succeed": true}, groups(onFailure))
	for _, key := range []string{attrRules, attrFailedRules, attrToolCalls} {
		assert.Equal(t, stringSlice(always.Attributes(), key), stringSlice(onFailure.Attributes(), key), key)
	}
	for _, key := range []string{attrScore, attrPassed} {
		a, _ := always.Attributes().Get(key)
		b, ok := onFailure.Attributes().Get(key)
		require.True(t, ok, key)
		assert.Equal(t, a.AsRaw(), b.AsRaw(), key)
	}
	// The failing rule's group is the same, attribute for attribute.
	for k, v := range always.Attributes().All() {
		if strings.HasPrefix(k, attrPrefix+"stock_must_succeed.") {
			got, ok := onFailure.Attributes().Get(k)
			require.True(t, ok, k)
			assert.Equal(t, v.AsRaw(), got.AsRaw(), k)
		}
	}
	require.Equal(t, 2, onFailure.Events().Len())
	assert.Equal(t, always.Events().Len(), onFailure.Events().Len())
	for i := range always.Events().Len() {
		assert.Equal(t, always.Events().At(i).Attributes().AsRaw(), onFailure.Events().At(i).Attributes().AsRaw())
	}
}

// BenchmarkAnnotate times writing one run's results on an agent span that
// already carries 16 attributes of its own: paris_trip fails with missing
// and unexpected calls, stock_must_succeed passes, and the run's tool
// names are listed (on_failure). Each op annotates a fresh copy of the
// span, made with the timer stopped.
func BenchmarkAnnotate(b *testing.B) {
	cfg := loadConfig(b, filepath.Join("testdata", "golden", "config.yaml"), "paris")
	p, err := newProcessor(processortest.NewNopSettings(NewFactory().Type()), cfg, consumertest.NewNop())
	require.NoError(b, err)
	calls := []toolcall.Call{{Name: "get_weather"}, {Name: "lookup_stock"}, {Name: "search"}}
	fail := toolcall.Result{Outcome: toolcall.OutcomeFail, Score: 0.5, Explanation: "score 0.50: 1 of 2 expected calls matched",
		Breakdown: toolcall.Breakdown{Missing: []int{1}, Unexpected: []int{2}}}
	pass := toolcall.Result{Outcome: toolcall.OutcomePass, Score: 1, Explanation: "score 1: 1 of 1 expected calls matched"}
	evals := []evaluation{{rule: 0, result: fail, calls: calls}, {rule: 1, result: pass, calls: calls}}
	template := ptrace.NewSpan()
	template.SetName("invoke_agent")
	for i := range 16 {
		template.Attributes().PutStr(fmt.Sprintf("gen_ai.attribute_%d", i), "value")
	}
	const chunk = 256
	spans := make([]ptrace.Span, chunk)
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += chunk {
		n := min(chunk, b.N-done)
		b.StopTimer()
		for k := range n {
			spans[k] = ptrace.NewSpan()
			template.CopyTo(spans[k])
		}
		b.StartTimer()
		for k := range n {
			run := scoredRun{calls: calls, evals: evals}
			for i := range run.evals {
				run.evals[i].explained = false
			}
			annotate(spans[k], &run, p.rules, p.outputs, &p.cfg.Output)
		}
	}
}

// TestPutNames checks the list attributes of missing and unexpected tools:
// names in list order, indexes out of range skipped, invalid UTF-8
// replaced, and no attribute when nothing is left to list.
func TestPutNames(t *testing.T) {
	calls := []toolcall.Call{{Name: "a"}, {Name: "b"}, {Name: "c\xff"}}
	tests := []struct {
		name  string
		lists [][]int
		want  []string // nil: no attribute
	}{
		{"none", nil, nil},
		{"empty lists", [][]int{nil, {}, nil}, nil},
		{"one list", [][]int{{1, 0}}, []string{"b", "a"}},
		{"lists in turn", [][]int{{2}, nil, {0, 1}}, []string{"c\uFFFD", "a", "b"}},
		{"out of range skipped", [][]int{{-1, 3}, {1}}, []string{"b"}},
		{"only out of range", [][]int{{5}, {-2}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			attrs := pcommon.NewMap()
			k := withPacked(annotationKey{name: "k", code: literalKey})
			putNames(&annotationWriter{}, attrs, &k, calls, callName, tt.lists...)
			_, ok := attrs.Get("k")
			assert.Equal(t, tt.want != nil, ok)
			assert.Equal(t, tt.want, stringSlice(attrs, "k"))
		})
	}
}
