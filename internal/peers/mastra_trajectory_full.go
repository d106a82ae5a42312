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

// MastraTrajectoryFullName is the registered name of the multi-dimensional
// Mastra trajectory profile (createTrajectoryScorerCode), documented on the
// mastraTrajectoryFull type in mastra_trajectory_full.go.
const MastraTrajectoryFullName = "mastra_trajectory_full"

func init() { toolcall.Register(MastraTrajectoryFullName, newMastraTrajectoryFull) }

// mastraTrajectoryFull reproduces @mastra/evals createTrajectoryScorerCode
// (src/scorers/code/trajectory/index.ts) with checkTrajectoryEfficiency,
// checkTrajectoryBlacklist, analyzeToolFailures and the nested
// evaluateNestedExpectations. Version 1.10.2 by default; option version
// "1.2.0" gives the documented differences of 1.2.0.
//
// Options (snake_case, also inside the expectation: max_steps,
// max_total_tokens, max_total_duration_ms, no_redundant_calls,
// blacklisted_tools, blacklisted_sequences, max_retries_per_tool, steps,
// ordering, allow_repeated_steps; step keys as in mastra_trajectory):
//
//	defaults  a TrajectoryExpectation for every run (or its JSON text, see mastra_trajectory)
//	weights   {accuracy: 0.4, efficiency: 0.3, tool_failures: 0.2, blacklist: 0.1}; negatives count as 0
//	version   "1.10.2" (default) or "1.2.0"
//
// Algorithm (config = {...defaults, ...item}, item steps replace default steps):
//
//	accuracy     = steps set ? compareTrajectories(actual, steps, {ordering ?? relaxed, allowRepeatedSteps ?? true})
//	efficiency   = any of max_steps, max_total_tokens, max_total_duration_ms, no_redundant_calls set ? checkTrajectoryEfficiency
//	blacklist    = non-empty blacklisted tools or sequences ? checkTrajectoryBlacklist
//	toolFailures = analyzeToolFailures(max_retries_per_tool ?? 2), a dimension only when it found a retry pattern
//	nested       = steps non-empty ? evaluateNestedExpectations
//	score: blacklist violation -> 0; no dimension and no nested -> 1;
//	    level = sum (w_d / sum w_active) * score_d  (sum w_active == 0 -> 1)
//	    nested: a blacklist violation below -> 0; level = 0.7*level + 0.3*mean(nested scores)
//	    Math.round(level*100)/100 (no epsilon, unlike the sub-scores' round2)
//	checkTrajectoryEfficiency: mean of max(0, 1 - over/budget) per budget (steps: top-level count; tokens:
//	    prompt+completion of model_generation steps, children included in 1.10.2; duration: the trajectory's
//	    totalDurationMs, else the sum of top-level durationMs) and, when no_redundant_calls (default true),
//	    1 - 0.2 per consecutive tool_call/mcp_tool_call with the same name, step type and JSON.stringify(toolArgs)
//	checkTrajectoryBlacklist: any blacklisted name, or a blacklisted sequence appearing contiguously
//	    (top level only) -> 0, else 1
//	analyzeToolFailures: tool steps grouped into runs of the same name; retryCount = calls of the run whose
//	    predecessor has success === false; patterns = runs with retries;
//	    score = round2(1 - 0.2 * sum max(0, retryCount - max_retries_per_tool))
//	evaluateNestedExpectations: each expected step with a children config binds the first unused actual step
//	    with its name (and step type when given); missing parent -> node score 0; else the children are
//	    evaluated with the same dimensions (their own ordering, default relaxed), recursively, and the node
//	    score is Math.round((0.7*level + 0.3*mean(child nodes))*100)/100
//
// Quirks reproduced (each has a test case):
//
//   - An active clean blacklist is a dimension worth 1 (it raises scores).
//   - Tool failures count only once a retry pattern exists; a lone failing
//     call is no pattern. Only success === false counts (unset does not).
//   - Two consecutive identical calls without arguments are redundant
//     (JSON.stringify(undefined) === JSON.stringify(undefined)).
//   - The final rounding has no epsilon (0.285 -> 0.28) while the
//     sub-scores use round2 (0.285 -> 0.29).
//   - 1.10.2 throws (error result) on invalid budgets (negative, NaN) and
//     on a token or duration budget whose measurements are missing; 1.2.0
//     accepts them silently and sums tokens over top-level steps only.
//   - 1.10.2: steps: [] makes accuracy active (1 only for an empty run);
//     1.2.0 ignores empty steps. 1.10.2 fails a nested expectation only when
//     the parent is missing, 1.2.0 also when the parent has no children.
//     1.10.2 finds nested blacklist violations at any depth, 1.2.0 one level
//     down only.
//   - children written as a list (a trajectory step's form, even an empty
//     one) is a children config with no field set, since Mastra reads the
//     array as a TrajectoryExpectation: the listed steps are never compared,
//     and the node scores its tool failures alone (1 without retries; 0
//     when the parent is missing, with no accuracy reported).
//
// Expectation mapping (the expectation fills only the fields defaults leaves
// unset; a run's item expectation overrides both, as in Mastra): expected
// calls become steps as in mastra_trajectory, Order exact/in_order/any
// becomes ordering strict/relaxed/unordered, forbidden_tools and
// forbidden_sequences become blacklisted_tools and blacklisted_sequences,
// must_succeed becomes success: true. Matchers and optional calls are
// rejected. Actual steps are read as in mastra_trajectory; unknown arguments
// make the result an error only where Mastra compares toolArgs (an expected
// step's toolArgs, or the redundancy check between consecutive same-name
// calls).
//
// Reference vs source notes (the notes win): a nested node's score is
// Math.round(x*100)/100 without epsilon (the reference writes round2);
// tokens include children only in 1.10.2 (the reference does not split by
// version); 1.2.0 looks for nested blacklist violations one level down
// only; the upstream vectors' nested.N.matchedSteps and nested.N.blacklist
// are shorthands for nested[N].accuracy.matchedSteps and
// nested[N].blacklist.score (both shapes are in Details); the conversion of
// a children list into {steps} (§2.4) belongs to the accuracy scorer's
// trajectory option only, so here a children list stays an array.
//
// Details (preprocessStepResult): score, accuracy{score, matchedSteps,
// totalExpectedSteps, totalActualSteps, missingSteps, extraSteps,
// outOfOrderSteps, repeatedSteps}, efficiency{score, totalSteps,
// overStepBudget, totalTokens, overTokenBudget, totalDurationMs,
// overDurationBudget, redundantCalls[{name, index}]}, blacklist{score,
// violatedTools, violatedSequences}, toolFailures{score, patterns[{toolName,
// retryCount, fellBackToAlternative, alternativeTool, eventuallySucceeded}],
// totalRetries, excessiveRetryTools}, nested[{stepName, score, accuracy,
// efficiency, blacklist, toolFailures, nested}] (absent dimensions are
// omitted). Each nested node also carries its accuracy fields at its own
// level (matchedSteps, missingSteps, ...), the shorthand the upstream test
// vectors use. The explanation is Mastra's generateReason text.
type mastraTrajectoryFull struct {
	version   string
	base      mastraExpectation
	w         mastraWeights
	threshold float64
	// omitDetails: Settings.OmitDetails.
	omitDetails bool
}

