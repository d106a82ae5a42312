package toolcallaccuracyprocessor

import (
	"context"
	"fmt"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// modelCallBatch returns n model-call spans (OTel GenAI chat spans whose
// response asks for a tool call, whose request carries the conversation),
// two per run, under agent spans that have not arrived.
func modelCallBatch(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := 0; i < n; i++ {
		s := ss.Spans().AppendEmpty()
		s.SetName("chat gpt-4o-mini")
		s.SetSpanID(spanID(uint64(i + 1)))
		a := s.Attributes()
		a.PutStr("gen_ai.operation.name", "chat")
		a.PutStr("gen_ai.request.model", "gpt-4o-mini")
		a.PutStr("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"What is the weather in Paris?"}]}]`)
		a.PutStr("gen_ai.output.messages", fmt.Sprintf(`[{"role":"assistant","parts":[{"type":"tool_call","id":"call_%d","name":"get_weather","arguments":{"city":"Paris"}}],"finish_reason":"tool_call"}]`, i))
	}
	return td
}

// BenchmarkModelCallSpans measures model-call spans on their way to their
// run: under rules that take calls from tool spans only (calls: executed)
// their requests are not read, and they cost what they cost before model
// turns were read; under the default (executed_else_requested) each span's
// recorded response and request are read as a model turn.
func BenchmarkModelCallSpans(b *testing.B) {
	for _, calls := range []string{"executed", "executed_else_requested"} {
		b.Run("calls="+calls, func(b *testing.B) {
			cfg := benchConfig()
			cfg.Rules[0].Calls = calls
			cfg.Limits.MaxOpenTrajectories = 10_000
			cfg.Limits.MaxTrackedTraces = 10_000
			p := newBenchProcessor(b, cfg, false)
			td := modelCallBatch(benchBatch)
			spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
			ctx := context.Background()
			next := uint64(0)
			b.ReportAllocs()
			for b.Loop() {
				next = intoNewRuns(spans, 2, next)
				_ = p.ConsumeTraces(ctx, td)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatch), "ns/span")
		})
	}
}
