package extract

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// genaiSeeds are GenAI messages texts of the forms the index readers take
// apart: tool calls and results with ids and call ids, Gemini's
// functionCall, Anthropic blocks as parts and as a text part's JSON,
// escapes, numbers where strings belong, an object holding the list.
var genaiSeeds = []string{
	`[{"role":"user","parts":[{"type":"text","content":"What is the weather in Paris?"}]},` +
		`{"role":"assistant","parts":[{"type":"text","content":"Let me look."},{"type":"tool_call","id":"call_w1","name":"get_weather","arguments":{"city":"Paris"}}],"finish_reason":"tool_call"},` +
		`{"role":"tool","parts":[{"type":"tool_call_response","id":"call_w1","response":{"temperature_c":18}}]}]`,
	`[{"role":"assistant","parts":[{"type":"tool_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}]},` +
		`{"role":"tool","parts":[{"type":"tool_call_response","call_id":"call_1","response":"Error: no such city"}]}]`,
	`{"messages":[{"role":"model","parts":[{"functionCall":{"name":"read_file","args":{"path":"a.go"}}},{"type":"tool_call","name":7,"id":12}]}]}`,
	`[{"role":"assistant","parts":[{"type":"tool_use","id":"toolu_1","name":"search","input":{"q":"x"}}]},` +
		`{"role":"user","parts":[{"type":"tool_result","tool_use_id":"toolu_1","content":"boom","is_error":true}]}]`,
	`[{"role":"assistant","parts":[{"type":"text","content":"[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"ls\",\"input\":{}}]"}]},` +
		`{"role":"user","parts":[{"type":"text","content":"[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"ok\"}]"}]}]`,
	`[{"role":"tool","parts":[{"type":"tool_call_response","id":"c\u0031","response":{"error":null}}]},{"role":"tool","parts":[]}]`,
	`[{"role":"assistant","parts":[{"type":"tool_call","id":"a","name":"n","arguments":{"x":1}}]},"x",{"parts":{}},{"role":"tool"}]`,
	`[{"role":"assistant","parts":[{"type":"tool_call","id":"a","name":"n","arguments":{"x":1,"x":2}}]}]`,
	`[{"ro\u006ce":"tool","parts":[{"type":"tool_call_response","id":"a","response":{"ok": true}}]}]`,
	`[{"role":"to\u006fl","parts":[]}]`, `[{"role":"tool"}]`, `[{"role":"user","parts":[{"type":"text","content":"Use the tools: \"tool\" tools_call"}]}]`,
	`[]`, `{}`, `"text"`, `[{"role":"assistant","parts":[{"type":"text","content":"[1,2]"}]}]`,
}

// TestIndexedGenAIReadersAgree holds the index readers of a GenAI turn to
// the jnode readers they stand for, on the seeds.
func TestIndexedGenAIReadersAgree(t *testing.T) {
	for _, s := range genaiSeeds {
		requireGenAIReadersAgree(t, s)
	}
}

// FuzzIndexedGenAIReaders holds the index readers of a GenAI turn to the
// jnode readers they stand for, on any text.
func FuzzIndexedGenAIReaders(f *testing.F) {
	for _, s := range genaiSeeds {
		f.Add(s)
	}
	f.Fuzz(requireGenAIReadersAgree)
}

// requireGenAIReadersAgree reads s as a GenAI response and as a request
// with the index readers and with the jnode readers, and requires the same
// calls, history (but its arguments, which no turn keeps and the index
// reader does not read), outcomes and followsTools; and that the jnode
// readers read nothing of a text genaiNamesTools does not take.
func requireGenAIReadersAgree(t *testing.T, s string) {
	var dp jsonv.DocumentParser
	d, err := dp.Parse(s)
	if err != nil {
		return
	}
	root := rootNode(&d)
	calls := appendCalls(nil, formGenAI, root, false)
	var want ModelTurn
	want.readGenAIRequest(root)
	if !genaiNamesTools(s) {
		require.Empty(t, calls, "response %s", s)
		require.Empty(t, want.history, "history %s", s)
		require.Empty(t, want.outcomes, "outcomes %s", s)
		require.False(t, want.followsTools, "followsTools %s", s)
	}
	if root.d == nil {
		return // a tree: read by the jnode readers only
	}
	require.Equal(t, calls, appendIndexedGenAICalls(nil, root), "response %s", s)
	var got ModelTurn
	got.readIndexedGenAIRequest(root)
	for _, h := range [][]RequestedCall{want.history, got.history} {
		for i := range h {
			h[i].Args = ""
		}
	}
	require.Equal(t, want.history, got.history, "history %s", s)
	require.Equal(t, want.outcomes, got.outcomes, "outcomes %s", s)
	require.Equal(t, want.followsTools, got.followsTools, "followsTools %s", s)
}

// TestTurnNamingNoToolsIsNotParsed checks that a GenAI turn whose texts
// name no tool (a run's first request, its answer) is not indexed: parsing
// it with a fresh parser allocates nothing, where a turn that requests a
// call indexes its response.
func TestTurnNamingNoToolsIsNotParsed(t *testing.T) {
	user := `[{"role":"user","parts":[{"type":"text","content":"` + strings.Repeat("Use the tools to answer; say when a tool failed. ", 100) + `"}]}]`
	answer := `[{"role":"assistant","parts":[{"type":"text","content":"It is 18 °C in Paris."}],"finish_reason":"stop"}]`
	call := `[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"get_weather","arguments":{"city":"Paris"}}]}]`
	allocs := func(output string) float64 {
		span := ptrace.NewSpan()
		span.Attributes().PutStr("gen_ai.operation.name", "chat")
		span.Attributes().PutStr("gen_ai.input.messages", user)
		span.Attributes().PutStr("gen_ai.output.messages", output)
		var turn ModelTurn
		var p TurnParser
		return testing.AllocsPerRun(20, func() {
			ReadTurn(span, &turn)
			p = TurnParser{} // no memory of an earlier parse
			turn.Parse(&p)
		})
	}
	require.Zero(t, allocs(answer))
	require.NotZero(t, allocs(call))
}
