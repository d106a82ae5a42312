package toolcallaccuracyprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadatatest"
)

// weatherConfig has one rule expecting get_weather for Paris.
func weatherConfig() *Config {
	cfg := createDefaultConfig().(*Config)
	cfg.Rules = []RuleConfig{{Name: "weather", Expect: ExpectConfig{Calls: []ExpectedCallConfig{{Tool: "get_weather", Args: map[string]any{"city": "Paris"}}}}}}
	return cfg
}

// appendRun appends one run to ss: an agent span (span id 2n+1, parent
// agentParent(n)) with one get_weather call for city under it.
func appendRun(ss ptrace.ScopeSpans, n uint64, city string, agentParent pcommon.SpanID) {
	tool := ss.Spans().AppendEmpty()
	toolSpan(tool, "get_weather", `{"city":"`+city+`"}`)
	tool.SetTraceID(traceID(n))
	tool.SetSpanID(spanID(2*n + 2))
	tool.SetParentSpanID(spanID(2*n + 1))
	agent := ss.Spans().AppendEmpty()
	agent.SetName("invoke_agent weather-agent")
	agent.SetTraceID(traceID(n))
	agent.SetSpanID(spanID(2*n + 1))
	agent.SetParentSpanID(agentParent)
	agent.SetStartTimestamp(500_000)
	agent.SetEndTimestamp(9_000_000)
	agent.Attributes().PutStr("gen_ai.operation.name", "invoke_agent")
	agent.Attributes().PutStr("gen_ai.agent.name", "weather-agent")
}

// runsBatch is one batch of runs first..first+n-1, each in its own trace.
func runsBatch(first, n uint64, city string) ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := first; i < first+n; i++ {
		appendRun(ss, i, city, pcommon.SpanID{})
	}
	return td
}

// scores returns the weather rule's score of every scored span by span id,
// and how many agent spans carry none.
func scores(td ptrace.Traces) (map[pcommon.SpanID]float64, int) {
	out, unscored := map[pcommon.SpanID]float64{}, 0
	for id, s := range spansByID(td) {
		if s.Name() != "invoke_agent weather-agent" {
			continue
		}
		v, ok := s.Attributes().Get(attrPrefix + "weather.score")
		if !ok {
			unscored++
			continue
		}
		out[id] = v.Double()
	}
	return out, unscored
}

// TestLargeBatchScoresEveryRun: a batch with more complete runs than
// max_open_trajectories (as a batch processor in front produces) scores
// every run; no run is evicted by the batch's own tool spans.
func TestLargeBatchScoresEveryRun(t *testing.T) {
	cfg := weatherConfig()
	cfg.Limits.MaxOpenTrajectories = 100
	h := newHarness(t, cfg)
	out := h.run(t, []ptrace.Traces{runsBatch(0, 1000, "Paris")})
	got, unscored := scores(out)
	assert.Zero(t, unscored)
	require.Len(t, got, 1000)
	for id, s := range got {
		require.Equal(t, 1.0, s, "run %s", id)
	}
}

// TestSelfParentedAgentSpans: agent spans that name themselves as parent
// are scored as roots and leave no open run behind, so they cannot pin
// max_open_trajectories and starve the next normal run.
func TestSelfParentedAgentSpans(t *testing.T) {
	cfg := weatherConfig()
	cfg.Limits.MaxOpenTrajectories = 10
	c := newControlled(t, cfg)
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := uint64(0); i < 50; i++ {
		appendRun(ss, i, "Paris", spanID(2*i+1)) // its own parent
	}
	c.send(t, td)
	assert.Equal(t, 0, c.p.store.Open(), "no open run is left raised")
	c.send(t, runsBatch(100, 1, "Paris"))
	require.NoError(t, c.proc.Shutdown(context.Background()))
	got, unscored := scores(mergeTraces(c.sink.AllTraces()))
	assert.Zero(t, unscored)
	assert.Len(t, got, 51)
	for _, s := range got {
		assert.Equal(t, 1.0, s)
	}
}

// TestCyclicParentsAreCounted: a tool call under steps whose parents loop
// (A→B→A) has no run: it is counted as dropped with reason parent_cycle.
func TestCyclicParentsAreCounted(t *testing.T) {
	c := newControlled(t, weatherConfig())
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	tool := ss.Spans().AppendEmpty()
	toolSpan(tool, "get_weather", `{"city":"Paris"}`)
	tool.SetTraceID(traceID(1))
	tool.SetSpanID(spanID(3))
	tool.SetParentSpanID(spanID(4))
	for _, ids := range [][2]uint64{{4, 5}, {5, 4}} {
		step := ss.Spans().AppendEmpty()
		step.SetName("step")
		step.SetTraceID(traceID(1))
		step.SetSpanID(spanID(ids[0]))
		step.SetParentSpanID(spanID(ids[1]))
		step.SetEndTimestamp(pcommon.Timestamp(3_000_000 + ids[0]))
		step.Attributes().PutStr("gen_ai.operation.name", "chat")
	}
	want := td.SpanCount()
	c.send(t, td)
	require.NoError(t, c.proc.Shutdown(context.Background()))
	assert.Equal(t, want, c.sink.SpanCount())
	metadatatest.AssertEqualProcessorToolCallAccuracyDroppedCalls(t, c.tel,
		[]metricdata.DataPoint[int64]{{Value: 1, Attributes: attrs("reason", "parent_cycle")}},
		metricdatatest.IgnoreTimestamp())
}
