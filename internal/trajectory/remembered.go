package trajectory

import (
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// What a trace keeps once its runs close (a remembered trace, so that a
// late tool span is counted late and a retried agent span is known): its
// span nodes (ids and kinds, no data), its first link nodes and the start
// times of its model calls. It keeps no turn of a closed run (runTurns
// hands them to the run, keepOpenTurns drops them, and a turn that arrives
// after its run closed is not recorded), so no text of any span: calls and
// run context go with their trajectory, and a stored turn owns copies of
// only the ids, names and arguments it read (extract.ModelTurn.Parse).

// keepOpenTurns drops from the trace's turns those take takes (a closing
// run's) and any other that resolves to a closed run, so that the trace
// remembers only the turns of runs still open.
func keepOpenTurns(ts *traceState, take func(turnRecord) bool) {
	x := &ts.extra
	x.turns = slices.DeleteFunc(x.turns, func(t turnRecord) bool {
		return take(t) || closedRunAt(ts, t.parent)
	})
	if len(x.turns) == 0 {
		x.turns = nil // the inline room serves again, and the state holds no pointer to it
	}
}

// closedRunAt reports whether span resolves to a run already closed: a
// turn recorded there belongs to no run that can still take it.
func closedRunAt(ts *traceState, span pcommon.SpanID) bool {
	_, n, ok := resolve(ts, span)
	return ok && n != nil && n.kind == nodeClosed
}

// A note quotes at most maxNote bytes of an outcome's text, so the notes
// made from the MaxOutcomeText bytes a turn keeps are those of the whole
// text (this fails to compile otherwise).
const _ = uint(extract.MaxOutcomeText - maxNote - 1)
