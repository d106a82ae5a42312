package trajectory

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// ScoringOptions say what to decode for the scorers.
type ScoringOptions struct {
	Decode extract.DecodeOptions
	// Durations sets each call's "durationMs" field, for trajectory
	// scorers with duration budgets.
	Durations bool
	// SkipArguments leaves arguments undecoded (and marked unknown), for
	// runs whose scorers do not read them.
	SkipArguments bool
	// Documents gives arguments that may be JSON objects as deferred
	// documents (toolcall.Call.ArgsDoc), which the native scorer reads in
	// place. Their text is not parsed here: a scorer that finds one is not
	// JSON returns jsonv.ErrInvalidDocument, and the run must then be
	// scored again without documents.
	Documents bool
	// Scratch, when set, holds the calls returned and their documents, so
	// that scoring run after run reuses the same memory. The calls are then
	// valid only until the next ScoringCalls with the same Scratch.
	Scratch *Scratch
}

// Scratch is working memory for [ScoringCalls], reused from run to run. The
// zero Scratch is ready to use; it is not safe for concurrent use.
type Scratch struct {
	calls []toolcall.Call
	// turns are the calls' turns, in scoring order.
	turns []int
	docs  documents
	// slab holds the elements of the calls' decoded arguments.
	slab jsonv.Slab
	// aligned are the rules' views of the calls (see Aligned).
	aligned [][]toolcall.Call
	// witnesses is the memory pairing the calls with their requests.
	witnesses witnessScratch
}

// Clear drops the references the last run's calls hold (names, argument
// text), keeping the memory.
func (s *Scratch) Clear() {
	clear(s.calls[:cap(s.calls)])
	clear(s.docs.store[:cap(s.docs.store)])
	s.slab.Reset()
	for _, a := range s.aligned {
		clear(a[:cap(a)])
	}
	s.witnesses.clear()
}

// Aligned returns memory for rule i's view of the run's calls (its calls of
// a model turn reordered, rules.Rule.CallsInto), valid until the next run
// scored with s; nil for a nil Scratch. The pointer is valid until the
// next call.
func (s *Scratch) Aligned(i int) *[]toolcall.Call {
	if s == nil {
		return nil
	}
	if i >= len(s.aligned) {
		s.aligned = append(s.aligned, make([][]toolcall.Call, i+1-len(s.aligned))...)
	}
	return &s.aligned[i]
}

// ScoringCalls decodes a trajectory's calls for the scorers: in scoring order
// (see [Order]) with turns, arguments parsed (or marked unknown), results
// parsed when kept, status, tool type ("mcp" or "function") and, when asked,
// duration; with the witnesses of each call and the calls the model
// requested that no tool span executed (see withWitnesses).
func ScoringCalls(traj *Trajectory, agent pcommon.SpanID, opts *ScoringOptions) []toolcall.Call {
	if len(traj.Turns) > 0 {
		parseTurns(traj.Turns)
	}
	out := scoringCalls(traj, agent, opts)
	// Results are decoded from here, beside the arguments' pass rather
	// than under its frame: they are JSON of any depth, and the parser's
	// frames add up (see the processor's scoreClosed).
	for i := range traj.Calls {
		if c := &traj.Calls[i]; c.Result != "" || opts.Durations && c.End > c.Start {
			addResult(&out[i], c, opts.Durations)
		}
	}
	return withWitnesses(traj, out, traj.Calls, opts)
}

