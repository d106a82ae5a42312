package toolcallaccuracyprocessor

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadatatest"
)

// retraced returns copies of batches with every span moved to trace id.
func retraced(batches []ptrace.Traces, id pcommon.TraceID) []ptrace.Traces {
	out := cloneAll(batches)
	for _, td := range out {
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					s.SetTraceID(id)
				}
			}
		}
	}
	return out
}

// annotatedSpans returns every span of batches that carries the
// processor's attributes.
func annotatedSpans(batches []ptrace.Traces) []ptrace.Span {
	var out []ptrace.Span
	for _, td := range batches {
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					if _, ok := s.Attributes().Get(attrRules); ok {
						out = append(out, s)
					}
				}
			}
		}
	}
	return out
}

// TestHeldRunsNeverEvictOpenRuns floods the processor with agent spans
// that arrive before anything of their runs (each held by
// wait_for_missing), far more than max_open_trajectories and than
// max_held_runs, and then sends correct runs children first: no open run
// loses a call, each is scored right as its agent span arrives, nothing is
// evicted, and the held runs over max_held_runs are released early, oldest
// first, counted as over_limit.
func TestHeldRunsNeverEvictOpenRuns(t *testing.T) {
	in := readTraceFile(t, filepath.Join("testdata", "traces", "emitters/mastra-otel-mock.otlp.jsonl"))
	spans := splitSpans(cloneAll(in))
	agent := spans[len(spans)-1]
	cfg := parisConfig(t)
	cfg.Limits.MaxOpenTrajectories = 5
	cfg.Limits.MaxHeldRuns = 20
	c := newControlled(t, cfg)
	const flood, runs = 60, 5 // as many runs open at once as max_open_trajectories
	for i := uint64(1); i <= flood; i++ {
		c.send(t, retraced([]ptrace.Traces{agent}, traceID(1000+i))...)
	}
	c.release()
	require.Equal(t, flood-20, c.sink.SpanCount(), "the runs held longest are released past max_held_runs")
	c.sink.Reset()
	// The runs' spans interleaved, children first: all of them open at once.
	var interleaved []ptrace.Traces
	for k := range spans {
		for r := uint64(1); r <= runs; r++ {
			interleaved = append(interleaved, retraced(spans[k:k+1], traceID(r))...)
		}
	}
	c.send(t, interleaved...)
	scored := annotatedSpans(c.sink.AllTraces())
	require.Len(t, scored, runs, "every correct run is scored as its agent span arrives")
	for _, s := range scored {
		assertRule(t, s, "paris_trip", ruleResult{score: 1, passed: true})
	}
	require.NoError(t, c.proc.Shutdown(context.Background()))
	metadatatest.AssertEqualProcessorToolCallAccuracyIncompleteRuns(t, c.tel, []metricdata.DataPoint[int64]{
		{Value: flood - 20, Attributes: attribute.NewSet(attribute.String("processor", "tool_call_accuracy"), attribute.String("resolution", "over_limit"))},
		{Value: 20, Attributes: attribute.NewSet(attribute.String("processor", "tool_call_accuracy"), attribute.String("resolution", "deadline"))},
	}, metricdatatest.IgnoreTimestamp())
	_, err := c.tel.GetMetric("otelcol_processor_tool_call_accuracy_evicted_trajectories")
	require.Error(t, err, "nothing is evicted")
}

// TestAgentSpansAloneDoNotCostTheNextRun is the case without load:
// with max_open_trajectories: 5, six agent spans with nothing below them
// (runs that made no calls) are held, and a correct run that follows keeps
// its tool spans and passes.
func TestAgentSpansAloneDoNotCostTheNextRun(t *testing.T) {
	in := readTraceFile(t, filepath.Join("testdata", "traces", "emitters/mastra-otel-mock.otlp.jsonl"))
	spans := splitSpans(cloneAll(in))
	cfg := parisConfig(t)
	cfg.Limits.MaxOpenTrajectories = 5
	c := newControlled(t, cfg)
	for i := uint64(1); i <= 6; i++ {
		c.send(t, retraced(spans[len(spans)-1:], traceID(100+i))...)
	}
	c.send(t, retraced(spans, traceID(1))...)
	scored := annotatedSpans(c.sink.AllTraces())
	require.Len(t, scored, 1)
	assertRule(t, scored[0], "paris_trip", ruleResult{score: 1, passed: true})
	require.NoError(t, c.proc.Shutdown(context.Background()))
}
