package toolcall

import "context"

// RunContext is what an agent run saw beside its calls: the user's request,
// the final response and the tool definitions the model was offered, as
// recorded on its spans. Any part may be empty: not recorded, or not
// captured.
type RunContext struct {
	// Request is the user's request (the input messages) as recorded.
	Request string
	// Response is the run's final response as recorded.
	Response string
	// Tools are the recorded tool definitions, one per name.
	Tools ToolDefinitions
	// Notes say what capture cut or could not read ("tool definitions
	// over the 16 KiB run cap were dropped"); scorers add them to their
	// explanation.
	Notes []string
}

// ContextScorer is a scorer that reads the run's context as well as its
// calls. Callers that captured a context call ScoreContext; Score is the
// same with no context.
type ContextScorer interface {
	Scorer
	// ScoreContext judges the calls of a run whose context is run (nil when
	// none was captured). Like calls, run is the caller's memory, reused
	// once the call returns: a scorer that keeps it copies it.
	ScoreContext(ctx context.Context, calls []Call, run *RunContext) Result
}
