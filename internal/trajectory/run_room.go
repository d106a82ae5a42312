package trajectory

import (
	"unsafe"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// runRoom is room for a run's first calls, turns and model starts, in its
// node's allocation (see runNode): most runs make a call or two over two
// model turns under one span, which would cost an allocation each. A run's
// slices take their room here once, when they are first made (calls, turns)
// or once (model starts, see withModels); past it they grow on the heap.
type runRoom struct {
	calls  [inlineCalls]StoredCall
	turns  [inlineRunTurns]*extract.ModelTurn
	models oneParent
}

// Room a run node keeps for its run's first calls and turns.
const (
	inlineCalls    = 2
	inlineRunTurns = 2
)

// room returns the room of a run node (one with a trajectory), nil for n
// nil or another node. Every node with a trajectory is a runNode's first
// field (newRunNode makes them all), so its address is the runNode's.
func (n *node) room() *runRoom {
	if n == nil || n.traj == nil {
		return nil
	}
	return &(*runNode)(unsafe.Pointer(n)).room
}

// firstCalls returns the slice a run's first calls go in, with room for
// room calls: the run's room when it fits, else a new slice.
func (r *runRoom) firstCalls(room int) []StoredCall {
	if r != nil && room <= inlineCalls {
		return r.calls[:0:room]
	}
	return make([]StoredCall, 0, room)
}

// firstTurns returns the slice a run's first turns go in: the run's room
// when it has one.
func (r *runRoom) firstTurns() []*extract.ModelTurn {
	if r == nil {
		return nil
	}
	return r.turns[:0]
}
