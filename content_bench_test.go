package toolcallaccuracyprocessor

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/memtest"
)

// contentSizes are the content sizes (KiB of recorded instructions, tool
// definitions and messages per model-call span) the content benchmarks
// run at: 0 is content capture off.
var contentSizes = []int{0, 1, 5, 25}

// padText returns n bytes of prose-like text that JSON keeps as it is.
func padText(n int) string {
	const words = "Use the tools to answer the user; cite the data you used and say when a tool failed. "
	if n <= 0 {
		return ""
	}
	return strings.Repeat(words, n/len(words)+1)[:n]
}

// toolDefinitions returns a gen_ai.tool.definitions text of about n bytes:
// the two tools the runs call, with long descriptions.
func toolDefinitions(n int) string {
	desc := padText(max(n/2-160, 16))
	return fmt.Sprintf(`[{"type":"function","name":"get_weather","description":%q,"parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"]}},`+
		`{"type":"function","name":"lookup_stock","description":%q,"parameters":{"type":"object","properties":{"symbol":{"type":"string"}},"required":["symbol"]}}]`, desc, desc)
}

// contentModelCall fills s as an OTel GenAI chat span of a run's first
// turn (second false: the model asks for get_weather and lookup_stock) or
// second (it answers with their results), recording kb KiB of content:
// half system instructions, a quarter tool definitions, the rest the
// user's message. kb 0 records no content (content capture off), only
// the finish reason.
func contentModelCall(s ptrace.Span, kb int, second bool) {
	s.SetName("chat gpt-4o-mini")
	a := s.Attributes()
	a.PutStr("gen_ai.operation.name", "chat")
	a.PutStr("gen_ai.request.model", "gpt-4o-mini")
	finish := "tool_calls"
	if second {
		finish = "stop"
	}
	a.PutEmptySlice("gen_ai.response.finish_reasons").AppendEmpty().SetStr(finish)
	if kb == 0 {
		return
	}
	n := kb << 10
	user := fmt.Sprintf(`{"role":"user","parts":[{"type":"text","content":%q}]}`, "What is the weather in Paris, and the price of ZZZZ? "+padText(n/4))
	a.PutStr("gen_ai.system_instructions", fmt.Sprintf(`[{"type":"text","content":%q}]`, padText(n/2)))
	a.PutStr("gen_ai.tool.definitions", toolDefinitions(n/4))
	calls := `{"role":"assistant","parts":[{"type":"text","content":"Let me look both up."},` +
		`{"type":"tool_call","id":"call_w1","name":"get_weather","arguments":{"city":"Paris","unit":"celsius"}},` +
		`{"type":"tool_call","id":"call_s1","name":"lookup_stock","arguments":{"symbol":"ZZZZ"}}],"finish_reason":"tool_call"}`
	if !second {
		a.PutStr("gen_ai.input.messages", "["+user+"]")
		a.PutStr("gen_ai.output.messages", "["+calls+"]")
		return
	}
	results := `{"role":"tool","parts":[{"type":"tool_call_response","id":"call_w1","response":{"temperature_c":18,"sky":"cloudy"}},` +
		`{"type":"tool_call_response","id":"call_s1","response":{"price":123.4,"currency":"USD"}}]}`
	a.PutStr("gen_ai.input.messages", "["+user+","+calls+","+results+"]")
	a.PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"It is 18 °C and cloudy in Paris; ZZZZ trades at 123.40 USD."}],"finish_reason":"stop"}]`)
}

// contentRun appends to ss one complete agent run of five spans as an SDK
// exports them, children first: a model call asking for two tools, the two
// tool spans, the closing model call, the agent span, with kb KiB of
// content per model call (and tool results when kb > 0). Span ids are
// unique within the run; the caller sets the trace id.
func contentRun(ss ptrace.ScopeSpans, kb int) {
	const agent = 1
	m1 := ss.Spans().AppendEmpty()
	contentModelCall(m1, kb, false)
	m1.SetSpanID(spanID(2))
	m1.SetParentSpanID(spanID(agent))
	m1.SetStartTimestamp(1_000_000)
	m1.SetEndTimestamp(2_000_000)
	for i, tool := range []struct{ name, id, args, result string }{
		{"get_weather", "call_w1", `{"city":"Paris","unit":"celsius"}`, `{"temperature_c":18,"sky":"cloudy"}`},
		{"lookup_stock", "call_s1", `{"symbol":"ZZZZ"}`, `{"price":123.4,"currency":"USD"}`},
	} {
		s := ss.Spans().AppendEmpty()
		s.SetName("execute_tool " + tool.name)
		s.SetSpanID(spanID(uint64(3 + i)))
		s.SetParentSpanID(spanID(agent))
		s.SetStartTimestamp(pcommon.Timestamp(2_100_000 + 100_000*i))
		s.SetEndTimestamp(pcommon.Timestamp(2_150_000 + 100_000*i))
		a := s.Attributes()
		a.PutStr("gen_ai.operation.name", "execute_tool")
		a.PutStr("gen_ai.tool.name", tool.name)
		a.PutStr("gen_ai.tool.call.id", tool.id)
		a.PutStr("gen_ai.tool.type", "function")
		if kb > 0 {
			a.PutStr("gen_ai.tool.call.arguments", tool.args)
			a.PutStr("gen_ai.tool.call.result", tool.result)
		}
	}
	m2 := ss.Spans().AppendEmpty()
	contentModelCall(m2, kb, true)
	m2.SetSpanID(spanID(5))
	m2.SetParentSpanID(spanID(agent))
	m2.SetStartTimestamp(3_000_000)
	m2.SetEndTimestamp(4_000_000)
	ag := ss.Spans().AppendEmpty()
	agentSpan(ag, "assistant", 500_000, 5_000_000)
	ag.SetSpanID(spanID(agent))
}

// contentRuleConfigs are the rule sets the content benchmarks run under:
// one that takes calls from tool spans only (no request is read), the
// default that may take requested calls (model turns are read), and the
// end-to-end benchmark's pair (an expectation rule and a checks rule,
// which reads the run's context).
func contentRuleConfigs() []struct {
	name string
	cfg  func() *Config
} {
	expect := ExpectConfig{Calls: []ExpectedCallConfig{{Tool: "get_weather", Args: map[string]any{"city": "Paris"}}, {Tool: "lookup_stock"}}}
	return []struct {
		name string
		cfg  func() *Config
	}{
		{"calls=executed", func() *Config {
			cfg := createDefaultConfig().(*Config)
			cfg.Rules = []RuleConfig{{Name: "r", Expect: expect, Calls: "executed"}}
			return cfg
		}},
		{"calls=default", func() *Config {
			cfg := createDefaultConfig().(*Config)
			cfg.Rules = []RuleConfig{{Name: "r", Expect: expect}}
			return cfg
		}},
		{"checks", func() *Config {
			cfg := createDefaultConfig().(*Config)
			cfg.Rules = []RuleConfig{{Name: "r", Expect: expect}, {Name: "c", Scorers: []ScorerConfig{{Name: "checks"}}}}
			return cfg
		}},
	}
}

// BenchmarkModelCallSpanContent measures a model-call span on its way to
// its run by the content it records (0, 1, 5, 25 KiB), under rules that
// read no request, rules that may take requested calls, and a checks rule
// beside them: batches of 100 first-turn model-call spans, each of its own
// open run. Where nothing reads the content, its cost must not grow with
// it.
func BenchmarkModelCallSpanContent(b *testing.B) {
	for _, rc := range contentRuleConfigs() {
		for _, kb := range contentSizes {
			b.Run(fmt.Sprintf("%s/content=%dKB", rc.name, kb), func(b *testing.B) {
				cfg := rc.cfg()
				cfg.Limits.MaxOpenTrajectories = 10_000
				cfg.Limits.MaxTrackedTraces = 10_000
				p := newBenchProcessor(b, cfg, false)
				td := ptrace.NewTraces()
				ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
				for i := 0; i < benchBatch; i++ {
					s := ss.Spans().AppendEmpty()
					contentModelCall(s, kb, false)
					s.SetSpanID(spanID(uint64(i + 1)))
				}
				ctx := context.Background()
				next := uint64(0)
				b.ReportAllocs()
				for b.Loop() {
					next = intoNewRuns(ss.Spans(), 1, next)
					_ = p.ConsumeTraces(ctx, td)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatch), "ns/span")
			})
		}
	}
}

// encodedContentRuns returns protobuf batches of complete five-span runs
// (see contentRun), perBatch runs each, every run in a trace of its own.
func encodedContentRuns(b testing.TB, runs, perBatch, kb int) [][]byte {
	var m ptrace.ProtoMarshaler
	var out [][]byte
	for k := 0; k < runs/perBatch; k++ {
		td := ptrace.NewTraces()
		for r := 0; r < perBatch; r++ {
			ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
			contentRun(ss, kb)
			for _, s := range ss.Spans().All() {
				s.SetTraceID(traceID(uint64(k*perBatch + r + 1)))
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

// BenchmarkRetainedRememberedTrace measures the heap the processor keeps
// per closed run's remembered trace (what a late or retried span of it
// needs) by the content its spans recorded, after every run was scored:
// complete five-span runs, each in a trace of its own, decoded from
// protobuf as the OTLP receiver does (so nothing the spans hold is shared
// with the benchmark), under the default rules and with a checks rule.
func BenchmarkRetainedRememberedTrace(b *testing.B) {
	const runs = 5000
	for _, rc := range contentRuleConfigs()[1:] {
		for _, kb := range contentSizes {
			b.Run(fmt.Sprintf("%s/content=%dKB", rc.name, kb), func(b *testing.B) {
				raw := encodedContentRuns(b, runs, 10, kb)
				for b.Loop() {
					cfg := rc.cfg()
					cfg.Limits.MaxTrackedTraces = runs
					p := newBenchProcessor(b, cfg, false)
					retained := memtest.RetainedBytes(func() { consumeEncoded(b, p, raw) })
					b.ReportMetric(float64(retained)/runs, "B/trace")
					runtime.KeepAlive(raw)
					runtime.KeepAlive(p)
					_ = p.Shutdown(context.Background())
				}
			})
		}
	}
}

// BenchmarkContentRuns measures complete five-span runs (see contentRun),
// ten per request, each request decoded from protobuf as the OTLP receiver
// does and given fresh trace ids, under the end-to-end benchmark's rules
// (an expectation rule and a checks rule), beside the pass-through
// processor: what the end-to-end benchmark's five-span traffic costs the
// processor, in-process.
func BenchmarkContentRuns(b *testing.B) {
	for _, kb := range []int{0, 2, 27} {
		for _, mode := range []string{"baseline", "processor"} {
			b.Run(fmt.Sprintf("content=%dKB/%s", kb, mode), func(b *testing.B) {
				p := newBenchProcessor(b, contentRuleConfigs()[2].cfg(), mode == "baseline")
				consumeContentRuns(b, p, kb)
			})
		}
	}
}

// BenchmarkOutputCost prices each of the processor's outputs on
// BenchmarkContentRuns' runs without content (the checks configuration):
// both (the default), both with rule_attributes on_failure (the runs pass,
// so only the summary attributes), events only (output.attributes: false),
// attributes only (output.events: false), and neither, which is the cost of
// assembling and scoring the runs alone.
func BenchmarkOutputCost(b *testing.B) {
	for _, out := range []struct {
		name               string
		attributes, events bool
		ruleAttributes     string
	}{
		{"both", true, true, RuleAttributesAlways},
		{"both_rule_attributes_on_failure", true, true, RuleAttributesOnFailure},
		{"events", false, true, RuleAttributesAlways},
		{"attributes", true, false, RuleAttributesAlways},
		{"neither", false, false, RuleAttributesAlways},
	} {
		b.Run(out.name, func(b *testing.B) {
			cfg := contentRuleConfigs()[2].cfg()
			cfg.Output.Attributes, cfg.Output.Events, cfg.Output.RuleAttributes = out.attributes, out.events, out.ruleAttributes
			consumeContentRuns(b, newBenchProcessor(b, cfg, false), 0)
		})
	}
}

// consumeContentRuns sends p batches of ten complete five-span runs with kb
// KiB of content per model call, each run under a trace id of its own.
func consumeContentRuns(b *testing.B, p processor.Traces, kb int) {
	raw := encodedContentRuns(b, 10, 10, kb)[0]
	var u ptrace.ProtoUnmarshaler
	ctx := context.Background()
	next := uint64(0)
	b.ReportAllocs()
	for b.Loop() {
		td, err := u.UnmarshalTraces(raw)
		if err != nil {
			b.Fatal(err)
		}
		for _, rs := range td.ResourceSpans().All() {
			next++
			for _, s := range rs.ScopeSpans().At(0).Spans().All() {
				s.SetTraceID(traceID(next))
			}
		}
		_ = p.ConsumeTraces(ctx, td)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*50), "ns/span")
}