type mastraWeights struct{ accuracy, efficiency, toolFailures, blacklist float64 }

var _ toolcall.Scorer = (*mastraTrajectoryFull)(nil)

func newMastraTrajectoryFull(s toolcall.Settings) (toolcall.Scorer, error) {
	r := toolcall.NewOptionReader(MastraTrajectoryFullName, s.Options)
	m := &mastraTrajectoryFull{threshold: s.Threshold, omitDetails: s.OmitDetails}
	m.version = r.String("version", MastraVersion1102, MastraVersion1102, MastraVersion120)
	var defaults *mastraExpectation
	if x, ok := r.Raw("defaults"); ok {
		x, err := mastraJSONOption(x)
		if err != nil {
			r.Fail("defaults", "%v", err)
		}
		dm, isMap := x.(map[string]any)
		if !isMap {
			r.Fail("defaults", "expects a map, got %s", toolcall.DescribeOperand(x))
		} else {
			d, err := parseMastraExpectation(dm, `mastra_trajectory_full: option "defaults"`)
			if err != nil {
				r.Errs = append(r.Errs, err)
			}
			defaults = d
		}
	}
	m.w = mastraWeights{accuracy: 0.4, efficiency: 0.3, toolFailures: 0.2, blacklist: 0.1}
	if sub, ok := optionSub(r, "weights"); ok {
		set := func(key string, dst *float64) {
			if n := optNumOf(sub, key); n.set {
				*dst = n.v
			}
		}
		set("accuracy", &m.w.accuracy)
		set("efficiency", &m.w.efficiency)
		set("tool_failures", &m.w.toolFailures)
		set("blacklist", &m.w.blacklist)
		if err := sub.Err(); err != nil {
			r.Errs = append(r.Errs, err)
		}
	}
	m.w.accuracy = max(0, m.w.accuracy)
	m.w.efficiency = max(0, m.w.efficiency)
	m.w.toolFailures = max(0, m.w.toolFailures)
	m.w.blacklist = max(0, m.w.blacklist)
	if err := r.Err(); err != nil {
		return nil, err
	}
	e := s.Expectation
	if err := CheckPeerExpectation(MastraTrajectoryFullName, e, PeerFeatures{mustSucceed: true, forbidden: true}); err != nil {
		return nil, err
	}
	var derived mastraExpectation
	if len(e.Calls) > 0 {
		derived.steps = mastraStepsOpt{set: true, v: mastraStepsFromExpectation(e.Calls)}
	}
	derived.ordering = mastraOrdering(e.Order)
	if len(e.ForbiddenTools) > 0 {
		derived.blacklistedTools = mastraStringsOpt{set: true, v: e.ForbiddenTools}
	}
	if len(e.ForbiddenSequences) > 0 {
		derived.blacklistedSequences = mastraSeqsOpt{set: true, v: e.ForbiddenSequences}
	}
	m.base = derived.merge(defaults)
	return m, nil
}

