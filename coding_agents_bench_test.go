package toolcallaccuracyprocessor

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// BenchmarkCodexRun measures a Codex run as Codex exports it: 1,328 spans
// in three requests, nine of them tool dispatch spans and one the turn, the
// rest Rust tracing spans with code.* and thread.* keys. Each iteration
// gives a fresh copy of the spans fresh trace ids (in every mode), so every
// run is a new one and is scored. Modes: the pass-through baseline; "ordinary", the same
// spans with their codex.* and gen_ai.* keys removed, so that none is a
// GenAI span (what the spans cost as ordinary spans); "processor", the run
// as Codex exports it.
//
//	go test -run '^$' -bench CodexRun -count 6 . | benchstat -
func BenchmarkCodexRun(b *testing.B) {
	batches := readTraceFile(b, codingCapture("codex-exec-mock"))
	spans := 0
	for _, td := range batches {
		spans += td.SpanCount()
	}
	cfg := codingRules(b)
	for _, mode := range []string{"baseline", "ordinary", "processor"} {
		b.Run(mode, func(b *testing.B) {
			p := newBenchProcessor(b, cfg, mode == "baseline")
			batches := cloneAll(batches)
			if mode == "ordinary" {
				for _, td := range batches {
					for _, s := range allSpans(td) {
						s.Attributes().RemoveIf(func(k string, _ pcommon.Value) bool {
							return strings.HasPrefix(k, "codex.") || strings.HasPrefix(k, "gen_ai.")
						})
					}
				}
			}
			ctx := context.Background()
			var n uint64
			b.ReportAllocs()
			for b.Loop() {
				// A fresh copy each time (not timed): the processor
				// annotates the run's span, and annotations that piled up
				// on reused spans would be measured too.
				b.StopTimer()
				n++
				fresh := cloneAll(batches)
				for _, td := range fresh {
					renumber(td, n)
				}
				b.StartTimer()
				for _, td := range fresh {
					_ = p.ConsumeTraces(ctx, td)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*spans), "ns/span")
		})
	}
}

// renumber gives every span of td the trace ids of run n.
func renumber(td ptrace.Traces, n uint64) {
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				id := s.TraceID()
				for i := range 8 {
					id[8+i] = byte(n >> (8 * i))
				}
				s.SetTraceID(id)
			}
		}
	}
}
