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

// longRunTurns returns the model turns of a run of n turns with content
// (kb KiB of user message), each request repeating the conversation so
// far: the turn before it's request, its response's tool call and the
// call's result.
func longRunTurns(n, kb int) []ptrace.Span {
	user := fmt.Sprintf(`{"role":"user","parts":[{"type":"text","content":%q}]}`, strings.Repeat("Use the tools to answer the user; cite the data you used. ", kb<<10/58+1))
	history := user
	var spans []ptrace.Span
	for i := range n {
		call := fmt.Sprintf(`{"role":"assistant","parts":[{"type":"text","content":"Step %d."},{"type":"tool_call","id":"call_%d","name":"read_file","arguments":{"path":"src/file_%d.go"}}],"finish_reason":"tool_call"}`, i, i, i)
		s := ptrace.NewSpan()
		a := s.Attributes()
		a.PutStr("gen_ai.operation.name", "chat")
		a.PutStr("gen_ai.input.messages", "["+history+"]")
		a.PutStr("gen_ai.output.messages", "["+call+"]")
		spans = append(spans, s)
		history += "," + call + fmt.Sprintf(`,{"role":"tool","parts":[{"type":"tool_call_response","id":"call_%d","response":"package main // file %d, %s"}]}`, i, i, strings.Repeat("x", 200))
	}
	return spans
}

// BenchmarkParseLongRunTurns measures reading and parsing the turns of a
// 20-turn run that arrive in one batch: each request repeats the whole
// conversation before it, so reading each whole is quadratic in the run's
// length.
func BenchmarkParseLongRunTurns(b *testing.B) {
	for _, kb := range []int{2, 27} {
		b.Run(fmt.Sprintf("turns=20/content=%dKB", kb), func(b *testing.B) {
			spans := longRunTurns(20, kb)
			turns := make([]ModelTurn, len(spans))
			var p TurnParser
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
