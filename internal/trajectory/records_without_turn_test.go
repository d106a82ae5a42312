package trajectory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Records that name the run's own agent span (Gemini CLI's response events,
// written under user_prompt) do not hold the run: they are settled, counted
// late, when the span makes no turn. When the agent span is a model call
// too, they wait for its turn, which takes them as the span's records.
func TestRecordsOfTheAgentSpan(t *testing.T) {
	for _, modelCall := range []bool{false, true} {
		s := NewStore(recordLimits())
		s.SetMaxPendingRecords(10)
		trace, agent := pcommon.TraceID{1}, pcommon.SpanID{1}
		s.Record(trace, agent, choice("a"), nil, 1, 0)
		o := AgentOptions{HoldIfMissing: true, Records: true, Alone: true, ModelCall: modelCall}
		_, missing := s.AgentOrHold(trace, agent, pcommon.SpanID{}, o, 0)
		if !modelCall {
			assert.Equal(t, MissingNone, missing, "nothing to wait for: its span makes no turn")
			assert.Equal(t, 0, s.PendingRecords())
			assert.Equal(t, RecordStats{Pending: 1, Late: 1}, s.TakeRecordStats())
			continue
		}
		assert.Equal(t, 1, s.PendingRecords(), "kept for the span's turn")
		turn := s.ModelSpanRecords(trace, agent, pcommon.SpanID{}, nil, 1, 2, true, 0)
		require.NotNil(t, turn)
		assert.Equal(t, "a", turn.Requested()[0].ID)
		assert.Equal(t, RecordStats{Pending: 1, Joined: 1}, s.TakeRecordStats())
	}
}
