package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// The annotations of runs scored in their batch. A span that comes again
// (a capture sent twice, an at-least-once upstream retrying a batch the
// collector accepted) is seen by the store (trajectory.SeenClosed) and not
// scored again; it gets the annotations its run got the first time from
// these, so it carries the same tool_call_accuracy.* attributes and
// evaluation events and the evaluations connector writes its record.
//
// They are kept apart from holder.replays (held runs once sent, batches
// refused downstream), in a cache of their own with the same bounds
// (max_open_trajectories entries, each for at most max_age), so that a
// steady stream of scored runs never evicts a held run's annotations, which
// a retry is certain to need. An entry costs its packed attributes and
// events (annotations_packed.go): about 0.5 KiB for the quick start's rule
// on a passing run (BenchmarkScoredReplayEntry), so the cache holds at most
// about 5 MiB at the default limit. The annotations are packed as they are
// written (annotationWriter), and a batch's kept runs share two allocations.

// keepScored keeps the annotations of the runs of td scored in this batch,
// before take moves the held ones out. Runs set aside (held, replays,
// copies) and runs with deferred scorers (in held; send keeps theirs once
// complete) are skipped. A run's annotations are those packed as they were
// written (closedRun.annotations), else read back from its span. The
// batch's kept annotations share two allocations (their bytes, their
// headers): they enter the cache together, under one lock, and leave it
// together, first in first out.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (h *holder) keepScored(td ptrace.Traces, runs []closedRun, held []heldRun) {
	n, size := 0, 0
	for i := range runs {
		run := &runs[i]
		if run.replay != nil || run.copyOfHeld || run.hold || isHeld(held, run.ref) {
			run.annotations = nil
			continue
		}
		if len(run.annotations) == 0 {
			_, _, span := run.ref.in(td)
			if a := copyAnnotations(span); a != nil {
				run.annotations = a.packed
			}
		}
		if len(run.annotations) > 0 {
			n++
			size += len(run.annotations)
		}
	}
	if n == 0 {
		return
	}
	packed := make([]byte, 0, size)
	kept := make([]annotations, 0, n)
	for i := range runs {
		if a := runs[i].annotations; len(a) > 0 {
			from := len(packed)
			packed = append(packed, a...)
			kept = append(kept, annotations{packed: packed[from:len(packed):len(packed)]})
		}
	}
	now := h.now().UnixNano()
	h.mu.Lock()
	k := 0
	for i := range runs {
		if len(runs[i].annotations) > 0 {
			_, _, span := runs[i].ref.in(td)
			h.scored.put(runKey{span.TraceID(), span.SpanID()}, &kept[k], now)
			k++
		}
	}
	h.mu.Unlock()
}

// isHeld reports whether the span at ref is one of held.
func isHeld(held []heldRun, ref spanRef) bool {
	for i := range held {
		if held[i].ref == ref {
			return true
		}
	}
	return false
}
