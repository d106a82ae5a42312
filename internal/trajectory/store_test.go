package trajectory

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

var (
	trace1 = pcommon.TraceID{1}
	trace2 = pcommon.TraceID{2}
)

func sid(n byte) pcommon.SpanID { return pcommon.SpanID{n} }

func tool(name string) extract.SpanCall {
	return extract.SpanCall{Name: name, Args: `{"q":1}`, Encoding: extract.EncodingJSON}
}

func names(t *Trajectory) []string {
	if t == nil {
		return nil
	}
	var out []string
	for _, c := range t.Calls {
		out = append(out, c.Name)
	}
	return out
}

func limits() Limits {
	return Limits{MaxOpenTrajectories: 100, MaxCallsPerTrajectory: 10, MaxAge: time.Minute, MaxTrackedTraces: 100}
}

// agent 1 ← step 2 ← tools 3, 4: the step arrives after the tools, the agent
// last, as children end first.
func TestCallsMoveUpToTheAgent(t *testing.T) {
	s := NewStore(limits())
	s.Tool(trace1, sid(3), sid(2), tool("a"), 0)
	s.Tool(trace1, sid(4), sid(2), tool("b"), 0)
	assert.Equal(t, 1, s.Open())
	assert.Nil(t, s.Link(trace1, sid(2), sid(1), true, 0))
	assert.Equal(t, 1, s.Open(), "the group moved from the step to the agent span")
	traj := s.Agent(trace1, sid(1), pcommon.SpanID{}, false, 0)
	assert.Equal(t, []string{"a", "b"}, names(traj))
	assert.Equal(t, 0, s.Open())
}

func TestToolUnderAKnownLinkGoesStraightUp(t *testing.T) {
	s := NewStore(limits())
	s.Link(trace1, sid(2), sid(1), true, 0) // the step first (out of order)
	s.Tool(trace1, sid(3), sid(2), tool("a"), 0)
	assert.Equal(t, []string{"a"}, names(s.Agent(trace1, sid(1), sid(9), false, 0)))
}

func TestLateCallsAreCounted(t *testing.T) {
	s := NewStore(limits())
	s.Link(trace1, sid(2), sid(1), true, 0)
	require.NotNil(t, s.Agent(trace1, sid(1), sid(9), false, 0))
	assert.True(t, s.Tool(trace1, sid(3), sid(2), tool("a"), 0))
	assert.Equal(t, int64(1), s.TakeStats().Late)
}

func TestNestedRecordsOfOneCallMerge(t *testing.T) {
	s := NewStore(limits())
	server := tool("get_weather")
	server.MCP = true
	server.Result = `{"ok":true}`
	outer := tool("get_weather")
	outer.Args, outer.Encoding = "", extract.EncodingAbsent
	s.Tool(trace1, sid(5), sid(4), server, 0)    // MCP server span under the client
	s.Tool(trace1, sid(4), sid(3), tool("x"), 0) // MCP client span under execute_tool
	s.Tool(trace1, sid(3), sid(1), outer, 0)     // execute_tool under the agent
	// A late record under a tool span already seen is a duplicate, not late.
	assert.False(t, s.Tool(trace1, sid(6), sid(3), tool("dup"), 0))
	traj := s.Agent(trace1, sid(1), sid(9), false, 0)
	require.Len(t, traj.Calls, 1)
	c := traj.Calls[0]
	assert.Equal(t, "get_weather", c.Name)
	assert.Equal(t, `{"q":1}`, c.Args, "arguments come from the inner record")
	assert.Equal(t, `{"ok":true}`, c.Result)
	assert.True(t, c.MCP)
	assert.Zero(t, s.TakeStats().Late)
}

func TestSubAgentsFormTheirOwnTrajectoryAndWrappersAreMarked(t *testing.T) {
	s := NewStore(limits())
	s.Tool(trace1, sid(3), sid(2), tool("inner"), 0)
	inner := s.Agent(trace1, sid(2), sid(1), false, 0)
	assert.Equal(t, []string{"inner"}, names(inner))
	outer := s.Agent(trace1, sid(1), pcommon.SpanID{}, false, 0)
	assert.Empty(t, outer.Calls)
	assert.True(t, outer.IsWrapper())
}

func TestRootAdoptsOrphans(t *testing.T) {
	s := NewStore(limits())
	// The tool's parent (a failed withTool span) is never exported.
	s.Tool(trace1, sid(3), sid(7), tool("lookup_stock"), 0)
	s.Tool(trace1, sid(4), sid(1), tool("get_weather"), 0)
	traj := s.Agent(trace1, sid(1), pcommon.SpanID{}, false, 0)
	assert.Equal(t, []string{"get_weather", "lookup_stock"}, names(traj), "its own calls, then the orphans'")
	assert.Equal(t, 0, s.Open())
}

