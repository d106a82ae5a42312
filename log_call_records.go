package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"slices"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// What a log record says of tool calls it names by id (a coding agent's
// tool_result or tool_decision), for the store's call table
// (trajectory/call_records.go): the executions it reports, with their
// arguments, outcome and how they ended, and the refusals among its
// decisions. An accepted decision adds nothing a result does not, and a
// call that was accepted still awaits its result.

// hasCallRecords reports whether a record names a call it reports on.
func hasCallRecords(w *extract.Witness) bool {
	return slices.ContainsFunc(w.Results, namesCall) || slices.ContainsFunc(w.Decisions, refusesCall)
}

// namesCall reports a result that names its call by id.
func namesCall(r extract.ToolResult) bool { return r.ID != "" }

// refusesCall reports a decision that refuses a call it names by id.
func refusesCall(d extract.ToolDecision) bool {
	return d.ID != "" && d.Verdict == extract.DecisionRejected
}

// eachCallRecord calls f with each call record w carries; results are kept
// only when keepResults is set (a scorer or judge reads them).
func eachCallRecord(w *extract.Witness, keepResults bool, f func(*trajectory.CallRecord)) {
	for i := range w.Results {
		r := &w.Results[i]
		if !namesCall(*r) {
			continue
		}
		c := trajectory.CallRecord{ID: r.ID, Name: r.Name, Args: r.Args, Failed: r.Failed, Ended: extract.ResultEnd(r)}
		if c.Ended != extract.EndRan {
			c.Failed = true
		}
		if keepResults {
			c.Result = r.Result
		}
		f(&c)
	}
	for i := range w.Decisions {
		if d := &w.Decisions[i]; refusesCall(*d) {
			f(&trajectory.CallRecord{ID: d.ID, Name: d.Name, Failed: true, Ended: extract.EndRefused})
		}
	}
}
