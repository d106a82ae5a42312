package evaluationsconnector

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/pmetrictest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/evaluation"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/metadatatest"
)

// agentsBatch is n agent spans, each in its own trace, with one failing
// evaluation and a call status; setAgents names their agents.
func agentsBatch(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "fleet")
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	for i := range n {
		s := spans.AppendEmpty()
		s.SetName("invoke_agent")
		s.SetTraceID(pcommon.TraceID{1, byte(i >> 8), byte(i)})
		s.SetSpanID(pcommon.SpanID{1, byte(i >> 8), byte(i)})
		s.SetEndTimestamp(pcommon.NewTimestampFromTime(testStart))
		s.Attributes().PutStr("gen_ai.agent.name", "")
		statuses := s.Attributes().PutEmptyMap("tool_call_accuracy.trip.call_statuses")
		statuses.PutEmptySlice("missing").AppendEmpty().SetStr("book_flight")
		e := s.Events().AppendEmpty()
		e.SetName(evaluation.EventName)
		e.Attributes().PutStr(evaluation.AttrName, "trip/native")
		e.Attributes().PutStr(evaluation.AttrRule, "trip")
		e.Attributes().PutStr(evaluation.AttrScorer, "native")
		e.Attributes().PutDouble(evaluation.AttrScore, 0.5)
		e.Attributes().PutStr(evaluation.AttrLabel, "fail")
	}
	return td
}

// setAgents names the agents of a batch from agentsBatch first, first+1, ...
func setAgents(td ptrace.Traces, first int) {
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	for i := 0; i < spans.Len(); i++ {
		spans.At(i).Attributes().PutStr("gen_ai.agent.name", fmt.Sprintf("agent-%07d", first+i))
	}
}

// TestCardinalityLimitGolden: five agents against a limit of 3: the last
// two agents' measurements share the overflow series of each metric.
func TestCardinalityLimitGolden(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	cfg.AggregationCardinalityLimit = 3
	h := newHarness(t, cfg)
	td := agentsBatch(5)
	setAgents(td, 0)
	require.NoError(t, h.mc.ConsumeTraces(context.Background(), td))
	md := h.flush(t, 10*time.Second)

	path := filepath.Join("testdata", "metrics", "overflow.yaml")
	if *update {
		require.NoError(t, golden.WriteMetricsToFile(path, md, golden.SkipMetricTimestampNormalization()))
		return
	}
	want, err := golden.ReadMetrics(path)
	require.NoError(t, err)
	require.NoError(t, pmetrictest.CompareMetrics(want, md, pmetrictest.IgnoreMetricsOrder(), pmetrictest.IgnoreMetricDataPointsOrder()))
	metadatatest.AssertEqualConnectorEvaluationsOverflow(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 2, Attributes: set("metric", "gen_ai.evaluation.score")},
		{Value: 2, Attributes: set("metric", "gen_ai.evaluation.results")},
		{Value: 2, Attributes: set("metric", "tool_call_accuracy.tool_calls")},
	}, ignoreTime...)
}

// TestMillionAgents: a million distinct agent names make limit series and
// an overflow series per metric, every measurement beyond the limit is
// counted, and the heap does not grow with the names.
func TestMillionAgents(t *testing.T) {
	const batch = 1000
	agents := 1_000_000
	if testing.Short() {
		agents = 100_000
	}
	cfg := createDefaultConfig().(*Config)
	cfg.AggregationCardinalityLimit = 500
	h := newHarness(t, cfg)
	td := agentsBatch(batch)

	var before, after runtime.MemStats
	// The first limit agents make their series; the heap is measured after.
	setAgents(td, 0)
	require.NoError(t, h.mc.ConsumeTraces(context.Background(), td))
	runtime.GC()
	runtime.ReadMemStats(&before)
	for first := batch; first < agents; first += batch {
		setAgents(td, first)
		require.NoError(t, h.mc.ConsumeTraces(context.Background(), td))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	assert.Less(t, grown, int64(8<<20), "heap grew by %d bytes over %d agents", grown, agents)

	over := int64(agents - cfg.AggregationCardinalityLimit)
	metadatatest.AssertEqualConnectorEvaluationsOverflow(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: over, Attributes: set("metric", "gen_ai.evaluation.score")},
		{Value: over, Attributes: set("metric", "gen_ai.evaluation.results")},
		{Value: over, Attributes: set("metric", "tool_call_accuracy.tool_calls")},
	}, ignoreTime...)
	limit := int64(cfg.AggregationCardinalityLimit + 1)
	metadatatest.AssertEqualConnectorEvaluationsSeries(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: limit, Attributes: set("metric", "gen_ai.evaluation.score")},
		{Value: limit, Attributes: set("metric", "gen_ai.evaluation.results")},
		{Value: limit, Attributes: set("metric", "tool_call_accuracy.tool_calls")},
	}, ignoreTime...)

	md := h.flush(t, time.Second)
	assert.Equal(t, 3*(cfg.AggregationCardinalityLimit+1), md.DataPointCount())
}
