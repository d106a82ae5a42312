package toolcallaccuracyprocessor

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadatatest"
)

func attrs(kv ...string) attribute.Set {
	list := []attribute.KeyValue{attribute.String("processor", "tool_call_accuracy")}
	for i := 0; i+1 < len(kv); i += 2 {
		list = append(list, attribute.String(kv[i], kv[i+1]))
	}
	return attribute.NewSet(list...)
}

// TestTelemetry runs two captures through the paris rules plus a rule that
// selects nothing, and asserts every metric point.
func TestTelemetry(t *testing.T) {
	cfg := parisConfig(t)
	h := newHarness(t, cfg)
	var in = readTraceFile(t, filepath.Join("testdata", "traces", "emitters/vercel-ai-v6-mock.otlp.jsonl"))
	in = append(in, readTraceFile(t, filepath.Join("testdata", "traces", "emitters/mastra-otel-mock.otlp.jsonl"))...)
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars()}
	// Everything but the mastra agent span: one run is open.
	last := in[len(in)-1]
	batches := append(cloneAll(in[:len(in)-1]), splitSpans([]ptrace.Traces{last})...)
	for _, td := range batches[:len(batches)-1] {
		require.NoError(t, h.proc.ConsumeTraces(context.Background(), td))
	}
	metadatatest.AssertEqualProcessorToolCallAccuracyOpenTrajectories(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 1, Attributes: attrs()},
	}, opts...)
	metadatatest.AssertEqualProcessorToolCallAccuracyHeldSpans(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 0, Attributes: attrs()},
	}, opts...)
	h.run(t, batches[len(batches)-1:])

	metadatatest.AssertEqualProcessorToolCallAccuracyEvaluations(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 2, Attributes: attrs("rule", "paris_trip", "scorer", "native", "outcome", "pass")},
		{Value: 2, Attributes: attrs("rule", "stock_must_succeed", "scorer", "native", "outcome", "fail")},
	}, opts...)
	bounds := []float64{0, 0.2499, 0.4999, 0.5999, 0.6999, 0.7499, 0.7999, 0.8499, 0.8999, 0.9499, 0.9899, 0.9999, 1}
	metadatatest.AssertEqualProcessorToolCallAccuracyScore(t, h.tel, []metricdata.HistogramDataPoint[float64]{
		{Attributes: attrs("rule", "paris_trip", "scorer", "native"), Count: 2, Sum: 2, Bounds: bounds,
			BucketCounts: []uint64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0}, Min: metricdata.NewExtrema(1.0), Max: metricdata.NewExtrema(1.0)},
		{Attributes: attrs("rule", "stock_must_succeed", "scorer", "native"), Count: 2, Sum: 0, Bounds: bounds,
			BucketCounts: []uint64{2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, Min: metricdata.NewExtrema(0.0), Max: metricdata.NewExtrema(0.0)},
	}, opts...)
	metadatatest.AssertEqualProcessorToolCallAccuracyToolCalls(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 4, Attributes: attrs("rule", "paris_trip", "status", "matched")},
		// lookup_stock paired but failed (must_succeed), get_weather unexpected.
		{Value: 2, Attributes: attrs("rule", "stock_must_succeed", "status", "mismatched")},
		{Value: 2, Attributes: attrs("rule", "stock_must_succeed", "status", "unexpected")},
	}, opts...)
	metadatatest.AssertEqualProcessorToolCallAccuracyExtractedCalls(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 2, Attributes: attrs("convention", "vercel_ai", "arguments", "known")},
		{Value: 2, Attributes: attrs("convention", "mastra", "arguments", "known")},
	}, opts...)
}

// TestRunsWithoutRule counts runs with calls that no rule selects.
func TestRunsWithoutRule(t *testing.T) {
	cfg := parisConfig(t)
	for i := range cfg.Rules {
		cfg.Rules[i].When = []string{`span.attributes["gen_ai.agent.name"] == "someone-else"`}
	}
	h := newHarness(t, cfg)
	in := readTraceFile(t, filepath.Join("testdata", "traces", "emitters/mastra-otel-mock.otlp.jsonl"))
	out := h.run(t, cloneAll(in))
	assertConserved(t, in, out)
	require.Empty(t, scoredSpans(out))
	metadatatest.AssertEqualProcessorToolCallAccuracyRunsWithoutRule(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 1, Attributes: attrs()},
	}, metricdatatest.IgnoreTimestamp())
}

// TestWhenSelectsByAgentName checks a rule's OTTL condition.
func TestWhenSelectsByAgentName(t *testing.T) {
	cfg := parisConfig(t)
	cfg.Rules = cfg.Rules[:1]
	cfg.Rules[0].When = []string{`span.attributes["gen_ai.agent.name"] == "weather-agent"`}
	h := newHarness(t, cfg)
	in := readTraceFile(t, filepath.Join("testdata", "traces", "emitters/mastra-otel-mock.otlp.jsonl"))
	out := h.run(t, cloneAll(in))
	assertRule(t, onlyScored(t, out), "paris_trip", ruleResult{score: 1, passed: true})
}
