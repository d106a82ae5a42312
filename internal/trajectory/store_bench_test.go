package trajectory

import (
	"encoding/binary"
	"runtime"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// BenchmarkStoreRuns applies demo-shaped runs to a store the way the
// processor does (children first), scoring order included, with the store
// at its tracked-trace limit so that every new trace evicts the oldest, as
// under sustained load. Tool spans of a trace come together, the number
// said first (ExpectCalls). One op is one run of each shape:
//   - steps: agent ← 2 steps ← (model call, 2 tools | model call, 1 tool),
//     model calls also under the steps (Mastra, Vercel AI v7);
//   - flat: agent ← 2 model calls, 3 tools (ADK).
func BenchmarkStoreRuns(b *testing.B) {
	lim := Limits{MaxOpenTrajectories: 10_000, MaxCallsPerTrajectory: 256, MaxAge: time.Hour,
		MaxTrackedTraces: 2048, MaxSpansPerTrace: 10_000, MaxContextBytes: 16 << 10}
	s := NewStore(lim)
	var traj *Trajectory
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now := int64(i)
		var id pcommon.TraceID
		binary.LittleEndian.PutUint64(id[8:], uint64(2*i+1))
		traj = stepsRun(s, id, now)
		_ = Order(traj.Calls, sid(1), traj.Models)
		binary.LittleEndian.PutUint64(id[8:], uint64(2*i+2))
		traj = flatRun(s, id, now)
		_ = Order(traj.Calls, sid(1), traj.Models)
	}
}

// stepsRun is agent 1 ← steps 2, 3; step 2 ← model 4, tools 5, 6; step 3 ←
// model 7, tool 8.
func stepsRun(s *Store, id pcommon.TraceID, now int64) *Trajectory {
	s.ExpectCalls(3)
	s.Tool(id, sid(5), sid(2), tool("get_weather"), now)
	s.Tool(id, sid(6), sid(2), tool("lookup_stock"), now)
	s.Link(id, sid(4), sid(2), true, now)
	s.ModelCall(id, sid(2), 10)
	s.Link(id, sid(2), sid(1), true, now)
	s.Tool(id, sid(8), sid(3), tool("get_weather"), now)
	s.Link(id, sid(7), sid(3), true, now)
	s.ModelCall(id, sid(3), 20)
	s.Link(id, sid(3), sid(1), true, now)
	return s.Agent(id, sid(1), pcommon.SpanID{}, false, now)
}

// flatRun is agent 1 ← models 2, 3, tools 4, 5, 6.
func flatRun(s *Store, id pcommon.TraceID, now int64) *Trajectory {
	s.ExpectCalls(3)
	s.Tool(id, sid(4), sid(1), tool("get_weather"), now)
	s.Tool(id, sid(5), sid(1), tool("lookup_stock"), now)
	s.Tool(id, sid(6), sid(1), tool("get_weather"), now)
	s.Link(id, sid(2), sid(1), true, now)
	s.ModelCall(id, sid(1), 10)
	s.Link(id, sid(3), sid(1), true, now)
	s.ModelCall(id, sid(1), 20)
	return s.Agent(id, sid(1), pcommon.SpanID{}, false, now)
}

// BenchmarkMarkRememberedTraces measures the garbage collector's work on a
// store holding rememberedTraces closed five-span runs (two tool spans and
// two model calls under a root agent span, as the end-to-end benchmark's),
// as under sustained load at the default max_tracked_traces: one op is one
// full collection, whose marking scans every remembered trace's state.
func BenchmarkMarkRememberedTraces(b *testing.B) {
	const rememberedTraces = 50_000
	lim := Limits{MaxOpenTrajectories: 10_000, MaxCallsPerTrajectory: 256, MaxAge: time.Hour,
		MaxTrackedTraces: rememberedTraces, MaxSpansPerTrace: 10_000}
	s := NewStore(lim)
	for i := range rememberedTraces {
		fiveSpanRun(s, uint64(i+1))
	}
	runtime.GC()
	for b.Loop() {
		runtime.GC()
	}
	runtime.KeepAlive(s)
}
