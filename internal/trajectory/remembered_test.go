package trajectory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// parsedTurn is a parsed model turn that requested tool.
func parsedTurn(t *testing.T, tool string) *extract.ModelTurn {
	span := ptrace.NewSpan()
	span.Attributes().PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"tool_call","id":"c","name":"`+tool+`","arguments":{}}]}]`)
	turn := new(extract.ModelTurn)
	require.True(t, extract.ReadTurn(span, turn))
	turn.Parse(nil)
	return turn
}

// turnsKept returns the turns the trace keeps.
func turnsKept(s *Store, trace pcommon.TraceID) int {
	ts := s.lookup(trace)
	if ts == nil || !ts.hasExtra {
		return 0
	}
	return len(ts.extra.turns)
}

// TestRememberedTraceKeepsNoTurn: a closed run takes its turns and its
// trace keeps none of them, nor a turn that arrives after the run closed;
// the turns of a run still open in the same trace stay.
//
// agent 1 ← tool 3, turn under 1; agent 5 (nested under 1) ← turn under 5.
func TestRememberedTraceKeepsNoTurn(t *testing.T) {
	s := NewStore(limits())
	s.Tool(trace1, sid(3), sid(1), tool("a"), 0)
	s.Turn(trace1, sid(1), parsedTurn(t, "a"))
	s.Tool(trace1, sid(6), sid(5), tool("b"), 0)
	s.Turn(trace1, sid(5), parsedTurn(t, "b"))
	require.Equal(t, 2, turnsKept(s, trace1))

	inner := s.Agent(trace1, sid(5), sid(1), false, 0)
	require.Len(t, inner.Turns, 1)
	assert.Equal(t, 1, turnsKept(s, trace1), "the open outer run's turn stays")

	s.Turn(trace1, sid(5), parsedTurn(t, "late"))
	assert.Equal(t, 1, turnsKept(s, trace1), "a turn of a closed run is not recorded")

	outer := s.Agent(trace1, sid(1), pcommon.SpanID{}, false, 0)
	require.Len(t, outer.Turns, 1)
	assert.Equal(t, "a", outer.Turns[0].Requested()[0].Name)
	assert.Equal(t, 0, turnsKept(s, trace1), "the remembered trace keeps no turn")
	assert.True(t, s.Tracks(trace1), "the trace is remembered")
}