func (m *mastraTrajectoryFull) Name() string { return MastraTrajectoryFullName }

// ReadsResults reports that the profile reads tool results and step
// durations (tool failures, efficiency budgets).
func (m *mastraTrajectoryFull) ReadsResults() bool { return true }

// Score implements Scorer.
func (m *mastraTrajectoryFull) Score(_ context.Context, calls []toolcall.Call) (res toolcall.Result) {
	m.ScoreInto(calls, nil, &res)
	return res
}

// ScoreInto is Score writing its result to res (see ScoreInto).
func (m *mastraTrajectoryFull) ScoreInto(calls []toolcall.Call, _ *toolcall.RunContext, res *toolcall.Result) {
	m.scoreRun(&MastraRun{Steps: toolcall.WithArguments(calls)}, res)
}

// ScoreRun scores a run in Mastra's shape, with the dataset item's
// expectation (merged over the defaults) when given.
func (m *mastraTrajectoryFull) ScoreRun(_ context.Context, run MastraRun) (res toolcall.Result) {
	m.scoreRun(&run, &res)
	return res
}

// scoreRun is ScoreRun writing its result to res.
func (m *mastraTrajectoryFull) scoreRun(run *MastraRun, res *toolcall.Result) {
	// The configuration is read, never written: the scorer's own, or the
	// run's merged over it (a copy of either would take room in this
	// frame, which is on the way down to the comparison: see ScoreInto).
	cfg := &m.base
	if run.ExpectedTrajectory != nil {
		merged, err := m.runExpectation(run)
		if err != nil {
			toolcall.SetError(res, MastraTrajectoryFullName, m.threshold, prefixError("mastra_trajectory_full: run expectation: ", err))
			return
		}
		cfg = merged
	}
	steps := mastraSteps(run.Steps)
	lv, err := mastraEvaluateLevel(steps, run.TotalDurationMs, cfg, m.w, m.version)
	if err != nil {
		toolcall.SetError(res, MastraTrajectoryFullName, m.threshold, prefixError("mastra_trajectory_full: ", err))
		return
	}
	var nested []mastraNode
	if cfg.steps.set && len(cfg.steps.v) > 0 {
		nested, err = mastraEvaluateNested(cfg.steps.v, steps, m.w, m.version)
		if err != nil {
			toolcall.SetError(res, MastraTrajectoryFullName, m.threshold, prefixError("mastra_trajectory_full: ", err))
			return
		}
	}
	score := lv.combine(nested, m.version, true)
	*res = toolcall.Result{Scorer: MastraTrajectoryFullName, Threshold: m.threshold, Score: score}
	if !m.omitDetails {
		lv.addDetails(res, score, nested)
	}
	if lv.accuracy != nil {
		lv.accuracy.breakdownInto(&res.Breakdown, len(steps))
	}
	res.Decide()
	res.Explanation = lv.reason(score, nested, m.version)
}

// mastraLevel holds one level's dimensions.
type mastraLevel struct {
	accuracy     *mastraComparison
	efficiency   *mastraEfficiencyResult
	blacklist    *mastraBlacklistResult
	toolFailures *mastraFailureResult
	w            mastraWeights
}

// runExpectation is the scorer's configuration with the run's expectation
// merged over it.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (m *mastraTrajectoryFull) runExpectation(run *MastraRun) (*mastraExpectation, error) {
	item, err := parseMastraExpectation(run.ExpectedTrajectory, "expected_trajectory")
	if err != nil {
		return nil, err
	}
	merged := m.base.merge(item)
	return &merged, nil
}

func mastraEvaluateLevel(steps []toolcall.Call, totalDuration jsonv.Value, cfg *mastraExpectation, w mastraWeights, version string) (*mastraLevel, error) {
	lv := &mastraLevel{w: w}
	if cfg.steps.set && (version != MastraVersion120 || len(cfg.steps.v) > 0) {
		ordering := cfg.ordering
		if ordering == "" {
			ordering = "relaxed"
		}
		c, err := compareTrajectories(steps, cfg.steps.v, ordering, cfg.allowRepeated.or(true))
		if err != nil {
			return nil, err
		}
		lv.accuracy = c
	}
	if cfg.maxSteps.set || cfg.maxTotalTokens.set || cfg.maxTotalDurationMs.set || cfg.noRedundantCalls.set {
		e, err := mastraCheckEfficiency(steps, totalDuration, mastraEfficiencyOpts{
			maxSteps:           cfg.maxSteps,
			maxTotalTokens:     cfg.maxTotalTokens,
			maxTotalDurationMs: cfg.maxTotalDurationMs,
			noRedundantCalls:   cfg.noRedundantCalls.or(true),
		}, version)
		if err != nil {
			return nil, err
		}
		lv.efficiency = e
	}
	if len(cfg.blacklistedTools.v) > 0 || len(cfg.blacklistedSequences.v) > 0 {
		lv.blacklist = mastraCheckBlacklist(steps, cfg.blacklistedTools.v, cfg.blacklistedSequences.v)
	}
	maxRetries := 2.0
	if cfg.maxRetriesPerTool.set {
		maxRetries = cfg.maxRetriesPerTool.v
	}
	lv.toolFailures = mastraAnalyzeFailures(steps, maxRetries)
	return lv, nil
}

