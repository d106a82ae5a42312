package toolcallaccuracyprocessor

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWaitingRunsReleaseInDueOrderAndOnce: runs come out once, those made
// ready at once, the others when due, and a run made ready is not kept by
// its place in the queue.
func TestWaitingRunsReleaseInDueOrderAndOnce(t *testing.T) {
	var w waitingRuns
	run := func(i uint64, due int64, incomplete bool) *heldRun {
		r := &heldRun{trace: traceID(i), span: spanID(i), due: due, incomplete: incomplete}
		w.push(r)
		return r
	}
	a, b, c := run(1, 10, true), run(2, 20, true), run(3, 15, false)
	require.True(t, w.makeReady(runKey{b.trace, b.span}))
	require.False(t, w.makeReady(runKey{c.trace, c.span}), "a run held for wait is not released early")
	require.Equal(t, []*heldRun{b}, w.takeDue(5, false))
	require.Equal(t, []*heldRun{a}, w.takeDue(12, false))
	require.Empty(t, w.takeDue(12, false))
	require.Equal(t, []*heldRun{c}, w.takeDue(30, false), "b's queue entry is stale: b went out once")
	require.Zero(t, w.len())
	d := run(4, 40, true)
	require.Equal(t, []*heldRun{d}, w.takeDue(0, true))
}

// BenchmarkWaitingRuns: holding, joining, completing and releasing a run
// cost the same with 100 and with 10,000 runs held.
func BenchmarkWaitingRuns(b *testing.B) {
	for _, held := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("held=%d", held), func(b *testing.B) {
			var w waitingRuns
			runs := make([]*heldRun, held)
			for i := range runs {
				runs[i] = &heldRun{trace: traceID(uint64(i)), span: spanID(uint64(i)), due: int64(i), incomplete: true}
				w.push(runs[i])
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				// One run completes and goes; a new one is held in its place.
				r := runs[i%held]
				key := runKey{r.trace, r.span}
				_ = w.get(key)
				w.makeReady(key)
				out := w.takeDue(-1, false)
				if len(out) != 1 {
					b.Fatalf("released %d", len(out))
				}
				r.ready = false
				r.due = int64(held + i)
				w.push(r)
			}
		})
	}
}
