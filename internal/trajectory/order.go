package trajectory

import (
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Order sorts a trajectory's calls into scoring order and assigns each its
// 1-based model turn, returned in parallel with the sorted calls.
//
// Frameworks run the calls one model response requested in parallel, so
// their start times say little about the order the model chose. Turns are
// recovered instead:
//   - calls whose tool spans share a parent other than the agent span (an
//     agent step, ADK's merged-tools span, a Genkit generate span) belong to
//     that step's turn;
//   - calls that are direct children of the agent span form one turn while
//     their time ranges overlap (parallel execution) and a new turn after a
//     gap.
//
// Turns are ordered by their first call's start time; within a turn calls
// keep start-time order (the scorer treats calls of one turn as unordered
// among themselves). Ties break on end time, then arrival order.
func Order(calls []Call, agent pcommon.SpanID) []int {
	slices.SortStableFunc(calls, func(a, b Call) int {
		switch {
		case a.Start != b.Start:
			return cmpUint(a.Start, b.Start)
		case a.End != b.End:
			return cmpUint(a.End, b.End)
		}
		return 0
	})
	turns := make([]int, len(calls))
	turn := 0
	// stepTurn maps a step span to its turn; direct children track the end
	// of the current overlapping run.
	var stepTurn map[pcommon.SpanID]int
	var runEnd uint64
	directTurn := 0
	for i := range calls {
		c := &calls[i]
		if c.Parent != agent && !c.Parent.IsEmpty() {
			if stepTurn == nil {
				stepTurn = make(map[pcommon.SpanID]int, 4)
			}
			t, ok := stepTurn[c.Parent]
			if !ok {
				turn++
				t = turn
				stepTurn[c.Parent] = t
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
	// Renumber turns by first appearance so they increase along the order.
	remap := make([]int, turn+1)
	next := 0
	for i, t := range turns {
		if remap[t] == 0 {
			next++
			remap[t] = next
		}
		turns[i] = remap[t]
	}
	return turns
}

func cmpUint(a, b uint64) int {
	if a < b {
		return -1
	}
	return 1
}
