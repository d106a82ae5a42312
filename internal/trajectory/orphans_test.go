package trajectory

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// adoptOrphans runs trace1 with a root agent (span 1) that made call "own"
// and orphans calls o0, o1, … arriving in that order, each under its own
// span never seen, within a call limit of three; with moved, o0's parent
// arrives as a step under another span never seen, so its group moves up.
// It returns the root's run.
func adoptOrphans(orphans int, moved, hold bool) *Trajectory {
	l := limits()
	l.MaxCallsPerTrajectory = 3
	s := NewStore(l)
	s.Tool(trace1, sid(2), sid(1), tool("own"), 0)
	for i := range orphans {
		s.Tool(trace1, sid(byte(10+i)), sid(byte(50+i)), tool(fmt.Sprintf("o%d", i)), 0)
	}
	if moved {
		s.Link(trace1, sid(50), sid(99), true, 0)
	}
	if hold {
		s.Agent(trace1, sid(1), pcommon.SpanID{}, true, 0)
		return s.Release(trace1, sid(1))
	}
	return s.Agent(trace1, sid(1), pcommon.SpanID{}, false, 0)
}

// TestOrphansAdoptedInArrivalOrder: a root adopts orphaned calls in the
// order they arrived, so which of them the call limit keeps is the same
// every time, whether the trace's spans are few (kept inline) or many
// (kept in a map), and whether the root is held.
func TestOrphansAdoptedInArrivalOrder(t *testing.T) {
	for _, orphans := range []int{2, 4, 7} { // 5, 9 and 15 spans
		for _, moved := range []bool{false, true} {
			for _, hold := range []bool{false, true} {
				t.Run(fmt.Sprintf("%d orphans, moved %v, held %v", orphans, moved, hold), func(t *testing.T) {
					for range 50 {
						traj := adoptOrphans(orphans, moved, hold)
						require.NotNil(t, traj)
						require.Equal(t, []string{"own", "o0", "o1"}, names(traj))
						require.Equal(t, int32(orphans-2), traj.Dropped)
					}
				})
			}
		}
	}
}

// TestOrphansAdoptedWhole: with no call limit to meet, every orphan's calls
// come in arrival order, a trace root's as an agent's.
func TestOrphansAdoptedWhole(t *testing.T) {
	for _, orphans := range []int{2, 8} {
		s := NewStore(limits())
		var want []string
		for i := range orphans {
			name := fmt.Sprintf("o%d", i)
			s.Tool(trace1, sid(byte(10+i)), sid(byte(50+i)), tool(name), 0)
			want = append(want, name)
		}
		assert.Equal(t, want, names(s.Link(trace1, sid(1), pcommon.SpanID{}, true, 0)), "%d orphans", orphans)
		assert.Equal(t, 0, s.Open())
	}
}
