package toolcallaccuracyprocessor

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"

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
	agentSpan(agent, "weather-agent", 500_000, 9_000_000)
	agent.SetTraceID(traceID(n))
	agent.SetSpanID(spanID(2*n + 1))
	agent.SetParentSpanID(agentParent)
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

// flakySink passes batches to a TracesSink unless failing is set, when it
// returns an error and keeps nothing.
type flakySink struct {
	consumertest.TracesSink
	mu      sync.Mutex
	failing bool
	refused int
}

var errDownstream = errors.New("downstream unavailable")

func (f *flakySink) setFailing(v bool) {
	f.mu.Lock()
	f.failing = v
	f.mu.Unlock()
}

func (f *flakySink) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	f.mu.Lock()
	failing := f.failing
	if failing {
		f.refused += td.SpanCount()
	}
	f.mu.Unlock()
	if failing {
		return errDownstream
	}
	return f.TracesSink.ConsumeTraces(ctx, td)
}

// newFlaky is a controlled processor in front of a flaky downstream.
func newFlaky(t *testing.T, cfg *Config) (*controlled, *flakySink) {
	t.Helper()
	sink := new(flakySink)
	c := &controlled{clock: &fakeClock{t: time.Unix(1_800_000_000, 0)}}
	h := &harness{sink: &sink.TracesSink, tel: componenttest.NewTelemetry()}
	t.Cleanup(func() { require.NoError(t, h.tel.Shutdown(context.Background())) })
	f := newFactory(func(p *tcaProcessor) {
		p.now = c.clock.now
		p.tick = make(chan time.Time)
		c.p = p
	})
	proc, err := f.CreateTraces(context.Background(), metadatatest.NewSettings(h.tel), cfg, consumer.Traces(sink))
	require.NoError(t, err)
	require.NoError(t, proc.Start(context.Background(), componenttest.NewNopHost()))
	h.proc = proc
	c.harness = h
	return c, sink
}

func copyOf(td ptrace.Traces) ptrace.Traces {
	out := ptrace.NewTraces()
	td.CopyTo(out)
	return out
}

func evaluationsMetric(t *testing.T, c *controlled, pass int64) {
	t.Helper()
	metadatatest.AssertEqualProcessorToolCallAccuracyEvaluations(t, c.tel, []metricdata.DataPoint[int64]{
		{Value: pass, Attributes: attrs("rule", "weather", "scorer", "native", "outcome", "pass")},
	}, metricdatatest.IgnoreTimestamp())
}

// TestHeldSpanRedeliveredAfterDownstreamFailure: a held agent span whose
// send fails is sent again on a later tick, not dropped with a log line.
func TestHeldSpanRedeliveredAfterDownstreamFailure(t *testing.T) {
	cfg := weatherConfig()
	cfg.Wait = time.Second
	c, sink := newFlaky(t, cfg)
	c.send(t, runsBatch(0, 1, "Paris")) // the tool span passes, the agent span is held
	sink.setFailing(true)
	c.clock.advance(2 * time.Second)
	c.release()
	assert.Equal(t, 1, sink.refused, "the held span's first send failed")
	sink.setFailing(false)
	c.clock.advance(time.Minute)
	c.release()
	require.NoError(t, c.proc.Shutdown(context.Background()))
	got, unscored := scores(mergeTraces(c.sink.AllTraces()))
	assert.Zero(t, unscored)
	assert.Equal(t, map[pcommon.SpanID]float64{spanID(1): 1}, got)
}

// TestShutdownReturnsUndeliveredHeldSpans: a held span that cannot be sent
// by shutdown is returned as an error and counted, never dropped silently.
func TestShutdownReturnsUndeliveredHeldSpans(t *testing.T) {
	cfg := weatherConfig()
	cfg.Wait = time.Hour
	c, sink := newFlaky(t, cfg)
	c.send(t, runsBatch(0, 1, "Paris"))
	sink.setFailing(true)
	err := c.proc.Shutdown(context.Background())
	require.ErrorIs(t, err, errDownstream)
	assert.Contains(t, err.Error(), "1 held agent span")
	metadatatest.AssertEqualProcessorToolCallAccuracyLostSpans(t, c.tel,
		[]metricdata.DataPoint[int64]{{Value: 1, Attributes: attrs("reason", "downstream_error")}},
		metricdatatest.IgnoreTimestamp())
}

// TestConsumeAfterShutdownFails: after Shutdown nothing is held (it could
// never be sent): the caller gets an error for the whole batch.
func TestConsumeAfterShutdownFails(t *testing.T) {
	cfg := weatherConfig()
	cfg.Wait = time.Second
	c, _ := newFlaky(t, cfg)
	require.NoError(t, c.proc.Shutdown(context.Background()))
	require.Error(t, c.proc.ConsumeTraces(context.Background(), runsBatch(0, 1, "Paris")))
	assert.Zero(t, c.sink.SpanCount())
}

