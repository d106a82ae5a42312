package trajectory

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestTracksAnswersAsTheMapUnderChurn: thousands of traces tracked,
// swept, evicted and re-added while the filter is built (from 8 traces) and
// grows, with ids of a narrow pattern (halves equal but for two bits, the
// zero id among them; all one hash under the filter's first hash, whose
// counts then saturated): Tracks answers as the map every time. Saturated
// counts themselves are TestTraceFilterSaturates'.
func TestTracksAnswersAsTheMapUnderChurn(t *testing.T) {
	lim := limits()
	lim.MaxTrackedTraces = 3000
	s := NewStore(lim)
	s.filterFrom = 8
	rng := rand.New(rand.NewPCG(5, 6))
	id := func() pcommon.TraceID {
		var t pcommon.TraceID
		lo := rng.Uint64() % 4000
		binary.LittleEndian.PutUint64(t[:8], lo)
		binary.LittleEndian.PutUint64(t[8:], lo^uint64(rng.IntN(3)))
		return t
	}
	now := time.Now().UnixNano()
	for i := 0; i < 20000; i++ {
		now += int64(time.Microsecond)
		if rng.IntN(500) == 0 {
			s.Sweep(now + int64(rng.IntN(2))*int64(time.Hour))
			continue
		}
		s.Tool(id(), sid(2), sid(1), tool("get_weather"), now)
		if i%50 == 0 {
			for k := 0; k < 64; k++ {
				probe := id()
				if want := s.traces.Get(probe) != nil; want != s.Tracks(probe) {
					t.Fatalf("step %d: trace %v tracked %v, Tracks %v", i, probe, want, !want)
				}
			}
			for tr := range s.traces.All() {
				if !s.Tracks(tr) {
					t.Fatalf("step %d: tracked trace %v not Tracks", i, tr)
				}
			}
		}
	}
	if s.filter == nil {
		t.Fatal("no filter built")
	}
}
