package extract

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

// readTraces reads an OTLP/JSON trace file (file-exporter framing).
func readTraces(t testing.TB, path string) []ptrace.Traces {
	t.Helper()
	docs, err := otlpjson.ReadFiles(path)
	require.NoError(t, err)
	return otlpjson.Traces(docs)
}

// summary is what a test expects extraction to find in one trace file.
type summary struct {
	// tools are "name args failed" in file order, args as decoded JSON or
	// "?" when unknown.
	tools []string
	// agents are the names of the agent spans.
	agents []string
}

func summarize(t *testing.T, path string) summary {
	opts := &Options{SkipTools: DefaultSkipTools()}
	var s summary
	for _, td := range readTraces(t, path) {
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, span := range ss.Spans().All() {
					res := Classify(span, ss.Scope(), opts)
					if Ordinary(span) == res.GenAI {
						t.Errorf("%s: span %q: Ordinary is %v but Classify says GenAI %v", path, span.Name(), Ordinary(span), res.GenAI)
					}
					switch res.Kind {
					case KindTool:
						c := res.Call
						args := "?"
						if v, st := DecodeArguments(c.Args, c.Encoding, DecodeOptions{}); st == ArgumentsKnown {
							args = v.JSON()
						}
						status := "ok"
						if c.Failed {
							status = "failed"
						}
						s.tools = append(s.tools, c.Name+" "+args+" "+status+" "+c.Convention.String())
					case KindAgent:
						s.agents = append(s.agents, span.Name())
					}
				}
			}
		}
	}
	sort.Strings(s.tools)
	return s
}

