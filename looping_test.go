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

// loopingAgentBatch is trace n's agent span (span 10n+1) with no calls,
// under a model call span (10n+2) that is itself under the agent span:
// looping span ids.
func loopingAgentBatch(n uint64) ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	agentID, chatID := spanID(10*n+1), spanID(10*n+2)
	chat := ss.Spans().AppendEmpty()
	chat.SetName("chat gpt-4o")
	chat.SetTraceID(traceID(n))
	chat.SetSpanID(chatID)
	chat.SetParentSpanID(agentID)
	chat.SetStartTimestamp(600_000)
	chat.SetEndTimestamp(800_000)
	chat.Attributes().PutStr("gen_ai.operation.name", "chat")
	chat.Attributes().PutStr("gen_ai.request.model", "gpt-4o")
	agent := ss.Spans().AppendEmpty()
	agentSpan(agent, "loop-agent", 500_000, 9_000_000)
	agent.SetTraceID(traceID(n))
	agent.SetSpanID(agentID)
	agent.SetParentSpanID(chatID)
	return td
}

// TestLoopingSpanIdsLeaveNoRunOpen: an agent span whose parent loops back
// to it leaves no run open once it is scored: the open-runs gauge reads 0,
// and with max_open_trajectories 1 the next run keeps its calls.
func TestLoopingSpanIdsLeaveNoRunOpen(t *testing.T) {
	cfg := weatherConfig()
	cfg.Limits.MaxOpenTrajectories = 1
	c := newControlled(t, cfg)
	c.send(t, loopingAgentBatch(1))
	assert.Equal(t, 0, c.p.store.Open())
	metadatatest.AssertEqualProcessorToolCallAccuracyOpenTrajectories(t, c.tel,
		[]metricdata.DataPoint[int64]{{Value: 0, Attributes: attrs()}}, metricdatatest.IgnoreTimestamp())

	r := newLinkedRun(2) // its call waits under the chain span, then the agent span comes
	c.send(t, r.tool, r.chain, r.agent)
	require.NoError(t, c.proc.Shutdown(context.Background()))
	got, unscored := scores(mergeTraces(c.sink.AllTraces()))
	assert.Zero(t, unscored)
	assert.Equal(t, map[pcommon.SpanID]float64{spanID(21): 1}, got, "the run's call was not evicted")
}
