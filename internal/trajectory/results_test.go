package trajectory

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// TestCapturedResultsUnwrapped decodes the results the captures recorded,
// as the scorers get them: a wrapper the framework put around the tool's
// return value is removed, so one expected result fits every convention.
// The paris scenario's get_weather returns {"city","unit","temperature"}
// (or a string in some constructed runs) wherever it ran.
func TestCapturedResultsUnwrapped(t *testing.T) {
	const weather = `{"city":"Paris","unit":"celsius","temperature":21}`
	tests := []struct {
		file, span, want string
	}{
		// Google ADK wraps a return value that is not a dict as
		// {"result": x}; a dict is recorded as it is.
		{"captures/constructed-google-adk-python-2025.json", "execute_tool get_weather", `"21C and sunny"`},
		{"captures/constructed-google-adk-python-2025-tool-raised.json", "execute_tool get_weather", `"sunny"`},
		{"captures/constructed-google-adk-python.json", "execute_tool get_weather", weather},
		{"captures/constructed-google-adk-python.json", "execute_tool lookup_stock", `{"error":"unknown symbol ZZZZ"}`},
		{"captures/adk-go-mock.otlp.jsonl", "execute_tool get_weather", weather},
		// Genkit's tool.v2 actions record {"output": x}.
		{"captures/genkit-go-mock.otlp.jsonl", "get_weather", weather},
		{"captures/genkit-go-mock.otlp.jsonl", "lookup_stock", `{"symbol":"ZZZZ","price":123.45}`},
		// Strands records the tool result's content blocks.
		{"captures/constructed-strands-agents.json", "execute_tool get_weather", weather},
		{"captures/constructed-strands-agents.json", "execute_tool lookup_stock", `"Error: unknown symbol ZZZZ"`},
		// LangChain JS tools return a ToolMessage: OpenLLMetry records it
		// serialized, OpenInference inside the run's {"output": …}.
		{"captures/openllmetry-langchain-mock.otlp.jsonl", "execute_tool DynamicStructuredTool", weather},
		{"captures/openllmetry-langchain-mock.otlp.jsonl", "get_weather.tool", weather},
		{"emitters/langchain-openinference-mock.otlp.jsonl", "get_weather", weather},
		// OpenLLMetry Python's LangChain {"output", "kwargs"} wrapper.
		{"captures/constructed-openllmetry-langchain-python.json", "execute_tool get_weather", `"21C and sunny"`},
		// No wrapper: kept as recorded (a quoted string decoded once).
		{"emitters/vercel-ai-v6-mock.otlp.jsonl", "ai.toolCall", weather},
		{"captures/vercel-ai-v7-otel-mock.otlp.jsonl", "execute_tool get_weather", weather},
		{"emitters/mastra-otel-mock.otlp.jsonl", "execute_tool get_weather", weather},
		{"captures/constructed-pydantic-ai.json", "execute_tool get_weather", weather},
		{"captures/constructed-spring-ai-2.json", "execute_tool get_weather", weather},
		{"captures/constructed-mcp.json", "execute_tool get_weather", weather},
		{"captures/constructed-langgraph-openinference.json", "get_weather", `"21C and sunny"`},
		{"conventions/otel-genai-semconv.json", "execute_tool get_current_weather", `"50 degrees and raining"`},
		{"conventions/vercel-ai-sdk-legacy-ai-spans.json", "ai.toolCall", `"50 degrees and raining"`},
		{"conventions/openllmetry-traceloop-legacy.json", "get_current_weather.tool", `"50 degrees and raining"`},
		{"conventions/openinference-openai-agents.json", "get_current_weather", `"50 degrees and raining"`},
	}
	opts := &extract.Options{SkipTools: extract.DefaultSkipTools()}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.span, func(t *testing.T) {
			want, err := jsonv.Parse(tt.want)
			require.NoError(t, err)
			docs, err := otlpjson.ReadFiles(filepath.Join("..", "..", "testdata", "traces", tt.file))
			require.NoError(t, err)
			var got *toolcall.Call
			for _, td := range otlpjson.Traces(docs) {
				for _, rs := range td.ResourceSpans().All() {
					for _, ss := range rs.ScopeSpans().All() {
						for _, span := range ss.Spans().All() {
							if span.Name() != tt.span || got != nil {
								continue
							}
							res := extract.Classify(span, ss.Scope(), opts)
							if res.Kind != extract.KindTool || res.Call.Result == "" {
								continue
							}
							traj := &Trajectory{Calls: []StoredCall{newStoredCall(&res.Call, sid(3), sid(2), res.Call.Name)}}
							got = &ScoringCalls(traj, sid(1), &ScoringOptions{})[0]
						}
					}
				}
			}
			require.NotNil(t, got, "no tool span %q with a result", tt.span)
			assert.True(t, jsonv.Equal(want, got.Result), "%s: want %s, got %s", tt.span, want.JSON(), got.Result.JSON())
		})
	}
}
