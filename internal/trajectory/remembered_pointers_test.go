package trajectory

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// fiveSpanRun applies the end-to-end benchmark's run (two tool spans and
// two model calls under a root agent span, children first) to a fresh
// trace numbered i.
func fiveSpanRun(s *Store, i uint64) (pcommon.TraceID, *Trajectory) {
	var id pcommon.TraceID
	binary.LittleEndian.PutUint64(id[8:], i)
	s.ExpectCalls(2)
	s.Tool(id, sid(4), sid(1), tool("get_weather"), 0)
	s.Tool(id, sid(5), sid(1), tool("lookup_stock"), 0)
	s.Link(id, sid(2), sid(1), true, 0)
	s.ModelCall(id, sid(1), 10)
	s.Link(id, sid(3), sid(1), true, 0)
	s.ModelCall(id, sid(1), 20)
	return id, s.Agent(id, sid(1), pcommon.SpanID{}, false, 0)
}

// A remembered trace's state points nowhere but to its neighbours in the
// store's list: its closed run and the links its spans share are tags, its
// model calls are counted in place, so that the garbage collector, which
// scans every remembered trace, follows two pointers per trace.
func TestRememberedTraceHoldsNoPointers(t *testing.T) {
	s := NewStore(limits())
	id, traj := fiveSpanRun(s, 1)
	assert.Len(t, traj.Calls, 2)
	assert.Equal(t, []uint64{10, 20}, traj.Models[0].Starts)
	ts := s.traces.Get(id)
	assert.Equal(t, [inlineNodes]*node{}, ts.nodes.nodes, "entries as tags")
	assert.Nil(t, ts.nodes.more)
	assert.Nil(t, ts.lastLink)
	assert.Nil(t, ts.extra.models)
	assert.Nil(t, ts.extra.turns)
	assert.Equal(t, SeenClosed, s.Seen(id, sid(1)))
	assert.True(t, s.Tool(id, sid(9), sid(1), tool("late"), 0), "a late call reaches the closed run")
}

// Under sustained load (every new trace drops the oldest, whose state is
// reused) a five-span run allocates its run node and nothing else: its
// calls, model starts and trace extra are in place.
func TestFiveSpanRunAllocatesItsRunNode(t *testing.T) {
	lim := limits()
	lim.MaxTrackedTraces = 16
	s := NewStore(lim)
	i := uint64(0)
	for range 64 {
		i++
		fiveSpanRun(s, i)
	}
	allocs := testing.AllocsPerRun(100, func() {
		i++
		fiveSpanRun(s, i)
	})
	assert.Equal(t, 1.0, allocs)
}
