package trajectory

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestTracksFollowsTheTraces: whatever traces are added, evicted at the
// trace limit or swept by age, Tracks answers as the map does, also for
// traces whose ids share the filter's bucket.
func TestTracksFollowsTheTraces(t *testing.T) {
	lim := limits()
	lim.MaxTrackedTraces = 50
	s := NewStore(lim)
	s.filterFrom = 10 // built while the test runs
	rng := rand.New(rand.NewPCG(1, 2))
	id := func() pcommon.TraceID {
		var t pcommon.TraceID
		t[0] = byte(rng.IntN(200))
		t[15] = byte(rng.IntN(4)) // few buckets: many share one
		return t
	}
	now := time.Now().UnixNano()
	for i := 0; i < 5000; i++ {
		now += int64(time.Millisecond)
		switch rng.IntN(10) {
		case 0:
			s.Sweep(now + int64(rng.IntN(2))*int64(time.Hour))
		default:
			s.Tool(id(), sid(2), sid(1), tool("get_weather"), now)
		}
		if i == 4999 {
			assert.NotNil(t, s.filter)
		}
		for k := 0; k < 8; k++ {
			probe := id()
			want := s.traces.Get(probe) != nil
			assert.Equal(t, want, s.Tracks(probe), "step %d, trace %v", i, probe)
		}
	}
}

// TestTraceFilterFalsePositives measures how many untracked random trace
// ids the filter of a store passes on to the map, and its memory, at 13,000
// tracked traces (the load benchmark's) and 200,000.
func TestTraceFilterFalsePositives(t *testing.T) {
	for _, tc := range []struct {
		traces int
		maxFP  float64
	}{{13_000, 0.03}, {200_000, 0.03}} {
		rng := rand.New(rand.NewPCG(5, uint64(tc.traces)))
		s := &Store{traces: newTraceTable(), filterFrom: filterFrom}
		for range tc.traces {
			var id pcommon.TraceID
			binary.LittleEndian.PutUint64(id[:8], rng.Uint64())
			binary.LittleEndian.PutUint64(id[8:], rng.Uint64())
			s.traces.Put(id, &traceState{})
			s.track(id)
		}
		const probes = 200_000
		fp := 0
		for range probes {
			var id pcommon.TraceID
			binary.LittleEndian.PutUint64(id[:8], rng.Uint64())
			binary.LittleEndian.PutUint64(id[8:], rng.Uint64())
			if s.filter.MayHave(id) {
				fp++
			}
		}
		rate := float64(fp) / probes
		t.Logf("%d traces: false positives %.3f%%, filter %d KiB (capacity %d)", tc.traces, 100*rate, s.filter.Bytes()/1024, s.filter.Capacity())
		assert.Less(t, rate, tc.maxFP)
	}
}

// TestTraceFilterFalsePositivesStructuredIDs: ids that are not random but
// count (big- or little-endian, in either half, as test generators and some
// legacy tracers make them) are told apart as well as random ones: tracked
// ids 1..13,000 of a pattern, untracked ones the next 200,000 of it.
func TestTraceFilterFalsePositivesStructuredIDs(t *testing.T) {
	patterns := map[string]func(n uint64) pcommon.TraceID{
		"big-endian counter in the low half": func(n uint64) (id pcommon.TraceID) {
			id[0] = 1
			binary.BigEndian.PutUint64(id[8:], n)
			return id
		},
		"little-endian counter in the low half": func(n uint64) (id pcommon.TraceID) {
			binary.LittleEndian.PutUint64(id[8:], n)
			return id
		},
		"big-endian counter in the high half": func(n uint64) (id pcommon.TraceID) {
			binary.BigEndian.PutUint64(id[:8], n)
			id[15] = 7
			return id
		},
		"counter spaced by 100": func(n uint64) (id pcommon.TraceID) {
			binary.BigEndian.PutUint64(id[8:], 1<<40+100*n)
			return id
		},
	}
	for name, id := range patterns {
		t.Run(name, func(t *testing.T) {
			s := &Store{traces: newTraceTable(), filterFrom: filterFrom}
			const tracked = 13_000
			for n := uint64(1); n <= tracked; n++ {
				s.traces.Put(id(n), &traceState{})
				s.track(id(n))
			}
			const probes = 200_000
			fp := 0
			for n := uint64(tracked + 1); n <= tracked+probes; n++ {
				if s.filter.MayHave(id(n)) {
					fp++
				}
			}
			rate := float64(fp) / probes
			t.Logf("false positives %.3f%%", 100*rate)
			assert.Less(t, rate, 0.05)
		})
	}
}

// BenchmarkTracksUntracked: Store.Tracks for ordinary spans' traces (random,
// untracked) while the store tracks 13,000 traces.
func BenchmarkTracksUntracked(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	s := &Store{traces: newTraceTable(), filterFrom: filterFrom}
	random := func() pcommon.TraceID {
		var id pcommon.TraceID
		binary.LittleEndian.PutUint64(id[:8], rng.Uint64())
		binary.LittleEndian.PutUint64(id[8:], rng.Uint64())
		return id
	}
	for range 13_000 {
		id := random()
		s.traces.Put(id, &traceState{})
		s.track(id)
	}
	probes := make([]pcommon.TraceID, 1<<16)
	for i := range probes {
		probes[i] = random()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if s.Tracks(probes[i&(len(probes)-1)]) {
			b.Fatal("an untracked trace is tracked")
		}
	}
}
