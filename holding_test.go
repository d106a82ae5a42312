package toolcallaccuracyprocessor

import (
	"context"
	"path/filepath"
	"testing"
	"time"

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

// withoutSpans returns copies of batches without the spans drop names.
func withoutSpans(batches []ptrace.Traces, drop func(ptrace.Span) bool) []ptrace.Traces {
	var out []ptrace.Traces
	for _, td := range cloneAll(batches) {
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				ss.Spans().RemoveIf(drop)
			}
		}
		if td.SpanCount() > 0 {
			out = append(out, td)
		}
	}
	return out
}

// endsOnTools is the Mastra capture's run without its second step: the
// model's last turn asks for two tools, they run, and no model call
// follows (a run that ends on its tool calls).
func endsOnTools(t *testing.T) []ptrace.Traces {
	in := readTraceFile(t, filepath.Join("testdata", "traces", "emitters/mastra-otel-mock.otlp.jsonl"))
	second := map[string]bool{"921272eae61499a7": true, "ec2f8b067eca550a": true, "4ccaeed9feb1c6b8": true}
	return splitSpans(withoutSpans(in, func(s ptrace.Span) bool { return second[s.SpanID().String()] }))
}

// TestLearnsRunsThatEndOnAToolCall: an agent whose runs end on a tool call
// has its first runs held until wait_for_missing runs out (nothing shows
// they are complete); after learnAfter such deadlines in a row with nothing
// late, its runs are scored as their agent span arrives, with the verdict
// of the held ones, and learned_completions{evidence=answer} says so. A
// model call that arrives after its run was scored turns holding back on.
func TestLearnsRunsThatEndOnAToolCall(t *testing.T) {
	spans := endsOnTools(t)
	c := newControlled(t, parisConfig(t))
	scoredNow := func(id uint64) bool {
		before := len(annotatedSpans(c.sink.AllTraces()))
		c.send(t, retraced(spans, traceID(id))...)
		return len(annotatedSpans(c.sink.AllTraces())) > before
	}
	for i := uint64(1); i <= learnAfter; i++ {
		require.False(t, scoredNow(i), "run %d is held: nothing shows it complete yet", i)
		c.clock.advance(cfgWaitForMissing(c) + time.Millisecond)
		c.release()
	}
	require.True(t, scoredNow(10), "once learned, a run that ends on a tool call leaves with its batch")
	scored := annotatedSpans(c.sink.AllTraces())
	require.Len(t, scored, learnAfter+1)
	for i, s := range scored {
		assertRule(t, s, "paris_trip", ruleResult{score: 1, passed: true})
		if i == learnAfter {
			expl, _ := s.Attributes().Get(attrPrefix + "paris_trip.explanation")
			require.NotContains(t, expl.Str(), "incomplete", "a learned run is complete")
		}
	}
	metadatatest.AssertEqualProcessorToolCallAccuracyLearnedCompletions(t, c.tel, []metricdata.DataPoint[int64]{
		{Value: 1, Attributes: attribute.NewSet(attribute.String("processor", "tool_call_accuracy"), attribute.String("evidence", "answer"))},
		{Value: 0, Attributes: attribute.NewSet(attribute.String("processor", "tool_call_accuracy"), attribute.String("evidence", "children"))},
		{Value: 0, Attributes: attribute.NewSet(attribute.String("processor", "tool_call_accuracy"), attribute.String("evidence", "parent"))},
	}, metricdatatest.IgnoreTimestamp())

	// Run 10's closing step after all, late: held again.
	late := retraced(splitSpans(readTraceFile(t, filepath.Join("testdata", "traces", "emitters/mastra-otel-mock.otlp.jsonl"))), traceID(10))
	for _, td := range late {
		switch td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).SpanID().String() {
		case "921272eae61499a7", "ec2f8b067eca550a", "4ccaeed9feb1c6b8":
			c.send(t, td)
		}
	}
	require.False(t, scoredNow(11), "a late span turns holding back on")
	require.NoError(t, c.proc.Shutdown(context.Background()))
}

func cfgWaitForMissing(c *controlled) time.Duration { return c.p.cfg.WaitForMissing }

// TestLearnsAgentsWithNothingBelowThem: an agent whose spans have nothing
// recorded below them (runs that made no calls) is held until the deadline
// for its first learnAfter runs, then scored as its span arrives.
func TestLearnsAgentsWithNothingBelowThem(t *testing.T) {
	in := readTraceFile(t, filepath.Join("testdata", "traces", "emitters/mastra-otel-mock.otlp.jsonl"))
	spans := splitSpans(cloneAll(in))
	agent := spans[len(spans)-1:]
	c := newControlled(t, parisConfig(t))
	for i := uint64(1); i <= learnAfter; i++ {
		c.send(t, retraced(agent, traceID(i))...)
		require.Zero(t, c.sink.SpanCount()-int(i-1), "run %d is held", i)
		c.clock.advance(cfgWaitForMissing(c) + time.Millisecond)
		c.release()
	}
	c.send(t, retraced(agent, traceID(10))...)
	require.Equal(t, learnAfter+1, c.sink.SpanCount(), "once learned, an agent span alone leaves with its batch")
	metadatatest.AssertEqualProcessorToolCallAccuracyLearnedCompletions(t, c.tel, []metricdata.DataPoint[int64]{
		{Value: 0, Attributes: attribute.NewSet(attribute.String("processor", "tool_call_accuracy"), attribute.String("evidence", "answer"))},
		{Value: 1, Attributes: attribute.NewSet(attribute.String("processor", "tool_call_accuracy"), attribute.String("evidence", "children"))},
		{Value: 0, Attributes: attribute.NewSet(attribute.String("processor", "tool_call_accuracy"), attribute.String("evidence", "parent"))},
	}, metricdatatest.IgnoreTimestamp())
	require.NoError(t, c.proc.Shutdown(context.Background()))
}
