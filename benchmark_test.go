package toolcallaccuracyprocessor

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/memtest"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/ordinaryspan"
)

const benchBatch = 100

// benchConfig has one rule expecting five calls.
func benchConfig() *Config {
	cfg := createDefaultConfig().(*Config)
	exp := ExpectConfig{Order: "in_order"}
	for i := 0; i < 5; i++ {
		exp.Calls = append(exp.Calls, ExpectedCallConfig{
			Tool: fmt.Sprintf("tool_%d", i),
			Args: map[string]any{"city": "Paris", "days": i, "filters": map[string]any{"unit": "celsius", "tags": []any{"a", "b"}}},
		})
	}
	cfg.Rules = []RuleConfig{{Name: "bench", Expect: exp}}
	cfg.Limits.MaxOpenTrajectories = 1 << 20
	cfg.Limits.MaxTrackedTraces = 10_000
	return cfg
}

// newBenchProcessor returns the processor, or with baseline a processor
// built on the same helper that passes batches through untouched.
func newBenchProcessor(b *testing.B, cfg *Config, baseline bool) processor.Traces {
	b.Helper()
	set := processortest.NewNopSettings(NewFactory().Type())
	next := consumertest.NewNop()
	var p processor.Traces
	var err error
	if baseline {
		p, err = processorhelper.NewTraces(context.Background(), set, cfg, next,
			func(_ context.Context, td ptrace.Traces) (ptrace.Traces, error) { return td, nil },
			processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: true}))
	} else {
		p, err = NewFactory().CreateTraces(context.Background(), set, cfg, next)
	}
	if err != nil {
		b.Fatal(err)
	}
	if err := p.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return p
}

func traceID(n uint64) pcommon.TraceID {
	var id pcommon.TraceID
	binary.BigEndian.PutUint64(id[8:], n)
	id[0] = 1
	return id
}

func spanID(n uint64) pcommon.SpanID {
	var id pcommon.SpanID
	binary.BigEndian.PutUint64(id[:], n)
	return id
}

// httpBatch builds spans with ordinary, non-GenAI attributes.
func httpBatch(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := 0; i < n; i++ {
		s := ss.Spans().AppendEmpty()
		ordinaryspan.Fill(s)
		s.SetTraceID(traceID(uint64(i)))
		s.SetSpanID(spanID(uint64(i + 1)))
		s.SetParentSpanID(spanID(uint64(i + 1000)))
	}
	return td
}

// toolSpan fills s as an OTel GenAI execute_tool span.
func toolSpan(s ptrace.Span, tool string, args string) {
	s.SetName("execute_tool " + tool)
	s.SetStartTimestamp(1_000_000)
	s.SetEndTimestamp(2_000_000)
	a := s.Attributes()
	a.PutStr("gen_ai.operation.name", "execute_tool")
	a.PutStr("gen_ai.tool.name", tool)
	a.PutStr("gen_ai.tool.call.id", "call_mszuSIzqtI65i1wAUOE8w5H4")
	a.PutStr("gen_ai.tool.type", "function")
	a.PutStr("gen_ai.tool.call.arguments", args)
	a.PutStr("gen_ai.tool.call.result", `{"temperature":21,"unit":"celsius"}`)
	a.PutStr("gen_ai.agent.name", "weather-agent")
}

// agentSpan fills s as an OTel GenAI invoke_agent span of agent name,
// from start to end; its ids are the caller's.
func agentSpan(s ptrace.Span, name string, start, end pcommon.Timestamp) {
	s.SetName("invoke_agent " + name)
	s.SetStartTimestamp(start)
	s.SetEndTimestamp(end)
	a := s.Attributes()
	a.PutStr("gen_ai.operation.name", "invoke_agent")
	a.PutStr("gen_ai.agent.name", name)
}

// toolBatch builds n tool spans, each the only call of its own trace (whose
// agent span never comes), so each stays held.
func toolBatch(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := 0; i < n; i++ {
		s := ss.Spans().AppendEmpty()
		toolSpan(s, "get_weather", `{"city":"Paris","days":3,"filters":{"unit":"celsius","tags":["a","b"]}}`)
		s.SetTraceID(traceID(uint64(i)))
		s.SetSpanID(spanID(uint64(i + 1)))
		s.SetParentSpanID(spanID(uint64(i + 1_000_000)))
	}
	return td
}

