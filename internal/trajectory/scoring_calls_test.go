package trajectory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// TestScoringCallsDecodesArgumentsUnlessSkipped checks that arguments are
// parsed for scorers that read them and left undecoded, marked unknown, for
// runs whose scorers do not.
func TestScoringCallsDecodesArgumentsUnlessSkipped(t *testing.T) {
	traj := &Trajectory{Calls: []StoredCall{
		{Name: "get_weather", Args: `{"city":"Paris"}`, Encoding: extract.EncodingJSON, Parent: sid(1), Start: 1},
		{Name: "get_time", Args: `{"tz":"CET"`, Encoding: extract.EncodingJSON, Parent: sid(1), Start: 2},
	}}

	decoded := ScoringCalls(traj, sid(1), &ScoringOptions{})
	require.Len(t, decoded, 2)
	assert.Equal(t, `{"city":"Paris"}`, decoded[0].Args.JSON())
	assert.False(t, decoded[0].ArgsUnknown)
	assert.True(t, decoded[1].ArgsUnknown, "truncated JSON is unknown")

	skipped := ScoringCalls(traj, sid(1), &ScoringOptions{SkipArguments: true})
	require.Len(t, skipped, 2)
	for i, c := range skipped {
		assert.Equal(t, decoded[i].Name, c.Name)
		assert.Equal(t, decoded[i].Position, c.Position)
		assert.True(t, c.Args.IsUndefined(), "call %d: arguments not decoded", i)
		assert.True(t, c.ArgsUnknown, "call %d: undecoded arguments are unknown", i)
	}
	assert.Equal(t, toolcall.StatusOK, skipped[0].Status)
}

// TestScoringCallsReusesScratch checks that calls decoded into a Scratch
// equal those decoded without one, run after run (a shorter run after a
// longer one included), that a run in steady state allocates nothing, and
// that Clear drops what the calls referenced.
func TestScoringCallsReusesScratch(t *testing.T) {
	long := &Trajectory{Calls: []StoredCall{
		{Name: "get_weather", Args: `{"city":"Paris","days":3}`, Encoding: extract.EncodingJSON, Parent: sid(1), Start: 1},
		{Name: "get_time", Args: `{"tz":"CET"`, Encoding: extract.EncodingJSON, Parent: sid(1), Start: 2},
		{Name: "book", Args: `{"seats":[1,2],"note":"a\nb"}`, Encoding: extract.EncodingJSON, Parent: sid(1), Start: 3},
	}}
	short := &Trajectory{Calls: []StoredCall{
		{Name: "search", Args: `{"q":"x","q":"y"}`, Encoding: extract.EncodingJSON, Parent: sid(1), Start: 1},
	}}
	var scratch Scratch
	for _, traj := range []*Trajectory{long, short, long} {
		fresh := ScoringCalls(traj, sid(1), &ScoringOptions{Documents: true})
		reused := ScoringCalls(traj, sid(1), &ScoringOptions{Documents: true, Scratch: &scratch})
		require.Len(t, reused, len(fresh))
		for i := range fresh {
			assert.Equal(t, fresh[i].Name, reused[i].Name)
			assert.Equal(t, fresh[i].ArgsUnknown, reused[i].ArgsUnknown)
			assert.Equal(t, fresh[i].Arguments().JSON(), reused[i].Arguments().JSON())
		}
	}
	// Arguments that are not complete JSON are decoded as before, which
	// allocates; complete ones take nothing.
	valid := &Trajectory{Calls: []StoredCall{long.Calls[0], long.Calls[2]}}
	allocs := testing.AllocsPerRun(20, func() {
		ScoringCalls(valid, sid(1), &ScoringOptions{Documents: true, Scratch: &scratch})
	})
	assert.Zero(t, allocs)
	scratch.Clear()
	for _, c := range scratch.calls[:cap(scratch.calls)] {
		assert.Empty(t, c.Name)
		assert.Nil(t, c.ArgsDoc)
	}
	for _, d := range scratch.docs.store[:cap(scratch.docs.store)] {
		assert.Empty(t, d.Text())
	}
}

