package peers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// ADKName is the registered name of the Google ADK profile
// (TrajectoryEvaluator and _ToolParameterMatchEvaluator), documented on the
// adk type in adk.go.
const ADKName = "adk"

// The ADK metrics the profile reproduces.
const (
	ADKTrajectoryAvgScore  = "tool_trajectory_avg_score"
	ADKToolParameterMatch  = "tool_parameter_match"
	adkMatchExact          = 0
	adkMatchInOrder        = 1
	adkMatchAnyOrder       = 2
	adkStatusPassed        = "PASSED"
	adkStatusFailed        = "FAILED"
	adkStatusNotEvaluated  = "NOT_EVALUATED"
	adkExpectedNoneMessage = "expected_invocations is needed by this metric."
)

var adkMatchNames = [...]string{"EXACT", "IN_ORDER", "ANY_ORDER"}

func init() { toolcall.Register(ADKName, newADK) }

// adk reproduces Google ADK's tool evaluators: TrajectoryEvaluator (metric
// tool_trajectory_avg_score, trajectory_evaluator.py@76b99146) and
// _ToolParameterMatchEvaluator (metric tool_parameter_match,
// _tool_parameter_match_evaluator.py@be04c68b).
//
// Options (the peer's own):
//
//	metric      tool_trajectory_avg_score (default) | tool_parameter_match
//	match_type  EXACT (default) | IN_ORDER | ANY_ORDER, or 0/1/2; strings are trimmed, upper-cased,
//	            "-" and " " read as "_" ("in order" works); trajectory metric only
//	ignore_args bool (default false); trajectory metric only
//	threshold   ADK's pass threshold (default 1, the default criterion tool_trajectory_avg_score: 1.0)
//
// ADK averages per invocation (one user turn and the agent's response):
// [adk.ScoreInvocations] scores several; Score treats the trajectory as one
// invocation whose expected calls are the expectation's calls.
//
// tool_trajectory_avg_score, per invocation (zip of actual and expected lists; extra invocations on
// either side are silently dropped):
//
//	match(e, a) = same name and (ignore_args or args == (Python, deep; None != {}))
//	EXACT:     same length and pairwise match in order
//	IN_ORDER:  expected empty -> 1; actual empty -> 0; expected is a subsequence (greedy) of actual
//	ANY_ORDER: expected empty -> 1; actual empty -> 0; each expected call removes the first matching actual
//	score 1 or 0; overall = mean; no invocation pairs -> NOT_EVALUATED (no score)
//
// tool_parameter_match: invocations without expected calls are NOT_EVALUATED and left out of the mean
// (none evaluated -> NOT_EVALUATED); for each expected call, the next actual call with the same name at
// or after a cursor (which then moves past it; an unmatched call does not move it) scores
// #(expected keys k with actual[k] == v) / #expected keys (1 when no expected args), else 0; the
// invocation scores the mean. Differing invocation counts are an error (ValueError).
//
// status = PASSED if score >= threshold else FAILED, per invocation and overall.
// The result passes with ADK's overall status when the rule sets no
// threshold; a rule's own threshold decides otherwise.
//
// Quirks reproduced (each has a test case):
//
//   - IN_ORDER and ANY_ORDER accept extra calls; an empty expectation
//     passes whatever was called (EXACT requires no calls).
//   - Python ==: 1 == 1.0 == True, key order irrelevant, None != {}.
//   - Parameter match aligns by name only: a same-name call with wrong
//     arguments is consumed, and calls before the cursor are lost ([b, a]
//     for expected [a, b] finds only a).
//   - Extra actual arguments are free in parameter match.
//   - The trajectory metric silently truncates to the shorter invocation
//     list; the parameter metric raises.
//   - Sums use CPython 3.12+'s compensated sum() (ULP-level only).
//
// Expectation mapping: expected calls become the invocation's expected tool
// uses (name; Args -> args, absent or null -> None). Order exact, in_order,
// any map to match_type EXACT, IN_ORDER, ANY_ORDER unless match_type is
// given. Actual Args absent or null -> None. Matchers, optional calls,
// must_succeed and forbidden tools are rejected. Calls with unknown
// arguments make the result an error when an argument comparison needs them
// (never with ignore_args).
//
// Reference vs source notes (the notes win): the trajectory metric raises
// when expected_invocations is None; the parameter metric raises on
// differing invocation counts and aligns by name only (a wrong-arguments
// call is consumed, earlier calls are lost); CPython 3.12+'s sum() is
// compensated. match_type strings such as "1" are rejected; ints, floats and bools
// (True is IN_ORDER) are accepted by value.
//
// Details: overall_score (nil when not evaluated), overall_eval_status,
// per_invocation_scores (nil entries for invocations not evaluated),
// per_invocation_statuses.
type adk struct {
	metric     string
	matchType  int
	ignoreArgs bool
	// threshold is ADK's (its statuses); pass decides the result's
	// outcome (see passThreshold).
	threshold, pass float64
	// omitDetails: Settings.OmitDetails.
	omitDetails bool
	expected    []toolcall.ExpectedCall
}