// runBatches builds, for one agent run, a batch of its five tool spans and
// a batch with its agent span.
func runBatches() (tools, agent ptrace.Traces) {
	tools = ptrace.NewTraces()
	ss := tools.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := 0; i < 5; i++ {
		s := ss.Spans().AppendEmpty()
		toolSpan(s, fmt.Sprintf("tool_%d", i), fmt.Sprintf(`{"city":"Paris","days":%d,"filters":{"unit":"celsius","tags":["a","b"]}}`, i))
		s.SetStartTimestamp(pcommon.Timestamp(1_000_000 * (i + 1)))
		s.SetEndTimestamp(pcommon.Timestamp(1_000_000*(i+1) + 500_000))
		s.SetSpanID(spanID(uint64(i + 2)))
		s.SetParentSpanID(spanID(1))
	}
	agent = ptrace.NewTraces()
	a := agent.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	agentSpan(a, "weather-agent", 500_000, 9_000_000)
	a.SetSpanID(spanID(1))
	return tools, agent
}

func setTrace(td ptrace.Traces, id pcommon.TraceID) {
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				s.SetTraceID(id)
			}
		}
	}
}

// BenchmarkNonGenAISpans measures the overhead on ordinary spans, beside a
// pass-through processor built on the same helper (target: ≤ 100 ns/span).
func BenchmarkNonGenAISpans(b *testing.B) {
	for _, mode := range []string{"baseline", "processor"} {
		b.Run(mode, func(b *testing.B) {
			p := newBenchProcessor(b, benchConfig(), mode == "baseline")
			td := httpBatch(benchBatch)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				_ = p.ConsumeTraces(ctx, td)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatch), "ns/span")
		})
	}
}

// BenchmarkToolSpansHeld measures extracting a tool call and holding it for
// its agent run (target: ≤ 2 µs per tool span). Each batch carries tool spans
// of runs whose agent spans have not arrived, 5 calls per run (typical) or 1
// (worst case: a new trace per span); the store runs at its trace limit, so
// the cost of evicting the oldest runs is included.
func BenchmarkToolSpansHeld(b *testing.B) {
	for _, mode := range []string{"baseline", "processor"} {
		for _, perRun := range []int{5, 1} {
			b.Run(fmt.Sprintf("%s/calls_per_run=%d", mode, perRun), func(b *testing.B) {
				cfg := benchConfig()
				cfg.Limits.MaxOpenTrajectories = 10_000
				cfg.Limits.MaxTrackedTraces = 10_000
				p := newBenchProcessor(b, cfg, mode == "baseline")
				td := toolBatch(benchBatch)
				spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
				ctx := context.Background()
				next := uint64(0)
				b.ReportAllocs()
				for b.Loop() {
					next = intoNewRuns(spans, perRun, next)
					_ = p.ConsumeTraces(ctx, td)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatch), "ns/span")
			})
		}
	}
}

// intoNewRuns puts spans into runs not seen yet, perRun spans each, under
// agent spans that have not arrived; runs are numbered from next+1, and the
// last number used is returned.
func intoNewRuns(spans ptrace.SpanSlice, perRun int, next uint64) uint64 {
	for i := 0; i < spans.Len(); i++ {
		if i%perRun == 0 {
			next++
		}
		spans.At(i).SetTraceID(traceID(next))
		spans.At(i).SetParentSpanID(spanID(next + 1_000_000))
	}
	return next
}

