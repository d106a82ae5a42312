package trajectory

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"
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
	// Documents gives arguments written as JSON objects as documents
	// (scoring.Call.ArgsDoc), which the native scorer reads in place.
	Documents bool
}

// ScoringCalls decodes a trajectory's calls for the scorers: in scoring order
// (see [Order]) with turns, arguments parsed (or marked unknown), results
// parsed when kept, status, tool type ("mcp" or "function") and, when asked,
// duration.
func ScoringCalls(traj *Trajectory, agent pcommon.SpanID, opts ScoringOptions) []scoring.Call {
	turns := Order(traj.Calls, agent, traj.Models)
	out := make([]scoring.Call, len(traj.Calls))
	var docs documents
	if opts.Documents && !opts.SkipArguments {
		docs.init(traj.Calls)
	}
	for i := range traj.Calls {
		c := &traj.Calls[i]
		var args scoring.Value
		var doc *scoring.Document
		state := extract.ArgumentsAbsent
		switch {
		case opts.SkipArguments:
		case docs.docs != nil && docs.parse(c, opts.Decode, i):
			doc, state = &docs.docs[i], extract.ArgumentsKnown
		default:
			args, state = extract.DecodeArguments(c.Args, c.Encoding, opts.Decode)
		}
		sc := scoring.Call{
			Name:        c.Name,
			Args:        args,
			ArgsDoc:     doc,
			ArgsUnknown: state != extract.ArgumentsKnown,
			Position:    i,
			Turn:        turns[i],
			Type:        "function",
			Status:      scoring.StatusOK,
			StepType:    scoring.StepToolCall,
		}
		if c.Failed {
			sc.Status = scoring.StatusError
		}
		if c.MCP {
			sc.Type = "mcp"
			sc.StepType = scoring.StepMCPToolCall
		}
		if c.Result != "" {
			sc.Result, _ = extract.DecodeResult(c.Result, c.Convention)
		}
		if opts.Durations && c.End > c.Start {
			sc.Fields = map[string]scoring.Value{"durationMs": scoring.Number(float64(c.End-c.Start) / 1e6)}
		}
		out[i] = sc
	}
	return out
}

// documents holds the argument documents of one run's calls; their indexes
// share one store.
type documents struct {
	parser scoring.DocumentParser
	docs   []scoring.Document
}

// init prepares documents for the calls.
func (d *documents) init(calls []Call) {
	d.docs = make([]scoring.Document, len(calls))
	size := 0
	for i := range calls {
		size += len(calls[i].Args)
	}
	// A JSON value or key takes about five bytes of text.
	d.parser.Grow(size/4 + len(calls))
}

// parse indexes call i's arguments as document i, reporting whether they
// are known arguments a document covers.
func (d *documents) parse(c *Call, opts extract.DecodeOptions, i int) bool {
	doc, ok := extract.DecodeArgumentsDocument(c.Args, c.Encoding, opts, &d.parser)
	d.docs[i] = doc
	return ok
}
