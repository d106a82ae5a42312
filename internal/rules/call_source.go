package rules

import (
	"fmt"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// CallSource says which of a run's calls a rule's scorers judge: those a
// tool span executed, those the model requested, or every call a witness
// saw (see toolcall.Witnesses).
type CallSource uint8

// The call sources.
const (
	// SourceExecutedElseRequested judges the executed calls of a run that
	// has tool spans, and the requested calls of one that has none (an app
	// instrumented only at its model client).
	SourceExecutedElseRequested CallSource = iota
	// SourceExecuted judges the calls tool spans executed.
	SourceExecuted
	// SourceRequested judges the calls the model requested, executed or not.
	SourceRequested
	// SourceAll judges every call a witness saw: executed ones and requested
	// ones no tool span executed.
	SourceAll
)

var sourceNames = [...]string{"executed_else_requested", "executed", "requested", "all"}

// String returns the configuration name of the source.
func (s CallSource) String() string { return sourceNames[s] }

// ParseCallSource reads a source from its configuration name.
func ParseCallSource(name string) (CallSource, error) {
	for i, n := range sourceNames {
		if n == name {
			return CallSource(i), nil
		}
	}
	return 0, fmt.Errorf("invalid value %q, expected one of %q", name, sourceNames[:])
}

// ReadsRequests reports whether the source may take calls from the model's
// requests, so that model turns must be read.
func (s CallSource) ReadsRequests() bool { return s != SourceExecuted }

// filter returns the calls the source judges: calls itself when it keeps
// them all, else a copy with their positions renumbered.
func (s CallSource) filter(calls []toolcall.Call) []toolcall.Call {
	var keep func(*toolcall.Call) bool
	switch s {
	case SourceAll:
		return calls
	case SourceExecuted:
		keep = (*toolcall.Call).Executed
	case SourceRequested:
		keep = requestedCall
	case SourceExecutedElseRequested:
		keep = (*toolcall.Call).Executed
		if !anyExecuted(calls) {
			return calls
		}
	}
	n := 0
	for i := range calls {
		if keep(&calls[i]) {
			n++
		}
	}
	if n == len(calls) {
		return calls
	}
	out := make([]toolcall.Call, 0, n)
	for i := range calls {
		if keep(&calls[i]) {
			c := calls[i]
			c.Position = len(out)
			out = append(out, c)
		}
	}
	return out
}

func requestedCall(c *toolcall.Call) bool { return c.Requested() }

func anyExecuted(calls []toolcall.Call) bool {
	for i := range calls {
		if calls[i].Executed() {
			return true
		}
	}
	return false
}