// BenchmarkAgentSpanScored measures the agent span's batch: closing the
// run, selecting the rule, decoding five calls, scoring them and annotating
// the span (target: ≤ 10 µs). The runs' tool spans are fed outside the
// timer, a chunk of runs at a time, so stopping the timer (which reads the
// heap statistics, stopping the world) is not paid once per run. The
// names_only case is the same run under a rule that expects tool names
// only, whose arguments are therefore never decoded.
func BenchmarkAgentSpanScored(b *testing.B) {
	for _, mode := range []string{"baseline", "processor", "processor/names_only"} {
		b.Run(mode, func(b *testing.B) {
			cfg := benchConfig()
			if mode == "processor/names_only" {
				for i := range cfg.Rules[0].Expect.Calls {
					cfg.Rules[0].Expect.Calls[i].Args = nil
				}
			}
			p := newBenchProcessor(b, cfg, mode == "baseline")
			last := timeAgentSpans(b, p)
			if mode != "baseline" {
				requirePassed(b, last)
			}
		})
	}
}

// timeAgentSpans times the agent spans of b.N runs of five calls through p,
// feeding each run's tool spans outside the timer, and returns the last
// agent batch.
func timeAgentSpans(b *testing.B, p processor.Traces) ptrace.Traces {
	const chunk = 256
	ctx := context.Background()
	tools, agent := runBatches()
	agents := make([]ptrace.Traces, chunk)
	next := uint64(0)
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += chunk {
		n := min(chunk, b.N-done)
		b.StopTimer()
		for k := 0; k < n; k++ {
			// The processor does not change tool spans, so one batch serves
			// every run under a new trace id; copying it per run made
			// garbage whose collection fell in the timed region.
			next++
			setTrace(tools, traceID(next))
			_ = p.ConsumeTraces(ctx, tools)
			agents[k] = ptrace.NewTraces()
			agent.CopyTo(agents[k])
			setTrace(agents[k], traceID(next))
		}
		b.StartTimer()
		for k := 0; k < n; k++ {
			_ = p.ConsumeTraces(ctx, agents[k])
		}
	}
	b.StopTimer()
	return agents[0]
}

// requirePassed fails the benchmark unless the agent span of td was scored
// and passed, so that a broken setup cannot time a run that was not scored.
func requirePassed(b *testing.B, td ptrace.Traces) {
	b.Helper()
	span := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	if v, ok := span.Attributes().Get(attrPassed); !ok || !v.Bool() {
		b.Fatalf("the agent span was not scored as passing: %v", span.Attributes().AsRaw())
	}
}

// BenchmarkRetainedPerCall measures the heap kept per held tool call
// (target: ≤ 300 B; tail sampling keeps about 900 B per buffered span). The
// batches are decoded from protobuf, as the OTLP receiver does, so the
// attribute strings a held call keeps are real heap allocations; the heap is
// read before any batch exists and after every batch is gone, so the
// difference is what the processor holds. Runs of 5 calls are the typical
// shape; runs of 1 call are the worst case (one trace per call).
func BenchmarkRetainedPerCall(b *testing.B) {
	const calls = 20_000
	for _, perRun := range []int{1, 5} {
		b.Run(fmt.Sprintf("calls_per_run=%d", perRun), func(b *testing.B) {
			for b.Loop() {
				// Every call must stay held: no limit may evict a run.
				cfg := benchConfig()
				cfg.Limits.MaxTrackedTraces = calls
				cfg.Limits.MaxOpenTrajectories = calls
				p := newBenchProcessor(b, cfg, false)
				raw := encodedToolBatches(b, calls, perRun)
				retained := memtest.RetainedBytes(func() { consumeEncoded(b, p, raw) })
				b.ReportMetric(float64(retained)/calls, "B/call")
				runtime.KeepAlive(raw)
				runtime.KeepAlive(p)
			}
		})
	}
}

// consumeEncoded decodes each protobuf batch, as the OTLP receiver does, and
// passes it to p.
func consumeEncoded(b testing.TB, p processor.Traces, raw [][]byte) {
	var u ptrace.ProtoUnmarshaler
	for _, buf := range raw {
		td, err := u.UnmarshalTraces(buf)
		if err != nil {
			b.Fatal(err)
		}
		_ = p.ConsumeTraces(context.Background(), td)
	}
}

