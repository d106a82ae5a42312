package tracefilter

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestTraceFilterSaturates: a bit counted to its limit stays set (never a
// false "no"), and traces whose bits it does not share are unaffected.
func TestTraceFilterSaturates(t *testing.T) {
	f := New(1024)
	id := pcommon.TraceID{15: 7}
	for i := 0; i < 300; i++ {
		f.Add(id)
	}
	for i := 0; i < 300; i++ {
		f.Remove(id)
	}
	assert.True(t, f.MayHave(id))
	other := pcommon.TraceID{15: 8}
	h, o := Hash(id), Hash(other)
	require.NotEqual(t, h>>f.shift, o>>f.shift, "another word")
	f.Add(other)
	assert.True(t, f.MayHave(other))
	f.Remove(other)
	assert.False(t, f.MayHave(other))
}

// TestTraceFilterCountsExactly: against a multiset of the traces added,
// in a filter small enough that traces share words and bits, every trace
// added and not removed is "maybe", and once every trace is removed
// (counts below saturation) the filter is empty again.
func TestTraceFilterCountsExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	f := New(64)
	in := map[pcommon.TraceID]int{}
	id := func() pcommon.TraceID {
		var t pcommon.TraceID
		t[3] = byte(rng.IntN(40))
		t[12] = byte(rng.IntN(5))
		return t
	}
	for step := 0; step < 20000; step++ {
		t0 := id()
		if in[t0] > 0 && rng.IntN(2) == 0 {
			f.Remove(t0)
			in[t0]--
		} else if in[t0] < 2 {
			f.Add(t0)
			in[t0]++
		}
		for t1, n := range in {
			if n > 0 {
				require.True(t, f.MayHave(t1), "step %d: %v added %d times", step, t1, n)
			}
		}
	}
	for t1, n := range in {
		for ; n > 0; n-- {
			f.Remove(t1)
		}
	}
	saturated := false
	for b := uint(0); b < uint(len(f.words))*64; b++ {
		saturated = saturated || f.counts[b] == filterCountMax
	}
	if !saturated {
		assert.Equal(t, make([]uint64, len(f.words)), f.words)
		assert.Equal(t, make([]uint8, len(f.counts)), f.counts)
	}
}

// BenchmarkTraceFilterChurn: one trace added to and one removed from a
// filter holding 13,000, the filter's work per trace the store tracks.
func BenchmarkTraceFilterChurn(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	ids := make([]pcommon.TraceID, 1<<14)
	for i := range ids {
		binary.LittleEndian.PutUint64(ids[i][:8], rng.Uint64())
		binary.LittleEndian.PutUint64(ids[i][8:], rng.Uint64())
	}
	f := New(16_000)
	const held = 13_000
	for _, id := range ids[:held] {
		f.Add(id)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.Add(ids[(i+held)&(len(ids)-1)])
		f.Remove(ids[i&(len(ids)-1)])
	}
}

// TestTraceFilterTiny: a filter sized for a few traces (one word of bits
// would do) still finds each trace's word: a one-word table made the shift
// to the word index 64, which Go's shift by (shift & 63) turned into 0, an
// index far past the table.
func TestTraceFilterTiny(t *testing.T) {
	for c := 0; c <= 9; c++ {
		f := New(c)
		for i := range 64 {
			id := pcommon.TraceID{0: byte(i), 9: byte(i * 7), 15: 1}
			f.Add(id)
			require.True(t, f.MayHave(id), "capacity %d, trace %v", c, id)
			f.Remove(id)
		}
		require.GreaterOrEqual(t, f.capacity, c)
	}
}
