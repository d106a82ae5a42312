//go:build soak

package toolcallaccuracyprocessor

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/loadgen"
)

var (
	soakDuration = flag.Duration("soak.duration", time.Minute, "how long TestSoak sends traffic")
	soakReport   = flag.String("soak.report", "", "file to write TestSoak's heap samples to (TSV)")
	soakOrder    = flag.String("soak.order", "in_order", "in_order: tool spans, then their agent span a tick later, held by wait; agent_first: the agent span, then its tool spans a tick later, held by the default wait_for_missing; ends_on_tools: the demo's runs without what followed their last tool call, half the spans of each request, with default settings")
)

// soakCounter counts spans and keeps nothing.
type soakCounter struct{ spans atomic.Int64 }

func (c *soakCounter) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }
func (c *soakCounter) ConsumeTraces(_ context.Context, td ptrace.Traces) error {
	c.spans.Add(int64(td.SpanCount()))
	return nil
}

// TestSoak sends mixed traffic at a steady rate for -soak.duration: every
// 10 ms, 100 ordinary HTTP spans and two agent runs of three calls, whose
// tool spans and agent span arrive in separate batches (wait 50ms holds
// the agent spans); one run in 50 never sends its agent span and is
// evicted by max_age. The heap is sampled after a GC every 10 s. It checks
// that every span came out and that the heap is flat after warm-up: the
// last third's peak within 20% (+4 MiB) of the middle third's.
//
// With -soak.order=ends_on_tools every tick sends a request of 200 spans,
// half of them the demo's runs cut after their last tool call (runs that
// end on a tool call, held until the processor learns they do), with
// default settings.
//
// With -soak.order=agent_first each agent span comes a tick before its
// tool spans, and the default configuration (wait_for_missing) holds it
// until they arrive; one run in 50 never sends its tool spans and is
// scored at the deadline.
//
//	go test -tags soak -run TestSoak -v -timeout 30m . -soak.duration=10m -soak.report=soak.tsv
func TestSoak(t *testing.T) {
	agentFirst := *soakOrder == "agent_first"
	var endsOnTools *loadgen.Traffic
	if *soakOrder == loadgen.ShapeEndsOnTools {
		templates, groups := demoTemplates(t, loadgen.ShapeEndsOnTools)
		endsOnTools = loadgen.NewTraffic(loadgen.Config{Batch: 200, Share: 0.5}, templates, groups, 3)
	}
	cfg := weatherConfig()
	if !agentFirst && endsOnTools == nil {
		cfg.Wait = 50 * time.Millisecond
	}
	cfg.Limits.MaxAge = 5 * time.Second
	sink := new(soakCounter)
	p, err := NewFactory().CreateTraces(context.Background(), processortest.NewNopSettings(NewFactory().Type()), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))

	type sample struct {
		at         time.Duration
		heap, sent uint64
	}
	var samples []sample
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	start := time.Now()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	nextSample := 10 * time.Second
	var sent, run uint64
	pending := ptrace.NewTraces() // the previous tick's runs' agent spans (tool spans with agent_first)
	for time.Since(start) < *soakDuration {
		<-tick.C
		if endsOnTools != nil {
			rb, state := endsOnTools.Next(0, 0)
			require.Equal(t, loadgen.NextRequest, state)
			sent += uint64(rb.Spans)
			require.NoError(t, p.ConsumeTraces(context.Background(), rb.TD))
			if el := time.Since(start); el >= nextSample {
				samples = append(samples, sample{at: el, heap: heap(), sent: sent})
				t.Logf("%6.0fs heap %7.2f MiB, %d spans sent", el.Seconds(), float64(samples[len(samples)-1].heap)/(1<<20), sent)
				nextSample += 10 * time.Second
			}
			continue
		}
		http := httpBatch(100)
		setTrace(http, traceID(1<<40+run))
		tools, agents := ptrace.NewTraces(), ptrace.NewTraces()
		tss := tools.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
		ass := agents.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
		for i := 0; i < 2; i++ {
			run++
			one := ptrace.NewTraces()
			ss := one.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
			appendRun(ss, run, "Paris", pcommon.SpanID{})
			for c := 0; c < 2; c++ { // two more calls under the agent
				s := ss.Spans().AppendEmpty()
				toolSpan(s, "lookup_stock", fmt.Sprintf(`{"symbol":"S%d"}`, c))
				s.SetTraceID(traceID(run))
				s.SetSpanID(spanID(1<<50 + 4*run + uint64(c)))
				s.SetParentSpanID(spanID(2*run + 1))
			}
			for k := 0; k < ss.Spans().Len(); k++ {
				s := ss.Spans().At(k)
				switch {
				case s.Name() == "invoke_agent weather-agent":
					if agentFirst || run%50 != 0 {
						s.CopyTo(ass.Spans().AppendEmpty())
					}
				case !agentFirst || run%50 != 0:
					s.CopyTo(tss.Spans().AppendEmpty())
				}
			}
		}
		now, later := tools, agents
		if agentFirst {
			now, later = agents, tools
		}
		for _, td := range []ptrace.Traces{http, now, pending} {
			sent += uint64(td.SpanCount())
			require.NoError(t, p.ConsumeTraces(context.Background(), td))
		}
		pending = later
		if el := time.Since(start); el >= nextSample {
			samples = append(samples, sample{at: el, heap: heap(), sent: sent})
			t.Logf("%6.0fs heap %7.2f MiB, %d spans sent", el.Seconds(), float64(samples[len(samples)-1].heap)/(1<<20), sent)
			nextSample += 10 * time.Second
		}
	}
	sent += uint64(pending.SpanCount())
	require.NoError(t, p.ConsumeTraces(context.Background(), pending))
	require.NoError(t, p.Shutdown(context.Background()))
	require.Equal(t, int64(sent), sink.spans.Load(), "spans in must equal spans out")
	elapsed := time.Since(start)
	t.Logf("%d spans in %v (%.0f spans/s), all delivered", sent, elapsed.Round(time.Second), float64(sent)/elapsed.Seconds())

	if *soakReport != "" {
		f, err := os.Create(*soakReport)
		require.NoError(t, err)
		fmt.Fprintln(f, "seconds\theap_bytes\tspans_sent")
		for _, s := range samples {
			fmt.Fprintf(f, "%.0f\t%d\t%d\n", s.at.Seconds(), s.heap, s.sent)
		}
		require.NoError(t, f.Close())
	}
	if len(samples) < 6 {
		return // too short to judge flatness
	}
	third := len(samples) / 3
	peak := func(ss []sample) uint64 {
		m := uint64(0)
		for _, s := range ss {
			m = max(m, s.heap)
		}
		return m
	}
	middle, last := peak(samples[third:2*third]), peak(samples[2*third:])
	t.Logf("heap peak: middle third %.2f MiB, last third %.2f MiB", float64(middle)/(1<<20), float64(last)/(1<<20))
	require.LessOrEqual(t, float64(last), 1.2*float64(middle)+4<<20, "heap grows after warm-up")
}
