package trajectory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"
)

// TestScoringCallsDecodesArgumentsUnlessSkipped checks that arguments are
// parsed for scorers that read them and left undecoded, marked unknown, for
// runs whose scorers do not.
func TestScoringCallsDecodesArgumentsUnlessSkipped(t *testing.T) {
	traj := &Trajectory{Calls: []Call{
		{Name: "get_weather", Args: `{"city":"Paris"}`, Encoding: extract.EncodingJSON, Parent: sid(1), Start: 1},
		{Name: "get_time", Args: `{"tz":"CET"`, Encoding: extract.EncodingJSON, Parent: sid(1), Start: 2},
	}}

	decoded := ScoringCalls(traj, sid(1), ScoringOptions{})
	require.Len(t, decoded, 2)
	assert.Equal(t, `{"city":"Paris"}`, decoded[0].Args.JSON())
	assert.False(t, decoded[0].ArgsUnknown)
	assert.True(t, decoded[1].ArgsUnknown, "truncated JSON is unknown")

	skipped := ScoringCalls(traj, sid(1), ScoringOptions{SkipArguments: true})
	require.Len(t, skipped, 2)
	for i, c := range skipped {
		assert.Equal(t, decoded[i].Name, c.Name)
		assert.Equal(t, decoded[i].Position, c.Position)
		assert.True(t, c.Args.IsUndefined(), "call %d: arguments not decoded", i)
		assert.True(t, c.ArgsUnknown, "call %d: undecoded arguments are unknown", i)
	}
	assert.Equal(t, scoring.StatusOK, skipped[0].Status)
}