func TestClassifyTraces(t *testing.T) {
	const (
		weather = `get_weather {"city":"Paris","unit":"celsius"} ok`
		stock   = `lookup_stock {"symbol":"ZZZZ"} failed`
		seattle = `get_current_weather {"location":"Seattle, WA"} ok`
		sf      = `get_current_weather {"location":"San Francisco, CA"} ok`
	)
	tests := []struct {
		file string
		want summary
	}{
		{"conventions/otel-genai-semconv.json", summary{
			tools:  []string{sf + " gen_ai", seattle + " gen_ai"},
			agents: []string{"invoke_agent weather_agent"},
		}},
		{"conventions/openinference-openai-agents.json", summary{
			tools:  []string{sf + " openinference", seattle + " openinference"},
			agents: []string{"Agent workflow", "weather_agent"},
		}},
		{"conventions/openllmetry-traceloop-legacy.json", summary{
			tools:  []string{sf + " openllmetry", seattle + " openllmetry"},
			agents: []string{"weather_agent.agent"},
		}},
		{"conventions/vercel-ai-sdk-legacy-ai-spans.json", summary{
			tools:  []string{sf + " vercel_ai", seattle + " vercel_ai"},
			agents: []string{"ai.generateText"},
		}},
		{"emitters/vercel-ai-v6-mock.otlp.jsonl", summary{
			tools:  []string{weather + " vercel_ai", stock + " vercel_ai"},
			agents: []string{"ai.generateText"},
		}},
		{"emitters/mastra-otel-mock.otlp.jsonl", summary{
			tools:  []string{weather + " mastra", stock + " mastra"},
			agents: []string{"invoke_agent weather-agent"},
		}},
		{"emitters/langchain-openinference-mock.otlp.jsonl", summary{
			// LangChain JS records the failed call's input as plain text.
			tools: []string{weather + " openinference", `lookup_stock "ZZZZ" failed openinference`},
		}},
		{"captures/adk-go-mock.otlp.jsonl", summary{
			// The "(merged tools)" parent span is skipped, not a call.
			tools:  []string{weather + " google_adk", stock + " google_adk"},
			agents: []string{"invoke_agent weather_agent"},
		}},
		{"captures/adk-go-mock-allok.otlp.jsonl", summary{
			tools:  []string{weather + " google_adk", `lookup_stock {"symbol":"ZZZZ"} ok google_adk`},
			agents: []string{"invoke_agent weather_agent"},
		}},
		{"captures/genkit-go-mock.otlp.jsonl", summary{
			tools:  []string{weather + " genkit", `lookup_stock {"symbol":"ZZZZ"} ok genkit`},
			agents: []string{"weatherAgentFlow"},
		}},
		{"captures/genkit-go-mock-toolerror.otlp.jsonl", summary{
			tools:  []string{weather + " genkit", stock + " genkit"},
			agents: []string{"weatherAgentFlow"},
		}},
		{"captures/vercel-ai-v7-otel-mock.otlp.jsonl", summary{
			tools:  []string{weather + " gen_ai", stock + " gen_ai"},
			agents: []string{"invoke_agent mock-model-1"},
		}},
		{"captures/openllmetry-langchain-mock.otlp.jsonl", summary{
			// withTool's span (no arguments) wraps LangChain's span; the
			// trajectory store merges the two records of one call. The
			// failed call's withTool span was never exported.
			tools:  []string{`get_weather ? ok openllmetry`, weather + " openllmetry", stock + " openllmetry"},
			agents: []string{"weather_agent.agent"},
		}},
		{"captures/openllmetry-langchain-mock-nowithtool.otlp.jsonl", summary{
			// The name comes from the serialized ToolMessage output; a
			// failed call has none, so its name stays the class name.
			tools:  []string{weather + " openllmetry", `DynamicStructuredTool {"symbol":"ZZZZ"} failed openllmetry`},
			agents: []string{"weather_agent.agent"},
		}},
		{"captures/constructed-strands-agents.json", summary{
			tools:  []string{weather + " strands", stock + " strands"},
			agents: []string{"invoke_agent Strands Agents"},
		}},
		{"captures/constructed-pydantic-ai.json", summary{
			tools:  []string{weather + " pydantic_ai", stock + " pydantic_ai"},
			agents: []string{"invoke_agent weather_agent"},
		}},
		{"captures/constructed-spring-ai.json", summary{
			// Spring AI catches tool exceptions: the failure is invisible.
			tools:  []string{weather + " spring_ai", `lookup_stock {"symbol":"ZZZZ"} ok spring_ai`},
			agents: []string{"spring_ai chat_client"},
		}},
		{"captures/constructed-spring-ai-2.json", summary{
			tools:  []string{weather + " spring_ai", `lookup_stock {"symbol":"ZZZZ"} ok spring_ai`},
			agents: []string{"spring_ai chat_client"},
		}},
		{"captures/constructed-google-adk-python.json", summary{
			tools:  []string{weather + " google_adk", stock + " google_adk"},
			agents: []string{"invoke_agent weather_agent", "invoke_workflow weather_agent"},
		}},
		{"captures/constructed-mcp.json", summary{
			// execute_tool, MCP client and MCP server record each call; the
			// trajectory store merges them.
			tools: []string{weather + " gen_ai", weather + " gen_ai", weather + " gen_ai",
				stock + " gen_ai", stock + " gen_ai", stock + " gen_ai"},
			agents: []string{"invoke_agent weather-agent"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := summarize(t, filepath.Join("..", "..", "testdata", "traces", tt.file))
			sort.Strings(tt.want.tools)
			assert.Equal(t, tt.want.tools, got.tools)
			assert.Equal(t, tt.want.agents, got.agents)
		})
	}
}

// decodeCases are argument texts with what DecodeArguments makes of them.
var decodeCases = []struct {
	name  string
	raw   string
	enc   Encoding
	opts  DecodeOptions
	want  string
	state ArgumentState
}{
	{"json", `{"a":1}`, EncodingJSON, DecodeOptions{}, `{"a":1}`, ArgumentsKnown},
	{"double encoded", `"{\"a\":1}"`, EncodingJSON, DecodeOptions{}, `{"a":1}`, ArgumentsKnown},
	{"plain string argument", `"Mexico City"`, EncodingJSON, DecodeOptions{}, `"Mexico City"`, ArgumentsKnown},
	{"empty object: maybe a placeholder", `{}`, EncodingJSON, DecodeOptions{}, ``, ArgumentsEmpty},
	{"empty object when capture is on", `{}`, EncodingJSON, DecodeOptions{EmptyIsKnown: true}, `{}`, ArgumentsKnown},
	{"not specified", `<not specified>`, EncodingJSON, DecodeOptions{}, ``, ArgumentsPlaceholder},
	{"N/A", `N/A`, EncodingJSON, DecodeOptions{}, ``, ArgumentsPlaceholder},
	{"truncated", `{"query":"a very long que`, EncodingJSON, DecodeOptions{}, ``, ArgumentsTruncated},
	{"absent", ``, EncodingAbsent, DecodeOptions{}, ``, ArgumentsAbsent},
	{"python repr", `{'a': 3, 'b': True, 'c': None, 'd': [1, 'x']}`, EncodingJSONOrPython, DecodeOptions{}, `{"a":3,"b":true,"c":null,"d":[1,"x"]}`, ArgumentsKnown},
	{"traceloop kwargs", `{"args": [], "kwargs": {"location": "Seattle, WA"}}`, EncodingTraceloop, DecodeOptions{}, `{"location":"Seattle, WA"}`, ArgumentsKnown},
	{"traceloop js args string", `{"args":["{\"city\":\"Paris\"}"]}`, EncodingTraceloop, DecodeOptions{}, `{"city":"Paris"}`, ArgumentsKnown},
	{"traceloop js args object", `{"args":[{"city":"Paris"}],"kwargs":{}}`, EncodingTraceloop, DecodeOptions{}, `{"city":"Paris"}`, ArgumentsKnown},
	{"traceloop positional", `{"args": ["Paris", "celsius"], "kwargs": {}}`, EncodingTraceloop, DecodeOptions{}, ``, ArgumentsPositional},
	{"traceloop one positional string", `{"args": ["ZZZZ"], "kwargs": {}}`, EncodingTraceloop, DecodeOptions{}, ``, ArgumentsPositional},
	{"traceloop one positional number", `{"args": [3]}`, EncodingTraceloop, DecodeOptions{}, ``, ArgumentsPositional},
	{"traceloop positional and keyword", `{"args": ["Paris"], "kwargs": {"unit": "celsius"}}`, EncodingTraceloop, DecodeOptions{}, ``, ArgumentsPositional},
	{"traceloop no arguments", `{"args": [], "kwargs": {}}`, EncodingTraceloop, DecodeOptions{EmptyIsKnown: true}, `{}`, ArgumentsKnown},
	{"traceloop no arguments, no kwargs", `{"args": []}`, EncodingTraceloop, DecodeOptions{EmptyIsKnown: true}, `{}`, ArgumentsKnown},
	{"openinference hidden inputs", `__REDACTED__`, EncodingJSONOrPython, DecodeOptions{}, ``, ArgumentsPlaceholder},
	{"smolagents call record", `{"args": [], "sanitize_inputs_outputs": true, "kwargs": {"city": "Paris"}}`, EncodingJSONOrPython, DecodeOptions{}, `{"city":"Paris"}`, ArgumentsKnown},
	{"smolagents positional call", `{"args": ["Paris"], "sanitize_inputs_outputs": false, "kwargs": {}}`, EncodingJSONOrPython, DecodeOptions{}, ``, ArgumentsPositional},
	{"arguments named kwargs", `{"kwargs": {"a": 1}, "b": 2}`, EncodingJSONOrPython, DecodeOptions{}, `{"kwargs":{"a":1},"b":2}`, ArgumentsKnown},
	{"arguments named args and kwargs", `{"args": [1], "kwargs": {"a": 1}, "c": 3}`, EncodingJSONOrPython, DecodeOptions{}, `{"args":[1],"kwargs":{"a":1},"c":3}`, ArgumentsKnown},
	{"traceloop langchain inputs", `{"input_str": "{'a': 3}", "inputs": {"a": 3}, "tags": []}`, EncodingTraceloop, DecodeOptions{}, `{"a":3}`, ArgumentsKnown},
	{"text", `ZZZZ`, EncodingText, DecodeOptions{}, `"ZZZZ"`, ArgumentsKnown},
	{"traceloop mcp record", `{"tool_name": "get_weather", "arguments": {"city": "Paris"}}`, EncodingTraceloop, DecodeOptions{}, `{"city":"Paris"}`, ArgumentsKnown},
	{"traceloop mcp record, arguments as text", `{"tool_name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}`, EncodingTraceloop, DecodeOptions{}, `{"city":"Paris"}`, ArgumentsKnown},
	{"traceloop arguments named tool_name", `{"tool_name": "x", "limit": 3}`, EncodingTraceloop, DecodeOptions{}, `{"tool_name":"x","limit":3}`, ArgumentsKnown},
}

func TestDecodeArguments(t *testing.T) {
	for _, tt := range decodeCases {
		t.Run(tt.name, func(t *testing.T) {
			v, st := DecodeArguments(tt.raw, tt.enc, tt.opts)
			assert.Equal(t, tt.state, st)
			if st == ArgumentsKnown {
				assert.Equal(t, tt.want, v.JSON())
			}
		})
	}
}

// TestDeferredArgumentsDocument checks that the document path, which the
// native scorer reads, takes only texts that decode to known arguments when
// they are JSON, and reads them as the same value. (Text it takes that is
// not JSON makes the scorer report jsonv.ErrInvalidDocument, and the run
// is scored from DecodeArguments' trees.)
func TestDeferredArgumentsDocument(t *testing.T) {
	taken, notJSON := 0, 0
	for _, tt := range decodeCases {
		t.Run(tt.name, func(t *testing.T) {
			doc, ok := DeferredArgumentsDocument(tt.raw, tt.enc, tt.opts)
			if !ok {
				return
			}
			if _, err := jsonv.Parse(doc.Text()); err != nil {
				notJSON++
				return
			}
			taken++
			require.Equal(t, ArgumentsKnown, tt.state)
			v := doc.Value()
			assert.Equal(t, tt.want, v.JSON())
		})
	}
	assert.Positive(t, taken)
	assert.Positive(t, notJSON, "no decode case covers text the scorer finds is not JSON")
}

func TestNameFromSpanName(t *testing.T) {
	for in, want := range map[string]string{
		"execute_tool get_weather":   "get_weather",
		"tool_call get_weather":      "get_weather",
		"tools/call get_weather":     "get_weather",
		"get_weather.tool":           "get_weather",
		"execute_tool":               "",
		"invoke_agent weather_agent": "",
	} {
		assert.Equal(t, want, nameFromSpanName(in), in)
	}
}

func TestDecodeWrappersAndTruncation(t *testing.T) {
	tests := []struct {
		name  string
		raw   string
		enc   Encoding
		want  string
		state ArgumentState
	}{
		{"langchain wrapper in gen_ai.tool.call.arguments", `{"input_str": "{'city': 'Paris'}", "tags": [], "metadata": {}, "inputs": {"city": "Paris"}, "kwargs": {}}`,
			EncodingLangChainWrapper, `{"city":"Paris"}`, ArgumentsKnown},
		{"langchain wrapper without inputs dict", `{"input_str": "{'city': 'Paris', 'days': 3}", "tags": [], "metadata": {}, "inputs": null, "kwargs": {}}`,
			EncodingLangChainWrapper, `{"city":"Paris","days":3}`, ArgumentsKnown},
		{"langchain wrapper of a string input", `{"input_str": "Paris weather", "tags": [], "metadata": {}, "inputs": null, "kwargs": {}}`,
			EncodingLangChainWrapper, `"Paris weather"`, ArgumentsKnown},
		{"raw arguments on an OpenLLMetry span are kept", `{"inputs": {"a": 1}, "kwargs": {"b": 2}}`,
			EncodingLangChainWrapper, `{"inputs":{"a":1},"kwargs":{"b":2}}`, ArgumentsKnown},
		{"langchain wrapper in traceloop.entity.input", `{"input_str": "{'a': 3}", "inputs": null, "kwargs": {}}`,
			EncodingTraceloop, `{"a":3}`, ArgumentsKnown},
		{"double-encoded and cut", `"{\"query\":\"a very long que`, EncodingJSON, ``, ArgumentsTruncated},
		{"double-encoded, inner cut at a length limit", `"{\"query\":\"a very long que"`, EncodingJSON, ``, ArgumentsTruncated},
		{"string argument that merely starts with a brace", `"{name} is here"`, EncodingJSON, `"{name} is here"`, ArgumentsKnown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, st := DecodeArguments(tt.raw, tt.enc, DecodeOptions{})
			assert.Equal(t, tt.state, st)
			if st == ArgumentsKnown {
				assert.Equal(t, tt.want, v.JSON())
			}
		})
	}
}

