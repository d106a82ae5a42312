package trajectory

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// requireAccounting checks the store's open counts against a recount: every
// trace's count and its span table's are the groups and held agents its
// nodes hold, and the store's is their sum.
func requireAccounting(t testing.TB, s *Store, msg string) {
	t.Helper()
	total := 0
	for id, ts := range s.traces {
		runs := int32(0)
		for n := range ts.nodes.all() {
			runs += isRun(n)
		}
		if ts.open != runs || ts.nodes.runs != runs {
			t.Fatalf("%s: trace %v counts %d open runs (span table %d), holds %d", msg, id, ts.open, ts.nodes.runs, runs)
		}
		total += int(runs)
	}
	if s.Open() != total {
		t.Fatalf("%s: the store counts %d open runs, its traces hold %d", msg, s.Open(), total)
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

// TestSubAgentMarkDoesNotEvictTheClosingRun: with more runs held than
// max_open_trajectories, an agent span whose parent was not seen opens a
// group there to count it as a sub-agent, and the limit evicts the oldest
// group: not the agent's own run, which is closing.
func TestSubAgentMarkDoesNotEvictTheClosingRun(t *testing.T) {
	l := limits()
	l.MaxOpenTrajectories = 1
	s := NewStore(l)
	s.Tool(trace1, sid(3), sid(1), tool("a"), 0)       // run 1's group
	s.Agent(trace2, sid(1), pcommon.SpanID{}, true, 0) // a held run: two open
	traj := s.Agent(trace1, sid(1), sid(2), false, 0)  // run 1, under span 2 not seen yet
	assert.Equal(t, []string{"a"}, names(traj))
	requireAccounting(t, s, "after the run closed")
	assert.Equal(t, 1, s.Open(), "the held run")
	assert.Equal(t, int64(1), s.TakeStats().Evicted[EvictMaxOpen], "span 2's group, over the limit")
}
