package trajectory

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/memtest"
)

func recordLimits() Limits {
	return Limits{MaxOpenTrajectories: 100, MaxCallsPerTrajectory: 16, MaxAge: time.Minute, MaxTrackedTraces: 100}
}

// choice is what a gen_ai.choice record witnesses: one requested call.
func choice(id string) *extract.TurnWitness {
	return &extract.TurnWitness{Requested: []extract.RequestedCall{{ID: id, Name: "get_weather", Args: `{"city":"Paris","unit":"celsius"}`}}, FinishTools: true, Response: true}
}

// A record that arrives before its span waits, and joins the turn the span
// makes; one after the span joins at once; one after its run was scored is
// late. Each is counted once.
func TestRecordJoinsItsTurnEitherWay(t *testing.T) {
	s := NewStore(recordLimits())
	s.SetMaxPendingRecords(10)
	trace, root, before, after := pcommon.TraceID{1}, pcommon.SpanID{1}, pcommon.SpanID{2}, pcommon.SpanID{3}
	assert.False(t, s.Record(trace, before, choice("a"), nil, 1, 0))
	assert.Equal(t, 1, s.PendingRecords())
	assert.True(t, s.Tracks(trace), "a record's trace is tracked")

	turn := s.ModelSpanRecords(trace, before, root, nil, 10, 20, false, 0)
	require.NotNil(t, turn)
	s.Turn(trace, root, turn)
	assert.Equal(t, "a", turn.Requested()[0].ID)
	assert.Equal(t, 0, s.PendingRecords())

	turn2 := s.ModelSpanRecords(trace, after, root, nil, 30, 40, true, 0)
	s.Turn(trace, root, turn2)
	o := AgentOptions{HoldIfMissing: true, Records: true}
	traj, missing := s.RootOrHold(trace, root, true, o, 0)
	assert.Nil(t, traj)
	assert.Equal(t, MissingRecords, missing, "the second model call has no record yet")

	assert.True(t, s.Record(trace, after, &extract.TurnWitness{Response: true, Outcomes: []extract.Outcome{{ID: "a", Result: "sunny"}}, InputMessage: true, ToolMessage: true}, nil, 35, 0))
	var still []Missing
	s.Incomplete(trace, func(_ pcommon.SpanID, m Missing) { still = append(still, m) })
	assert.Equal(t, []Missing{MissingNone}, still)
	traj = s.Release(trace, root)
	require.NotNil(t, traj)
	assert.Len(t, traj.Turns, 2)

	assert.False(t, s.Record(trace, after, choice("b"), nil, 50, 0), "the run was scored")
	st := s.TakeRecordStats()
	assert.Equal(t, RecordStats{Joined: 2, Pending: 1, Late: 1}, st)
}

// The pending table is bounded: the oldest records go first, counted; and
// records whose span never comes are dropped at MaxAge, counted.
func TestPendingRecordsBounded(t *testing.T) {
	s := NewStore(recordLimits())
	s.SetMaxPendingRecords(3)
	for i := range 5 {
		s.Record(pcommon.TraceID{byte(i + 1)}, pcommon.SpanID{1}, choice("x"), nil, 1, int64(i))
	}
	assert.Equal(t, 3, s.PendingRecords())
	assert.Equal(t, int64(2), s.TakeRecordStats().DroppedOverLimit)
	s.Sweep(int64(time.Hour))
	assert.Equal(t, 0, s.PendingRecords())
	assert.Equal(t, int64(3), s.TakeRecordStats().DroppedMaxAge)

	none := NewStore(recordLimits())
	none.Record(pcommon.TraceID{1}, pcommon.SpanID{1}, choice("x"), nil, 1, 0)
	assert.Equal(t, 0, none.PendingRecords(), "max_pending_records 0 keeps none")
	assert.Equal(t, int64(1), none.TakeRecordStats().DroppedOverLimit)
}

// BenchmarkPendingRecordBytes is the heap a record waiting for its span
// keeps, per record: a gen_ai.choice with one call, a tool message, each
// in a trace of its own (the worst case: the trace's state counts).
func BenchmarkPendingRecordBytes(b *testing.B) {
	const n = 10_000
	kinds := []struct {
		name string
		w    *extract.TurnWitness
	}{
		{"gen_ai.choice", choice("call_weather_paris")},
		{"gen_ai.tool.message", &extract.TurnWitness{Outcomes: []extract.Outcome{{ID: "call_stock_zzzz", Result: "error: unknown symbol ZZZZ", Failed: true}}, InputMessage: true, ToolMessage: true}},
	}
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				l := recordLimits()
				l.MaxTrackedTraces = n
				s := NewStore(l)
				s.SetMaxPendingRecords(n)
				retained := memtest.RetainedBytes(func() {
					for i := range n {
						var trace pcommon.TraceID
						copy(trace[:], fmt.Sprintf("%016d", i))
						s.Record(trace, pcommon.SpanID{1}, k.w, nil, 1, 0)
					}
				})
				b.ReportMetric(float64(retained)/n, "B/record")
				runtime.KeepAlive(s)
			}
		})
	}
}
