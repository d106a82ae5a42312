package trajectory

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// codexCall is a Codex tool span's call: a name and an id, no arguments,
// no outcome (its span says OK).
func codexCall(id, name string) extract.SpanCall {
	return extract.SpanCall{ID: id, Name: name, Convention: extract.ConventionCodex}
}

// The records of three calls of one run: one before its tool span, one
// after it while the run is open, one after the run was scored (late).
// The run takes the first two whichever came first; each record is
// counted once.
func TestCallRecordJoinsItsCallEitherWay(t *testing.T) {
	s := NewStore(recordLimits())
	s.SetMaxPendingRecords(10)
	trace, agent := pcommon.TraceID{1}, pcommon.SpanID{1}
	rejected := CallRecord{ID: "call_rm", Name: "exec_command", Args: `{"cmd":"rm -rf build"}`, Result: "Rejected(...)", Failed: true, Ended: extract.EndRefused}
	assert.True(t, s.CallRecord(trace, pcommon.SpanID{9}, &rejected, 0))
	assert.True(t, s.Tracks(trace), "a record's trace is tracked")
	assert.Equal(t, 1, s.PendingCallRecords())

	s.Tool(trace, pcommon.SpanID{2}, agent, codexCall("call_rm", "exec_command"), 0)
	s.Tool(trace, pcommon.SpanID{3}, agent, codexCall("call_ls", "exec_command"), 0)
	s.Tool(trace, pcommon.SpanID{4}, agent, codexCall("call_none", "exec_command"), 0)
	exit2 := CallRecord{ID: "call_ls", Args: `{"cmd":"ls missing-dir"}`, Result: "Process exited with code 2", Failed: true}
	assert.True(t, s.CallRecord(trace, pcommon.SpanID{8}, &exit2, 0))

	traj := s.Agent(trace, agent, pcommon.SpanID{}, false, 0)
	require.NotNil(t, traj)
	require.Len(t, traj.Calls, 3)
	rm, ls, none := traj.Calls[0], traj.Calls[1], traj.Calls[2]
	assert.Equal(t, `{"cmd":"rm -rf build"}`, rm.Args)
	assert.Equal(t, extract.EncodingJSON, rm.Encoding)
	assert.True(t, rm.Failed)
	assert.Equal(t, extract.EndRefused, rm.Ended)
	assert.Equal(t, RecordTool|RecordLog, rm.Records)
	assert.Equal(t, RecordLog, rm.Failures, "only the record says it failed")
	assert.Equal(t, `{"cmd":"ls missing-dir"}`, ls.Args)
	assert.True(t, ls.Failed)
	assert.Equal(t, extract.EndRan, ls.Ended)
	assert.Equal(t, "Process exited with code 2", ls.Result)
	assert.Empty(t, none.Args, "a call no record names keeps what its span says")
	assert.Equal(t, RecordTool, none.Records)
	assert.Equal(t, 0, s.PendingCallRecords(), "the run took its records")

	late := CallRecord{ID: "call_none", Failed: true}
	assert.False(t, s.CallRecord(trace, agent, &late, 0), "written under the scored run's span")
	assert.Equal(t, RecordStats{Joined: 2, Pending: 2, Late: 1}, s.TakeRecordStats())
}

// Claude Code's span keeps the file path only: the tool_result record's
// whole input replaces it; arguments that do not decode do not.
func TestCallRecordArgumentsReplaceThePartialSpans(t *testing.T) {
	s := NewStore(recordLimits())
	s.SetMaxPendingRecords(10)
	trace, agent := pcommon.TraceID{1}, pcommon.SpanID{1}
	write := extract.SpanCall{ID: "toolu_write", Name: "Write", Args: `{"file_path":"/w/summary.txt"}`, Encoding: extract.EncodingJSON, Convention: extract.ConventionClaudeCode}
	read := extract.SpanCall{ID: "toolu_read", Name: "Read", Args: `{"file_path":"/w/notes.txt"}`, Encoding: extract.EncodingJSON, Convention: extract.ConventionClaudeCode}
	s.Tool(trace, pcommon.SpanID{2}, agent, write, 0)
	s.Tool(trace, pcommon.SpanID{3}, agent, read, 0)
	s.CallRecord(trace, agent, &CallRecord{ID: "toolu_write", Args: `{"file_path":"/w/summary.txt","content":"notes read\n"}`}, 0)
	s.CallRecord(trace, agent, &CallRecord{ID: "toolu_read", Args: `{"file_path":`}, 0)
	traj := s.Agent(trace, agent, pcommon.SpanID{}, false, 0)
	require.Len(t, traj.Calls, 2)
	assert.Equal(t, `{"file_path":"/w/summary.txt","content":"notes read\n"}`, traj.Calls[0].Args)
	assert.Equal(t, `{"file_path":"/w/notes.txt"}`, traj.Calls[1].Args, "a truncated input does not replace the span's")
	assert.False(t, traj.Calls[0].Failed)
}