// level returns the weighted combination of the active dimensions and
// whether any is active.
func (lv *mastraLevel) level() (float64, bool) {
	type dim struct{ w, v float64 }
	var dims [4]dim
	n := 0
	if lv.accuracy != nil {
		dims[n] = dim{lv.w.accuracy, lv.accuracy.score}
		n++
	}
	if lv.efficiency != nil {
		dims[n] = dim{lv.w.efficiency, lv.efficiency.score}
		n++
	}
	if lv.toolFailures != nil && len(lv.toolFailures.patterns) > 0 {
		dims[n] = dim{lv.w.toolFailures, lv.toolFailures.score}
		n++
	}
	if lv.blacklist != nil {
		dims[n] = dim{lv.w.blacklist, lv.blacklist.score}
		n++
	}
	if n == 0 {
		return 1, false
	}
	total := 0.0
	for _, d := range dims[:n] {
		total += d.w
	}
	if !(total > 0) {
		return 1, true
	}
	level := 0.0
	for _, d := range dims[:n] {
		level += (d.w / total) * d.v
	}
	return level, true
}

// combine is generateScore (top) or a nested node's score.
func (lv *mastraLevel) combine(nested []mastraNode, version string, top bool) float64 {
	if lv.blacklist != nil && lv.blacklist.score == 0 {
		return 0
	}
	level, active := lv.level()
	if top && !active && len(nested) == 0 {
		return 1
	}
	if len(nested) > 0 {
		if mastraBlacklistViolation(nested, version) {
			return 0
		}
		sum := 0.0
		for _, r := range nested {
			sum += r.score
		}
		level = 0.7*level + 0.3*(sum/float64(len(nested)))
	}
	return jsMathRound(level*100) / 100
}

func (lv *mastraLevel) details() map[string]any {
	d := map[string]any{}
	if lv.accuracy != nil {
		d["accuracy"] = lv.accuracy.details()
	}
	if lv.efficiency != nil {
		d["efficiency"] = lv.efficiency.details()
	}
	if lv.blacklist != nil {
		d["blacklist"] = lv.blacklist.details()
	}
	if lv.toolFailures != nil {
		d["toolFailures"] = lv.toolFailures.details()
	}
	return d
}

// addDetails sets the result's Details: the level's, its score and the
// nested steps'. (In a frame of its own: see ScoreInto.)
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (lv *mastraLevel) addDetails(res *toolcall.Result, score float64, nested []mastraNode) {
	details := lv.details()
	details["score"] = score
	if len(nested) > 0 {
		details["nested"] = mastraNodesDetails(nested)
	}
	res.Details = details
}

