package extract

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// logRecord builds a log record named by its event.name attribute, with a
// body decoded from JSON (nil for none) and string attributes.
func logRecord(t testing.TB, name, body string, attrs map[string]string) plog.LogRecord {
	lr := plog.NewLogRecord()
	if name != "" {
		lr.Attributes().PutStr("event.name", name)
	}
	for k, v := range attrs {
		lr.Attributes().PutStr(k, v)
	}
	if body != "" {
		var v any
		require.NoError(t, json.Unmarshal([]byte(body), &v))
		require.NoError(t, lr.Body().FromRaw(v))
	}
	lr.SetTraceID(pcommon.TraceID{1})
	lr.SetSpanID(pcommon.SpanID{2})
	return lr
}

func readLog(t testing.TB, lr plog.LogRecord) (Witness, bool) {
	var r Record
	var w Witness
	if !LogRecordOf(lr, pcommon.NewMap(), &r) {
		return w, false
	}
	return w, ReadRecord(&r, &w)
}

// The per-message events of the OTel contrib OpenAI instrumentation, as
// its capture has them.
func TestSemconvMessageRecords(t *testing.T) {
	w, ok := readLog(t, logRecord(t, "gen_ai.choice", `{"finish_reason":"tool_calls","index":0,"message":{"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}}`, nil))
	require.True(t, ok)
	assert.Equal(t, []RequestedCall{{ID: "call_1", Name: "get_weather", Args: `{"city":"Paris"}`}}, w.Turn.Requested)
	assert.True(t, w.Turn.FinishTools)
	assert.True(t, w.Turn.Response)
	assert.Equal(t, pcommon.SpanID{2}, w.SpanID)

	w, ok = readLog(t, logRecord(t, "gen_ai.tool.message", `{"id":"call_1","content":"error: unknown tool book_flight"}`, nil))
	require.True(t, ok)
	assert.Equal(t, []Outcome{{ID: "call_1", Result: "error: unknown tool book_flight", Failed: true}}, w.Turn.Outcomes)
	assert.True(t, w.Turn.ToolMessage)

	w, ok = readLog(t, logRecord(t, "gen_ai.assistant.message", `{"tool_calls":[{"id":"call_0","type":"function","function":{"name":"lookup_stock","arguments":"{}"}}]}`, nil))
	require.True(t, ok)
	assert.Len(t, w.Turn.History, 1)
	assert.Empty(t, w.Turn.Requested)

	w, ok = readLog(t, logRecord(t, "gen_ai.user.message", `{"content":"What is the weather in Paris?"}`, map[string]string{"gen_ai.conversation.id": "conv-7"}))
	require.True(t, ok)
	assert.Equal(t, "What is the weather in Paris?", w.Request)
	assert.Equal(t, "conv-7", w.RunIDs.Conversation)
}

// A record of another kind, or none, witnesses nothing.
func TestOtherRecordsWitnessNothing(t *testing.T) {
	for _, lr := range []plog.LogRecord{
		logRecord(t, "", `{"msg":"GET /health"}`, map[string]string{"http.route": "/health"}),
		logRecord(t, "app.started", "", nil),
	} {
		_, ok := readLog(t, lr)
		assert.False(t, ok)
	}
}

// The inference event as its own record: a turn made of it reads its
// calls and outcomes as the span attributes of the same name would.
func TestInferenceDetailsRecord(t *testing.T) {
	w, ok := readLog(t, logRecord(t, "gen_ai.client.inference.operation.details", "", map[string]string{
		"gen_ai.output.messages": `[{"role":"assistant","parts":[{"type":"tool_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}]}]`,
		"gen_ai.input.messages":  `[{"role":"user","parts":[{"type":"text","content":"hi"}]},{"role":"tool","parts":[{"type":"tool_call_response","call_id":"call_0","response":"error: boom"}]}]`,
	}))
	require.True(t, ok)
	var turn ModelTurn
	require.True(t, turn.AddWitness(&w.Turn))
	assert.Equal(t, []RequestedCall{{ID: "call_1", Name: "get_weather", Args: `{"city":"Paris"}`}}, turn.Requested())
	assert.Equal(t, []Outcome{{ID: "call_0", Result: "error: boom", Failed: true}}, turn.Outcomes())
	assert.True(t, turn.FollowsTools())
	assert.False(t, turn.AwaitsRecords(nil))
}

// FuzzRecordReaders feeds every registered reader hostile bodies and
// attributes, and reads the turn made of what it witnessed: nothing
// panics.
func FuzzRecordReaders(f *testing.F) {
	f.Add(uint8(0), `{"message":{"tool_calls":[{"id":"a","function":{"name":"x","arguments":"{"}}]}}`, `[{"role":"tool","parts":[{"type":"tool_call_response"}]}]`)
	f.Add(uint8(1), `{"id":7,"content":{"error":"x"}}`, `not json`)
	f.Add(uint8(2), `[1,2,{"tool_calls":"nope"}]`, `{"messages":[{"parts":[{"type":"tool_call","name":1}]}]}`)
	f.Add(uint8(3), `"just a string"`, `[[[[[[[[]]]]]]]]`)
	names := RecordNames()
	f.Fuzz(func(t *testing.T, which uint8, body, text string) {
		name := names[int(which)%len(names)]
		lr := plog.NewLogRecord()
		lr.SetEventName(name)
		var v any
		if json.Unmarshal([]byte(body), &v) == nil {
			_ = lr.Body().FromRaw(v)
		} else {
			lr.Body().SetStr(body)
		}
		for _, k := range []string{"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.definitions", "gen_ai.response.finish_reasons", "content", "tool_calls"} {
			lr.Attributes().PutStr(k, text)
		}
		w, ok := readLog(t, lr)
		if !ok {
			return
		}
		var turn ModelTurn
		turn.AddWitness(&w.Turn)
		turn.AddWitness(&w.Turn)
		_ = turn.Requested()
		_ = turn.Outcomes()
		_ = turn.AwaitsRecords(&turn)
	})
}
