package toolcallaccuracyprocessor

import (
	"math/rand/v2"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestReplayCacheTraceCounts drives a replay cache with puts of new and
// repeated runs, evictions past its limit and sweeps, and checks after each
// step that every run it holds is found (a zero count is never wrong) and
// that the counts are exactly its runs per bucket (all buckets every 100
// steps).
func TestReplayCacheTraceCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := newReplayCache(50, 100)
	// Few buckets' worth of traces, so buckets are shared and runs repeat.
	key := func() runKey {
		var tr pcommon.TraceID
		tr[0] = byte(rng.IntN(8))
		tr[1] = byte(rng.IntN(3))
		tr[15] = byte(rng.IntN(40))
		return runKey{trace: tr, span: pcommon.SpanID{byte(rng.IntN(3))}}
	}
	now := int64(0)
	for step := range 20_000 {
		now += int64(rng.IntN(3))
		switch rng.IntN(10) {
		case 0:
			c.sweep(now)
		default:
			c.put(key(), &annotations{}, now)
		}
		want := make(map[int]int)
		for k := range c.byRun {
			want[traceBucket(k.trace)]++
			if c.get(k) == nil {
				t.Fatalf("step %d: a run the cache holds is not found", step)
			}
		}
		for b, n := range want {
			if int(c.traces[b]) != n {
				t.Fatalf("step %d: bucket %d counts %d runs, the cache holds %d", step, b, c.traces[b], n)
			}
		}
		if step%100 != 0 {
			continue
		}
		total := 0
		for _, n := range c.traces {
			total += int(n)
		}
		if total != len(c.byRun) {
			t.Fatalf("step %d: the buckets count %d runs, the cache holds %d", step, total, len(c.byRun))
		}
	}
}

// TestTraceCountsSaturate checks that a bucket counting past its maximum
// answers "maybe" for good instead of wrapping to zero.
func TestTraceCountsSaturate(t *testing.T) {
	var c traceCounts
	var tr pcommon.TraceID
	for range 300 {
		c.add(tr)
	}
	for range 300 {
		c.remove(tr)
	}
	if !c.mayHave(tr) {
		t.Fatal("a saturated bucket answered that the trace has no run")
	}
	var other pcommon.TraceID
	other[0] = 1
	if c.mayHave(other) {
		t.Fatal("an empty bucket answered maybe")
	}
}