// Each rule's view of a run's calls gets memory of its own in the scratch,
// kept from run to run, its references dropped by Clear.
func TestScratchAligned(t *testing.T) {
	var none *Scratch
	assert.Nil(t, none.Aligned(0))
	var s Scratch
	b := s.Aligned(2)
	require.NotNil(t, b)
	*b = append(*b, toolcall.Call{Name: "a"})
	assert.NotSame(t, b, s.Aligned(0))
	assert.Same(t, b, s.Aligned(2))
	assert.Equal(t, "a", (*s.Aligned(2))[0].Name)
	s.Clear()
	assert.Equal(t, 1, cap(*s.Aligned(2)))
	assert.Empty(t, (*s.Aligned(2))[0].Name)
}

// TestScoringCallsDecodesIntoScratch checks that arguments decoded into a
// Scratch's slab equal those decoded without one, run after run, and that
// a run in steady state takes no memory for them.
func TestScoringCallsDecodesIntoScratch(t *testing.T) {
	long := &Trajectory{Calls: []StoredCall{
		{Name: "get_weather", Args: `{"city":"Paris","days":3}`, Encoding: extract.EncodingJSON, Parent: sid(1), Start: 1},
		{Name: "lookup", Args: `{"args":["{\"symbol\":\"ZZZZ\"}"]}`, Encoding: extract.EncodingTraceloop, Parent: sid(1), Start: 2},
		{Name: "book", Args: `{"seats":[1,2],"note":{"a":[{"b":1}]}}`, Encoding: extract.EncodingJSONOrPython, Parent: sid(1), Start: 3},
	}}
	short := &Trajectory{Calls: []StoredCall{
		{Name: "search", Args: `{"q":"x","q":"y"}`, Encoding: extract.EncodingJSON, Parent: sid(1), Start: 1},
	}}
	var scratch Scratch
	for _, traj := range []*Trajectory{long, short, long, short} {
		fresh := ScoringCalls(traj, sid(1), &ScoringOptions{})
		reused := ScoringCalls(traj, sid(1), &ScoringOptions{Scratch: &scratch})
		require.Len(t, reused, len(fresh))
		for i := range fresh {
			assert.Equal(t, fresh[i].ArgsUnknown, reused[i].ArgsUnknown)
			assert.Equal(t, fresh[i].Args.JSON(), reused[i].Args.JSON())
		}
	}
	plain := &Trajectory{Calls: []StoredCall{long.Calls[0], long.Calls[2]}}
	allocs := testing.AllocsPerRun(20, func() {
		ScoringCalls(plain, sid(1), &ScoringOptions{Scratch: &scratch})
	})
	assert.Zero(t, allocs)
}

// TestScoringCallsEmptyArguments checks that "{}" is a call made without
// arguments in conventions that never write "{}" for arguments they did not
// capture, and unknown, marked ArgsEmpty, in ADK, which does (unless
// empty_arguments: empty).
func TestScoringCallsEmptyArguments(t *testing.T) {
	traj := &Trajectory{Calls: []StoredCall{
		{Name: "get_time", Args: `{}`, Encoding: extract.EncodingJSON, Convention: extract.ConventionGenAI, Parent: sid(1), Start: 1},
		{Name: "get_time", Args: ` { } `, Encoding: extract.EncodingJSON, Convention: extract.ConventionADK, Parent: sid(1), Start: 2},
		{Name: "get_time", Args: `N/A`, Encoding: extract.EncodingJSON, Convention: extract.ConventionADK, Parent: sid(1), Start: 3},
	}}
	for _, documents := range []bool{false, true} {
		calls := ScoringCalls(traj, sid(1), &ScoringOptions{Documents: documents})
		require.Len(t, calls, 3)
		assert.False(t, calls[0].ArgsUnknown)
		assert.Equal(t, `{}`, calls[0].Arguments().JSON())
		assert.True(t, calls[1].ArgsUnknown)
		assert.True(t, calls[1].ArgsEmpty)
		assert.True(t, calls[2].ArgsUnknown)
		assert.False(t, calls[2].ArgsEmpty, "a placeholder other than {}")

		known := ScoringCalls(traj, sid(1), &ScoringOptions{Documents: documents, Decode: extract.DecodeOptions{EmptyIsKnown: true}})
		assert.False(t, known[1].ArgsUnknown)
		assert.Equal(t, `{}`, known[1].Arguments().JSON())
	}
}