func TestNonAgentRootClosesARootTrajectory(t *testing.T) {
	s := NewStore(limits())
	s.Tool(trace1, sid(3), sid(1), tool("a"), 0)
	assert.Equal(t, []string{"a"}, names(s.Link(trace1, sid(1), pcommon.SpanID{}, false, 0)))
	assert.Nil(t, s.Link(trace2, sid(1), pcommon.SpanID{}, true, 0), "a root with no calls is not a run")
}

// TestLocalRootClosesItsRunWithoutAdoptingOrphans: a span whose parent is
// in another process closes the calls gathered under it, but leaves the
// trace's orphans (which may belong to another process's part) alone.
func TestLocalRootClosesItsRunWithoutAdoptingOrphans(t *testing.T) {
	s := NewStore(limits())
	s.Tool(trace1, sid(3), sid(2), tool("get_weather"), 0)
	s.Link(trace1, sid(2), sid(1), true, 0)                 // the handler under the local root
	s.Tool(trace1, sid(5), sid(9), tool("lookup_stock"), 0) // under a span never seen
	assert.Equal(t, []string{"get_weather"}, names(s.LocalRoot(trace1, sid(1), false, 0)))
	assert.Equal(t, 1, s.Open(), "the orphan's group stays open")
	assert.Nil(t, s.LocalRoot(trace1, sid(1), false, 0), "a span is closed once")
	assert.Nil(t, s.LocalRoot(trace2, sid(1), false, 0), "an untracked trace is not started")
	assert.Nil(t, s.LocalRoot(trace2, sid(1), true, 0), "a local root without calls is not a run")
}

func TestHeldRunKeepsCollecting(t *testing.T) {
	s := NewStore(limits())
	assert.Nil(t, s.Agent(trace1, sid(1), pcommon.SpanID{}, true, 0))
	assert.Equal(t, 1, s.Open())
	assert.False(t, s.Tool(trace1, sid(3), sid(1), tool("a"), 0))
	assert.False(t, s.Tool(trace1, sid(4), sid(8), tool("b"), 0)) // parent not seen yet
	traj := s.Release(trace1, sid(1))
	assert.Equal(t, []string{"a", "b"}, names(traj), "a held root adopts orphans at release")
	assert.Nil(t, s.Release(trace1, sid(1)))
	assert.Equal(t, 0, s.Open())
}

func TestLimits(t *testing.T) {
	t.Run("max_calls_per_trajectory", func(t *testing.T) {
		l := limits()
		l.MaxCallsPerTrajectory = 2
		s := NewStore(l)
		for i := byte(0); i < 5; i++ {
			s.Tool(trace1, sid(10+i), sid(1), tool("a"), 0)
		}
		traj := s.Agent(trace1, sid(1), sid(9), false, 0)
		assert.Len(t, traj.Calls, 2)
		assert.Equal(t, int32(3), traj.Dropped)
		assert.Equal(t, int64(3), s.TakeStats().Dropped)
	})
	t.Run("max_open_trajectories", func(t *testing.T) {
		l := limits()
		l.MaxOpenTrajectories = 1
		s := NewStore(l)
		s.Tool(trace1, sid(3), sid(1), tool("a"), 0)
		s.Tool(trace2, sid(3), sid(1), tool("b"), 0)
		assert.Equal(t, 1, s.Open())
		assert.Equal(t, int64(1), s.TakeStats().Evicted[EvictMaxOpen])
		assert.Equal(t, []string{"b"}, names(s.Agent(trace2, sid(1), sid(9), false, 0)))
	})
	t.Run("max_tracked_traces", func(t *testing.T) {
		l := limits()
		l.MaxTrackedTraces = 1
		s := NewStore(l)
		s.Tool(trace1, sid(3), sid(1), tool("a"), 0)
		s.Tool(trace2, sid(3), sid(1), tool("b"), 0)
		assert.Equal(t, 1, s.Traces())
		assert.Equal(t, int64(1), s.TakeStats().Evicted[EvictMaxTraces])
	})
	t.Run("max_age", func(t *testing.T) {
		s := NewStore(limits())
		s.Tool(trace1, sid(3), sid(1), tool("a"), 0)
		s.Tool(trace2, sid(3), sid(1), tool("b"), int64(50*time.Second))
		assert.Equal(t, 1, s.Sweep(int64(70*time.Second)))
		assert.Equal(t, 1, s.Traces())
		assert.Equal(t, int64(1), s.TakeStats().Evicted[EvictMaxAge])
	})
	t.Run("shutdown", func(t *testing.T) {
		s := NewStore(limits())
		s.Tool(trace1, sid(3), sid(1), tool("a"), 0)
		s.Shutdown()
		assert.Equal(t, 0, s.Open())
		assert.Equal(t, int64(1), s.TakeStats().Evicted[EvictShutdown])
	})
}

