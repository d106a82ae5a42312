package trajectory

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestSpanNodesBehavesLikeAMap runs random operations on spanNodes and on a
// plain map side by side, across the moves from inline entries to the
// overflow's list and to its map, with overflows reused or not.
func TestSpanNodesBehavesLikeAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		var s spanNodes
		var pool *overflows
		if round%2 == 1 {
			pool = &overflows{}
		}
		want := map[pcommon.SpanID]*node{}
		ids := 2 + r.IntN(2*(inlineNodes+spillNodes))
		for op := 0; op < 100; op++ {
			id := pcommon.SpanID{byte(r.IntN(ids))}
			switch r.IntN(5) {
			case 0, 1:
				n := &node{opened: int64(op), kind: nodeKind(r.IntN(int(nodeClosed) + 1))}
				s.set(id, n, pool)
				want[id] = n
			case 2:
				s.remove(id)
				delete(want, id)
			case 4:
				if pool != nil && r.IntN(8) == 0 {
					s.release(pool) // a new trace in the state
					clear(want)
				}
			case 3:
				// Drop the nodes opened at an odd step.
				s.removeIf(func(got pcommon.SpanID, n *node) bool {
					require.Same(t, want[got], n)
					return n.opened%2 == 1
				})
				for k, n := range want {
					if n.opened%2 == 1 {
						delete(want, k)
					}
				}
			}
			for k := 0; k < ids; k++ {
				id := pcommon.SpanID{byte(k)}
				assert.Same(t, want[id], s.get(id), "round %d op %d span %d", round, op, k)
			}
			seen, runs := 0, int32(0)
			for n := range s.all() {
				seen++
				runs += isRun(n)
			}
			require.Equal(t, len(want), seen)
			require.Equal(t, runs, s.runs, "round %d op %d", round, op)
		}
	}
}
