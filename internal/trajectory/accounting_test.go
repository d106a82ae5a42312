package trajectory

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// requireAccounting checks the store's open counts against a recount: every
// trace's count and its span table's are the groups and held agents its
// nodes hold, and the store's is their sum.
func requireAccounting(t testing.TB, s *Store, msg string) {
	t.Helper()
	total, held, incomplete, heldGroups := 0, 0, 0, 0
	for id, ts := range s.traces.All() {
		runs, inc, hd := int32(0), int32(0), int32(0)
		for n := range ts.nodes.all() {
			runs += isRun(n)
			if n.kind == nodeHeld {
				held++
				hd++
				if n.incomplete {
					inc++
				}
			}
		}
		if ts.open != runs || ts.nodes.runs != runs {
			t.Fatalf("%s: trace %v counts %d open runs (span table %d), holds %d", msg, id, ts.open, ts.nodes.runs, runs)
		}
		requireStrayShortcut(t, ts, msg)
		if ts.incomplete != inc {
			t.Fatalf("%s: trace %v counts %d runs held incomplete, holds %d", msg, id, ts.incomplete, inc)
		}
		if ts.held != hd {
			t.Fatalf("%s: trace %v counts %d held runs, holds %d", msg, id, ts.held, hd)
		}
		if hd > 0 {
			heldGroups += int(runs - hd)
		}
		total += int(runs)
		incomplete += int(inc)
	}
	requireCallTable(t, s, msg)
	if s.Open() != total || s.Held() != held || s.incomplete != incomplete || s.heldGroups != heldGroups {
		t.Fatalf("%s: the store counts %d open runs, %d held, %d incomplete, %d groups of held traces; its traces hold %d, %d, %d, %d",
			msg, s.Open(), s.Held(), s.incomplete, s.heldGroups, total, held, incomplete, heldGroups)
	}
}

// requireStrayShortcut checks strayInside's shortcut on every span of the
// trace (and one it has not seen): where the span table counts no run but
// the span's own, no open group holds a call, at any time.
func requireStrayShortcut(t testing.TB, ts *traceState, msg string) {
	t.Helper()
	check := func(span pcommon.SpanID, n *node) {
		if ts.nodes.runs <= isRun(n) && strayGroup(ts, span, n, 0, 0) {
			t.Fatalf("%s: trace %v: the span table counts %d runs, span %v's own %d, and another group holds a call", msg, ts.id, ts.nodes.runs, span, isRun(n))
		}
	}
	ts.nodes.each(func(id pcommon.SpanID, n *node) bool {
		check(id, n)
		return true
	})
	check(pcommon.SpanID{0xff, 0xfe}, nil)
}

// requireCallTable checks the call table against a recount: each trace's
// list names exactly its records waiting, of a trace the store tracks, and
// the table holds no more than its bound.
func requireCallTable(t testing.TB, s *Store, msg string) {
	t.Helper()
	c := &s.calls
	listed := 0
	for trace, ids := range c.byTrace {
		if len(ids) == 0 {
			t.Fatalf("%s: trace %v lists no call record", msg, trace)
		}
		if s.traces.Get(trace) == nil {
			t.Fatalf("%s: call records of trace %v, which the store does not track", msg, trace)
		}
		for _, id := range ids {
			if c.entries[callRecordKey{trace, id}] == nil {
				t.Fatalf("%s: trace %v lists call %q, which waits for nothing", msg, trace, id)
			}
		}
		listed += len(ids)
	}
	if listed != len(c.entries) || len(c.entries) > max(s.records.max, 0) {
		t.Fatalf("%s: %d call records waiting, %d listed by trace, bound %d", msg, len(c.entries), listed, s.records.max)
	}
}

// TestAgentWhoseParentLoopsBack: an agent span whose parent resolves through
// links back to the agent span itself (looping span ids) is not nested in
// its own run. Closing it, held or not, leaves no run open behind, and the
// run counts no sub-agent.
func TestAgentWhoseParentLoopsBack(t *testing.T) {
	for _, tt := range []struct {
		name  string
		calls []string
	}{
		{"no calls", nil},
		{"with calls", []string{"a"}},
	} {
		for _, hold := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, held %v", tt.name, hold), func(t *testing.T) {
				s := NewStore(limits())
				for i, name := range tt.calls {
					s.Tool(trace1, sid(byte(3+i)), sid(1), tool(name), 0)
				}
				s.Link(trace1, sid(2), sid(1), true, 0) // step 2 under agent 1,
				traj := s.Agent(trace1, sid(1), sid(2), hold, 0)
				if hold { // agent 1 under step 2
					assert.Equal(t, 1, s.Open(), "the held run")
					requireAccounting(t, s, "held")
					traj = s.Release(trace1, sid(1))
				}
				require.NotNil(t, traj)
				assert.Equal(t, tt.calls, names(traj))
				assert.Zero(t, traj.SubAgents, "a run is not its own sub-agent")
				assert.Equal(t, 0, s.Open())
				requireAccounting(t, s, "closed")
			})
		}
	}
}