func TestDecodeResultWrappers(t *testing.T) {
	tests := []struct {
		name, raw string
		form      ResultForm
		want      string
	}{
		{"OpenLLMetry LangChain wrapper", `{"output": "21C and sunny", "kwargs": {"name": "get_weather"}}`, ResultOpenLLMetry, `"21C and sunny"`},
		{"LangChain wrapper kept elsewhere", `{"output": "21C and sunny", "kwargs": {"name": "get_weather"}}`, ResultPlain, `{"output":"21C and sunny","kwargs":{"name":"get_weather"}}`},
		{"ADK scalar wrapper", `{"result": 4}`, ResultADK, `4`},
		{"ADK wrapped text decoded as a raw result is", `{"result": "{\"a\": 1}"}`, ResultADK, `{"a":1}`},
		{"ADK dict with a result member and more", `{"result": 4, "unit": "C"}`, ResultADK, `{"result":4,"unit":"C"}`},
		{"ADK wrapper kept elsewhere", `{"result": 4}`, ResultGenkitV2, `{"result":4}`},
		{"Genkit tool.v2 output", `{"output": {"a": 1}}`, ResultGenkitV2, `{"a":1}`},
		{"Genkit tool.v2 output with content parts", `{"output": 1, "content": [{"text": "x"}]}`, ResultGenkitV2, `{"output":1,"content":[{"text":"x"}]}`},
		{"Genkit tool action output kept", `{"output": {"a": 1}}`, ResultPlain, `{"output":{"a":1}}`},
		{"Strands text block", `[{"text": "{\"a\": 1}"}]`, ResultStrands, `{"a":1}`},
		{"Strands json block", `[{"json": {"a": 1}}]`, ResultStrands, `{"a":1}`},
		{"Strands two blocks kept", `[{"text": "a"}, {"text": "b"}]`, ResultStrands, `[{"text":"a"},{"text":"b"}]`},
		{"OpenInference output without a ToolMessage kept", `{"output": "x"}`, ResultOpenInference, `{"output":"x"}`},
		{"other message types kept", `{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":"x"}}`, ResultOpenLLMetry,
			`{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":"x"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := DecodeResult(tt.raw, tt.form)
			require.True(t, ok)
			assert.Equal(t, tt.want, v.JSON())
		})
	}
}

// classifyOne classifies a span built by fill, under a scope named scope.
func classifyOne(t *testing.T, scope string, fill func(s ptrace.Span)) Result {
	t.Helper()
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	ss.Scope().SetName(scope)
	s := ss.Spans().AppendEmpty()
	fill(s)
	opts := &Options{SkipTools: DefaultSkipTools()}
	return Classify(s, ss.Scope(), opts)
}

func TestClassifySpanShapes(t *testing.T) {
	args := func(r Result) string {
		v, st := DecodeArguments(r.Call.Args, r.Call.Encoding, DecodeOptions{})
		if st != ArgumentsKnown {
			return "?"
		}
		return v.JSON()
	}
	t.Run("ADK 2025 agent_run span without attributes is an agent", func(t *testing.T) {
		r := classifyOne(t, "gcp.vertex.agent", func(s ptrace.Span) { s.SetName("agent_run [weather_agent]") })
		assert.Equal(t, KindAgent, r.Kind)
		assert.Equal(t, ConventionADK, r.Convention)
		assert.True(t, r.GenAI)
	})
	t.Run("MCP tools/call span that is not an execute_tool span", func(t *testing.T) {
		// A bare MCP server span (semconv >= 1.39): the tool name from the
		// span name when gen_ai.tool.name is absent.
		r := classifyOne(t, "io.modelcontextprotocol.server", func(s ptrace.Span) {
			s.SetName("tools/call get_weather")
			s.SetKind(ptrace.SpanKindServer)
			s.Attributes().PutStr("mcp.method.name", "tools/call")
			s.Attributes().PutStr("gen_ai.tool.call.arguments", `{"city":"Paris"}`)
			s.Attributes().PutStr("gen_ai.tool.call.result", `{"temperature":21}`)
		})
		assert.Equal(t, KindTool, r.Kind)
		assert.Equal(t, ConventionMCP, r.Convention)
		assert.Equal(t, "get_weather", r.Call.Name)
		assert.Equal(t, "mcp", r.Call.Type)
		assert.True(t, r.Call.MCP)
		assert.Equal(t, `{"city":"Paris"}`, args(r))
		assert.Equal(t, `{"temperature":21}`, r.Call.Result)
	})
	t.Run("invoke_agent span name without the operation attribute", func(t *testing.T) {
		r := classifyOne(t, "x", func(s ptrace.Span) { s.SetName("invoke_agent weather_agent") })
		assert.Equal(t, KindAgent, r.Kind)
	})
	t.Run("ordinary span is nothing", func(t *testing.T) {
		r := classifyOne(t, "x", func(s ptrace.Span) {
			s.SetName("GET /agent_run")
			s.Attributes().PutStr("http.route", "/agent_run")
		})
		assert.Equal(t, Result{}, r)
	})
	t.Run("LangGraph agent node is not an agent run", func(t *testing.T) {
		r := classifyOne(t, "openinference.instrumentation.langchain", func(s ptrace.Span) {
			s.SetName("agent")
			s.Attributes().PutStr("openinference.span.kind", "AGENT")
			s.Attributes().PutStr("metadata", `{"langgraph_step": 1, "langgraph_node": "agent", "langgraph_triggers": ["start:agent"]}`)
		})
		assert.Equal(t, KindOther, r.Kind)
		assert.True(t, r.GenAI, "still a GenAI link")
	})
	t.Run("LangGraph sub-agent node is an agent run", func(t *testing.T) {
		r := classifyOne(t, "openinference.instrumentation.langchain", func(s ptrace.Span) {
			s.SetName("weather_agent")
			s.Attributes().PutStr("openinference.span.kind", "AGENT")
			s.Attributes().PutStr("metadata", `{"langgraph_node": "weather_agent"}`)
		})
		assert.Equal(t, KindAgent, r.Kind)
	})
	t.Run("OpenLLMetry Python LangChain execute_tool wrapper", func(t *testing.T) {
		r := classifyOne(t, "opentelemetry.instrumentation.langchain", func(s ptrace.Span) {
			s.SetName("execute_tool get_weather")
			a := s.Attributes()
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", "get_weather")
			a.PutStr("gen_ai.provider.name", "langgraph")
			a.PutStr("traceloop.span.kind", "task")
			wrapper := `{"input_str": "{'city': 'Paris'}", "tags": ["seq:step:1"], "metadata": {"langgraph_node": "tools"}, "inputs": {"city": "Paris"}, "kwargs": {"tool_call_id": "call_1"}}`
			a.PutStr("gen_ai.tool.call.arguments", wrapper)
			a.PutStr("traceloop.entity.input", wrapper)
			a.PutStr("gen_ai.tool.call.result", `{"output": "21C", "kwargs": {"name": "get_weather"}}`)
		})
		require.Equal(t, KindTool, r.Kind)
		assert.Equal(t, "get_weather", r.Call.Name)
		assert.Equal(t, `{"city":"Paris"}`, args(r))
		res, _ := DecodeResult(r.Call.Result, r.Call.ResultForm)
		assert.Equal(t, `"21C"`, res.JSON())
	})
	t.Run("OpenLLMetry tool named like a class keeps its name", func(t *testing.T) {
		r := classifyOne(t, "@traceloop/node-server-sdk", func(s ptrace.Span) {
			s.SetName("execute_tool weatherTool")
			a := s.Attributes()
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", "weatherTool")
			a.PutStr("traceloop.span.kind", "tool")
			a.PutStr("traceloop.entity.path", "weather_agent.plan")
		})
		assert.Equal(t, "weatherTool", r.Call.Name)
	})
	t.Run("placeholder gives way to arguments under another key", func(t *testing.T) {
		r := classifyOne(t, "gcp.vertex.agent", func(s ptrace.Span) {
			s.SetName("execute_tool get_weather")
			a := s.Attributes()
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", "get_weather")
			a.PutStr("gen_ai.tool.call.arguments", "{}")
			a.PutStr("gcp.vertex.agent.tool_call_args", `{"city": "Paris"}`)
		})
		assert.Equal(t, `{"city":"Paris"}`, args(r))
	})
	t.Run("placeholder gives way to arguments in events", func(t *testing.T) {
		r := classifyOne(t, "strands.telemetry.tracer", func(s ptrace.Span) {
			s.SetName("execute_tool get_weather")
			a := s.Attributes()
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", "get_weather")
			a.PutStr("gen_ai.tool.call.arguments", "<not specified>")
			ev := s.Events().AppendEmpty()
			ev.SetName("gen_ai.tool.message")
			ev.Attributes().PutStr("content", `{"city": "Paris"}`)
		})
		assert.Equal(t, `{"city":"Paris"}`, args(r))
	})
	t.Run("only placeholders stay unknown", func(t *testing.T) {
		r := classifyOne(t, "gcp.vertex.agent", func(s ptrace.Span) {
			s.SetName("execute_tool get_weather")
			a := s.Attributes()
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", "get_weather")
			a.PutStr("gen_ai.tool.call.arguments", "{}")
			a.PutStr("gcp.vertex.agent.tool_call_args", "{}")
		})
		require.Equal(t, KindTool, r.Kind)
		assert.Equal(t, "?", args(r))
		v, st := DecodeArguments(r.Call.Args, r.Call.Encoding, DecodeOptions{EmptyIsKnown: true})
		assert.Equal(t, ArgumentsKnown, st)
		assert.Equal(t, `{}`, v.JSON())
	})
	t.Run("ADK execute_tool span of a tool that raised has no attributes", func(t *testing.T) {
		r := classifyOne(t, "gcp.vertex.agent", func(s ptrace.Span) {
			s.SetName("execute_tool lookup_stock")
			s.Status().SetCode(ptrace.StatusCodeError)
		})
		require.Equal(t, KindTool, r.Kind)
		assert.Equal(t, "lookup_stock", r.Call.Name)
		assert.True(t, r.Call.Failed)
		assert.Equal(t, ConventionADK, r.Convention)
		assert.Equal(t, "?", args(r))
	})
	t.Run("Pydantic AI format 2 running tool marked execute_tool", func(t *testing.T) {
		r := classifyOne(t, "pydantic-ai", func(s ptrace.Span) {
			s.SetName("running tool")
			a := s.Attributes()
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", "get_weather")
			a.PutStr("tool_arguments", `{"city":"Paris"}`)
			a.PutStr("tool_response", `sunny`)
		})
		require.Equal(t, KindTool, r.Kind)
		assert.Equal(t, `{"city":"Paris"}`, args(r))
		assert.Equal(t, "sunny", r.Call.Result)
	})
	t.Run("OpenInference handoff span is not a tool call", func(t *testing.T) {
		// openinference-instrumentation-openai-agents: a TOOL span per
		// handoff, input.value the agent handing off, output.value the one
		// taking over.
		r := classifyOne(t, "openinference.instrumentation.openai_agents", func(s ptrace.Span) {
			s.SetName("handoff to stock_agent")
			s.Attributes().PutStr("openinference.span.kind", "TOOL")
			s.Attributes().PutStr("tool.name", "handoff to stock_agent")
			s.Attributes().PutStr("input.value", "triage_agent")
			s.Attributes().PutStr("output.value", "stock_agent")
		})
		assert.NotEqual(t, KindTool, r.Kind)
		assert.True(t, r.GenAI)
	})
	t.Run("OpenInference hidden inputs are unknown arguments", func(t *testing.T) {
		r := classifyOne(t, "openinference.instrumentation.openai_agents", func(s ptrace.Span) {
			s.SetName("get_weather")
			s.Attributes().PutStr("openinference.span.kind", "TOOL")
			s.Attributes().PutStr("tool.name", "get_weather")
			s.Attributes().PutStr("input.value", "__REDACTED__")
		})
		require.Equal(t, KindTool, r.Kind)
		_, st := DecodeArguments(r.Call.Args, r.Call.Encoding, DecodeOptions{})
		assert.Equal(t, ArgumentsPlaceholder, st)
	})
	t.Run("Strands messages as span attributes (Langfuse mode)", func(t *testing.T) {
		r := classifyOne(t, "strands.telemetry.tracer", func(s ptrace.Span) {
			s.SetName("execute_tool get_weather")
			a := s.Attributes()
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", "get_weather")
			a.PutStr("gen_ai.tool.call.id", "tooluse_1")
			a.PutStr("gen_ai.input.messages", `[{"role":"tool","parts":[{"type":"tool_call","name":"get_weather","id":"tooluse_1","arguments":{"city":"Paris","unit":"celsius"}}]}]`)
			a.PutStr("gen_ai.output.messages", `[{"role":"tool","parts":[{"type":"tool_call_response","id":"tooluse_1","response":[{"text":"ok"}]}]}]`)
		})
		require.Equal(t, KindTool, r.Kind)
		assert.Equal(t, `{"city":"Paris","unit":"celsius"}`, args(r))
		assert.Contains(t, r.Call.Result, "tool_call_response")
	})
	for name, skipped := range map[string]bool{
		"final_result": true, "final_result_Weather": true, "final_result_": false, "final_results": false, "(merged tools)": true,
		"handoff to stock_agent": true, "handoff": false, "handoff_to_agent": false, "final_answer": true,
	} {
		t.Run("skip "+name, func(t *testing.T) {
			r := classifyOne(t, "pydantic-ai", func(s ptrace.Span) {
				s.SetName("execute_tool " + name)
				s.Attributes().PutStr("gen_ai.operation.name", "execute_tool")
				s.Attributes().PutStr("gen_ai.tool.name", name)
			})
			assert.Equal(t, skipped, r.Kind != KindTool)
		})
	}
}

func TestClassifyModelCalls(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]string
		want  bool
	}{
		{"GenAI chat", map[string]string{"gen_ai.operation.name": "chat"}, true},
		{"GenAI generate_content", map[string]string{"gen_ai.operation.name": "generate_content"}, true},
		{"OpenInference LLM", map[string]string{"openinference.span.kind": "LLM"}, true},
		{"AI SDK doGenerate", map[string]string{"ai.operationId": "ai.generateText.doGenerate"}, true},
		{"AI SDK doStream", map[string]string{"ai.operationId": "ai.streamText.doStream"}, true},
		{"Genkit model action", map[string]string{"genkit:metadata:subtype": "model"}, true},
		{"OpenLLMetry legacy", map[string]string{"llm.request.type": "chat"}, true},
		{"agent step", map[string]string{"gen_ai.operation.name": "agent_step"}, false},
		{"Mastra whole generation", map[string]string{"gen_ai.operation.name": "model_generation"}, false},
		{"OpenInference chain", map[string]string{"openinference.span.kind": "CHAIN"}, false},
		{"tool", map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := classifyOne(t, "x", func(s ptrace.Span) {
				s.SetName("span")
				for k, v := range tt.attrs {
					s.Attributes().PutStr(k, v)
				}
			})
			assert.Equal(t, tt.want, r.ModelCall)
			assert.True(t, r.GenAI)
		})
	}
}

// TestModelCallSpansInCaptures checks, convention by convention, that the
// span that marks a model call in the captures is taken as one, and that the
// spans around it are not. Which span marks a model call
// (genai-conventions.md):
//
//	convention                 model-call span                                   capture here
//	OTel GenAI semconv         chat / text_completion / generate_content {model} conventions/otel-genai-semconv.json, constructed-mcp.json
//	MCP                        none (MCP spans are tool calls or listings)       -
//	OpenInference              openinference.span.kind LLM                       conventions/openinference-openai-agents.json, LangChain JS, LangGraph, smolagents
//	OpenLLMetry <= 0.54        llm.request.type chat|completion (openai.chat)    conventions/openllmetry-traceloop-legacy.json
//	OpenLLMetry >= 0.53 / JS   chat {model}                                      openllmetry-langchain-mock, constructed-openllmetry-langchain-python
//	AI SDK <= v6, v7 legacy    ai.operationId *.doGenerate / *.doStream          conventions/vercel-ai-sdk-legacy-ai-spans.json, vercel-ai-v6-mock
//	AI SDK v7 (@ai-sdk/otel)   chat {modelId} (not invoke_agent, step n)         vercel-ai-v7-otel-mock
//	Google ADK Python          call_llm (2025 and later; later with a            constructed-google-adk-python*.json
//	                           generate_content {model} child)
//	Google ADK Go              generate_content {model} (no call_llm)            adk-go-mock
//	Strands                    chat (not execute_event_loop_cycle)               constructed-strands-agents.json
//	Pydantic AI                chat {model}, formats 2 and 5                     constructed-pydantic-ai*.json
//	Mastra                     chat {model} (model_inference; not                mastra-otel-mock
//	                           model_generation, agent_step, model_chunk)
//	Spring AI                  chat {model}                                      constructed-spring-ai*.json
//	Genkit                     genkit:metadata:subtype model (not generate)      genkit-go-mock
//	Semantic Kernel            not described there; no capture                   -
func TestModelCallSpansInCaptures(t *testing.T) {
	tests := []struct {
		file, span string
		want       bool
	}{
		{"conventions/otel-genai-semconv.json", "chat gpt-4o-mini", true},
		{"conventions/otel-genai-semconv.json", "invoke_agent weather_agent", false},
		{"captures/constructed-mcp.json", "chat gpt-4o-mini", true},
		{"captures/constructed-mcp.json", "tools/list", false},
		{"conventions/openinference-openai-agents.json", "response", true},
		{"conventions/openinference-openai-agents.json", "weather_agent", false},
		{"emitters/langchain-openinference-mock.otlp.jsonl", "FakeToolCallingModel", true},
		{"captures/constructed-langgraph-openinference.json", "ChatOpenAI", true},
		{"captures/constructed-langgraph-openinference.json", "agent", false},
		{"captures/constructed-openinference-smolagents.json", "OpenAIModel.generate", true},
		{"captures/constructed-openinference-smolagents.json", "Step 1", false},
		{"conventions/openllmetry-traceloop-legacy.json", "openai.chat", true},
		{"captures/openllmetry-langchain-mock.otlp.jsonl", "chat mock-model-1", true},
		{"captures/constructed-openllmetry-langchain-python.json", "chat gpt-4o-mini", true},
		{"conventions/vercel-ai-sdk-legacy-ai-spans.json", "ai.generateText.doGenerate", true},
		{"emitters/vercel-ai-v6-mock.otlp.jsonl", "ai.generateText.doGenerate", true},
		{"captures/vercel-ai-v7-otel-mock.otlp.jsonl", "chat mock-model-1", true},
		{"captures/vercel-ai-v7-otel-mock.otlp.jsonl", "step 1", false},
		{"captures/constructed-google-adk-python.json", "call_llm", true},
		{"captures/constructed-google-adk-python.json", "generate_content gemini-2.5-flash", true},
		{"captures/constructed-google-adk-python-2025.json", "call_llm", true},
		{"captures/constructed-google-adk-python-2025.json", "invocation", false},
		{"captures/adk-go-mock.otlp.jsonl", "generate_content mock-model-1", true},
		{"captures/constructed-strands-agents.json", "chat", true},
		{"captures/constructed-strands-agents.json", "execute_event_loop_cycle", false},
		{"captures/constructed-pydantic-ai.json", "chat gpt-4o-mini", true},
		{"captures/constructed-pydantic-ai-v2.json", "chat test", true},
		{"emitters/mastra-otel-mock.otlp.jsonl", "chat mock-model-1", true},
		{"emitters/mastra-otel-mock.otlp.jsonl", "model_generation mock-model-1", false},
		{"emitters/mastra-otel-mock.otlp.jsonl", "agent_step weather-agent", false},
		{"emitters/mastra-otel-mock.otlp.jsonl", "model_chunk weather-agent", false},
		{"captures/constructed-spring-ai.json", "chat gpt-4o-mini", true},
		{"captures/constructed-spring-ai-2.json", "chat gpt-4o-mini", true},
		{"captures/constructed-spring-ai.json", "call", false},
		{"captures/genkit-go-mock.otlp.jsonl", "mock/mock-model-1", true},
		{"captures/genkit-go-mock.otlp.jsonl", "generate", false},
	}
	opts := &Options{SkipTools: DefaultSkipTools()}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.span, func(t *testing.T) {
			seen := 0
			for _, td := range readTraces(t, filepath.Join("..", "..", "testdata", "traces", tt.file)) {
				for _, rs := range td.ResourceSpans().All() {
					for _, ss := range rs.ScopeSpans().All() {
						for _, span := range ss.Spans().All() {
							if span.Name() != tt.span {
								continue
							}
							seen++
							r := Classify(span, ss.Scope(), opts)
							assert.Equal(t, tt.want, r.ModelCall, "span %q", tt.span)
							if tt.want {
								assert.Equal(t, KindOther, r.Kind, "a model call is neither tool nor agent")
							}
						}
					}
				}
			}
			require.NotZero(t, seen, "no span %q in %s", tt.span, tt.file)
		})
	}
}

func TestGenkitResultForm(t *testing.T) {
	for subtype, want := range map[string]ResultForm{"tool.v2": ResultGenkitV2, "tool": ResultPlain} {
		t.Run(subtype, func(t *testing.T) {
			r := classifyOne(t, "genkit-tracer", func(s ptrace.Span) {
				s.SetName("get_weather")
				a := s.Attributes()
				a.PutStr("genkit:type", "action")
				a.PutStr("genkit:metadata:subtype", subtype)
				a.PutStr("genkit:name", "get_weather")
				a.PutStr("genkit:output", `{"output":{"temperature":21}}`)
			})
			require.Equal(t, KindTool, r.Kind)
			assert.Equal(t, want, r.Call.ResultForm, "only tool.v2 actions wrap their output")
		})
	}
}

func TestIsEmptyObject(t *testing.T) {
	for s, want := range map[string]bool{`{}`: true, "{ \t\n\r}": true, `{"a":1}`: false, `{`: false, `{ `: false, "{\v}": false} {
		if got := isEmptyObject(s); got != want {
			t.Errorf("isEmptyObject(%q) = %v, want %v", s, got, want)
		}
	}
}