// encodedToolBatches returns protobuf batches of tool spans, perRun calls per
// trace, none with its agent span.
func encodedToolBatches(b *testing.B, calls, perRun int) [][]byte {
	var m ptrace.ProtoMarshaler
	var out [][]byte
	for k := 0; k < calls/benchBatch; k++ {
		td := toolBatch(benchBatch)
		spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
		for i := 0; i < spans.Len(); i++ {
			n := k*benchBatch + i
			spans.At(i).SetTraceID(traceID(uint64(n/perRun + 1)))
			spans.At(i).SetParentSpanID(spanID(uint64(1_000_000 + n/perRun)))
		}
		buf, err := m.MarshalTraces(td)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, buf)
	}
	return out
}

// BenchmarkMixedBatch measures the production-like mix the end-to-end
// benchmark sends: batches of 100 spans, 90 ordinary spans each of its own
// trace and 10 GenAI spans (two runs of five calls: one run's agent span and
// the next run's tool spans), so that a run is always open when ordinary
// spans pass, as in live traffic.
func BenchmarkMixedBatch(b *testing.B) {
	for _, mode := range []string{"baseline", "processor"} {
		b.Run(mode, func(b *testing.B) {
			p := newBenchProcessor(b, benchConfig(), mode == "baseline")
			td, spans := mixedBatch()
			ctx := context.Background()
			// Run 1's tool spans first: each batch carries run k's agent
			// span and run k+1's tools, so without them the first agent
			// span would be held for its missing calls, and taken out of
			// the reused batch for good.
			first, _ := runBatches()
			setTrace(first, traceID(1))
			_ = p.ConsumeTraces(ctx, first)
			next := uint64(0)
			b.ReportAllocs()
			for b.Loop() {
				next++
				renumberMixedBatch(spans, next)
				_ = p.ConsumeTraces(ctx, td)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatch), "ns/span")
			if mode == "processor" {
				agent := td.ResourceSpans().At(1).ScopeSpans().At(0).Spans().At(0)
				if v, ok := agent.Attributes().Get(attrPassed); !ok || !v.Bool() {
					b.Fatalf("the agent span was not scored as passing: %v", agent.Attributes().AsRaw())
				}
			}
		})
	}
}

// mixedBatch builds BenchmarkMixedBatch's batch: ordinary spans in the first
// resource, the agent span of run k in the second, run k+1's five tool
// spans in the third. It returns the batch and its spans by resource.
func mixedBatch() (ptrace.Traces, [3]ptrace.SpanSlice) {
	td := httpBatch(benchBatch - 10)
	_, agent := runBatches()
	agent.ResourceSpans().MoveAndAppendTo(td.ResourceSpans())
	tools, _ := runBatches()
	tools.ResourceSpans().MoveAndAppendTo(td.ResourceSpans())
	// Four padding spans make the agent's resource 5 spans like the tools'.
	pad := td.ResourceSpans().At(1).ScopeSpans().At(0).Spans()
	for i := 0; i < 4; i++ {
		s := pad.AppendEmpty()
		s.SetName("chat weather-model")
		s.SetSpanID(spanID(uint64(100 + i)))
		s.SetParentSpanID(spanID(1))
		s.Attributes().PutStr("http.request.method", "POST")
	}
	var spans [3]ptrace.SpanSlice
	for i := range spans {
		spans[i] = td.ResourceSpans().At(i).ScopeSpans().At(0).Spans()
	}
	return td, spans
}

// renumberMixedBatch gives the batch's ordinary spans fresh traces, its
// agent span (and padding) the trace of run n and its tool spans that of
// run n+1.
func renumberMixedBatch(spans [3]ptrace.SpanSlice, n uint64) {
	for i := 0; i < spans[0].Len(); i++ {
		spans[0].At(i).SetTraceID(traceID(1<<40 + n*benchBatch + uint64(i)))
	}
	for i := 0; i < spans[1].Len(); i++ {
		spans[1].At(i).SetTraceID(traceID(n))
	}
	// The agent span was annotated last time: drop what was written.
	agent := spans[1].At(0)
	agent.Events().RemoveIf(func(ptrace.SpanEvent) bool { return true })
	agent.Attributes().RemoveIf(func(k string, _ pcommon.Value) bool { return k != "gen_ai.operation.name" && k != "gen_ai.agent.name" })
	for i := 0; i < spans[2].Len(); i++ {
		spans[2].At(i).SetTraceID(traceID(n + 1))
	}
}