func TestCyclicParentsDoNotLoop(t *testing.T) {
	s := NewStore(limits())
	s.Link(trace1, sid(2), sid(3), true, 0)
	s.Link(trace1, sid(3), sid(2), true, 0)
	assert.False(t, s.Tool(trace1, sid(4), sid(2), tool("a"), 0))
}

func TestOrderRecoversTurns(t *testing.T) {
	agent := sid(1)
	calls := []StoredCall{
		// Two direct children running in parallel, then one after a gap.
		{Name: "b", Start: 20, End: 40, Parent: agent},
		{Name: "a", Start: 10, End: 30, Parent: agent},
		{Name: "c", Start: 50, End: 60, Parent: agent},
		// Two calls of one step span.
		{Name: "d", Start: 70, End: 80, Parent: sid(5)},
		{Name: "e", Start: 90, End: 95, Parent: sid(5)},
	}
	turns := Order(calls, agent, nil)
	assert.Equal(t, []string{"a", "b", "c", "d", "e"}, []string{calls[0].Name, calls[1].Name, calls[2].Name, calls[3].Name, calls[4].Name})
	assert.Equal(t, []int{1, 1, 2, 3, 3}, turns)
}

func TestOrderSplitsTurnsAtModelCalls(t *testing.T) {
	agent, advisor := sid(1), sid(2)
	t.Run("one parent holds every turn (Spring AI)", func(t *testing.T) {
		calls := []StoredCall{
			{Name: "a", Start: 110, End: 120, Parent: advisor},
			{Name: "b", Start: 121, End: 130, Parent: advisor}, // run after a, same response
			{Name: "c", Start: 210, End: 220, Parent: advisor}, // after the second model call
		}
		models := []ModelStarts{{Parent: advisor, Starts: []uint64{100, 200, 300}}}
		assert.Equal(t, []int{1, 1, 2}, Order(calls, agent, models))
		assert.Equal(t, []int{1, 1, 1}, Order(slices.Clone(calls), agent, nil), "without model calls the step is one turn")
	})
	t.Run("sequential calls of one response under the agent", func(t *testing.T) {
		calls := []StoredCall{
			{Name: "a", Start: 110, End: 120, Parent: agent},
			{Name: "b", Start: 130, End: 140, Parent: agent},
		}
		models := []ModelStarts{{Parent: agent, Starts: []uint64{100, 150}}}
		assert.Equal(t, []int{1, 1}, Order(calls, agent, models))
		assert.Equal(t, []int{1, 2}, Order(slices.Clone(calls), agent, nil), "timing alone splits at the gap")
	})
}

func TestModelCallsReachTheRun(t *testing.T) {
	s := NewStore(limits())
	agent, step := sid(1), sid(2)
	s.Tool(trace1, sid(3), step, tool("a"), 0)
	s.Link(trace1, sid(4), step, true, 0) // the model call span
	s.ModelCall(trace1, step, 300)
	s.ModelCall(trace1, step, 100)
	s.ModelCall(trace2, step, 100) // untracked trace: ignored
	s.Link(trace1, step, agent, true, 0)
	traj := s.Agent(trace1, agent, pcommon.SpanID{}, false, 0)
	require.NotNil(t, traj)
	assert.Equal(t, []ModelStarts{{Parent: step, Starts: []uint64{100, 300}}}, traj.Models)
	assert.Equal(t, 1, s.Traces())
}

// TestCyclicParentsAreCounted: calls whose parents loop (A→B→A) cannot reach
// a run; they are counted, not dropped silently.
func TestCyclicParentsAreCounted(t *testing.T) {
	s := NewStore(limits())
	s.Link(trace1, sid(2), sid(3), true, 0)
	s.Link(trace1, sid(3), sid(2), true, 0)
	s.Tool(trace1, sid(4), sid(2), tool("a"), 0)
	assert.Equal(t, int64(1), s.TakeStats().Cyclic)
	// A step whose calls arrived before it closes a cycle: its calls count.
	s.Tool(trace2, sid(5), sid(6), tool("b"), 0)
	s.Link(trace2, sid(7), sid(6), true, 0)
	s.Link(trace2, sid(6), sid(7), true, 0)
	assert.Equal(t, int64(1), s.TakeStats().Cyclic)
	assert.Equal(t, 0, s.Open())
}

