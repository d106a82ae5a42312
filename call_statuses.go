package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// putCallStatuses writes, under key, what became of each call a rule's
// primary evaluation judged: a map from status (the tool_calls metric's
// status names) to the names of the tools whose calls ended with it, in
// call order. These are the calls the tool_calls metric counts (see count),
// named, so that the evaluations connector can count them per tool: a pair
// is matched when it scored 1 and mismatched otherwise; missing calls are
// named as expected, the others as called. Statuses no call has are left
// out, and the attribute when no call has any.
func putCallStatuses(w *annotationWriter, attrs pcommon.Map, key *annotationKey, ev *evaluation, expected []toolcall.ExpectedCall) {
	b := &ev.result.Breakdown
	var counts [numCallStatuses]int
	for _, pr := range b.Pairs {
		counts[pairStatus(pr)]++
	}
	counts[statusMissing] = len(b.Missing)
	counts[statusOutOfOrder] = len(b.OutOfOrder)
	counts[statusUnexpected] = len(b.Unexpected)
	counts[statusForbidden] = len(b.Forbidden)
	counts[statusHallucinated] = len(b.Hallucinated)
	for _, f := range b.Findings {
		if st, ok := findingStatus(f.Check); ok {
			counts[st]++
		}
	}
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
	for status, n := range counts {
		if n == 0 {
			continue
		}
		st := callStatus(status)
		list, listAt := w.putEmptySlice(m, &callStatusKeys[st], n)
		switch st {
		case statusMatched, statusMismatched:
			for _, pr := range b.Pairs {
				if pairStatus(pr) == st {
					w.appendStr(list, validText(pairName(pr, ev.calls, expected)))
				}
			}
		case statusMissing:
			for _, i := range b.Missing {
				w.appendStr(list, validText(expectedNameAt(expected, i)))
			}
		case statusOutOfOrder:
			for _, pr := range b.OutOfOrder {
				w.appendStr(list, validText(callNameAt(ev.calls, int(pr.Actual))))
			}
		case statusUnexpected, statusForbidden, statusHallucinated:
			for _, i := range breakdownList(b, st) {
				w.appendStr(list, validText(callNameAt(ev.calls, i)))
			}
		default:
			for _, f := range b.Findings {
				if got, ok := findingStatus(f.Check); ok && got == st {
					w.appendStr(list, validText(callNameAt(ev.calls, f.Call)))
				}
			}
		}
		w.end(listAt, list.Len())
	}
	w.end(at, m.Len())
}

// pairStatus is matched for a pair that scored 1, else mismatched.
func pairStatus(pr toolcall.Pair) callStatus {
	if pr.Score >= 1 {
		return statusMatched
	}
	return statusMismatched
}

// pairName names a pair's call as called, else as expected.
func pairName(pr toolcall.Pair, calls []toolcall.Call, expected []toolcall.ExpectedCall) string {
	if name := callNameAt(calls, int(pr.Actual)); name != "" {
		return name
	}
	return expectedNameAt(expected, int(pr.Expected))
}

// breakdownList is the breakdown's list of the calls with status st, one
// of unexpected, forbidden and hallucinated.
func breakdownList(b *toolcall.Breakdown, st callStatus) []int {
	switch st {
	case statusUnexpected:
		return b.Unexpected
	case statusForbidden:
		return b.Forbidden
	}
	return b.Hallucinated
}

// callNameAt is the name of calls[i], or "" when i is out of range.
func callNameAt(calls []toolcall.Call, i int) string {
	if i >= 0 && i < len(calls) {
		return calls[i].Name
	}
	return ""
}

// expectedNameAt is the name of expected[i], or "" when i is out of range.
func expectedNameAt(expected []toolcall.ExpectedCall, i int) string {
	if i >= 0 && i < len(expected) {
		return expected[i].Name
	}
	return ""
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
