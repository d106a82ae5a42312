package toolcall

import (
	"math"
	"strconv"
	"strings"
)

// Outcome is the verdict of one scoring.
type Outcome uint8

// The outcomes. OutcomeNotEvaluated means the scorer had nothing to judge (for
// example ADK with no expected calls); such results carry no score.
const (
	OutcomeFail Outcome = iota
	OutcomePass
	OutcomeError
	OutcomeNotEvaluated
)

var outcomeNames = [...]string{"fail", "pass", "error", "not_evaluated"}

// String returns "pass", "fail", "error" or "not_evaluated", the label used
// on spans and metrics.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// Result is one scorer's verdict on one trajectory.
type Result struct {
	// Scorer is the registered scorer name ("native", "mongodb", ...).
	Scorer string
	// Score is in [0, 1]; 0 when Outcome is error or not_evaluated.
	Score float64
	// Threshold is the pass threshold the outcome was decided with.
	Threshold float64
	// Outcome is pass when Score >= Threshold.
	Outcome Outcome
	// Explanation is a short human-readable reason.
	Explanation string
	// Err says why the scorer could not score (Outcome error): invalid input,
	// or an input on which the emulated peer itself fails.
	Err error
	// Breakdown pairs expected with actual calls (native scorer; peer
	// profiles fill what their algorithm knows).
	Breakdown Breakdown
	// Details holds peer-native result fields under the peer's own names
	// ("matchedSteps", "correctToolCalled", ...).
	Details map[string]any
}

// Passed reports whether the outcome is pass.
func (r *Result) Passed() bool { return r.Outcome == OutcomePass }

// Pair is an expected call matched with an actual call.
type Pair struct {
	// Expected and Actual index the expectation's calls and the actual calls
	// (int32: a trajectory holds at most MaxCalls calls, and 32-byte pairs
	// are what a result allocates most).
	Expected, Actual int32
	// Score is the call's score in [0, 1].
	Score float64
	// ArgumentsUnavailable reports that the actual call's arguments were not
	// recorded, so only the name (and order) were judged.
	ArgumentsUnavailable bool
	// Failed reports that the actual call failed and the expected call
	// required success.
	Failed bool
	// mmStart and mmEnd delimit the pair's mismatches in its breakdown's
	// Mismatches (see Breakdown.PairMismatches). A Pair holds no pointer,
	// so a breakdown's pairs are one allocation the collector need not
	// scan (32 bytes a pair).
	mmStart, mmEnd int32
}

// Breakdown explains a score call by call.
type Breakdown struct {
	// Pairs are the expected calls that were satisfied (fully or in part).
	Pairs []Pair
	// OutOfOrder pairs an expected call with an actual call to the same tool
	// that came in the wrong position (ordered modes); it earns no credit.
	OutOfOrder []Pair
	// Mismatches lists, pair by pair, the argument checks of Pairs that
	// failed, and those that were not evaluated (ArgMismatch.Unevaluable),
	// which count neither way; PairMismatches gives one pair's.
	Mismatches []ArgMismatch
	// Missing lists required expected calls with no actual call.
	Missing []int
	// SkippedOptional lists optional expected calls that were not made.
	SkippedOptional []int
	// Unexpected lists actual calls that paired with nothing.
	Unexpected []int
	// Forbidden lists actual calls to forbidden tools.
	Forbidden []int
	// ForbiddenSequences lists, for each forbidden sequence found, the index
	// of the actual call where it starts.
	ForbiddenSequences []int
	// Hallucinated lists actual calls to tools outside the available tools.
	Hallucinated []int
	// ArgumentsUnavailable counts pairs judged without arguments.
	ArgumentsUnavailable int
	// Findings lists the checks actual calls failed (checks scorer).
	Findings []Finding
	// OrderScore is the share of paired calls that appear in expected order
	// (1 when fewer than two pairs).
	OrderScore float64
}