// TestSelfParentedSpans: a span whose parent id is its own is taken as
// having no parent. A self-parented agent span closes its run and leaves
// nothing open; a self-parented step closes the calls under it as a root run.
func TestSelfParentedSpans(t *testing.T) {
	s := NewStore(limits())
	s.Tool(trace1, sid(3), sid(1), tool("a"), 0)
	assert.Equal(t, []string{"a"}, names(s.Agent(trace1, sid(1), sid(1), false, 0)))
	assert.Equal(t, 0, s.Open(), "the self-parented agent leaves no open run behind")
	s.Tool(trace2, sid(3), sid(2), tool("b"), 0)
	assert.Equal(t, []string{"b"}, names(s.Link(trace2, sid(2), sid(2), true, 0)))
	assert.Equal(t, 0, s.Open())
	s.Tool(trace2, sid(4), sid(4), tool("c"), 0)
	assert.Equal(t, int64(1), s.TakeStats().Cyclic, "a self-parented tool span has no run")
}

// TestOrphansAdoptedWithinTheCallLimit: a root adopting orphans keeps
// max_calls_per_trajectory and counts the rest.
func TestOrphansAdoptedWithinTheCallLimit(t *testing.T) {
	l := limits()
	l.MaxCallsPerTrajectory = 3
	s := NewStore(l)
	for i := byte(0); i < 5; i++ {
		s.Tool(trace1, sid(10+i), sid(100+i), tool("a"), 0) // five orphan groups
	}
	traj := s.Agent(trace1, sid(1), pcommon.SpanID{}, false, 0)
	assert.Len(t, traj.Calls, 3)
	assert.Equal(t, int32(2), traj.Dropped)
	assert.Equal(t, int64(2), s.TakeStats().Dropped)
}

// TestSpansPerTraceAreBounded: one trace of many tool spans keeps at most
// MaxSpansPerTrace span nodes; calls that would need more are counted.
func TestSpansPerTraceAreBounded(t *testing.T) {
	l := limits()
	l.MaxSpansPerTrace = 8
	l.MaxCallsPerTrajectory = 1000
	s := NewStore(l)
	for i := 0; i < 100; i++ {
		s.Tool(trace1, pcommon.SpanID{2, byte(i)}, sid(1), tool("a"), 0) // under the agent
	}
	for i := 0; i < 10; i++ {
		s.Tool(trace1, pcommon.SpanID{3, byte(i)}, pcommon.SpanID{4, byte(i)}, tool("b"), 0) // each under a new step
	}
	assert.LessOrEqual(t, s.traces.Get(trace1).nodes.len(), 8)
	st := s.TakeStats()
	traj := s.Agent(trace1, sid(1), sid(9), false, 0)
	require.NotNil(t, traj)
	assert.Equal(t, 100, countNamed(traj, "a"), "calls under a span already known still attach")
	assert.Equal(t, int64(10-countNamed(traj, "b")), st.OverSpans)
	assert.Positive(t, st.OverSpans)
}

func countNamed(t *Trajectory, name string) int {
	n := 0
	for _, c := range t.Calls {
		if c.Name == name {
			n++
		}
	}
	return n
}

func TestSeen(t *testing.T) {
	s := NewStore(limits())
	assert.Equal(t, SeenNot, s.Seen(trace1, sid(1)))
	s.Tool(trace1, sid(3), sid(1), tool("a"), 0)
	assert.Equal(t, SeenNot, s.Seen(trace1, sid(1)), "calls waiting under a span do not make it seen")
	assert.Equal(t, SeenClosed, s.Seen(trace1, sid(3)))
	s.Agent(trace1, sid(1), pcommon.SpanID{}, true, 0)
	assert.Equal(t, SeenHeld, s.Seen(trace1, sid(1)))
	s.Release(trace1, sid(1))
	assert.Equal(t, SeenClosed, s.Seen(trace1, sid(1)))
}

// TestRunContextGathersAtTheAgent: definitions recorded on model calls under
// a step reach the run once each; the agent span's request wins over the
// first model call's, the last model call's response is kept.
func TestRunContextGathersAtTheAgent(t *testing.T) {
	l := limits()
	l.MaxContextBytes = 1 << 10
	s := NewStore(l)
	defs := `[{"name":"a"}]`
	s.AttachContext(trace1, sid(2), &extract.ContextPart{Definitions: []string{defs}, Request: "first", Response: "r1", Start: 1, End: 2}, false, 0)
	s.Tool(trace1, sid(3), sid(2), tool("a"), 0)
	s.AttachContext(trace1, sid(2), &extract.ContextPart{Definitions: []string{defs}, Request: "second", Response: "r2", Start: 3, End: 4}, false, 0)
	s.Link(trace1, sid(2), sid(1), true, 0) // the step
	s.AttachContext(trace1, sid(1), &extract.ContextPart{Request: "from the agent"}, true, 0)
	traj := s.Agent(trace1, sid(1), pcommon.SpanID{}, false, 0)
	require.NotNil(t, traj.Context)
	assert.Equal(t, []string{defs}, traj.Context.Definitions)
	assert.Equal(t, "from the agent", traj.Context.Request)
	assert.Equal(t, "r2", traj.Context.Response)
	assert.Equal(t, []string{"a"}, names(traj))
	assert.Equal(t, 0, s.Open())
}

