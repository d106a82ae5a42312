package toolcallaccuracyprocessor

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/memtest"
)

// demoDefinitions and the messages below are the size of the demo's runs
// (two tools with schemas, a one-line request, a one-line answer).
const demoDefinitions = `[{"type":"function","name":"get_weather","description":"Get the weather for a city","parameters":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city","unit"],"additionalProperties":false}},{"type":"function","name":"lookup_stock","description":"Look up a stock price","parameters":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"symbol":{"type":"string"}},"required":["symbol"],"additionalProperties":false}}]`

// encodedContextBatches returns protobuf batches of open runs: per run, two
// tool spans and two chat spans (definitions, request, response) under an
// agent span that has not arrived. prompt is the request text.
func encodedContextBatches(b *testing.B, runs int, prompt string) [][]byte {
	var m ptrace.ProtoMarshaler
	var out [][]byte
	perBatch := min(50, runs)
	for k := 0; k < runs/perBatch; k++ {
		td := ptrace.NewTraces()
		ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
		for r := 0; r < perBatch; r++ {
			n := uint64(k*perBatch + r + 1)
			for c := 0; c < 2; c++ {
				s := ss.Spans().AppendEmpty()
				toolSpan(s, "get_weather", `{"city":"Paris","unit":"celsius"}`)
				s.SetTraceID(traceID(n))
				s.SetSpanID(spanID(n<<8 | uint64(c+1)))
				s.SetParentSpanID(spanID(n << 8))
				chat := ss.Spans().AppendEmpty()
				chat.SetName("chat gpt-4o-mini")
				chat.SetTraceID(traceID(n))
				chat.SetSpanID(spanID(n<<8 | uint64(c+10)))
				chat.SetParentSpanID(spanID(n << 8))
				chat.SetStartTimestamp(1_000_000)
				chat.SetEndTimestamp(2_000_000)
				a := chat.Attributes()
				a.PutStr("gen_ai.operation.name", "chat")
				a.PutStr("gen_ai.tool.definitions", demoDefinitions)
				a.PutStr("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":`+fmt.Sprintf("%q", prompt)+`}]}]`)
				a.PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"It is 21C in Paris; ZZZZ trades at 123.45."}]}]`)
			}
		}
		buf, err := m.MarshalTraces(td)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, buf)
	}
	return out
}

// BenchmarkRetainedRunContext measures the heap an open run holds with the
// run context captured (a checks rule) and without (a native rule), for
// runs of the demo's size and for runs whose request is a 1 MB prompt
// (where limits.max_context_bytes bounds what is kept).
func BenchmarkRetainedRunContext(b *testing.B) {
	for _, tt := range []struct {
		name   string
		runs   int
		prompt string
	}{
		{"demo_size", 2000, "What is the weather in Paris, and the price of ZZZZ?"},
		{"prompt_1MB", 40, strings.Repeat("x", 1<<20)},
	} {
		for _, capture := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/capture=%v", tt.name, capture), func(b *testing.B) {
				raw := encodedContextBatches(b, tt.runs, tt.prompt)
				for b.Loop() {
					cfg := createDefaultConfig().(*Config)
					cfg.Rules = []RuleConfig{{Name: "r", Expect: ExpectConfig{Calls: []ExpectedCallConfig{{Tool: "get_weather"}}}}}
					if capture {
						cfg.Rules[0].Scorers = []ScorerConfig{{Name: "checks"}}
					}
					p := newBenchProcessor(b, cfg, false)
					retained := memtest.RetainedBytes(func() { consumeEncoded(b, p, raw) })
					b.ReportMetric(float64(retained)/float64(tt.runs), "B/run")
					runtime.KeepAlive(p)
				}
			})
		}
	}
}
