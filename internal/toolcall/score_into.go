package toolcall

import "context"

// ScoreInto runs s on calls, with run when s is a [ContextScorer], and
// writes the result to res: what s.Score or s.ScoreContext would return.
//
// The native, checks and peer-profile scorers write their result in place;
// the judges' result is copied (they run on goroutines of their own). A
// caller that keeps its results in place, as the collector processor does,
// then holds no Result on its stack on the way to those scorers: a Result
// is 336 bytes, and each copy on the way makes the call deeper (a
// goroutine's stack is copied to twice its size when a call needs more than
// is left).
func ScoreInto(ctx context.Context, s Scorer, calls []Call, run *RunContext, res *Result) {
	switch s := s.(type) {
	case InPlaceScorer:
		s.ScoreInto(calls, run, res)
	case ContextScorer:
		scoreContextCopy(ctx, s, calls, run, res)
	default:
		scoreCopy(ctx, s, calls, res)
	}
}

// InPlaceScorer is a scorer that writes its result in place (see
// [ScoreInto]). Its ScoreInto overwrites all of *res, with run when the
// scorer reads the run's context. The result may share memory with the
// scorer (the native scorer's pairs of a run matched in order): a caller
// of ScoreInto reads it and does not change it; Score gives a result of
// its own.
type InPlaceScorer interface {
	ScoreInto(calls []Call, run *RunContext, res *Result)
}

// scoreContextCopy and scoreCopy are ScoreInto for the other scorers, in
// functions of their own so that ScoreInto's frame holds no Result.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func scoreContextCopy(ctx context.Context, s ContextScorer, calls []Call, run *RunContext, res *Result) {
	*res = s.ScoreContext(ctx, calls, run)
}

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func scoreCopy(ctx context.Context, s Scorer, calls []Call, res *Result) {
	*res = s.Score(ctx, calls)
}

// SetError makes *res the error result of scorer name.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func SetError(res *Result, name string, threshold float64, err error) {
	*res = Result{Scorer: name, Threshold: threshold, Outcome: OutcomeError, Err: err, Explanation: err.Error()}
}
