package toolcallaccuracyprocessor

import (
	"math/rand/v2"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestReplayCacheTraceFilter drives a replay cache with puts of new and
// repeated runs, evictions past its limit and sweeps, and checks that every
// run it holds is found through its trace filter, and that once every run
// has left (swept past max_age) the filter holds none of their traces: the
// filter follows the map, or the roots keepLinks asks about would be looked
// up for nothing.
func TestReplayCacheTraceFilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := newReplayCache(50, 100)
	seen := map[pcommon.TraceID]bool{}
	// Few traces, so runs repeat and share the filter's words.
	key := func() runKey {
		var tr pcommon.TraceID
		tr[0] = byte(rng.IntN(8))
		tr[15] = byte(rng.IntN(40))
		seen[tr] = true
		return runKey{trace: tr, span: pcommon.SpanID{byte(rng.IntN(3))}}
	}
	now := int64(0)
	for step := range 20_000 {
		now += int64(rng.IntN(3))
		if rng.IntN(10) == 0 {
			c.sweep(now)
		} else {
			c.put(key(), &annotations{}, now)
		}
		for k := range c.byRun.All() {
			if c.get(k) == nil {
				t.Fatalf("step %d: a run the cache holds is not found", step)
			}
		}
	}
	c.sweep(now + 1_000)
	if c.len() != 0 {
		t.Fatalf("%d runs left after max_age", c.len())
	}
	for tr := range seen {
		if c.traces.MayHave(tr) {
			t.Fatalf("trace %v still in the filter of an empty cache", tr)
		}
	}
}
