package extract

import (
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// within reports whether s's bytes lie in text's.
func within(s, text string) bool {
	if len(s) == 0 || len(text) == 0 {
		return false
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(text)))
	return p >= lo && p < lo+uintptr(len(text))
}

// TestParsedTurnKeepsNoSpanText: once parsed, a turn references no string
// of its span (a stored turn would keep the span's many kilobytes of
// instructions and conversation alive), its outcome texts are cut to
// MaxOutcomeText at a character boundary, and it still answers what the
// store and the witnesses ask.
func TestParsedTurnKeepsNoSpanText(t *testing.T) {
	long := strings.Repeat("é", MaxOutcomeText) // two bytes a character
	span := ptrace.NewSpan()
	a := span.Attributes()
	a.PutStr("gen_ai.input.messages", `[{"role":"system","parts":[{"type":"text","content":"`+strings.Repeat("x", 20_000)+`"}]},`+
		`{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"get_weather","arguments":{"city":"Paris"}}]},`+
		`{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"`+long+`"}]}]`)
	a.PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"tool_call","id":"c2","name":"lookup_stock","arguments":{"symbol":"ZZZZ"}}]}]`)
	var turn ModelTurn
	require.True(t, ReadTurn(span, &turn))
	turn.Parse(nil)

	require.Equal(t, []RequestedCall{{ID: "c2", Name: "lookup_stock", Args: `{"symbol":"ZZZZ"}`}}, turn.Requested())
	require.Equal(t, []RequestedCall{{ID: "c1", Name: "get_weather"}}, turn.History())
	require.True(t, turn.FollowsTools())
	require.Len(t, turn.Outcomes(), 1)
	o := turn.Outcomes()[0]
	require.Equal(t, "c1", o.ID)
	require.Equal(t, long[:MaxOutcomeText], o.Result)

	in, _ := a.Get("gen_ai.input.messages")
	out, _ := a.Get("gen_ai.output.messages")
	var kept []string
	for _, c := range turn.Requested() {
		kept = append(kept, c.ID, c.Name, c.Args)
	}
	for _, c := range turn.History() {
		kept = append(kept, c.ID, c.Name, c.Args)
	}
	for _, o := range turn.Outcomes() {
		kept = append(kept, o.ID, o.Name, o.Result)
	}
	for _, s := range kept {
		require.False(t, within(s, in.Str()) || within(s, out.Str()), "%q references the span's text", s)
	}
	require.Empty(t, turn.input)
	require.Empty(t, turn.output)
}

// TestCutText cuts at a character boundary, never past n bytes.
func TestCutText(t *testing.T) {
	require.Equal(t, "ab", cutText("ab", 3))
	require.Equal(t, "a", cutText("aé", 2))
	require.Equal(t, "aé", cutText("aéb", 3))
}

// TestParseTurnsSharesNothingBetweenTurns: the turns of every capture
// parsed together with one parser (as a batch's are) read exactly what each
// read alone does: the parser's reused memory carries nothing from one
// turn into another.
func TestParseTurnsSharesNothingBetweenTurns(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "traces", "*", "*.json*"))
	require.NoError(t, err)
	var together, alone []ModelTurn
	for _, f := range files {
		for _, td := range readTraces(t, f) {
			for _, rs := range td.ResourceSpans().All() {
				for _, ss := range rs.ScopeSpans().All() {
					for _, span := range ss.Spans().All() {
						var turn ModelTurn
						if ReadTurn(span, &turn) {
							together = append(together, turn)
							alone = append(alone, turn)
						}
					}
				}
			}
		}
	}
	require.Greater(t, len(together), 50)
	// Two batches with one parser, as the processor's pooled batch parses
	// them.
	var p TurnParser
	ParseTurns(together[:len(together)/2], &p)
	ParseTurns(together[len(together)/2:], &p)
	for i := range alone {
		alone[i].Parse(nil)
		require.Equal(t, alone[i].Requested(), together[i].Requested(), "turn %d", i)
		require.Equal(t, alone[i].History(), together[i].History(), "turn %d", i)
		require.Equal(t, alone[i].Outcomes(), together[i].Outcomes(), "turn %d", i)
		require.Equal(t, alone[i].FollowsTools(), together[i].FollowsTools(), "turn %d", i)
	}
}

// TestRecordJoinsAParsedTurn: a log record that gives a parsed turn its
// request (the span recorded only the response) is read, and what the turn
// read of the response stays: the turn has no text left to read it again.
func TestRecordJoinsAParsedTurn(t *testing.T) {
	span := ptrace.NewSpan()
	span.Attributes().PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"tool_call","id":"c2","name":"lookup_stock","arguments":{"symbol":"ZZZZ"}}]}]`)
	var turn ModelTurn
	require.True(t, ReadTurn(span, &turn))
	turn.Parse(nil)
	require.True(t, turn.AddWitness(&TurnWitness{Input: `[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"get_weather","arguments":{}}]},` +
		`{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"sunny"}]}]`}))
	require.Equal(t, []RequestedCall{{ID: "c2", Name: "lookup_stock", Args: `{"symbol":"ZZZZ"}`}}, turn.Requested())
	require.Equal(t, []RequestedCall{{ID: "c1", Name: "get_weather"}}, turn.History())
	require.Equal(t, []Outcome{{ID: "c1", Result: "sunny"}}, turn.Outcomes())
	require.True(t, turn.FollowsTools())
}
