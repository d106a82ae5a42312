package trajectory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRootPassedWithItsOwnCalls: a trace root that passed before its
// spans, whose calls sit directly under it, is not held for a run below
// it (its own calls are no such run): the run closes with them at once.
func TestRootPassedWithItsOwnCalls(t *testing.T) {
	s := NewStore(limits())
	s.Tool(trace1, sid(2), sid(1), tool("a"), 0) // under root 1, not seen
	traj, missing, adopted := s.RootPassed(trace1, sid(1), AgentOptions{HoldIfMissing: true}, 0)
	require.True(t, adopted)
	assert.Equal(t, MissingNone, missing)
	require.NotNil(t, traj)
	assert.Equal(t, []string{"a"}, names(traj))
	assert.True(t, traj.RootPassed)
	requireAccounting(t, s, "after the root closed")
	assert.Zero(t, s.Open())
}