// reason is generateReason.
func (lv *mastraLevel) reason(score float64, nested []mastraNode, version string) string {
	// Each part is written in a function of its own: their string building
	// takes room, and this frame is on the OTLP receiver's stack (see
	// ScoreInto).
	parts := []string{"Score: " + jsonv.FormatJSNumber(score)}
	if bl := lv.blacklist; bl != nil && bl.score == 0 {
		parts = append(parts, blacklistReason(bl))
		return strings.Join(parts, "\n")
	}
	if len(nested) > 0 && mastraBlacklistViolation(nested, version) {
		parts = append(parts, nestedBlacklistReason(nested, version))
		return strings.Join(parts, "\n")
	}
	if a := lv.accuracy; a != nil {
		parts = append(parts, accuracyReason(a))
	}
	if e := lv.efficiency; e != nil {
		parts = append(parts, efficiencyReason(e))
	}
	if f := lv.toolFailures; f != nil && len(f.patterns) > 0 {
		parts = append(parts, failuresReason(f))
	}
	if len(nested) > 0 {
		parts = append(parts, nestedReason(nested))
	}
	return strings.Join(parts, "\n")
}

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func blacklistReason(bl *mastraBlacklistResult) string {
	var v []string
	if len(bl.violatedTools) > 0 {
		v = append(v, "forbidden tools used: "+strings.Join(bl.violatedTools, ", "))
	}
	if len(bl.violatedSequences) > 0 {
		seqs := make([]string, len(bl.violatedSequences))
		for i, s := range bl.violatedSequences {
			seqs[i] = strings.Join(s, " → ")
		}
		v = append(v, "forbidden sequences: "+strings.Join(seqs, "; "))
	}
	return "Blacklist violation: " + strings.Join(v, ". ") + "."
}

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func nestedBlacklistReason(nested []mastraNode, version string) string {
	var names []string
	for i := range nested {
		if mastraBlacklistViolation(nested[i:i+1], version) {
			names = append(names, nested[i].stepName)
		}
	}
	return "Nested blacklist violation in: " + strings.Join(names, ", ") + "."
}

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func accuracyReason(a *mastraComparison) string {
	d := []string{fmt.Sprintf("%d/%d expected steps matched", a.matched, a.totalExpected)}
	if len(a.missing) > 0 {
		d = append(d, "missing: "+strings.Join(a.missing, ", "))
	}
	if len(a.extra) > 0 {
		d = append(d, "extra: "+strings.Join(a.extra, ", "))
	}
	if len(a.outOfOrder) > 0 {
		d = append(d, "out of order: "+strings.Join(a.outOfOrder, ", "))
	}
	return "Accuracy (" + jsonv.FormatJSNumber(a.score) + "): " + strings.Join(d, ". ") + "."
}

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func efficiencyReason(e *mastraEfficiencyResult) string {
	var d []string
	if e.overStepBudget {
		d = append(d, fmt.Sprintf("over step budget (%d steps)", e.totalSteps))
	}
	if e.overTokenBudget {
		d = append(d, "over token budget ("+jsonv.FormatJSNumber(e.totalTokens)+" tokens)")
	}
	if e.overDurationBudget {
		d = append(d, "over duration budget ("+jsonv.FormatJSNumber(e.totalDurationMs)+"ms)")
	}
	if len(e.redundant) > 0 {
		names := make([]string, len(e.redundant))
		for i, r := range e.redundant {
			names[i] = r.name
		}
		d = append(d, "redundant calls: "+strings.Join(names, ", "))
	}
	if len(d) > 0 {
		return "Efficiency (" + jsonv.FormatJSNumber(e.score) + "): " + strings.Join(d, ". ") + "."
	}
	return "Efficiency (" + jsonv.FormatJSNumber(e.score) + "): all budgets met, no redundant calls."
}

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func failuresReason(f *mastraFailureResult) string {
	var d []string
	if f.totalRetries > 0 {
		d = append(d, fmt.Sprintf("%d total retries", f.totalRetries))
	}
	if len(f.excessive) > 0 {
		d = append(d, "excessive retries: "+strings.Join(f.excessive, ", "))
	}
	return "Tool failures (" + jsonv.FormatJSNumber(f.score) + "): " + strings.Join(d, ". ") + "."
}

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func nestedReason(nested []mastraNode) string {
	s := make([]string, len(nested))
	for i, r := range nested {
		s[i] = r.stepName + ": " + jsonv.FormatJSNumber(r.score)
	}
	return "Nested scores: " + strings.Join(s, ", ") + "."
}

// mastraNode is NestedEvaluationResult.
type mastraNode struct {
	stepName string
	score    float64
	lv       *mastraLevel // nil when the parent was missing
	// missingAccuracy is the accuracy reported for a missing parent.
	missingAccuracy *mastraComparison
	nested          []mastraNode
	// nestedRaw keeps an empty nested list on a blacklist hard fail.
	nestedRaw bool
}

func mastraBlacklistViolation(nodes []mastraNode, version string) bool {
	for i := range nodes {
		n := &nodes[i]
		if n.lv != nil && n.lv.blacklist != nil && n.lv.blacklist.score == 0 {
			return true
		}
		if version != MastraVersion120 && mastraBlacklistViolation(n.nested, version) {
			return true
		}
	}
	return false
}

func mastraEvaluateNested(expected []mastraExpectedStep, actual []toolcall.Call, w mastraWeights, version string) ([]mastraNode, error) {
	var out []mastraNode
	used := make([]bool, len(actual))
	for i := range expected {
		e := &expected[i]
		if e.children == nil {
			continue
		}
		k := -1
		for j := range actual {
			if !used[j] && actual[j].Name == e.name && (e.stepType == "" || mastraStepType(&actual[j]) == e.stepType) {
				k = j
				break
			}
		}
		if k >= 0 {
			used[k] = true
		}
		cfg := e.children
		if k < 0 || (version == MastraVersion120 && len(actual[k].Children) == 0) {
			node := mastraNode{stepName: e.name}
			if n := len(cfg.steps.v); n > 0 {
				node.missingAccuracy = &mastraComparison{totalExpected: n, missing: mastraExpectedNames(cfg.steps.v)}
			}
			out = append(out, node)
			continue
		}
		child := actual[k].Children
		duration, _ := actual[k].Fields["durationMs"]
		lv, err := mastraEvaluateLevel(child, duration, cfg, w, version)
		if err != nil {
			return nil, err
		}
		var sub []mastraNode
		if cfg.steps.set {
			sub, err = mastraEvaluateNested(cfg.steps.v, child, w, version)
			if err != nil {
				return nil, err
			}
		}
		node := mastraNode{stepName: e.name, lv: lv, nested: sub}
		switch {
		case lv.blacklist != nil && lv.blacklist.score == 0:
			node.nestedRaw = true
		case len(sub) > 0 && mastraBlacklistViolation(sub, version):
			node.nestedRaw = true
		default:
			node.score = lv.combine(sub, version, false)
		}
		out = append(out, node)
	}
	return out, nil
}