// TestRunContextCap: a run's context stays within the cap; what was cut is
// counted, and a cut text is copied so it does not pin the attribute.
func TestRunContextCap(t *testing.T) {
	l := limits()
	l.MaxContextBytes = 100
	s := NewStore(l)
	big := strings.Repeat("x", 1<<20)
	s.AttachContext(trace1, sid(1), &extract.ContextPart{Definitions: []string{`["a"]`, big}, Request: big, Response: "ok"}, true, 0)
	traj := s.Agent(trace1, sid(1), pcommon.SpanID{}, false, 0)
	require.NotNil(t, traj.Context)
	c := traj.Context
	assert.LessOrEqual(t, c.Bytes, 100)
	assert.Equal(t, []string{`["a"]`}, c.Definitions)
	assert.Len(t, c.Request, 100-len(`["a"]`))
	assert.Equal(t, "", c.Response, "nothing left for the response")
	assert.Equal(t, 2*(1<<20)-len(c.Request)+2, c.Cut)
	off := NewStore(limits())
	off.AttachContext(trace1, sid(1), &extract.ContextPart{Request: "x"}, true, 0)
	assert.Nil(t, off.Agent(trace1, sid(1), pcommon.SpanID{}, false, 0).Context, "no capture with a cap of 0")
}

// A step's group moving up keeps its calls, drops, sub-agents and context
// whatever waits at the span it moves to: nothing, an empty run (made by a
// sub-agent), or a run with calls.
func TestMovedGroupKeepsEverything(t *testing.T) {
	lim := limits()
	lim.MaxCallsPerTrajectory = 3
	lim.MaxContextBytes = 100
	for _, tt := range []struct {
		name    string
		before  func(s *Store)
		calls   []string
		dropped int32
		subs    int32
	}{
		{"to an unseen span", func(*Store) {}, []string{"a", "b", "c"}, 1, 1},
		{"to an empty run", func(s *Store) {
			s.Agent(trace1, sid(7), sid(1), false, 0) // a sub-agent of 1
		}, []string{"a", "b", "c"}, 1, 2},
		{"to a run with calls", func(s *Store) {
			s.Tool(trace1, sid(8), sid(1), tool("z"), 0)
		}, []string{"z", "a", "b"}, 2, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore(lim)
			tt.before(s)
			for i, name := range []string{"a", "b", "c", "d"} {
				s.Tool(trace1, sid(byte(10+i)), sid(2), tool(name), 0)
			}
			s.Agent(trace1, sid(6), sid(2), false, 0) // a sub-agent of the step
			s.AttachContext(trace1, sid(2), &extract.ContextPart{Request: "hi"}, false, 0)
			assert.Nil(t, s.Link(trace1, sid(2), sid(1), true, 0))
			assert.Equal(t, 1, s.Open(), "one run, at the agent span")
			traj := s.Agent(trace1, sid(1), pcommon.SpanID{}, false, 0)
			require.NotNil(t, traj)
			assert.Equal(t, tt.calls, names(traj))
			assert.Equal(t, tt.dropped, traj.Dropped)
			assert.Equal(t, tt.subs, traj.SubAgents)
			require.NotNil(t, traj.Context)
			assert.Equal(t, "hi", traj.Context.Request)
			assert.Equal(t, 0, s.Open())
		})
	}
}

