package extract

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestAnthropicToolResultFailures: an Anthropic tool_result block marked
// is_error fails its call wherever the request is recorded, even when its
// text does not look like an error: in the raw request JSON beside
// flattened messages (OpenInference), where the flattened message (role
// user, a tool_call_id) gives the result without the flag; and as a part
// of semconv messages.
func TestAnthropicToolResultFailures(t *testing.T) {
	raw := ptrace.NewSpan()
	a := raw.Attributes()
	a.PutStr("openinference.span.kind", "LLM")
	a.PutStr("input.value", `{"model":"m","messages":[{"role":"user","content":[`+
		`{"type":"tool_result","tool_use_id":"toolu_1","content":"21 degrees"},`+
		`{"type":"tool_result","tool_use_id":"toolu_2","content":"no such symbol","is_error":true}]}]}`)
	a.PutStr("llm.input_messages.0.message.role", "user")
	a.PutStr("llm.input_messages.0.message.tool_call_id", "toolu_2")
	a.PutStr("llm.input_messages.0.message.content", "no such symbol")
	var turn ModelTurn
	require.True(t, ReadTurn(raw, &turn))
	assert.Equal(t, []Outcome{
		{ID: "toolu_2", Result: "no such symbol", Failed: true},
		{ID: "toolu_1", Result: "21 degrees"},
	}, turn.Outcomes())

	semconv := ptrace.NewSpan()
	semconv.Attributes().PutStr("gen_ai.operation.name", "chat")
	semconv.Attributes().PutStr("gen_ai.input.messages", `[{"role":"user","parts":[`+
		`{"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"no such symbol"}],"is_error":true}]}]`)
	turn = ModelTurn{}
	require.True(t, ReadTurn(semconv, &turn))
	require.Len(t, turn.Outcomes(), 1)
	assert.True(t, turn.Outcomes()[0].Failed)
	assert.Equal(t, "toolu_2", turn.Outcomes()[0].ID)
}

// TestBlocksInTextParts: Anthropic blocks a GenAI text part holds as JSON
// text are read whether the text starts with '[' as written or as an
// escape (\u005b), in the request's history and its results; other text
// parts (a user's message that starts otherwise, escaped or not) hold none,
// and a request whose last message holds tool_result blocks in text does
// not end with GenAI tool results.
func TestBlocksInTextParts(t *testing.T) {
	span := ptrace.NewSpan()
	span.Attributes().PutStr("gen_ai.operation.name", "chat")
	span.Attributes().PutStr("gen_ai.input.messages", `[`+
		`{"role":"user","parts":[{"type":"text","content":"\"Quoted\" question [1]"},{"type":"text","content":"plain [{\"type\":\"tool_use\"}]"}]},`+
		`{"role":"assistant","parts":[{"type":"text","content":"[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"get_weather\",\"input\":{\"city\":\"Paris\"}}]"},`+
		`{"type":"text","content":"\u005b{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"lookup_stock\",\"input\":{}}]"}]},`+
		`{"role":"user","parts":[{"type":"text","content":"[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"18 C\"}]"},`+
		`{"type":"text","content":"\u005b{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"content\":\"no such symbol\",\"is_error\":true}]"}]}]`)
	var turn ModelTurn
	require.True(t, ReadTurn(span, &turn))
	assert.Equal(t, []RequestedCall{{ID: "t1", Name: "get_weather"}, {ID: "t2", Name: "lookup_stock"}}, turn.History())
	assert.Equal(t, []Outcome{{ID: "t1", Result: "18 C"}, {ID: "t2", Result: "no such symbol", Failed: true}}, turn.Outcomes())
	assert.False(t, turn.FollowsTools())
}
