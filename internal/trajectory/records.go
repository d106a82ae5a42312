package trajectory

import (
	"cmp"
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// mergeRecords merges into each call of a closing run the other records of
// it that arrived after its tool span (an MCP server span under an MCP
// client span, a wrapper's inner span). Records that arrive before their
// tool span are merged when it arrives (see [Store.Tool]); one that arrives
// after it joins the run through the tool span's node, as a call whose
// parent is a tool span, and is merged here into the call that tool span
// (or one it was merged into) recorded, deepest first, as it would have been
// had the spans arrived children first. The call is then the same in any
// order. It returns calls without the merged records, in the order they had.
func mergeRecords(ts *traceState, calls []StoredCall) []StoredCall {
	if !hasLateRecord(ts, calls) {
		return calls
	}
	at := make(map[pcommon.SpanID]int, len(calls))
	for i := range calls {
		at[calls[i].Span] = i
	}
	type record struct{ i, outer, depth int }
	var late []record
	for i := range calls {
		if o := outerRecord(ts, calls, at, i); o >= 0 {
			late = append(late, record{i: i, outer: o})
		}
	}
	for k := range late {
		late[k].depth = recordDepth(ts, calls, at, late[k].i)
	}
	slices.SortStableFunc(late, func(a, b record) int { return cmp.Compare(b.depth, a.depth) })
	merged := make([]bool, len(calls))
	for _, r := range late {
		if merged[r.outer] {
			continue // span ids that loop: leave the rest as they are
		}
		mergeDuplicate(&calls[r.outer], &calls[r.i])
		merged[r.i] = true
	}
	out := calls[:0]
	for i := range calls {
		if !merged[i] {
			out = append(out, calls[i])
		}
	}
	clear(calls[len(out):])
	return out
}

// hasLateRecord reports whether a call's parent is a tool span: a record
// of a call that arrived after that call's tool span.
func hasLateRecord(ts *traceState, calls []StoredCall) bool {
	for i := range calls {
		if n := ts.nodes.get(calls[i].Parent); n != nil && n.kind == nodeTool {
			return true
		}
	}
	return false
}

// outerRecord returns the index of the call that call i is a record of: the
// first call whose tool span is an ancestor of call i's through tool spans
// only; -1 when there is none.
func outerRecord(ts *traceState, calls []StoredCall, at map[pcommon.SpanID]int, i int) int {
	p := calls[i].Parent
	for range maxWalk {
		if j, ok := at[p]; ok && j != i {
			return j
		}
		n := ts.nodes.get(p)
		if n == nil || n.kind != nodeTool {
			return -1
		}
		p = n.parent
	}
	return -1
}

// recordDepth is how many records call i is nested under (at most maxWalk:
// span ids may loop).
func recordDepth(ts *traceState, calls []StoredCall, at map[pcommon.SpanID]int, i int) int {
	d := 0
	for d < maxWalk {
		j := outerRecord(ts, calls, at, i)
		if j < 0 || j == i {
			break
		}
		i = j
		d++
	}
	return d
}