// A decision and a result of one call make one record: the refusal and the
// arguments both reach the call.
func TestCallRecordsOfOneCallMerge(t *testing.T) {
	s := NewStore(recordLimits())
	s.SetMaxPendingRecords(10)
	trace, agent := pcommon.TraceID{1}, pcommon.SpanID{1}
	s.CallRecord(trace, pcommon.SpanID{7}, &CallRecord{ID: "c", Failed: true, Ended: extract.EndRefused}, 0)
	s.CallRecord(trace, pcommon.SpanID{8}, &CallRecord{ID: "c", Args: `{"cmd":"rm"}`}, 0)
	assert.Equal(t, 1, s.PendingCallRecords())
	s.Tool(trace, pcommon.SpanID{2}, agent, codexCall("c", "exec_command"), 0)
	traj := s.Agent(trace, agent, pcommon.SpanID{}, false, 0)
	require.Len(t, traj.Calls, 1)
	assert.Equal(t, extract.EndRefused, traj.Calls[0].Ended)
	assert.Equal(t, `{"cmd":"rm"}`, traj.Calls[0].Args)
}

// A run of a service that sends call records waits, under
// wait_for_missing, for a record of each call with an id; the last record
// completes it.
func TestRunAwaitsItsCallRecords(t *testing.T) {
	s := NewStore(recordLimits())
	s.SetMaxPendingRecords(10)
	trace, agent := pcommon.TraceID{1}, pcommon.SpanID{1}
	s.Tool(trace, pcommon.SpanID{2}, agent, codexCall("a", "exec_command"), 0)
	s.Tool(trace, pcommon.SpanID{3}, agent, codexCall("b", "exec_command"), 0)
	s.CallRecord(trace, pcommon.SpanID{9}, &CallRecord{ID: "a"}, 0)
	o := AgentOptions{HoldIfMissing: true, CallRecords: true, Alone: true}
	traj, missing := s.AgentOrHold(trace, agent, pcommon.SpanID{}, o, 0)
	assert.Nil(t, traj)
	assert.Equal(t, MissingRecords, missing, "call b has no record yet")

	s.CallRecord(trace, pcommon.SpanID{9}, &CallRecord{ID: "b", Failed: true}, 0)
	var still []Missing
	s.Incomplete(trace, func(_ pcommon.SpanID, m Missing) { still = append(still, m) })
	assert.Equal(t, []Missing{MissingNone}, still)
	traj = s.Release(trace, agent)
	require.NotNil(t, traj)
	require.Len(t, traj.Calls, 2)
	assert.True(t, traj.Calls[1].Failed)

	other := NewStore(recordLimits())
	other.Tool(trace, pcommon.SpanID{2}, agent, codexCall("a", "exec_command"), 0)
	o.CallRecords = false
	traj, missing = other.AgentOrHold(trace, agent, pcommon.SpanID{}, o, 0)
	assert.NotNil(t, traj, "a service not known to send call records is not waited for")
	assert.Equal(t, MissingNone, missing)
}