// TestRetriedBatchKeepsItsScore: a batch refused downstream and sent again
// (as exporterhelper and receivers' clients do) comes out with the scores
// of the first attempt, and the run is counted once.
func TestRetriedBatchKeepsItsScore(t *testing.T) {
	for _, tt := range []struct {
		name string
		wait time.Duration
		// sameData retries the very pdata the first attempt annotated.
		sameData bool
	}{
		{name: "wait 0, resent", wait: 0},
		{name: "wait 0, same pdata", wait: 0, sameData: true},
		{name: "wait 200ms, resent after release", wait: 200 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := weatherConfig()
			cfg.Wait = tt.wait
			c, sink := newFlaky(t, cfg)
			batch := runsBatch(0, 3, "Paris")
			first := copyOf(batch)
			sink.setFailing(true)
			require.ErrorIs(t, c.proc.ConsumeTraces(context.Background(), first), errDownstream)
			sink.setFailing(false)
			c.clock.advance(time.Second)
			c.release()
			retry := copyOf(batch)
			if tt.sameData {
				retry = first
			}
			require.NoError(t, c.proc.ConsumeTraces(context.Background(), retry))
			require.NoError(t, c.proc.Shutdown(context.Background()))
			out := mergeTraces(c.sink.AllTraces())
			got, unscored := scores(out)
			assert.Zero(t, unscored)
			assert.Len(t, got, 3)
			for _, s := range got {
				assert.Equal(t, 1.0, s)
			}
			for _, s := range spansByID(out) {
				assert.LessOrEqual(t, len(evaluationEvents(s)), 1, "events are not written twice")
				n := 0
				for _, e := range s.Events().All() {
					if e.Name() == eventEvaluation {
						n++
					}
				}
				assert.LessOrEqual(t, n, 1)
			}
			evaluationsMetric(t, c, 3)
		})
	}
}

// TestDuplicateHeldAgentSpan: an agent span that arrives twice while held
// (same span id) goes out twice, both copies with the run's score.
func TestDuplicateHeldAgentSpan(t *testing.T) {
	cfg := weatherConfig()
	cfg.Wait = time.Second
	c, _ := newFlaky(t, cfg)
	batch := runsBatch(0, 1, "Paris")
	c.send(t, copyOf(batch))
	dup := ptrace.NewTraces()
	ss := dup.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	batch.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(1).CopyTo(ss.Spans().AppendEmpty())
	c.send(t, dup)
	c.clock.advance(2 * time.Second)
	c.release()
	require.NoError(t, c.proc.Shutdown(context.Background()))
	var agents []float64
	for _, td := range c.sink.AllTraces() {
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					if s.Name() == "invoke_agent weather-agent" {
						v, _ := s.Attributes().Get(attrPrefix + "weather.score")
						agents = append(agents, v.Double())
					}
				}
			}
		}
	}
	assert.Equal(t, []float64{1, 1}, agents)
	evaluationsMetric(t, c, 1)
}

// TestOneHugeTraceStaysBounded: one trace of 300,000 tool spans under one
// run whose agent span has not come keeps bounded state (max_calls and
// max_spans_per_trace), not one entry per span.
func TestOneHugeTraceStaysBounded(t *testing.T) {
	cfg := weatherConfig()
	c := newControlled(t, cfg)
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	for b := 0; b < 300; b++ {
		td := ptrace.NewTraces()
		ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
		for i := 0; i < 1000; i++ {
			s := ss.Spans().AppendEmpty()
			toolSpan(s, "get_weather", `{"city":"Paris"}`)
			s.SetTraceID(traceID(1))
			s.SetSpanID(spanID(uint64(10 + b*1000 + i)))
			s.SetParentSpanID(spanID(1))
		}
		c.send(t, td)
		c.sink.Reset()
	}
	retained := int64(heap()) - int64(before)
	t.Logf("retained %d bytes", retained)
	assert.Less(t, retained, int64(2<<20), "state of one trace stays within the limits")
	assert.LessOrEqual(t, c.p.store.Open(), 1)
	require.NoError(t, c.proc.Shutdown(context.Background()))
}

// TestOversizedArgumentsAreUnknown: arguments past limits.max_argument_bytes
// are not parsed; the call is judged by name and the explanation says why.
func TestOversizedArgumentsAreUnknown(t *testing.T) {
	cfg := weatherConfig()
	cfg.Limits.MaxArgumentBytes = 1 << 10
	h := newHarness(t, cfg)
	td := runsBatch(0, 1, "Paris")
	tool := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	tool.Attributes().PutStr("gen_ai.tool.call.arguments", `{"city":"London","pad":"`+strings.Repeat("x", 2<<10)+`"}`)
	out := h.run(t, []ptrace.Traces{td})
	agent := spansByID(out)[spanID(1)]
	expl, _ := agent.Attributes().Get(attrPrefix + "weather.explanation")
	assert.Contains(t, expl.Str(), "arguments larger than the 1 KiB limit")
}