// TestRecycledTracesChangeNothing runs random operations on a small store,
// which evicts traces all the time and reuses their states, and on one that
// reuses none, and compares everything they return.
func TestRecycledTracesChangeNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lim := Limits{MaxOpenTrajectories: 4, MaxCallsPerTrajectory: 100, MaxAge: 10, MaxTrackedTraces: 3, MaxSpansPerTrace: 9, MaxContextBytes: 8}
	for round := 0; round < 100; round++ {
		s, ref := NewStore(lim), NewStore(lim)
		ref.maxSpare = 0
		var held [][2]byte
		for op := 0; op < 300; op++ {
			tr := pcommon.TraceID{byte(1 + r.IntN(5))}
			span, parent := sid(byte(1+r.IntN(12))), sid(byte(r.IntN(12)))
			now := int64(op)
			var got, want any
			switch r.IntN(8) {
			case 0, 1, 2:
				got, want = s.Tool(tr, span, parent, tool("t"), now), ref.Tool(tr, span, parent, tool("t"), now)
			case 3:
				track := r.IntN(2) == 0
				got, want = s.Link(tr, span, parent, track, now), ref.Link(tr, span, parent, track, now)
			case 4:
				hold := r.IntN(3) == 0
				got, want = s.Agent(tr, span, parent, hold, now), ref.Agent(tr, span, parent, hold, now)
				if hold {
					held = append(held, [2]byte{tr[0], span[0]})
				}
			case 5:
				if len(held) > 0 {
					h := held[r.IntN(len(held))]
					got, want = s.Release(pcommon.TraceID{h[0]}, sid(h[1])), ref.Release(pcommon.TraceID{h[0]}, sid(h[1]))
				}
			case 6:
				part := &extract.ContextPart{Request: "req"}
				for _, st := range []*Store{s, ref} {
					st.ModelCall(tr, parent, uint64(op))
					st.AttachContext(tr, parent, part, false, now)
				}
			case 7:
				got, want = s.Sweep(now), ref.Sweep(now)
			}
			require.Equal(t, want, got, "round %d op %d", round, op)
			require.Equal(t, ref.TakeStats(), s.TakeStats(), "round %d op %d", round, op)
			require.Equal(t, ref.Open(), s.Open(), "round %d op %d", round, op)
			require.Equal(t, ref.Traces(), s.Traces(), "round %d op %d", round, op)
			require.Equal(t, ref.Seen(tr, span), s.Seen(tr, span), "round %d op %d", round, op)
			for _, ts := range s.traces.All() {
				runs := int32(0)
				for n := range ts.nodes.all() {
					runs += isRun(n)
				}
				require.Equal(t, runs, ts.nodes.runs, "round %d op %d: runs counted", round, op)
			}
		}
	}
}

// Turns of runs with more steps than orderInto lists (the rest in a map)
// are numbered as for few: by first appearance.
func TestOrderManySteps(t *testing.T) {
	for _, steps := range []int{1, 8, 9, maxListedTurns, maxListedTurns + 1, 3 * maxListedTurns} {
		var calls []StoredCall
		var want []int
		for i := 0; i < 2*steps; i++ {
			calls = append(calls, StoredCall{Parent: pcommon.SpanID{byte(i % steps), 1}, Start: uint64(i), End: uint64(i)})
			want = append(want, i%steps+1)
		}
		assert.Equal(t, want, Order(calls, sid(99), nil), "%d steps", steps)
	}
}

// Model calls are kept per span the run's calls ran under, in the order the
// calls name those spans, starts ascending; spans without calls, and calls'
// spans without model calls, are left out.
func TestModelCallsPerParent(t *testing.T) {
	s := NewStore(limits())
	agent := sid(1)
	s.Tool(trace1, sid(10), sid(3), tool("a"), 0) // under step 3
	s.Tool(trace1, sid(11), agent, tool("b"), 0)  // under the agent
	s.Tool(trace1, sid(12), sid(4), tool("c"), 0) // under step 4: no model calls
	s.Tool(trace1, sid(13), sid(3), tool("d"), 0)
	for _, m := range []struct {
		parent byte
		start  uint64
	}{{1, 50}, {3, 30}, {5, 1}, {3, 10}, {1, 40}, {3, 20}} {
		s.ModelCall(trace1, sid(m.parent), m.start)
	}
	for _, step := range []byte{3, 4} {
		s.Link(trace1, sid(step), agent, true, 0)
	}
	traj := s.Agent(trace1, agent, pcommon.SpanID{}, false, 0)
	require.NotNil(t, traj)
	// The run's calls: b, then a and d (step 3's group), then c.
	assert.Equal(t, []ModelStarts{{Parent: agent, Starts: []uint64{40, 50}}, {Parent: sid(3), Starts: []uint64{10, 20, 30}}}, traj.Models)
}

// Sibling spans share one link node; calls under either reach their parent's
// run, and a span under another parent gets its own.
func TestSiblingLinksShareANode(t *testing.T) {
	s := NewStore(limits())
	s.Link(trace1, sid(4), sid(2), true, 0)
	s.Link(trace1, sid(5), sid(2), true, 0)
	s.Link(trace1, sid(6), sid(3), true, 0)
	s.Link(trace1, sid(7), sid(2), true, 0)
	ts := s.traces.Get(trace1)
	assert.Same(t, ts.nodes.get(sid(4)), ts.nodes.get(sid(5)))
	assert.Same(t, ts.nodes.get(sid(4)), ts.nodes.get(sid(7)))
	assert.Equal(t, sid(3), ts.nodes.get(sid(6)).parent)
	s.Tool(trace1, sid(8), sid(5), tool("a"), 0)
	s.Tool(trace1, sid(9), sid(6), tool("b"), 0)
	s.Tool(trace1, sid(10), sid(7), tool("c"), 0)
	s.Link(trace1, sid(3), sid(2), true, 0)
	assert.Equal(t, []string{"a", "c", "b"}, names(s.Agent(trace1, sid(2), pcommon.SpanID{}, false, 0)))
}

