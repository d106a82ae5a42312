package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// putCallStatuses writes, under key, what became of each call a rule's
// primary evaluation judged: a map from status (the tool_calls metric's
// status names) to the names of the tools whose calls ended with it, in
// call order. These are the calls the tool_calls metric counts (see count),
// named, so that the evaluations connector can count them per tool. Statuses
// no call has are left out, and the attribute when no call has any.
// Each status's list is written whole (it is one run of the packed form):
// the calls are walked once to count them, then once per status they have.
func putCallStatuses(w *annotationWriter, attrs pcommon.Map, key string, ev *evaluation, expected []toolcall.ExpectedCall) {
	var counts [numCallStatuses]int
	eachCallStatus(ev, expected, func(st callStatus, _ string) { counts[st]++ })
	statuses := 0
	for _, n := range counts {
		if n > 0 {
			statuses++
		}
	}
	if statuses == 0 {
		return
	}
	m, at := w.putEmptyMap(attrs, key, statuses)
	for st, n := range counts {
		if n == 0 {
			continue
		}
		list, listAt := w.putEmptySlice(m, callStatusNames[st], n)
		eachCallStatus(ev, expected, func(got callStatus, name string) {
			if got == callStatus(st) {
				w.appendStr(list, validText(name))
			}
		})
		w.end(listAt, list.Len())
	}
	w.end(at, m.Len())
}

// eachCallStatus calls visit with the status and tool name of every call the
// evaluation's breakdown places, as count classifies them: a pair is matched
// when it scored 1 and mismatched otherwise; missing calls are named as
// expected, the others as called. It returns how many it visited.
func eachCallStatus(ev *evaluation, expected []toolcall.ExpectedCall, visit func(callStatus, string)) int {
	b := &ev.result.Breakdown
	n := 0
	actual := func(i int) string {
		if i >= 0 && i < len(ev.calls) {
			return ev.calls[i].Name
		}
		return ""
	}
	for _, pr := range b.Pairs {
		st := statusMismatched
		if pr.Score >= 1 {
			st = statusMatched
		}
		name := actual(int(pr.Actual))
		if name == "" && int(pr.Expected) < len(expected) && pr.Expected >= 0 {
			name = expected[pr.Expected].Name
		}
		visit(st, name)
		n++
	}
	for _, i := range b.Missing {
		name := ""
		if i >= 0 && i < len(expected) {
			name = expected[i].Name
		}
		visit(statusMissing, name)
		n++
	}
	for _, pr := range b.OutOfOrder {
		visit(statusOutOfOrder, actual(int(pr.Actual)))
		n++
	}
	for _, l := range [...]struct {
		st  callStatus
		idx []int
	}{{statusUnexpected, b.Unexpected}, {statusForbidden, b.Forbidden}, {statusHallucinated, b.Hallucinated}} {
		for _, i := range l.idx {
			visit(l.st, actual(i))
			n++
		}
	}
	for _, f := range b.Findings {
		if st, ok := findingStatus(f.Check); ok {
			visit(st, actual(f.Call))
			n++
		}
	}
	return n
}

// hasCallStatuses reports whether putCallStatuses writes anything for a
// breakdown.
func hasCallStatuses(b *toolcall.Breakdown) bool {
	if len(b.Pairs)+len(b.Missing)+len(b.OutOfOrder)+len(b.Unexpected)+len(b.Forbidden)+len(b.Hallucinated) > 0 {
		return true
	}
	for _, f := range b.Findings {
		if _, ok := findingStatus(f.Check); ok {
			return true
		}
	}
	return false
}