// PairMismatches returns the argument checks pair p (one of b's Pairs)
// failed or could not evaluate, in the order they were checked.
func (b *Breakdown) PairMismatches(p *Pair) []ArgMismatch {
	if p.mmEnd <= p.mmStart {
		return nil
	}
	return b.Mismatches[p.mmStart:p.mmEnd:p.mmEnd]
}

// namesAt resolves indexes into tool names, for reports.
func namesAt[T any](idx []int, items []T, name func(*T) string) []string {
	if len(idx) == 0 {
		return nil
	}
	out := make([]string, 0, len(idx))
	for _, i := range idx {
		if i >= 0 && i < len(items) {
			out = append(out, name(&items[i]))
		}
	}
	return out
}

// MissingTools returns the tool names of the missing expected calls.
func (b *Breakdown) MissingTools(exp []ExpectedCall) []string {
	return namesAt(b.Missing, exp, func(c *ExpectedCall) string { return c.Name })
}

// UnexpectedTools returns the tool names of the unexpected actual calls.
func (b *Breakdown) UnexpectedTools(calls []Call) []string {
	return namesAt(b.Unexpected, calls, func(c *Call) string { return c.Name })
}

// ForbiddenTools returns the tool names of the forbidden actual calls.
func (b *Breakdown) ForbiddenTools(calls []Call) []string {
	return namesAt(b.Forbidden, calls, func(c *Call) string { return c.Name })
}

// ErrorResult builds an error result for scorer name (see setError).
func ErrorResult(name string, threshold float64, err error) (res Result) {
	SetError(&res, name, threshold, err)
	return res
}

// Decide fills Outcome from Score and Threshold. Scores are clamped to [0, 1]
// and a tiny tolerance absorbs float rounding (2/3*3 >= 2).
func (r *Result) Decide() {
	r.Score = clamp01(r.Score)
	if r.Score+1e-12 >= r.Threshold {
		r.Outcome = OutcomePass
	} else {
		r.Outcome = OutcomeFail
	}
}

func clamp01(x float64) float64 {
	switch {
	case math.IsNaN(x), x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

// JoinNames joins names for explanations, naming at most max of them.
func JoinNames(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:max], ", ") + " and " + Itoa(len(names)-max) + " more"
}

// MaxNamesShown is how many names an explanation's list shows.
const MaxNamesShown = 5

// appendNameList appends "; label name, name, ..." for the items at idx,
// naming at most maxNamesShown of them as joinNames does (nothing when idx
// is empty).
func appendNameList(t []byte, label string, idx []int, name func(int) string) []byte {
	if len(idx) == 0 {
		return t
	}
	t = append(t, "; "...)
	t = append(t, label...)
	t = append(t, ' ')
	for k, i := range idx {
		if k == MaxNamesShown {
			break
		}
		if k > 0 {
			t = append(t, ", "...)
		}
		t = append(t, name(i)...)
	}
	return AppendMore(t, len(idx))
}

// AppendMore appends joinNames' " and N more" for a list of n names.
func AppendMore(t []byte, n int) []byte {
	if n <= MaxNamesShown {
		return t
	}
	t = append(t, " and "...)
	t = appendCount(t, n-MaxNamesShown)
	return append(t, " more"...)
}

// appendCount appends the decimal digits of n >= 0, as strconv.AppendInt
// does, a single digit without the call (explanations count a few calls).
func appendCount(t []byte, n int) []byte {
	if uint(n) < 10 {
		return append(t, byte('0'+n))
	}
	return strconv.AppendInt(t, int64(n), 10)
}

// appendJoinedNames appends "; label: " and joinNames(names, 5) (nothing
// when names is empty).
func appendJoinedNames(t []byte, label string, names []string) []byte {
	if len(names) == 0 {
		return t
	}
	t = append(t, "; "...)
	t = append(t, label...)
	t = append(t, ": "...)
	for k, name := range names {
		if k == MaxNamesShown {
			break
		}
		if k > 0 {
			t = append(t, ", "...)
		}
		t = append(t, name...)
	}
	return AppendMore(t, len(names))
}