// TestSubAgentMarkDoesNotEvictTheClosingRun: an agent span whose parent
// was not seen opens a group there to count it as a sub-agent; at
// max_open_trajectories the limit evicts the oldest group, never the
// agent's own run, which is closing; and a held run does not count against
// the limit (held runs have their own).
func TestSubAgentMarkDoesNotEvictTheClosingRun(t *testing.T) {
	l := limits()
	l.MaxOpenTrajectories = 1
	s := NewStore(l)
	s.Tool(trace1, sid(3), sid(1), tool("a"), 0)       // run 1's group
	s.Agent(trace2, sid(1), pcommon.SpanID{}, true, 0) // a held run: not counted
	traj := s.Agent(trace1, sid(1), sid(2), false, 0)  // run 1, under span 2 not seen yet
	assert.Equal(t, []string{"a"}, names(traj))
	requireAccounting(t, s, "after the run closed")
	assert.Equal(t, 2, s.Open(), "the held run and span 2's group")
	assert.Zero(t, s.TakeStats().Evicted[EvictMaxOpen], "the held run does not count against the limit")
	s.Tool(trace2, sid(5), sid(4), tool("b"), 0) // a group of the held run's trace: not counted either
	assert.Zero(t, s.TakeStats().Evicted[EvictMaxOpen])
	s.Tool(pcommon.TraceID{3}, sid(5), sid(4), tool("c"), 0) // a second group: span 2's, the oldest, goes
	assert.Equal(t, int64(1), s.TakeStats().Evicted[EvictMaxOpen])
	requireAccounting(t, s, "after the eviction")
}

// storeOps replays store operations on s while more reports true, drawn
// from pick (which returns a number in [0, n)), with few trace and span ids
// so that they repeat and loop, and checks the open counts after each. It
// ends by releasing every held run and shutting the store down: nothing may
// stay open.
func storeOps(t testing.TB, s *Store, more func() bool, pick func(n int) int) {
	var held [][2]byte
	s.SetMaxPendingRecords(pick(4))
	for op := 0; more(); op++ {
		tr := pcommon.TraceID{byte(1 + pick(3))}
		span, parent := sid(byte(1+pick(8))), sid(byte(pick(9))) // parent 0: none
		now := int64(op)
		switch pick(11) {
		case 0, 1, 2:
			c := tool("t")
			c.ID = []string{"", "a", "b"}[pick(3)]
			s.Tool(tr, span, parent, c, now)
		case 10:
			s.CallRecord(tr, span, &CallRecord{ID: []string{"", "a", "b"}[pick(3)], Failed: pick(2) == 0}, now)
		case 3:
			s.Link(tr, span, parent, pick(2) == 0, now)
		case 4:
			s.LocalRoot(tr, span, pick(2) == 0, now)
		case 5:
			hold := pick(3) == 0
			s.Agent(tr, span, parent, hold, now)
			if hold {
				held = append(held, [2]byte{tr[0], span[0]})
			}
		case 6:
			if len(held) > 0 {
				h := held[pick(len(held))]
				s.Release(pcommon.TraceID{h[0]}, sid(h[1]))
			}
		case 7:
			s.AttachContext(tr, span, &extract.ContextPart{Request: "req"}, pick(2) == 0, now)
		case 8:
			s.ModelCall(tr, parent, uint64(op))
		case 9:
			s.Sweep(now)
		}
		requireAccounting(t, s, "after an operation")
	}
	for _, h := range held {
		s.Release(pcommon.TraceID{h[0]}, sid(h[1]))
	}
	requireAccounting(t, s, "after releasing every held run")
	s.Shutdown()
	require.Zero(t, s.Open(), "open runs after shutdown")
}

// accountingLimits are small limits, so that runs are evicted for every
// reason: pick chooses among them.
func accountingLimits(pick func(n int) int) Limits {
	return Limits{
		MaxOpenTrajectories:   []int{0, 1, 3}[pick(3)],
		MaxCallsPerTrajectory: 3,
		MaxAge:                []time.Duration{0, 5, 50}[pick(3)],
		MaxTrackedTraces:      []int{0, 2}[pick(2)],
		MaxSpansPerTrace:      []int{0, 4, 9}[pick(3)],
		MaxContextBytes:       8,
	}
}

// TestOpenCountsSurviveHostileSpans replays random span sequences with
// repeating and looping ids: whatever arrives, the open counts are the runs
// actually open.
func TestOpenCountsSurviveHostileSpans(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		ops := 200
		more := func() bool { ops--; return ops >= 0 }
		storeOps(t, NewStore(accountingLimits(r.IntN)), more, r.IntN)
	}
}

// FuzzStoreAccounting replays the operations bytes spell (see storeOps) and
// checks the open counts after each.
func FuzzStoreAccounting(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0})
	f.Add([]byte{1, 1, 1, 1, 0, 3, 1, 1, 1, 5, 1, 0, 1, 1, 2, 5, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		pick := func(n int) int {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return int(b) % n
		}
		more := func() bool { return len(data) > 0 }
		storeOps(t, NewStore(accountingLimits(pick)), more, pick)
	})
}