func mastraNodesDetails(nodes []mastraNode) []any {
	out := make([]any, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		d := map[string]any{"stepName": n.stepName, "score": n.score}
		var acc *mastraComparison
		if n.lv != nil {
			for k, v := range n.lv.details() {
				d[k] = v
			}
			acc = n.lv.accuracy
			if len(n.nested) > 0 || n.nestedRaw {
				d["nested"] = mastraNodesDetails(n.nested)
			}
		} else if n.missingAccuracy != nil {
			acc = n.missingAccuracy
			d["accuracy"] = acc.details()
		}
		if acc != nil {
			// Shorthand used by the upstream vectors: nested.N.matchedSteps.
			for k, v := range acc.details() {
				if k != "score" {
					d[k] = v
				}
			}
		}
		out[i] = d
	}
	return out
}

// mastraEfficiencyOpts are checkTrajectoryEfficiency's options.
type mastraEfficiencyOpts struct {
	maxSteps, maxTotalTokens, maxTotalDurationMs optNum
	noRedundantCalls                             bool
}

type mastraRedundant struct {
	name  string
	index int
}

// mastraEfficiencyResult is TrajectoryEfficiencyResult.
type mastraEfficiencyResult struct {
	score              float64
	totalSteps         int
	overStepBudget     bool
	totalTokens        float64
	overTokenBudget    bool
	totalDurationMs    float64
	overDurationBudget bool
	redundant          []mastraRedundant
}

func (e *mastraEfficiencyResult) details() map[string]any {
	red := make([]any, len(e.redundant))
	for i, r := range e.redundant {
		red[i] = map[string]any{"name": r.name, "index": r.index}
	}
	return map[string]any{
		"score":              e.score,
		"totalSteps":         e.totalSteps,
		"overStepBudget":     e.overStepBudget,
		"totalTokens":        e.totalTokens,
		"overTokenBudget":    e.overTokenBudget,
		"totalDurationMs":    e.totalDurationMs,
		"overDurationBudget": e.overDurationBudget,
		"redundantCalls":     red,
	}
}

func isMeasurement(v jsonv.Value) bool {
	return v.Kind() == jsonv.KindNumber && !math.IsInf(v.NumberValue(), 0) && !math.IsNaN(v.NumberValue()) && v.NumberValue() >= 0
}

func isMeasurementNum(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) && x >= 0 }

// numOr0 is (v ?? 0) for numeric step fields.
func numOr0(v jsonv.Value) float64 {
	if v.Kind() == jsonv.KindNumber {
		return v.NumberValue()
	}
	return 0
}