// A run's first call gets room for the calls its batch says are coming, so
// that the run's calls are one slice, and the room asked for is bounded.
func TestExpectedCallsShareOneSlice(t *testing.T) {
	for _, tc := range []struct {
		name          string
		expect, calls int
		limit         int
		wantCap       int
	}{
		{name: "none expected", calls: 3, wantCap: 3}, // grown: 1, then 3
		{name: "all expected", expect: 3, calls: 3, wantCap: 3},
		{name: "more expected than come", expect: 3, calls: 2, wantCap: 3},
		{name: "bounded", expect: 100, calls: 2, wantCap: maxCallRoom},
		{name: "within the call limit", expect: 8, calls: 2, limit: 3, wantCap: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lim := limits()
			lim.MaxCallsPerTrajectory = tc.limit
			s := NewStore(lim)
			s.ExpectCalls(tc.expect)
			for i := range tc.calls {
				s.Tool(trace1, sid(byte(10+i)), sid(1), tool("t"), 0)
			}
			traj := s.Agent(trace1, sid(1), pcommon.SpanID{}, false, 0)
			require.Len(t, traj.Calls, tc.calls)
			assert.Equal(t, tc.wantCap, cap(traj.Calls))
			assert.Equal(t, max(tc.expect-tc.calls, 0), s.expect, "each call counted as come")
		})
	}
}

// Expected calls change only the room a run's calls are given: random
// operations on a store told what to expect (at random) and on one told
// nothing return the same.
func TestExpectedCallsChangeNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	lim := Limits{MaxOpenTrajectories: 4, MaxCallsPerTrajectory: 5, MaxAge: 10, MaxTrackedTraces: 3, MaxSpansPerTrace: 9}
	for round := 0; round < 100; round++ {
		s, ref := NewStore(lim), NewStore(lim)
		for op := 0; op < 300; op++ {
			tr := pcommon.TraceID{byte(1 + r.IntN(5))}
			span, parent := sid(byte(1+r.IntN(12))), sid(byte(r.IntN(12)))
			now := int64(op)
			var got, want any
			switch r.IntN(5) {
			case 0:
				s.ExpectCalls(r.IntN(20))
			case 1, 2:
				got, want = s.Tool(tr, span, parent, tool("t"), now), ref.Tool(tr, span, parent, tool("t"), now)
			case 3:
				got, want = s.Link(tr, span, parent, true, now), ref.Link(tr, span, parent, true, now)
			case 4:
				got, want = s.Agent(tr, span, parent, false, now), ref.Agent(tr, span, parent, false, now)
			}
			require.Equal(t, want, got, "round %d op %d", round, op)
			require.Equal(t, ref.TakeStats(), s.TakeStats(), "round %d op %d", round, op)
			require.Equal(t, ref.Open(), s.Open(), "round %d op %d", round, op)
		}
	}
}

// Past its inline entries (its spans in the overflow's list or map) a
// trace's siblings still share the link nodes made in place, and links past
// those are made on the heap; calls under any of them reach their runs.
func TestLinksPastTheInlineOnes(t *testing.T) {
	const parents = inlineLinks + 2
	for _, rounds := range []int{3, 5} {
		s := NewStore(limits())
		span := byte(20)
		for round := 0; round < rounds; round++ {
			for p := byte(0); p < parents; p++ {
				s.Link(trace1, sid(span), sid(2+p), true, 0)
				span++
			}
		}
		ts := s.traces.Get(trace1)
		require.Equal(t, rounds*parents > inlineNodes+spillNodes, ts.nodes.index() != nil, "the trace's spans are in a map")
		for p := byte(0); p < inlineLinks; p++ {
			assert.Same(t, ts.nodes.get(sid(20+p)), ts.nodes.get(sid(20+parents+p)), "parent %d", 2+p)
			assert.Same(t, &ts.nodes.links[p], ts.nodes.get(sid(20+p)))
		}
		for p := byte(0); p < parents; p++ {
			s.Tool(trace1, sid(100+p), sid(20+2*parents+p), tool(string(rune('a'+p))), 0)
			assert.Equal(t, sid(2+p), ts.nodes.get(sid(20+p)).parent)
		}
		for p := byte(0); p < parents; p++ {
			assert.Equal(t, []string{string(rune('a' + p))}, names(s.Agent(trace1, sid(2+p), sid(1), false, 0)), "%d rounds", rounds)
		}
	}
}

