package toolcallaccuracyprocessor

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// slowJudge stands in for an LLM judge: a deferred scorer that answers when
// the test lets it, or fails when its context ends.
type slowJudge struct{ release chan struct{} }

var judges = struct {
	sync.Mutex
	byLabel map[string]*slowJudge
}{byLabel: map[string]*slowJudge{}}

func init() {
	toolcall.Register("test_slow_judge", func(s toolcall.Settings) (toolcall.Scorer, error) {
		label, _ := s.Options["id"].(string)
		j := &slowJudge{release: make(chan struct{})}
		judges.Lock()
		judges.byLabel[label] = j
		judges.Unlock()
		return j, nil
	})
}

func (j *slowJudge) Name() string { return "test_slow_judge" }
func (j *slowJudge) Deferred()    {}
func (j *slowJudge) Score(ctx context.Context, calls []toolcall.Call) toolcall.Result {
	select {
	case <-j.release:
		return toolcall.Result{Scorer: j.Name(), Score: 0.9, Threshold: 0.5, Outcome: toolcall.OutcomePass, Explanation: "judged"}
	case <-ctx.Done():
		return toolcall.Result{Scorer: j.Name(), Outcome: toolcall.OutcomeError, Err: ctx.Err(), Explanation: "judge timed out: " + ctx.Err().Error()}
	}
}

func judgeConfig(t *testing.T, id string, timeout time.Duration) *Config {
	cfg := parisConfig(t)
	cfg.Rules = cfg.Rules[:1]
	cfg.Rules[0].Scorers = []ScorerConfig{{Name: "native"}, {Name: "test_slow_judge", Label: "judge", Options: map[string]any{"id": id}}}
	cfg.ScoreTimeout = timeout
	return cfg
}

func evaluationEvents(span ptrace.Span) map[string]string {
	out := map[string]string{}
	for _, e := range span.Events().All() {
		if e.Name() != eventEvaluation {
			continue
		}
		name, _ := e.Attributes().Get(attrEvalName)
		if label, ok := e.Attributes().Get(attrEvalLabel); ok {
			out[name.Str()] = label.Str()
		} else {
			out[name.Str()] = "error"
		}
	}
	return out
}

// TestDeferredScorerHoldsTheAgentSpan: the agent span waits for the judge
// without blocking the batch, then leaves with every result.
func TestDeferredScorerHoldsTheAgentSpan(t *testing.T) {
	in := readTraceFile(t, filepath.Join("testdata", "traces", "emitters/vercel-ai-v6-mock.otlp.jsonl"))
	h := newHarness(t, judgeConfig(t, "answers", time.Minute))
	for _, td := range cloneAll(in) {
		require.NoError(t, h.proc.ConsumeTraces(context.Background(), td))
	}
	require.Equal(t, totalSpans(in)-1, h.sink.SpanCount(), "the agent span is held for the judge")
	judges.Lock()
	close(judges.byLabel["answers"].release)
	judges.Unlock()
	require.Eventually(t, func() bool { return h.sink.SpanCount() == totalSpans(in) }, 10*time.Second, 5*time.Millisecond)
	out := h.run(t, nil)
	assertConserved(t, in, out)
	agent := onlyScored(t, out)
	assert.Equal(t, map[string]string{"paris_trip/native": "pass", "paris_trip/judge": "pass"}, evaluationEvents(agent))
	assertRule(t, agent, "paris_trip", ruleResult{score: 1, passed: true})
}

// TestDeferredScorerTimesOut: a judge that does not answer by score_timeout
// leaves an error result; the span is not lost.
func TestDeferredScorerTimesOut(t *testing.T) {
	in := readTraceFile(t, filepath.Join("testdata", "traces", "emitters/vercel-ai-v6-mock.otlp.jsonl"))
	h := newHarness(t, judgeConfig(t, "silent", 50*time.Millisecond))
	for _, td := range cloneAll(in) {
		require.NoError(t, h.proc.ConsumeTraces(context.Background(), td))
	}
	require.Eventually(t, func() bool { return h.sink.SpanCount() == totalSpans(in) }, 10*time.Second, 5*time.Millisecond)
	out := h.run(t, nil)
	assertConserved(t, in, out)
	assert.Equal(t, map[string]string{"paris_trip/native": "pass", "paris_trip/judge": "error"}, evaluationEvents(onlyScored(t, out)))
}