// mastraCheckEfficiency is checkTrajectoryEfficiency.
func mastraCheckEfficiency(steps []toolcall.Call, totalDuration jsonv.Value, o mastraEfficiencyOpts, version string) (*mastraEfficiencyResult, error) {
	newer := version != MastraVersion120
	if newer {
		for _, b := range []struct {
			name string
			n    optNum
		}{{"maxSteps", o.maxSteps}, {"maxTotalTokens", o.maxTotalTokens}, {"maxTotalDurationMs", o.maxTotalDurationMs}} {
			if b.n.set && !isMeasurementNum(b.n.v) {
				return nil, fmt.Errorf("Invalid %s budget: expected a finite nonnegative number", b.name)
			}
		}
	}
	r := &mastraEfficiencyResult{totalSteps: len(steps)}
	if newer {
		gens := 0
		stack := make([]*toolcall.Call, 0, len(steps))
		for i := range steps {
			stack = append(stack, &steps[i])
		}
		for len(stack) > 0 {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if s.StepType == toolcall.StepModelGeneration {
				gens++
				pt, ct := s.Fields["promptTokens"], s.Fields["completionTokens"]
				if o.maxTotalTokens.set && (!isMeasurement(pt) || !isMeasurement(ct)) {
					return nil, fmt.Errorf("Cannot evaluate token budget: model generation %q has missing or invalid token counts", s.Name)
				}
				r.totalTokens += numOr0(pt) + numOr0(ct)
			}
			for i := range s.Children {
				stack = append(stack, &s.Children[i])
			}
		}
		if o.maxTotalTokens.set && (gens == 0 || !isMeasurementNum(r.totalTokens)) {
			return nil, errors.New("Cannot evaluate token budget: missing model-generation measurements or invalid total tokens")
		}
	} else {
		for i := range steps {
			if steps[i].StepType == toolcall.StepModelGeneration {
				r.totalTokens += numOr0(steps[i].Fields["promptTokens"]) + numOr0(steps[i].Fields["completionTokens"])
			}
		}
	}
	if totalDuration.Kind() > jsonv.KindNull {
		r.totalDurationMs = numOr0(totalDuration)
	} else {
		for i := range steps {
			r.totalDurationMs += numOr0(steps[i].Fields["durationMs"])
		}
	}
	if newer && o.maxTotalDurationMs.set {
		var ok bool
		// "!== undefined": an explicit null total is checked, and fails.
		if totalDuration.Kind() != jsonv.KindUndefined {
			ok = isMeasurement(totalDuration)
		} else {
			ok = len(steps) > 0
			for i := range steps {
				if !isMeasurement(steps[i].Fields["durationMs"]) {
					ok = false
					break
				}
			}
		}
		if !ok || !isMeasurementNum(r.totalDurationMs) {
			return nil, errors.New("Cannot evaluate duration budget: missing or invalid duration measurements")
		}
	}
	if o.noRedundantCalls {
		for i := 1; i < len(steps); i++ {
			p, c := &steps[i-1], &steps[i]
			pt := mastraStepType(p)
			if p.Name != c.Name || pt != mastraStepType(c) || (pt != toolcall.StepToolCall && pt != toolcall.StepMCPToolCall) {
				continue
			}
			if p.ArgsUnknown {
				return nil, &errMastraArgs{name: p.Name, pos: i - 1}
			}
			if c.ArgsUnknown {
				return nil, &errMastraArgs{name: c.Name, pos: i}
			}
			if jsStringifyEqual(p.Args, c.Args) {
				r.redundant = append(r.redundant, mastraRedundant{name: c.Name, index: i})
			}
		}
	}
	r.overStepBudget = o.maxSteps.set && float64(r.totalSteps) > o.maxSteps.v
	r.overTokenBudget = o.maxTotalTokens.set && r.totalTokens > o.maxTotalTokens.v
	r.overDurationBudget = o.maxTotalDurationMs.set && r.totalDurationMs > o.maxTotalDurationMs.v
	var dims []float64
	over := func(isOver bool, total, budget float64) float64 {
		if !isOver {
			return 1
		}
		return max(0, 1-(total-budget)/budget)
	}
	if o.maxSteps.set {
		dims = append(dims, over(r.overStepBudget, float64(r.totalSteps), o.maxSteps.v))
	}
	if o.maxTotalTokens.set {
		dims = append(dims, over(r.overTokenBudget, r.totalTokens, o.maxTotalTokens.v))
	}
	if o.maxTotalDurationMs.set {
		dims = append(dims, over(r.overDurationBudget, r.totalDurationMs, o.maxTotalDurationMs.v))
	}
	if o.noRedundantCalls {
		if len(r.redundant) == 0 {
			dims = append(dims, 1)
		} else {
			dims = append(dims, max(0, 1-float64(len(r.redundant))*0.2))
		}
	}
	score := 1.0
	if len(dims) > 0 {
		sum := 0.0
		for _, d := range dims {
			sum += d
		}
		score = sum / float64(len(dims))
	}
	r.score = MastraRound2(max(0, min(1, score)))
	return r, nil
}

// mastraBlacklistResult is TrajectoryBlacklistResult.
type mastraBlacklistResult struct {
	score             float64
	violatedTools     []string
	violatedSequences [][]string
}

func (b *mastraBlacklistResult) details() map[string]any {
	seqs := make([]any, len(b.violatedSequences))
	for i, s := range b.violatedSequences {
		seqs[i] = StringsOrEmpty(s)
	}
	return map[string]any{"score": b.score, "violatedTools": StringsOrEmpty(b.violatedTools), "violatedSequences": seqs}
}

// mastraCheckBlacklist is checkTrajectoryBlacklist.
func mastraCheckBlacklist(steps []toolcall.Call, tools []string, seqs [][]string) *mastraBlacklistResult {
	r := &mastraBlacklistResult{score: 1}
	for _, t := range tools {
		for i := range steps {
			if steps[i].Name == t {
				r.violatedTools = append(r.violatedTools, t)
				break
			}
		}
	}
	for _, seq := range seqs {
		if len(seq) == 0 {
			continue
		}
		for i := 0; i+len(seq) <= len(steps); i++ {
			match := true
			for j := range seq {
				if steps[i+j].Name != seq[j] {
					match = false
					break
				}
			}
			if match {
				r.violatedSequences = append(r.violatedSequences, seq)
				break
			}
		}
	}
	if len(r.violatedTools) > 0 || len(r.violatedSequences) > 0 {
		r.score = 0
	}
	return r
}

type mastraFailurePattern struct {
	toolName        string
	retryCount      int
	fellBack        bool
	alternativeTool string
	succeeded       bool
}

// mastraFailureResult is ToolFailureAnalysisResult.
type mastraFailureResult struct {
	score        float64
	patterns     []mastraFailurePattern
	totalRetries int
	excessive    []string
}