// A run's model calls under one span (in one allocation when few) and under
// two come out the same way: per span, starts ascending.
func TestModelCallsUnderOneSpan(t *testing.T) {
	for total := 1; total <= 4; total++ {
		s := NewStore(limits())
		s.Tool(trace1, sid(10), sid(1), tool("a"), 0)
		var want []uint64
		for i := total; i > 0; i-- {
			s.ModelCall(trace1, sid(1), uint64(10*i))
			want = append([]uint64{uint64(10 * i)}, want...)
		}
		traj := s.Agent(trace1, sid(1), pcommon.SpanID{}, false, 0)
		require.NotNil(t, traj)
		assert.Equal(t, []ModelStarts{{Parent: sid(1), Starts: want}}, traj.Models, "%d model calls", total)
		assert.Len(t, traj.Models[0].Starts, cap(traj.Models[0].Starts), "no room past the starts")
	}
}

// The open-runs queue tells open groups from closed ones by their trace's
// state, not the store's map: random operations on stores that recycle
// states or not, with traces dropped all the time, find every entry as
// open as a lookup in the map does.
func TestOpenRunsQueueWithoutTheMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	lim := Limits{MaxOpenTrajectories: 6, MaxCallsPerTrajectory: 100, MaxAge: 10, MaxTrackedTraces: 3, MaxSpansPerTrace: 9}
	viaMap := func(s *Store, g *groupRef) bool {
		ts := s.traces.Get(g.trace)
		if ts == nil {
			return false
		}
		n := ts.nodes.get(g.span)
		return n != nil && n.kind == nodeGroup && n.opened == g.opened
	}
	for round := 0; round < 100; round++ {
		s := NewStore(lim)
		s.maxSpare = r.IntN(3)
		for op := 0; op < 300; op++ {
			tr := pcommon.TraceID{byte(r.IntN(5))} // the zero trace id too
			span, parent := sid(byte(1+r.IntN(12))), sid(byte(r.IntN(12)))
			now := int64(op)
			switch r.IntN(6) {
			case 0, 1, 2:
				s.Tool(tr, span, parent, tool("t"), now)
			case 3:
				s.Link(tr, span, parent, r.IntN(2) == 0, now)
			case 4:
				s.Agent(tr, span, parent, false, now)
			case 5:
				s.Sweep(now)
			}
			for i := range s.groups {
				require.Equal(t, viaMap(s, &s.groups[i]), s.groups[i].open(), "round %d op %d entry %d", round, op, i)
			}
		}
	}
}

// TestNestedRecordsMergeInAnyOrder sends the records of one call (an MCP
// server span under the client span under execute_tool, and a wrapper's
// inner record) in every order: the run has the same one call.
func TestNestedRecordsMergeInAnyOrder(t *testing.T) {
	server := tool("get_weather")
	server.MCP = true
	server.Result = `{"ok":true}`
	client := tool("get_weather")
	client.MCP, client.MCPClient, client.Failed = true, true, true
	outer := tool("get_weather")
	outer.Args, outer.Encoding = "", extract.EncodingAbsent
	records := []struct {
		span, parent pcommon.SpanID
		c            extract.SpanCall
	}{{sid(5), sid(4), server}, {sid(4), sid(3), client}, {sid(3), sid(1), outer}, {sid(6), sid(3), tool("get_weather")}}
	var want *StoredCall
	permute(len(records), func(order []int) {
		s := NewStore(limits())
		for _, i := range order {
			r := records[i]
			s.Tool(trace1, r.span, r.parent, r.c, 0)
		}
		traj := s.Agent(trace1, sid(1), sid(9), false, 0)
		require.Len(t, traj.Calls, 1, "order %v", order)
		c := traj.Calls[0]
		assert.Equal(t, `{"q":1}`, c.Args, "order %v", order)
		assert.Equal(t, RecordTool|RecordMCPClient|RecordMCPServer, c.Records, "order %v", order)
		assert.Equal(t, RecordMCPClient, c.Failures, "order %v", order)
		if want == nil {
			want = &c
			return
		}
		assert.Equal(t, *want, c, "order %v", order)
	})
}

// permute calls f with every permutation of 0..n-1.
func permute(n int, f func([]int)) {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			f(append([]int(nil), order...))
			return
		}
		for i := k; i < n; i++ {
			order[k], order[i] = order[i], order[k]
			rec(k + 1)
			order[k], order[i] = order[i], order[k]
		}
	}
	rec(0)
}
