package evaluationsconnector

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/evaluation"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/metadatatest"
)

func set(kv ...string) attribute.Set {
	list := []attribute.KeyValue{attribute.String("connector", "evaluations")}
	for i := 0; i+1 < len(kv); i += 2 {
		list = append(list, attribute.String(kv[i], kv[i+1]))
	}
	return attribute.NewSet(list...)
}

var ignoreTime = []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}

// badSpan is a span whose evaluation events are wrong in every way the
// connector counts, beside one good evaluation.
func badSpan(explanation string) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "svc")
	span := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	span.SetTraceID(pcommon.TraceID{9})
	span.SetSpanID(pcommon.SpanID{9})
	span.SetEndTimestamp(pcommon.NewTimestampFromTime(testStart))
	span.Attributes().PutStr("gen_ai.agent.name", "bad-agent")
	add := func(attrs map[string]any) {
		e := span.Events().AppendEmpty()
		e.SetName(evaluation.EventName)
		if err := e.Attributes().FromRaw(attrs); err != nil {
			panic(err)
		}
	}
	add(map[string]any{evaluation.AttrScore: 1.0, evaluation.AttrLabel: "pass"})                                       // no name
	add(map[string]any{evaluation.AttrName: "text_score", evaluation.AttrScore: "high", evaluation.AttrLabel: "pass"}) // text score
	add(map[string]any{evaluation.AttrName: "nan_score", evaluation.AttrScore: math.NaN(), evaluation.AttrLabel: "fail"})
	add(map[string]any{evaluation.AttrName: "bool_label", evaluation.AttrScore: 0.5, evaluation.AttrLabel: false})
	add(map[string]any{evaluation.AttrName: "nothing"})
	add(map[string]any{evaluation.AttrName: "long", evaluation.AttrScore: 0.9, evaluation.AttrLabel: "pass", evaluation.AttrExplanation: explanation})
	return td
}

// TestBadInput: malformed evaluations are counted per reason by each
// connector, kept without the malformed attribute (or dropped without a
// name), a huge explanation is cut, and nothing fails.
func TestBadInput(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	cfg.MaxExplanationLength = 64
	h := newHarness(t, cfg)
	huge := strings.Repeat("é", 1<<20) // 2 MiB, two bytes a character
	h.consume(t, badSpan(huge))

	records := map[string]plog.LogRecord{}
	for _, lr := range h.allLogs().ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().All() {
		name, _ := lr.Attributes().Get(evaluation.AttrName)
		records[name.Str()] = lr
	}
	require.Len(t, records, 5, "the one without a name is dropped")
	attr := func(name, key string) (pcommon.Value, bool) { return records[name].Attributes().Get(key) }
	_, ok := attr("text_score", evaluation.AttrScore)
	assert.False(t, ok, "a text score is left out")
	_, ok = attr("nan_score", evaluation.AttrScore)
	assert.False(t, ok)
	_, ok = attr("bool_label", evaluation.AttrLabel)
	assert.False(t, ok, "a label that is not text is left out")
	expl, _ := attr("long", evaluation.AttrExplanation)
	assert.LessOrEqual(t, len(expl.Str()), 64)
	assert.Equal(t, strings.Repeat("é", 30)+"…", expl.Str(), "cut at a character boundary")
	assert.Equal(t, plog.SeverityNumberWarn, records["nan_score"].SeverityNumber())

	md := h.flush(t, time.Second)
	assert.Positive(t, md.DataPointCount())

	metadatatest.AssertEqualConnectorEvaluationsInvalid(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 1, Attributes: set("signal", "logs", "reason", "missing_name")},
		{Value: 2, Attributes: set("signal", "logs", "reason", "invalid_score")},
		{Value: 1, Attributes: set("signal", "logs", "reason", "invalid_label")},
		{Value: 1, Attributes: set("signal", "logs", "reason", "missing_result")},
		{Value: 1, Attributes: set("signal", "metrics", "reason", "missing_name")},
		{Value: 2, Attributes: set("signal", "metrics", "reason", "invalid_score")},
		{Value: 1, Attributes: set("signal", "metrics", "reason", "invalid_label")},
		{Value: 1, Attributes: set("signal", "metrics", "reason", "missing_result")},
	}, ignoreTime...)
	metadatatest.AssertEqualConnectorEvaluationsRead(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 5, Attributes: set("signal", "logs", "source", "span_event")},
		{Value: 5, Attributes: set("signal", "metrics", "source", "span_event")},
	}, ignoreTime...)
	metadatatest.AssertEqualConnectorEvaluationsExplanationsTruncated(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 1, Attributes: set()},
	}, ignoreTime...)
}

// TestTelemetry: the series gauge, the overflow counter and the reads by
// source, from the processor's spans read both ways.
func TestTelemetry(t *testing.T) {
	cfg := goldenConfig()
	cfg.AggregationCardinalityLimit = 2
	cfg.ProcessorAttributes = true
	h := newHarness(t, cfg)
	td := readTraces(t, "processor.yaml")
	h.consume(t, td)
	h.consume(t, withoutEvents(td))

	metadatatest.AssertEqualConnectorEvaluationsRead(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 3, Attributes: set("signal", "logs", "source", "span_event")},
		{Value: 2, Attributes: set("signal", "logs", "source", "span_attributes")},
		{Value: 3, Attributes: set("signal", "metrics", "source", "span_event")},
		{Value: 2, Attributes: set("signal", "metrics", "source", "span_attributes")},
	}, ignoreTime...)
	// Three evaluations, then the two primary ones again, against a limit
	// of 2: stock_must_succeed/native, the third series, overflows both
	// times, and of the four tool series the last two, twice each.
	metadatatest.AssertEqualConnectorEvaluationsOverflow(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 2, Attributes: set("metric", "gen_ai.evaluation.score")},
		{Value: 2, Attributes: set("metric", "gen_ai.evaluation.results")},
		{Value: 4, Attributes: set("metric", "tool_call_accuracy.tool_calls")},
	}, ignoreTime...)
	metadatatest.AssertEqualConnectorEvaluationsSeries(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 3, Attributes: set("metric", "gen_ai.evaluation.score")},
		{Value: 3, Attributes: set("metric", "gen_ai.evaluation.results")},
		{Value: 3, Attributes: set("metric", "tool_call_accuracy.tool_calls")},
	}, ignoreTime...)
}

// TestDownstreamFails: a logs consumer's error is returned to the caller; a
// metrics flush refused is counted and the cumulative series are kept for
// the next flush.
func TestDownstreamFails(t *testing.T) {
	boom := errors.New("boom")
	h := newHarnessWith(t, goldenConfig(), consumertest.NewErr(boom), consumertest.NewErr(boom))
	td := readTraces(t, "processor.yaml")
	assert.ErrorIs(t, h.lc.ConsumeTraces(context.Background(), td), boom)
	require.NoError(t, h.mc.ConsumeTraces(context.Background(), td), "aggregation does not call the next consumer")

	// A batch without evaluations never reaches the logs consumer.
	require.NoError(t, h.lc.ConsumeTraces(context.Background(), ptrace.NewTraces()))

	mc := h.mc.(*metricsConnector)
	mc.flush(context.Background())
	mc.flush(context.Background())
	metadatatest.AssertEqualConnectorEvaluationsFlushFailures(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 2, Attributes: set()},
	}, ignoreTime...)
	mc.mu.Lock()
	assert.Equal(t, 3, mc.scores.Len(), "the series are kept")
	mc.mu.Unlock()
}
