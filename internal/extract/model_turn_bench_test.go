package extract

import (
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// benchTurnSpans returns the two model-call spans of the content
// benchmarks' five-span run (the processor's content_bench_test.go) with
// kb KiB of content each: the first asks for two tools, the second answers
// with their results in its request.
func benchTurnSpans(kb int) [2]ptrace.Span {
	pad := func(n int) string {
		const words = "Use the tools to answer the user; cite the data you used and say when a tool failed. "
		return strings.Repeat(words, n/len(words)+1)[:n]
	}
	n := kb << 10
	user := fmt.Sprintf(`{"role":"user","parts":[{"type":"text","content":%q}]}`, "What is the weather in Paris, and the price of ZZZZ? "+pad(n/4))
	calls := `{"role":"assistant","parts":[{"type":"text","content":"Let me look both up."},` +
		`{"type":"tool_call","id":"call_w1","name":"get_weather","arguments":{"city":"Paris","unit":"celsius"}},` +
		`{"type":"tool_call","id":"call_s1","name":"lookup_stock","arguments":{"symbol":"ZZZZ"}}],"finish_reason":"tool_call"}`
	results := `{"role":"tool","parts":[{"type":"tool_call_response","id":"call_w1","response":{"temperature_c":18,"sky":"cloudy"}},` +
		`{"type":"tool_call_response","id":"call_s1","response":{"price":123.4,"currency":"USD"}}]}`
	var spans [2]ptrace.Span
	for i := range spans {
		spans[i] = ptrace.NewSpan()
		a := spans[i].Attributes()
		a.PutStr("gen_ai.operation.name", "chat")
		a.PutStr("gen_ai.system_instructions", fmt.Sprintf(`[{"type":"text","content":%q}]`, pad(n/2)))
	}
	a := spans[0].Attributes()
	a.PutEmptySlice("gen_ai.response.finish_reasons").AppendEmpty().SetStr("tool_calls")
	a.PutStr("gen_ai.input.messages", "["+user+"]")
	a.PutStr("gen_ai.output.messages", "["+calls+"]")
	a = spans[1].Attributes()
	a.PutEmptySlice("gen_ai.response.finish_reasons").AppendEmpty().SetStr("stop")
	a.PutStr("gen_ai.input.messages", "["+user+","+calls+","+results+"]")
	a.PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"It is 18 °C and cloudy in Paris; ZZZZ trades at 123.40 USD."}],"finish_reason":"stop"}]`)
	return spans
}

// BenchmarkParseRunTurns measures reading and parsing the two model turns
// of a five-span run with content (ReadTurn, then ParseTurns with a parser
// kept from batch to batch, as the processor calls it): the parse work
// a run's model calls cost.
func BenchmarkParseRunTurns(b *testing.B) {
	for _, kb := range []int{2, 27} {
		b.Run(fmt.Sprintf("content=%dKB", kb), func(b *testing.B) {
			spans := benchTurnSpans(kb)
			turns := make([]ModelTurn, 2)
			var p TurnParser // kept, as the processor's pooled batch keeps it
			b.ReportAllocs()
			for b.Loop() {
				for i := range spans {
					ReadTurn(spans[i], &turns[i])
				}
				ParseTurns(turns, &p)
			}
		})
	}
}