func (f *mastraFailureResult) details() map[string]any {
	ps := make([]any, len(f.patterns))
	for i, p := range f.patterns {
		var alt any
		if p.fellBack {
			alt = p.alternativeTool
		}
		ps[i] = map[string]any{
			"toolName":              p.toolName,
			"retryCount":            p.retryCount,
			"fellBackToAlternative": p.fellBack,
			"alternativeTool":       alt,
			"eventuallySucceeded":   p.succeeded,
		}
	}
	return map[string]any{"score": f.score, "patterns": ps, "totalRetries": f.totalRetries, "excessiveRetryTools": StringsOrEmpty(f.excessive)}
}

// mastraSuccessFalse reports success === false.
func mastraSuccessFalse(c *toolcall.Call) bool {
	v, _ := mastraActualField(c, "success")
	return v.Kind() == jsonv.KindBool && !v.BoolValue()
}

// mastraAnalyzeFailures is analyzeToolFailures.
func mastraAnalyzeFailures(steps []toolcall.Call, maxRetries float64) *mastraFailureResult {
	r := &mastraFailureResult{score: 1}
	var tools []*toolcall.Call
	for i := range steps {
		if t := mastraStepType(&steps[i]); t == toolcall.StepToolCall || t == toolcall.StepMCPToolCall {
			tools = append(tools, &steps[i])
		}
	}
	if len(tools) == 0 {
		return r
	}
	for i := 0; i < len(tools); {
		cur := tools[i]
		retry := 0
		j := i + 1
		for j < len(tools) && tools[j].Name == cur.Name {
			if mastraSuccessFalse(tools[j-1]) {
				retry++
			}
			j++
		}
		if retry > 0 {
			lastOK := !mastraSuccessFalse(tools[j-1])
			p := mastraFailurePattern{toolName: cur.Name, retryCount: retry, succeeded: lastOK}
			if j < len(tools) && !lastOK {
				p.fellBack = true
				p.alternativeTool = tools[j].Name
			}
			r.patterns = append(r.patterns, p)
			r.totalRetries += retry
		}
		i = j
	}
	excess := 0.0
	for _, p := range r.patterns {
		if float64(p.retryCount) > maxRetries {
			r.excessive = append(r.excessive, p.toolName)
		}
		excess += max(0, float64(p.retryCount)-maxRetries)
	}
	r.score = MastraRound2(max(0, min(1, max(0, 1-excess*0.2))))
	return r
}

// MastraCheckTrajectoryEfficiency runs Mastra's checkTrajectoryEfficiency
// on a run and returns its result fields (score, totalSteps,
// overStepBudget, ...). Options: max_steps, max_total_tokens,
// max_total_duration_ms, no_redundant_calls (default true), version.
func MastraCheckTrajectoryEfficiency(run MastraRun, options map[string]any) (map[string]any, error) {
	r := toolcall.NewOptionReader("checkTrajectoryEfficiency", options)
	o := mastraEfficiencyOpts{
		maxSteps:           optNumOf(r, "max_steps"),
		maxTotalTokens:     optNumOf(r, "max_total_tokens"),
		maxTotalDurationMs: optNumOf(r, "max_total_duration_ms"),
		noRedundantCalls:   r.Bool("no_redundant_calls", true),
	}
	version := r.String("version", MastraVersion1102, MastraVersion1102, MastraVersion120)
	if err := r.Err(); err != nil {
		return nil, err
	}
	e, err := mastraCheckEfficiency(mastraSteps(run.Steps), run.TotalDurationMs, o, version)
	if err != nil {
		return nil, err
	}
	return e.details(), nil
}

// MastraCheckTrajectoryBlacklist runs Mastra's checkTrajectoryBlacklist on
// a run and returns its result fields (score, violatedTools,
// violatedSequences). Options: blacklisted_tools, blacklisted_sequences.
func MastraCheckTrajectoryBlacklist(run MastraRun, options map[string]any) (map[string]any, error) {
	r := toolcall.NewOptionReader("checkTrajectoryBlacklist", options)
	tools := r.Strings("blacklisted_tools")
	var seqs [][]string
	if x, ok := r.Raw("blacklisted_sequences"); ok {
		s, err := parseSequences(x)
		if err != nil {
			r.Fail("blacklisted_sequences", "%v", err)
		}
		seqs = s
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return mastraCheckBlacklist(mastraSteps(run.Steps), tools, seqs).details(), nil
}

// MastraAnalyzeToolFailures runs Mastra's analyzeToolFailures on a run and
// returns its result fields (score, patterns, totalRetries,
// excessiveRetryTools). Options: max_retries_per_tool (default 2).
func MastraAnalyzeToolFailures(run MastraRun, options map[string]any) (map[string]any, error) {
	r := toolcall.NewOptionReader("analyzeToolFailures", options)
	n := optNumOf(r, "max_retries_per_tool")
	if err := r.Err(); err != nil {
		return nil, err
	}
	maxRetries := 2.0
	if n.set {
		maxRetries = n.v
	}
	return mastraAnalyzeFailures(mastraSteps(run.Steps), maxRetries).details(), nil
}