// The call table is bounded: past MaxPendingRecords the oldest record is
// dropped, counted; the records of a trace dropped go with it, counted.
func TestCallRecordsBounded(t *testing.T) {
	s := NewStore(recordLimits())
	s.SetMaxPendingRecords(3)
	for i := range 5 {
		s.CallRecord(pcommon.TraceID{byte(i + 1)}, pcommon.SpanID{1}, &CallRecord{ID: "x"}, int64(i))
	}
	assert.Equal(t, 3, s.PendingCallRecords())
	assert.Equal(t, int64(2), s.TakeRecordStats().DroppedOverLimit)
	s.Sweep(int64(time.Hour))
	assert.Equal(t, 0, s.PendingCallRecords())
	assert.Equal(t, int64(3), s.TakeRecordStats().DroppedMaxAge)

	none := NewStore(recordLimits())
	assert.False(t, none.CallRecord(pcommon.TraceID{1}, pcommon.SpanID{1}, &CallRecord{ID: "x"}, 0))
	assert.Equal(t, int64(1), none.TakeRecordStats().DroppedOverLimit, "max_pending_records 0 keeps none")
	assert.False(t, none.CallRecord(pcommon.TraceID{1}, pcommon.SpanID{1}, &CallRecord{}, 0), "a record naming no call")
}

// Records removed as their runs take them do not grow the eviction order
// without bound.
func TestCallRecordOrderStaysBounded(t *testing.T) {
	l := recordLimits()
	l.MaxTrackedTraces = 100_000
	s := NewStore(l)
	s.SetMaxPendingRecords(100)
	// A record whose call never comes keeps the table from emptying.
	s.CallRecord(pcommon.TraceID{0xff}, pcommon.SpanID{9}, &CallRecord{ID: "never"}, 0)
	for i := range 10_000 {
		trace := pcommon.TraceID{byte(i), byte(i >> 8), 1}
		s.CallRecord(trace, pcommon.SpanID{9}, &CallRecord{ID: "a"}, 0)
		s.Tool(trace, pcommon.SpanID{2}, pcommon.SpanID{1}, codexCall("a", "exec_command"), 0)
		require.NotNil(t, s.Agent(trace, pcommon.SpanID{1}, pcommon.SpanID{}, false, 0))
	}
	assert.Equal(t, 1, s.PendingCallRecords())
	assert.LessOrEqual(t, len(s.calls.order), 64)
	assert.Equal(t, int64(10_000), s.TakeRecordStats().Joined)
}

// A record that names a call the run does not hold, written under the
// run's span (Claude Code's tool_result) or under a span not seen yet
// (Codex's, under a span below the tool span), holds the run for the
// call's tool span; a record under another run's span does not.
func TestRecordsAwaitTheirCalls(t *testing.T) {
	for _, tt := range []struct {
		name    string
		under   pcommon.SpanID
		missing Missing
	}{
		{"under the run's span", pcommon.SpanID{1}, MissingExecution},
		{"under a span not seen", pcommon.SpanID{9}, MissingExecution},
		{"under another run's span", pcommon.SpanID{5}, MissingNone},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore(recordLimits())
			s.SetMaxPendingRecords(10)
			trace, agent, other := pcommon.TraceID{1}, pcommon.SpanID{1}, pcommon.SpanID{5}
			s.Tool(trace, pcommon.SpanID{6}, other, codexCall("elsewhere", "exec_command"), 0)
			o := AgentOptions{HoldIfMissing: true, Alone: true}
			_, m := s.AgentOrHold(trace, other, pcommon.SpanID{4}, AgentOptions{HoldIfMissing: true, Alone: true, Hold: true}, 0)
			require.Equal(t, MissingNone, m)
			s.CallRecord(trace, agent, &CallRecord{ID: "a"}, 0)
			s.CallRecord(trace, tt.under, &CallRecord{ID: "b", Failed: true}, 0)
			s.Tool(trace, pcommon.SpanID{2}, agent, codexCall("a", "exec_command"), 0)
			traj, missing := s.AgentOrHold(trace, agent, pcommon.SpanID{}, o, 0)
			assert.Equal(t, tt.missing, missing)
			if tt.missing == MissingNone {
				require.NotNil(t, traj)
				return
			}
			assert.Nil(t, traj)
			s.Tool(trace, pcommon.SpanID{3}, agent, codexCall("b", "exec_command"), 0)
			var still []Missing
			s.Incomplete(trace, func(_ pcommon.SpanID, m Missing) { still = append(still, m) })
			assert.Equal(t, []Missing{MissingNone}, still)
			traj = s.Release(trace, agent)
			require.Len(t, traj.Calls, 2)
			assert.True(t, traj.Calls[1].Failed)
		})
	}
}
