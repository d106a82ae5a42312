package trajectory

import (
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
			_, want := s.traces[probe]
			assert.Equal(t, want, s.Tracks(probe), "step %d, trace %v", i, probe)
		}
	}
}

// TestTraceFilterSaturates: a bucket counted to its limit stays "maybe"
// (never a false "no"), and other buckets are unaffected.
func TestTraceFilterSaturates(t *testing.T) {
	var f traceFilter
	id := pcommon.TraceID{15: 7}
	for i := 0; i < 1<<16+10; i++ {
		f.add(id)
	}
	for i := 0; i < 1<<16+10; i++ {
		f.remove(id)
	}
	assert.True(t, f.mayHave(id))
	other := pcommon.TraceID{15: 8}
	f.add(other)
	assert.True(t, f.mayHave(other))
	f.remove(other)
	assert.False(t, f.mayHave(other))
}