// scoringCalls is ScoringCalls but for the results and durations.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func scoringCalls(traj *Trajectory, agent pcommon.SpanID, opts *ScoringOptions) []toolcall.Call {
	scratch := opts.Scratch
	var slab *jsonv.Slab
	if scratch == nil {
		scratch = new(Scratch)
	} else {
		// The last run's calls, and the arguments they hold, are done.
		scratch.slab.Reset()
		slab = &scratch.slab
	}
	turns := resize(scratch.turns, len(traj.Calls))
	scratch.turns = turns
	orderInto(traj.Calls, agent, traj.Models, turns)
	out := resize(scratch.calls, len(traj.Calls))
	scratch.calls = out
	docs := &scratch.docs
	docs.docs = nil
	if opts.Documents && !opts.SkipArguments {
		docs.init(traj.Calls)
	}
	for i := range traj.Calls {
		c := &traj.Calls[i]
		var args jsonv.Value
		var doc *jsonv.Document
		state := extract.ArgumentsAbsent
		switch {
		case opts.SkipArguments:
		case docs.docs != nil && docs.deferArgs(c, opts.Decode, i):
			doc, state = &docs.docs[i], extract.ArgumentsKnown
		default:
			args, state = extract.DecodeArgumentsIn(c.Args, c.Encoding, opts.Decode, slab)
		}
		// Built in place, field by field: a Call is large, and one built
		// whole would be built on the stack first and copied (this frame
		// is on the way down to the JSON parser: see the processor's
		// scoreClosed).
		sc := &out[i]
		*sc = toolcall.Call{}
		if state == extract.ArgumentsEmpty && !extract.WritesEmptyPlaceholder(c.Convention) {
			// "{}" where no placeholder is written: no arguments.
			args, state = jsonv.Object(), extract.ArgumentsKnown
		}
		sc.Name, sc.Args, sc.ArgsDoc, sc.ArgsUnknown = c.Name, args, doc, state != extract.ArgumentsKnown
		sc.ArgsEmpty = state == extract.ArgumentsEmpty
		sc.Position, sc.Turn, sc.Type, sc.Status, sc.StepType = i, turns[i], "function", toolcall.StatusOK, toolcall.StepToolCall
		if state == extract.ArgumentsTooLarge {
			sc.ArgsNote = opts.Decode.Reason(state)
		}
		if c.Failed {
			sc.Status = failedStatus(c.Ended)
		}
		if c.MCP {
			sc.Type = "mcp"
			sc.StepType = toolcall.StepMCPToolCall
		}
	}
	return out
}

// addResult gives sc the result and, when durations is set, the duration
// of c. Not inlined: its values would take room in ScoringCalls' frame.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func addResult(sc *toolcall.Call, c *StoredCall, durations bool) {
	if c.Result != "" {
		sc.Result, _ = extract.DecodeResult(c.Result, c.ResultForm)
	}
	if durations && c.End > c.Start {
		addDuration(sc, c)
	}
}

// addDuration gives sc the duration of c, in a frame of its own: addResult
// is on the way down to the JSON parser.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func addDuration(sc *toolcall.Call, c *StoredCall) {
	sc.Fields = map[string]jsonv.Value{"durationMs": jsonv.Number(float64(c.End-c.Start) / 1e6)}
}

// documents holds the argument documents of one run's calls.
type documents struct {
	// docs are the run's documents (nil when arguments are not given as
	// documents); store is the memory they reuse.
	docs, store []jsonv.Document
}

// init prepares documents for the calls, reusing the memory of the last
// run's.
func (d *documents) init(calls []StoredCall) {
	d.docs = resize(d.store, len(calls))
	d.store = d.docs
}

// resize returns s with length n, reusing its memory (a stack buffer, the
// last run's) when it has room; new memory is zeroed, reused memory is not.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// deferArgs makes call i's arguments document i, reporting whether they may be
// known arguments a document covers (extract.DeferredArgumentsDocument).
func (d *documents) deferArgs(c *StoredCall, opts extract.DecodeOptions, i int) bool {
	doc, ok := extract.DeferredArgumentsDocument(c.Args, c.Encoding, opts)
	d.docs[i] = doc
	return ok
}

// failedStatus is the status of a call that did not succeed.
func failedStatus(e extract.CallEnd) toolcall.CallStatus {
	switch e {
	case extract.EndRefused:
		return toolcall.StatusRefused
	case extract.EndUnknownTool:
		return toolcall.StatusUnknownTool
	}
	return toolcall.StatusError
}
