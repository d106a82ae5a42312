package toolcallaccuracyprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// linkedRun is one run of trace n whose get_weather call sits under an
// ordinary span (a framework's chain span) between it and the agent span;
// the agent span's parent is a span of another service, so the run's calls
// reach it only through the chain span. The parts come as separate batches.
type linkedRun struct{ tool, chain, agent ptrace.Traces }

func newLinkedRun(n uint64) linkedRun {
	trace := traceID(n)
	agentID, chainID := spanID(10*n+1), spanID(10*n+2)
	r := linkedRun{tool: ptrace.NewTraces(), chain: ptrace.NewTraces(), agent: ptrace.NewTraces()}
	tool := r.tool.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	toolSpan(tool, "get_weather", `{"city":"Paris"}`)
	tool.SetTraceID(trace)
	tool.SetSpanID(spanID(10*n + 3))
	tool.SetParentSpanID(chainID)
	chain := r.chain.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	chain.SetName("RunnableSequence")
	chain.SetTraceID(trace)
	chain.SetSpanID(chainID)
	chain.SetParentSpanID(agentID)
	chain.SetStartTimestamp(600_000)
	chain.SetEndTimestamp(8_000_000)
	agent := r.agent.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	agentSpan(agent, "weather-agent", 500_000, 9_000_000)
	agent.SetTraceID(trace)
	agent.SetSpanID(agentID)
	agent.SetParentSpanID(spanID(10*n + 9)) // in another service
	return r
}

// together returns the batches' spans as one batch.
func together(parts ...ptrace.Traces) ptrace.Traces {
	td := ptrace.NewTraces()
	for _, p := range parts {
		p.ResourceSpans().MoveAndAppendTo(td.ResourceSpans())
	}
	return td
}

// TestLinkSpansWhileAnotherRunIsOpen: while some trace has an open run (so
// ordinary spans are looked at), an ordinary span between a call and its
// agent span links them whether it comes with the call, after it, or with
// ordinary spans of traces that have no state; those pass untouched.
func TestLinkSpansWhileAnotherRunIsOpen(t *testing.T) {
	for _, tt := range []struct {
		name    string
		batches func(r linkedRun) []ptrace.Traces
	}{
		{"chain span with the call", func(r linkedRun) []ptrace.Traces {
			return []ptrace.Traces{together(httpBatch(20), r.tool, r.chain), r.agent}
		}},
		{"chain span in a later batch", func(r linkedRun) []ptrace.Traces {
			return []ptrace.Traces{r.tool, together(httpBatch(20), r.chain), r.agent}
		}},
		{"chain span with the agent span", func(r linkedRun) []ptrace.Traces {
			return []ptrace.Traces{r.tool, together(r.chain, httpBatch(20), r.agent)}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, weatherConfig())
			open := runsBatch(1000, 1, "Paris") // a run whose agent span never comes
			open.ResourceSpans().At(0).ScopeSpans().At(0).Spans().RemoveIf(func(s ptrace.Span) bool { return s.Name() != "execute_tool get_weather" })
			batches := append([]ptrace.Traces{open}, tt.batches(newLinkedRun(1))...)
			in := 0
			for _, td := range batches {
				in += td.SpanCount()
			}
			out := h.run(t, batches)
			assert.Equal(t, in, out.SpanCount())
			got, unscored := scores(out)
			assert.Zero(t, unscored)
			assert.Equal(t, map[pcommon.SpanID]float64{spanID(11): 1}, got)
			for _, s := range spansByID(out) {
				if s.Name() == "GET /api/orders" {
					assert.Equal(t, 10, s.Attributes().Len(), "ordinary spans pass untouched")
				}
			}
		})
	}
}

// TestRetriedRootRunWhileAnotherRunIsOpen: a run closed by its trace's root
// span (no agent span), refused downstream and sent again while another
// trace is open, comes out with the first attempt's score.
func TestRetriedRootRunWhileAnotherRunIsOpen(t *testing.T) {
	c, sink := newFlaky(t, weatherConfig())
	open := toolBatch(1) // a call whose agent span never comes
	setTrace(open, traceID(1000))
	require.NoError(t, c.proc.ConsumeTraces(context.Background(), open))
	batch := ptrace.NewTraces()
	spans := batch.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	tool := spans.AppendEmpty()
	toolSpan(tool, "get_weather", `{"city":"Paris"}`)
	tool.SetTraceID(traceID(7))
	tool.SetSpanID(spanID(2))
	tool.SetParentSpanID(spanID(1))
	root := spans.AppendEmpty()
	root.SetName("POST /chat")
	root.SetTraceID(traceID(7))
	root.SetSpanID(spanID(1))
	root.SetEndTimestamp(9_000_000)
	sink.setFailing(true)
	require.ErrorIs(t, c.proc.ConsumeTraces(context.Background(), copyOf(batch)), errDownstream)
	sink.setFailing(false)
	require.NoError(t, c.proc.ConsumeTraces(context.Background(), copyOf(batch)))
	require.NoError(t, c.proc.Shutdown(context.Background()))
	scored := spansByID(mergeTraces(c.sink.AllTraces()))[spanID(1)]
	v, ok := scored.Attributes().Get(attrPrefix + "weather.score")
	require.True(t, ok, "the retried root span carries its run's score: %v", scored.Attributes().AsRaw())
	assert.Equal(t, 1.0, v.Double())
}

// TestTraceSet: the set answers alike below and above the size at which it
// starts indexing, also for traces whose last byte is an added one's, and
// reset empties it.
func TestTraceSet(t *testing.T) {
	var s traceSet
	for round := 0; round < 2; round++ {
		for n := uint64(0); n < 3*traceSetLinear; n += 2 {
			s.add(traceID(n))
			s.add(traceID(n)) // twice: no harm
		}
		for n := uint64(0); n < 3*traceSetLinear; n++ {
			assert.Equal(t, n%2 == 0, s.has(traceID(n)), "trace %d, round %d", n, round)
			// The same last byte (the bit seen keeps), another trace.
			assert.False(t, s.has(traceID(n+1<<8)), "trace %d, round %d", n+1<<8, round)
		}
		s.reset()
		assert.False(t, s.has(traceID(0)))
	}
}