var _ toolcall.Scorer = (*adk)(nil)

func newADK(s toolcall.Settings) (toolcall.Scorer, error) {
	r := toolcall.NewOptionReader(ADKName, s.Options)
	a := &adk{omitDetails: s.OmitDetails}
	a.metric = r.String("metric", ADKTrajectoryAvgScore, ADKTrajectoryAvgScore, ADKToolParameterMatch)
	a.threshold = r.Float("threshold", 1, 0, 1)
	a.pass = s.PassThreshold(a.threshold)
	mt, hasMatch := r.Raw("match_type")
	_, hasIgnore := r.Opts["ignore_args"]
	a.ignoreArgs = r.Bool("ignore_args", false)
	if hasMatch {
		t, err := parseADKMatchType(mt)
		if err != nil {
			r.Fail("match_type", "%v", err)
		}
		a.matchType = t
	}
	if a.metric == ADKToolParameterMatch {
		if hasMatch {
			r.Fail("match_type", "applies only to metric %q", ADKTrajectoryAvgScore)
		}
		if hasIgnore {
			r.Fail("ignore_args", "applies only to metric %q", ADKTrajectoryAvgScore)
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	e := s.Expectation
	if err := CheckPeerExpectation(ADKName, e, PeerFeatures{}); err != nil {
		return nil, err
	}
	if !hasMatch {
		switch e.Order {
		case toolcall.OrderInOrder:
			a.matchType = adkMatchInOrder
		case toolcall.OrderAny:
			a.matchType = adkMatchAnyOrder
		}
	}
	a.expected, _ = toolExpectations(e.Calls)
	return a, nil
}

// parseADKMatchType is ToolTrajectoryCriterion's match_type coercion.
func parseADKMatchType(x any) (int, error) {
	if s, ok := x.(string); ok {
		n := strings.ToUpper(strings.TrimSpace(s))
		n = strings.NewReplacer("-", "_", " ", "_").Replace(n)
		for i, name := range adkMatchNames {
			if n == name {
				return i, nil
			}
		}
		return 0, fmt.Errorf("invalid value %q, expected EXACT, IN_ORDER or ANY_ORDER", s)
	}
	if b, ok := x.(bool); ok {
		// pydantic validates bools as ints: True is IN_ORDER, False EXACT.
		if b {
			return 1, nil
		}
		return 0, nil
	}
	v, err := jsonv.ValueOf(x)
	if err == nil && v.Kind() == jsonv.KindNumber {
		f := v.NumberValue()
		if f == math.Trunc(f) && f >= 0 && f <= 2 {
			return int(f), nil
		}
	}
	return 0, fmt.Errorf("invalid value %s, expected EXACT, IN_ORDER, ANY_ORDER or 0, 1, 2", toolcall.DescribeOperand(x))
}

func (a *adk) Name() string { return ADKName }

// Score implements Scorer: the trajectory is one invocation.
func (a *adk) Score(_ context.Context, calls []toolcall.Call) (res toolcall.Result) {
	a.ScoreInto(calls, nil, &res)
	return res
}

// ScoreInto is Score writing its result to res (see ScoreInto).
func (a *adk) ScoreInto(calls []toolcall.Call, _ *toolcall.RunContext, res *toolcall.Result) {
	calls = toolcall.WithArguments(calls)
	a.scoreInvocations([][]toolcall.Call{calls}, [][]toolcall.ExpectedCall{a.expected}, true, res)
}

// ScoreInvocations scores several invocations as ADK does: actual[i] is
// the calls of invocation i and expected[i] its expected calls. A nil
// expected stands for expected_invocations=None (the trajectory metric then
// fails, the parameter metric is not evaluated); a non-nil empty list means
// zero expected invocations.
func (a *adk) ScoreInvocations(_ context.Context, actual [][]toolcall.Call, expected [][]toolcall.ExpectedCall) (res toolcall.Result) {
	a.scoreInvocations(actual, expected, false, &res)
	return res
}

func (a *adk) scoreInvocations(actual [][]toolcall.Call, expected [][]toolcall.ExpectedCall, checked bool, res *toolcall.Result) {
	for i, exp := range expected {
		if checked {
			break
		}
		if err := CheckPeerExpectation(ADKName, toolcall.Expectation{Calls: exp}, PeerFeatures{}); err != nil {
			a.invocationError(res, i, err)
			return
		}
	}
	var scores []float64 // NaN: not evaluated
	switch a.metric {
	case ADKToolParameterMatch:
		if expected == nil {
			a.result(nil, res)
			return
		}
		if len(actual) != len(expected) {
			a.lengthMismatch(res, len(actual), len(expected))
			return
		}
		for i := range actual {
			exp, _ := toolExpectations(expected[i])
			if len(exp) == 0 {
				scores = append(scores, math.NaN())
				continue
			}
			s, err := a.parameterMatch(FlattenToolCalls(actual[i]), exp)
			if err != nil {
				toolcall.SetError(res, ADKName, a.pass, err)
				return
			}
			scores = append(scores, s)
		}
	default:
		if expected == nil {
			toolcall.SetError(res, ADKName, a.pass, errors.New("adk: "+adkExpectedNoneMessage))
			return
		}
		n := min(len(actual), len(expected))
		for i := 0; i < n; i++ {
			exp, _ := toolExpectations(expected[i])
			ok, err := a.trajectoryMatch(FlattenToolCalls(actual[i]), exp)
			if err != nil {
				toolcall.SetError(res, ADKName, a.pass, err)
				return
			}
			if ok {
				scores = append(scores, 1)
			} else {
				scores = append(scores, 0)
			}
		}
	}
	a.result(scores, res)
}

// invocationError and lengthMismatch write scoreInvocations' error
// results, in frames of their own: fmt.Errorf inlined there made its frame
// the deepest on a scorer's path (see ScoreInto).
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (a *adk) invocationError(res *toolcall.Result, i int, err error) {
	toolcall.SetError(res, ADKName, a.pass, fmt.Errorf("invocation %d: %w", i+1, err))
}

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (a *adk) lengthMismatch(res *toolcall.Result, actual, expected int) {
	toolcall.SetError(res, ADKName, a.pass, fmt.Errorf("adk: actual_invocations and expected_invocations must have the same length; got %d and %d.", actual, expected))
}

func (a *adk) status(x float64) string {
	if x >= a.threshold {
		return adkStatusPassed
	}
	return adkStatusFailed
}

// details are ADK's per-invocation scores and statuses, the overall ones
// not evaluated (result sets them when they are).
func (a *adk) details(scores []float64) map[string]any {
	perScores := make([]any, len(scores))
	perStatus := make([]any, len(scores))
	for i, s := range scores {
		if math.IsNaN(s) {
			perScores[i] = nil
			perStatus[i] = adkStatusNotEvaluated
			continue
		}
		perScores[i] = s
		perStatus[i] = a.status(s)
	}
	return map[string]any{
		"per_invocation_scores":   perScores,
		"per_invocation_statuses": perStatus,
		"overall_score":           nil,
		"overall_eval_status":     adkStatusNotEvaluated,
	}
}

func (a *adk) result(scores []float64, res *toolcall.Result) {
	var evaluated []float64
	for _, s := range scores {
		if !math.IsNaN(s) {
			evaluated = append(evaluated, s)
		}
	}
	*res = toolcall.Result{Scorer: ADKName, Threshold: a.pass}
	if !a.omitDetails {
		res.Details = a.details(scores)
	}
	if len(evaluated) == 0 {
		res.Outcome = toolcall.OutcomeNotEvaluated
		res.Explanation = "not evaluated: no invocation had expected tool calls to compare"
		if a.metric == ADKTrajectoryAvgScore {
			res.Explanation = "not evaluated: no invocations to compare"
		}
		return
	}
	var overall float64
	if a.metric == ADKTrajectoryAvgScore {
		total := 0.0
		for _, s := range evaluated {
			total += s
		}
		overall = total / float64(len(evaluated))
	} else {
		overall = pySum(evaluated) / float64(len(evaluated))
	}
	status := a.status(overall)
	if res.Details != nil {
		res.Details["overall_score"] = overall
		res.Details["overall_eval_status"] = status
	}
	res.Score = overall
	res.Decide()
	if overall >= a.pass {
		res.Outcome = toolcall.OutcomePass
	} else {
		res.Outcome = toolcall.OutcomeFail
	}
	var sb strings.Builder
	toolcall.WriteScore(&sb, overall)
	sb.WriteString(": ")
	sb.WriteString(status)
	if a.metric == ADKTrajectoryAvgScore {
		sb.WriteString(" (")
		sb.WriteString(adkMatchNames[a.matchType])
		if a.ignoreArgs {
			sb.WriteString(", arguments ignored")
		}
		sb.WriteString(")")
	}
	if len(scores) > 1 {
		fmt.Fprintf(&sb, "; mean of %d invocations", len(evaluated))
	}
	res.Explanation = sb.String()
}

// pySum is CPython 3.12+'s sum() of floats (Neumaier compensation).
func pySum(xs []float64) float64 {
	s, c := 0.0, 0.0
	for _, x := range xs {
		t := s + x
		if math.Abs(s) >= math.Abs(x) {
			c += (s - t) + x
		} else {
			c += (x - t) + s
		}
		s = t
	}
	if c != 0 && !math.IsInf(c, 0) && !math.IsNaN(c) {
		s += c
	}
	return s
}

// callMatch is _calls_match.
func (a *adk) callMatch(e *toolcall.ExpectedCall, c *toolcall.Call, pos int) (bool, error) {
	if e.Name != c.Name {
		return false, nil
	}
	if a.ignoreArgs {
		return true, nil
	}
	if c.ArgsUnknown {
		return false, argsUnavailable(ADKName, c, pos)
	}
	return pyEqual(e.Args, c.Args), nil
}

func (a *adk) trajectoryMatch(actual []toolcall.Call, expected []toolcall.ExpectedCall) (bool, error) {
	switch a.matchType {
	case adkMatchInOrder:
		if len(expected) == 0 {
			return true, nil
		}
		if len(actual) == 0 {
			return false, nil
		}
		k := 0
		for j := range actual {
			ok, err := a.callMatch(&expected[k], &actual[j], j)
			if err != nil {
				return false, err
			}
			if ok {
				k++
				if k == len(expected) {
					return true, nil
				}
			}
		}
		return false, nil
	case adkMatchAnyOrder:
		if len(expected) == 0 {
			return true, nil
		}
		if len(actual) == 0 {
			return false, nil
		}
		used := make([]bool, len(actual))
		for i := range expected {
			found := false
			for j := range actual {
				if used[j] {
					continue
				}
				ok, err := a.callMatch(&expected[i], &actual[j], j)
				if err != nil {
					return false, err
				}
				if ok {
					used[j] = true
					found = true
					break
				}
			}
			if !found {
				return false, nil
			}
		}
		return true, nil
	}
	if len(actual) != len(expected) {
		return false, nil
	}
	for i := range actual {
		ok, err := a.callMatch(&expected[i], &actual[i], i)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func (a *adk) parameterMatch(actual []toolcall.Call, expected []toolcall.ExpectedCall) (float64, error) {
	cursor := 0
	scores := make([]float64, 0, len(expected))
	for i := range expected {
		e := &expected[i]
		found := -1
		for j := cursor; j < len(actual); j++ {
			if actual[j].Name == e.Name {
				found = j
				cursor = j + 1
				break
			}
		}
		if found < 0 {
			scores = append(scores, 0)
			continue
		}
		if e.Args.Kind() != jsonv.KindObject || e.Args.Len() == 0 {
			// expected_call.args or {}: None and {} both mean "no expected args".
			scores = append(scores, 1)
			continue
		}
		c := &actual[found]
		if c.ArgsUnknown {
			return 0, argsUnavailable(ADKName, c, found)
		}
		matched := 0
		for k := 0; k < e.Args.Len(); k++ {
			key, v := e.Args.MemberAt(k)
			if av, ok := c.Args.Get(key); ok && pyEqual(av, v) {
				matched++
			}
		}
		scores = append(scores, float64(matched)/float64(e.Args.Len()))
	}
	return pySum(scores) / float64(len(scores)), nil
}
