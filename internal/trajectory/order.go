package trajectory

import (
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Order sorts a trajectory's calls into scoring order and assigns each its
// 1-based model turn, returned in parallel with the sorted calls. models are
// the model calls beside the tool calls ([Trajectory.Models]).
//
// Frameworks run the calls one model response requested in parallel, so
// their start times say little about the order the model chose. Turns are
// recovered instead (genai-conventions §8.6):
//   - when model calls (inference spans) were seen beside a call, under the
//     same parent, its turn is the last model call that started before it:
//     the calls between two model calls answer the first one;
//   - otherwise calls whose tool spans share a parent other than the agent
//     span (an agent step, ADK's merged-tools span, a Genkit generate span)
//     belong to that step's turn;
//   - otherwise calls that are direct children of the agent span form one
//     turn while their time ranges overlap (parallel execution) and a new
//     turn after a gap.
//
// Turns are ordered by their first call's start time; within a turn calls
// keep start-time order (the scorer treats calls of one turn as unordered
// among themselves). Ties break on end time, then arrival order.
func Order(calls []StoredCall, agent pcommon.SpanID, models []ModelStarts) []int {
	turns := make([]int, len(calls))
	orderInto(calls, agent, models, turns)
	return turns
}

// orderInto is [Order] writing the turns into turns, which has a slot per
// call.
func orderInto(calls []StoredCall, agent pcommon.SpanID, models []ModelStarts, turns []int) {
	// Tool spans mostly arrive in the order they started.
	if !startOrdered(calls) {
		slices.SortStableFunc(calls, func(a, b StoredCall) int { return startTimeOrder(&a, &b) })
	}
	turn := 0
	// steps map a step span, or a (parent, model call) pair, to its turn:
	// a run has a few, listed (on the stack) up to maxListedTurns, then in
	// stepTurn. Direct children track the end of the current overlapping
	// run.
	var listed [8]turnEntry
	steps := listed[:0]
	var stepTurn map[turnKey]int
	var runEnd uint64
	directTurn := 0
	for i := range calls {
		c := &calls[i]
		key, grouped := turnKey{parent: c.Parent}, false
		if starts := modelStartsOf(models, c.Parent); starts != nil {
			key.model = startsBefore(starts, c.Start)
			grouped = true
		} else {
			grouped = c.Parent != agent && !c.Parent.IsEmpty()
		}
		if grouped {
			t, ok := findTurn(steps, stepTurn, key)
			if !ok {
				turn++
				t = turn
				switch {
				case stepTurn == nil && len(steps) < maxListedTurns:
					steps = append(steps, turnEntry{key, t})
				case stepTurn == nil:
					stepTurn = indexTurns(steps)
					fallthrough
				default:
					stepTurn[key] = t
				}
			}
			turns[i] = t
			continue
		}
		if directTurn == 0 || c.Start > runEnd {
			turn++
			directTurn = turn
			runEnd = c.End
		} else if c.End > runEnd {
			runEnd = c.End
		}
		turns[i] = directTurn
	}
	// Turns increase along the order by first appearance: each is
	// numbered (turn++) by the call it first appears at.
}

// startOrdered reports whether calls are already in startTimeOrder.
func startOrdered(calls []StoredCall) bool {
	for i := 1; i < len(calls); i++ {
		if startTimeOrder(&calls[i-1], &calls[i]) > 0 {
			return false
		}
	}
	return true
}

// startTimeOrder orders calls by start, then end time.
func startTimeOrder(a, b *StoredCall) int {
	switch {
	case a.Start < b.Start || a.Start == b.Start && a.End < b.End:
		return -1
	case a.Start == b.Start && a.End == b.End:
		return 0
	}
	return 1
}

// turnKey identifies a turn of grouped calls: their parent span and, when
// model calls were seen under it, how many of those started before them.
type turnKey struct {
	parent pcommon.SpanID
	model  int
}

// startsBefore returns the number of starts (ascending) before t, where
// slices.BinarySearch would place t: counted one by one in the few starts
// of most runs.
func startsBefore(starts []uint64, t uint64) int {
	if len(starts) > 8 {
		i, _ := slices.BinarySearch(starts, t)
		return i
	}
	n := 0
	for n < len(starts) && starts[n] < t {
		n++
	}
	return n
}

// modelStartsOf returns the start times of the model calls under parent.
func modelStartsOf(models []ModelStarts, parent pcommon.SpanID) []uint64 {
	for i := range models {
		if models[i].Parent == parent {
			return models[i].Starts
		}
	}
	return nil
}

// turnEntry is a listed turn key's turn.
type turnEntry struct {
	key  turnKey
	turn int
}

// maxListedTurns bounds the turns orderInto searches in a list.
const maxListedTurns = 32

// findTurn returns key's turn, from index when not nil, else from list.
func findTurn(list []turnEntry, index map[turnKey]int, key turnKey) (int, bool) {
	if index != nil {
		t, ok := index[key]
		return t, ok
	}
	for _, e := range list {
		if e.key == key {
			return e.turn, true
		}
	}
	return 0, false
}

// indexTurns returns a map of the listed turns.
func indexTurns(list []turnEntry) map[turnKey]int {
	m := make(map[turnKey]int, 2*maxListedTurns)
	for _, e := range list {
		m[e.key] = e.turn
	}
	return m
}
