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
}

// ScoringCalls decodes a trajectory's calls for the scorers: in scoring order
// (see [Order]) with turns, arguments parsed (or marked unknown), results
// parsed when kept, status, tool type ("mcp" or "function") and, when asked,
// duration.
func ScoringCalls(traj *Trajectory, agent pcommon.SpanID, opts ScoringOptions) []scoring.Call {
	turns := Order(traj.Calls, agent, traj.Models)
	out := make([]scoring.Call, len(traj.Calls))
	for i := range traj.Calls {
		c := &traj.Calls[i]
		var args scoring.Value
		state := extract.ArgumentsAbsent
		if !opts.SkipArguments {
			args, state = extract.DecodeArguments(c.Args, c.Encoding, opts.Decode)
		}
		sc := scoring.Call{
			Name:        c.Name,
			Args:        args,
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
