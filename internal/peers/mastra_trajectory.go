package peers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// MastraTrajectoryName is the registered name of the Mastra trajectory
// accuracy profile (createTrajectoryAccuracyScorerCode and
// compareTrajectories), documented on the mastraTrajectory type in
// mastra_trajectory.go.
const MastraTrajectoryName = "mastra_trajectory"

func init() { toolcall.Register(MastraTrajectoryName, newMastraTrajectory) }

// mastraTrajectory reproduces @mastra/evals
// createTrajectoryAccuracyScorerCode and the compareTrajectories function it
// wraps (src/scorers/code/trajectory/index.ts and src/scorers/utils.ts).
// Version 1.10.2 by default; option version "1.2.0" gives the documented
// differences of 1.2.0.
//
// Options (the peer's, in snake_case; step and expectation keys too:
// step_type, tool_args, tool_result, model_id, prompt_tokens, children, ...,
// while data values such as tool arguments keep their keys as written):
//
//	expected_trajectory  a list of expected steps, or a trajectory {steps: [...]}
//	comparison_options   {ordering: strict|relaxed|unordered (default relaxed), allow_repeated_steps: bool (default true);
//	                     strict_order and compare_step_data are accepted and ignored}
//	version              "1.10.2" (default) or "1.2.0"
//
// Because JSON.stringify makes key order significant, a data value given as
// a Go map (or YAML, through a collector configuration) compares with its
// keys sorted: maps have no order. To keep the written order, give
// expected_trajectory as JSON text, written as Mastra's expectedTrajectory
// (camelCase keys such as stepType and toolArgs, or the snake_case ones),
// or the data values as [Value]s (for example from [Parse]); expected
// calls keep it with args_json and result_json in a configuration.
//
// compareTrajectories(actual, expected, {ordering, allowRepeatedSteps}):
//
//	no expected steps: 1 when no actual steps, else 0 (all actual names are extra)
//	repeatedSteps = distinct actual names occurring more than once, by first occurrence (over ALL actual steps)
//	stepMatches(a, e) = same name; when e has a step type, same step type and, for each comparable
//	    field of that type that e defines, a defines it and JSON.stringify(a.f) === JSON.stringify(e.f)
//	    (tool_call: toolArgs, toolResult, success; mcp_tool_call: + mcpServer; model_generation: modelId,
//	    promptTokens, completionTokens, finishReason; agent_run: agentId; workflow_step: stepId, status,
//	    output; workflow_run: workflowId, status; workflow_conditional, _parallel, _loop, _sleep,
//	    _wait_event, processor_run: their own fields)
//	strict:    position by position over max(nA, nE): same name and stepMatches -> matched; a nameless
//	           actual step past the end of the expected steps -> matched (undefined === undefined, no
//	           expected step to compare); a different actual name that occurs among the expected names ->
//	           outOfOrder; score = matched/nE, minus ((nA-nE)/nE)*0.5 when there are extra steps (clamped
//	           at 0)
//	relaxed:   greedy subsequence: each expected step takes the first later actual step that matches;
//	           not found but its name occurs anywhere -> outOfOrder; extras are free
//	unordered: each expected step takes the first unused actual step that matches
//	all:       allowRepeatedSteps false -> minus 0.1 per repeated name; round2(clamp(score, 0, 1))
//
// Quirks reproduced (each has a test case):
//
//   - JSON.stringify makes key order significant ({b,a} differs from {a,b}),
//     except that array-index keys come first; undefined members vanish.
//   - Data fields are ignored when the expected step has no step type.
//   - Strict mode is positional: one leading extra step shifts everything
//     ([x,a,b] vs [a,b] scores 0); the extra-step penalty is strict only.
//   - Strict mode counts a nameless step past the end of the expected
//     steps as matched, so matchedSteps can exceed totalExpectedSteps:
//     [a, nameless] vs [a] scores 2/1 - 0.5, clamped to 1, and
//     [x, nameless] vs [a] scores 0.5.
//   - A same-name step whose data differs is neither matched nor (strict)
//     out of order; in relaxed mode it is missing AND out of order.
//   - Repeated steps are counted over all actual steps, expected or not.
//   - round2(x) = Math.round((x + Number.EPSILON) * 100) / 100: 1/3 -> 0.33.
//   - The documented comparisonOptions.strictOrder does not exist (the key is
//     ordering): strict_order (and the pre-release compare_step_data) are
//     accepted and ignored; relaxed never penalises extra steps, despite the
//     docs.
//   - Any ordering other than exactly "strict" or "unordered" is relaxed
//     ("STRICT" included), as in Mastra.
//   - No expected trajectory at all: score 0 with Details.error (not an
//     error result: Mastra returns 0 and carries the message).
//   - 1.10.2: an explicit empty expected list means "expect no steps" (empty
//     actual scores 1); 1.2.0 treats it as unset (score 0).
//
// Expectation mapping, used only where the options leave a field unset:
// expected calls become the expected steps (step type from StepType, else
// "mcp_tool_call" for Type "mcp", else "tool_call"; toolArgs from Args, toolResult from Result,
// success true from MustSucceed, other comparable fields from Fields by
// their Mastra names); Order exact/in_order/any maps to ordering
// strict/relaxed/unordered when comparison_options.ordering is not given. An
// empty expected-call list leaves the steps unset (use expected_trajectory:
// [] to expect an empty trajectory). Matchers, optional calls and forbidden
// tools are rejected.
//
// Actual steps: each Call is a step: step type StepType ("tool_call" when
// empty), toolArgs = Args, toolResult = Result, success from Status (unset
// status: no success field), other fields (durationMs, promptTokens, modelId,
// agentId, mcpServer, ...) from Fields, children from Children. A step with
// an empty Name is a nameless step (name undefined in Mastra); in the
// actual-name lists of Details (extraSteps, repeatedSteps,
// actualStepNames) it is nil, JSON null as JSON.stringify writes Mastra's
// undefined, and such a list is then a []any. Steps of type "message" are
// skipped. A call with unknown arguments makes the result an
// error only when an expected step compares toolArgs against it.
//
// [mastraTrajectory.ScoreRun] also takes the dataset item's expectation
// (run.expectedTrajectory): item steps are used when no static steps exist,
// and the item's ordering and allow_repeated_steps override the options.
//
// Reference vs source notes (the notes win): any ordering other than
// exactly "strict" or "unordered" is relaxed (the reference lists only the
// three values); relaxed out-of-order entries are the EXPECTED names while
// strict ones are the ACTUAL names; in strict mode a same-name step with
// other data is neither matched nor out of order; in strict mode a nameless
// actual step past the end of the expected steps has an equal name
// (undefined === undefined) and counts as matched without any data
// comparison, since there is no expected step to compare it with.
//
// Details: the comparison fields (matchedSteps, totalExpectedSteps,
// totalActualSteps, missingSteps, extraSteps, outOfOrderSteps,
// repeatedSteps, score), actualStepNames, expectedStepNames, and error when
// no expectation exists. The breakdown pairs matched steps.
type mastraTrajectory struct {
	version   string
	static    []mastraExpectedStep // nil: none
	names     *mastraStepNames     // static's names
	ordering  string               // from comparison_options or the expectation; "" = relaxed
	allowRep  optBool
	threshold float64
	// omitDetails: Settings.OmitDetails.
	omitDetails bool
}

var _ toolcall.Scorer = (*mastraTrajectory)(nil)

// MastraRun is the run a Mastra trajectory scorer receives.
type MastraRun struct {
	// Steps is the actual trajectory (run.output.steps).
	Steps []toolcall.Call
	// TotalDurationMs is run.output.totalDurationMs; undefined when unknown.
	TotalDurationMs jsonv.Value
	// ExpectedTrajectory is the dataset item's expectation
	// (run.expectedTrajectory), written like the options (snake_case keys:
	// steps, ordering, allow_repeated_steps, max_steps, ...); nil when none.
	ExpectedTrajectory map[string]any
}

func newMastraTrajectory(s toolcall.Settings) (toolcall.Scorer, error) {
	r := toolcall.NewOptionReader(MastraTrajectoryName, s.Options)
	m := &mastraTrajectory{threshold: s.Threshold, omitDetails: s.OmitDetails}
	m.version = r.String("version", MastraVersion1102, MastraVersion1102, MastraVersion120)
	raw, hasStatic := r.Raw("expected_trajectory")
	if hasStatic {
		var err error
		if raw, err = mastraJSONOption(raw); err != nil {
			r.Fail("expected_trajectory", "%v", err)
		}
	}
	if sub, ok := optionSub(r, "comparison_options"); ok {
		m.ordering = sub.String("ordering", "")
		m.allowRep = optBoolOf(sub, "allow_repeated_steps")
		// The documented strictOrder and the pre-release compareStepData do
		// not exist in the code: accepted and ignored, as Mastra does.
		sub.Raw("strict_order")
		sub.Raw("compare_step_data")
		if err := sub.Err(); err != nil {
			r.Errs = append(r.Errs, err)
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if hasStatic {
		steps, err := parseMastraStaticSteps(raw, m.version)
		if err != nil {
			return nil, fmt.Errorf("mastra_trajectory: option \"expected_trajectory\": %w", err)
		}
		m.static = steps
	}
	if err := CheckPeerExpectation(MastraTrajectoryName, s.Expectation, PeerFeatures{mustSucceed: true}); err != nil {
		return nil, err
	}
	if m.static == nil && len(s.Expectation.Calls) > 0 {
		m.static = mastraStepsFromExpectation(s.Expectation.Calls)
	}
	if m.static != nil {
		m.names = newMastraStepNames(m.static)
		markPlainFields(m.static)
	}
	if m.ordering == "" {
		m.ordering = mastraOrdering(s.Expectation.Order)
	}
	return m, nil
}

func (m *mastraTrajectory) Name() string { return MastraTrajectoryName }

// ReadsResults reports that the profile reads tool results (a step's
// toolResult).
func (m *mastraTrajectory) ReadsResults() bool { return true }

// Score implements Scorer.
func (m *mastraTrajectory) Score(_ context.Context, calls []toolcall.Call) (res toolcall.Result) {
	m.ScoreInto(calls, nil, &res)
	return res
}

// ScoreInto is Score writing its result to res (see ScoreInto).
func (m *mastraTrajectory) ScoreInto(calls []toolcall.Call, _ *toolcall.RunContext, res *toolcall.Result) {
	m.scoreRun(&MastraRun{Steps: toolcall.WithArguments(calls)}, res)
}

// ScoreRun scores a run in Mastra's shape, with the dataset item's
// expectation when given.
func (m *mastraTrajectory) ScoreRun(_ context.Context, run MastraRun) (res toolcall.Result) {
	m.scoreRun(&run, &res)
	return res
}

// scoreRun is ScoreRun writing its result to res.
func (m *mastraTrajectory) scoreRun(run *MastraRun, res *toolcall.Result) {
	steps := mastraSteps(run.Steps)
	var item *mastraExpectation
	if run.ExpectedTrajectory != nil {
		var err error
		item, err = parseMastraExpectation(run.ExpectedTrajectory, "expected_trajectory")
		if err != nil {
			toolcall.SetError(res, MastraTrajectoryName, m.threshold, prefixError("mastra_trajectory: run expectation: ", err))
			return
		}
	}
	resolved, names := m.static, m.names
	if resolved == nil && item != nil && item.steps.set {
		if m.version != MastraVersion120 || len(item.steps.v) > 0 {
			resolved, names = item.steps.v, nil
		}
	}
	if resolved == nil || (m.version == MastraVersion120 && len(resolved) == 0) {
		m.noExpectation(res, steps)
		return
	}
	ordering, allowRep := m.ordering, m.allowRep.or(true)
	if item != nil && item.ordering != "" {
		ordering = item.ordering
	}
	if item != nil && item.allowRepeated.set {
		allowRep = item.allowRepeated.v
	}
	m.compareInto(res, steps, resolved, names, ordering, allowRep)
}

// compareInto compares the steps with the expected ones and writes the
// result. scoreRun's rare branch (noExpectation) and the details
// (addDetails) are in frames of their own: this one is on the way down to
// the comparison, on the OTLP receiver's stack in the collector (see
// ScoreInto).
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (m *mastraTrajectory) compareInto(res *toolcall.Result, steps []toolcall.Call, resolved []mastraExpectedStep, names *mastraStepNames, ordering string, allowRep bool) {
	if names == nil && len(resolved) > 0 {
		names = newMastraStepNames(resolved) // the run's own steps
	}
	var cmp mastraComparison
	if err := cmp.compare(steps, resolved, names, ordering, allowRep, true); err != nil {
		toolcall.SetError(res, MastraTrajectoryName, m.threshold, prefixError("mastra_trajectory: ", err))
		return
	}
	*res = toolcall.Result{Scorer: MastraTrajectoryName, Threshold: m.threshold, Score: cmp.score}
	if !m.omitDetails {
		addDetails(res, &cmp, len(steps))
	}
	cmp.breakdownInto(&res.Breakdown, len(steps))
	res.Decide()
	res.Explanation = cmp.explain(ordering)
}

// addDetails sets the result's Details from the comparison of n actual
// steps.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func addDetails(res *toolcall.Result, cmp *mastraComparison, n int) {
	details := cmp.detailsSized(2)
	details["actualStepNames"] = mastraNameList(cmp.stepNames[:n:n])
	details["expectedStepNames"] = cmp.stepNames[n:]
	res.Details = details
}

// noExpectation is the result of a run with no expected trajectory.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (m *mastraTrajectory) noExpectation(res *toolcall.Result, steps []toolcall.Call) {
	msg := "No expected trajectory provided (pass via options or dataset item expectedTrajectory)"
	*res = toolcall.Result{Scorer: MastraTrajectoryName, Threshold: m.threshold}
	if !m.omitDetails {
		res.Details = map[string]any{
			"error":             msg,
			"actualStepNames":   mastraNameList(mastraActualNames(steps, nil)),
			"expectedStepNames": []string{},
		}
	}
	res.Decide()
	res.Explanation = "0: " + msg
}

// mastraStepNameList writes the actual then the expected steps' names into
// out, which has room for them, and returns it.
func mastraStepNameList(actual []toolcall.Call, expected []mastraExpectedStep, out []string) []string {
	for j := range actual {
		out[j] = actual[j].Name
	}
	for i := range expected {
		out[len(actual)+i] = expected[i].name
	}
	return out
}

// mastraActualNames lists the steps' names into out (allocated when nil).
func mastraActualNames(steps []toolcall.Call, out []string) []string {
	if out == nil {
		out = make([]string, len(steps))
	}
	for i := range steps {
		out[i] = steps[i].Name
	}
	return out
}

// mastraOrdering maps an order mode onto Mastra's ordering ("" when unset).
func mastraOrdering(o toolcall.OrderMode) string {
	switch o {
	case toolcall.OrderExact:
		return "strict"
	case toolcall.OrderInOrder:
		return "relaxed"
	case toolcall.OrderAny:
		return "unordered"
	}
	return ""
}

// optBool is an optional boolean option.
type optBool struct{ set, v bool }

func (b optBool) or(def bool) bool {
	if b.set {
		return b.v
	}
	return def
}

func optBoolOf(r *toolcall.OptionReader, key string) optBool {
	if _, ok := r.Opts[key]; !ok || r.Opts[key] == nil {
		r.Known = append(r.Known, key)
		return optBool{}
	}
	return optBool{set: true, v: r.Bool(key, false)}
}

// optNum is an optional number option; Mastra validates budgets itself.
type optNum struct {
	set bool
	v   float64
}

func optNumOf(r *toolcall.OptionReader, key string) optNum {
	x, ok := r.Raw(key)
	if !ok {
		return optNum{}
	}
	v, err := jsonv.ValueOf(x)
	if err != nil || v.Kind() != jsonv.KindNumber {
		r.Fail(key, "expects a number, got %s", toolcall.DescribeOperand(x))
		return optNum{}
	}
	return optNum{set: true, v: v.NumberValue()}
}

// mastraExpectedStep is Mastra's ExpectedStep.
type mastraExpectedStep struct {
	name     string
	stepType string // "" matches any step type and disables data comparison
	// data holds the comparable fields the step defines, by Mastra name.
	data     []mastraField
	children *mastraExpectation
}

type mastraField struct {
	name string
	v    jsonv.Value
	// plain is set, on the scorer's own expected steps, when v is plain
	// (stringifyPlain), so that a comparison with it takes
	// stringifyEqualPlain.
	plain bool
}

// markPlainFields marks the plain data values of steps (see
// mastraField.plain).
func markPlainFields(steps []mastraExpectedStep) {
	for i := range steps {
		for k := range steps[i].data {
			d := &steps[i].data[k]
			d.plain = d.v.Kind() != jsonv.KindUndefined && stringifyPlain(&d.v)
		}
	}
}

// fieldRef returns the step's field of that name, nil when it has none.
func (e *mastraExpectedStep) fieldRef(name string) *mastraField {
	for i := range e.data {
		if e.data[i].name == name {
			return &e.data[i]
		}
	}
	return nil
}

// mastraStepsOpt is an optional list of expected steps.
type mastraStepsOpt struct {
	set bool
	v   []mastraExpectedStep
}

// mastraStringsOpt is an optional list of names.
type mastraStringsOpt struct {
	set bool
	v   []string
}

// mastraSeqsOpt is an optional list of name sequences.
type mastraSeqsOpt struct {
	set bool
	v   [][]string
}

// mastraExpectation is Mastra's TrajectoryExpectation; unset fields are
// the zero values of their option types.
type mastraExpectation struct {
	steps                mastraStepsOpt
	ordering             string
	allowRepeated        optBool
	maxSteps             optNum
	maxTotalTokens       optNum
	maxTotalDurationMs   optNum
	noRedundantCalls     optBool
	blacklistedTools     mastraStringsOpt
	blacklistedSequences mastraSeqsOpt
	maxRetriesPerTool    optNum
}

// merge returns {...e, ...over}: every field over sets replaces e's.
func (e mastraExpectation) merge(over *mastraExpectation) mastraExpectation {
	if over == nil {
		return e
	}
	if over.steps.set {
		e.steps = over.steps
	}
	if over.ordering != "" {
		e.ordering = over.ordering
	}
	if over.allowRepeated.set {
		e.allowRepeated = over.allowRepeated
	}
	if over.maxSteps.set {
		e.maxSteps = over.maxSteps
	}
	if over.maxTotalTokens.set {
		e.maxTotalTokens = over.maxTotalTokens
	}
	if over.maxTotalDurationMs.set {
		e.maxTotalDurationMs = over.maxTotalDurationMs
	}
	if over.noRedundantCalls.set {
		e.noRedundantCalls = over.noRedundantCalls
	}
	if over.blacklistedTools.set {
		e.blacklistedTools = over.blacklistedTools
	}
	if over.blacklistedSequences.set {
		e.blacklistedSequences = over.blacklistedSequences
	}
	if over.maxRetriesPerTool.set {
		e.maxRetriesPerTool = over.maxRetriesPerTool
	}
	return e
}

// mastraStepKeys maps the snake_case keys of an expected step to Mastra's
// field names; "" marks structural keys handled separately.
var mastraStepKeys = map[string]string{
	"name":              "",
	"step_type":         "",
	"children":          "",
	"duration_ms":       "",
	"metadata":          "",
	"tool_args":         "toolArgs",
	"tool_result":       "toolResult",
	"success":           "success",
	"mcp_server":        "mcpServer",
	"model_id":          "modelId",
	"prompt_tokens":     "promptTokens",
	"completion_tokens": "completionTokens",
	"finish_reason":     "finishReason",
	"agent_id":          "agentId",
	"step_id":           "stepId",
	"status":            "status",
	"output":            "output",
	"workflow_id":       "workflowId",
	"condition_count":   "conditionCount",
	"selected_steps":    "selectedSteps",
	"branch_count":      "branchCount",
	"parallel_steps":    "parallelSteps",
	"loop_type":         "loopType",
	"total_iterations":  "totalIterations",
	"sleep_duration_ms": "sleepDurationMs",
	"sleep_type":        "sleepType",
	"event_name":        "eventName",
	"event_received":    "eventReceived",
	"processor_id":      "processorId",
}

// mastraToolCallFields are the comparable fields of a tool_call step.
var mastraToolCallFields = []string{"toolArgs", "toolResult", "success"}

// mastraComparableFields is COMPARABLE_FIELDS_BY_TYPE.
var mastraComparableFields = map[string][]string{
	toolcall.StepToolCall:  mastraToolCallFields,
	"mcp_tool_call":        {"toolArgs", "toolResult", "mcpServer", "success"},
	"model_generation":     {"modelId", "promptTokens", "completionTokens", "finishReason"},
	"agent_run":            {"agentId"},
	"workflow_step":        {"stepId", "status", "output"},
	"workflow_run":         {"workflowId", "status"},
	"workflow_conditional": {"conditionCount", "selectedSteps"},
	"workflow_parallel":    {"branchCount", "parallelSteps"},
	"workflow_loop":        {"loopType", "totalIterations"},
	"workflow_sleep":       {"sleepDurationMs", "sleepType"},
	"workflow_wait_event":  {"eventName", "eventReceived"},
	"processor_run":        {"processorId"},
}

// parseMastraStaticSteps resolves the expectedTrajectory constructor option
// as the given version does: 1.10.2 uses a list as is (even empty) and
// converts a trajectory {steps}; 1.2.0 uses a non-empty list whose first
// element has no "steps" key, converts a trajectory, and otherwise treats
// the option as unset.
func parseMastraStaticSteps(raw any, version string) ([]mastraExpectedStep, error) {
	switch t := raw.(type) {
	case []any:
		if version == MastraVersion120 {
			if len(t) == 0 {
				return nil, nil
			}
			if first, ok := t[0].(map[string]any); ok {
				if _, has := first["steps"]; has {
					return nil, nil
				}
			}
		}
		steps, err := parseMastraStepList(t, "expected_trajectory")
		if steps == nil && err == nil {
			steps = []mastraExpectedStep{}
		}
		return steps, err
	case map[string]any:
		for k := range t {
			if k != "steps" && k != "total_duration_ms" {
				return nil, fmt.Errorf("unknown key %q in a trajectory, expected \"steps\" or \"total_duration_ms\"", k)
			}
		}
		list, ok := t["steps"].([]any)
		if !ok {
			if version == MastraVersion120 {
				return nil, nil
			}
			if t["steps"] == nil {
				return nil, errors.New("TypeError: Cannot read properties of undefined (reading 'map'): a trajectory needs steps")
			}
			return nil, fmt.Errorf("steps: expects a list, got %s", toolcall.DescribeOperand(t["steps"]))
		}
		steps, err := parseMastraStepList(list, "expected_trajectory.steps")
		if steps == nil && err == nil {
			steps = []mastraExpectedStep{}
		}
		return steps, err
	}
	return nil, fmt.Errorf("expects a list of steps or a trajectory {steps: [...]}, got %s", toolcall.DescribeOperand(raw))
}

func parseMastraStepList(list []any, path string) ([]mastraExpectedStep, error) {
	out := make([]mastraExpectedStep, 0, len(list))
	var errs []error
	for i, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			errs = append(errs, fmt.Errorf("%s[%d]: expects a step map, got %s", path, i, toolcall.DescribeOperand(x)))
			continue
		}
		st, err := parseMastraStep(m, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, st)
	}
	return out, errors.Join(errs...)
}

func parseMastraStep(m map[string]any, path string) (mastraExpectedStep, error) {
	var st mastraExpectedStep
	var errs []error
	name, ok := m["name"].(string)
	if !ok {
		errs = append(errs, fmt.Errorf("%s.name: expects a string, got %s", path, toolcall.DescribeOperand(m["name"])))
	}
	st.name = name
	if x, has := m["step_type"]; has && x != nil {
		s, ok := x.(string)
		if !ok {
			errs = append(errs, fmt.Errorf("%s.step_type: expects a string, got %s", path, toolcall.DescribeOperand(x)))
		}
		st.stepType = s
	}
	keys := sortedKeys(m)
	for _, k := range keys {
		field, known := mastraStepKeys[k]
		if !known {
			errs = append(errs, fmt.Errorf("%s: unknown key %q, expected one of %s", path, k, toolcall.QuoteJoin(sortedKeys(mastraStepKeysAny()))))
			continue
		}
		if field == "" {
			continue
		}
		if m[k] == nil {
			// null is a value Mastra compares (only undefined skips);
			// configuration nulls are kept as JSON null.
			st.data = append(st.data, mastraField{name: field, v: jsonv.Null()})
			continue
		}
		v, err := jsonv.ValueOf(m[k])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s.%s: %w", path, k, err))
			continue
		}
		st.data = append(st.data, mastraField{name: field, v: v})
	}
	if x, has := m["children"]; has && x != nil {
		switch c := x.(type) {
		case map[string]any:
			exp, err := parseMastraExpectation(c, path+".children")
			if err != nil {
				errs = append(errs, err)
			} else {
				st.children = exp
			}
		case []any:
			// A list (a TrajectoryStep's children) where an ExpectedStep
			// has a TrajectoryExpectation: evaluateNestedExpectations
			// takes any array, even an empty one, as the children config
			// and reads none of its fields from it (an array has no
			// steps, budgets or blacklist), so the listed steps are never
			// compared. (trajectoryStepToExpectedStep turns a non-empty
			// list into {steps}, but only for the accuracy scorer's
			// trajectory option, which never evaluates children.)
			st.children = &mastraExpectation{}
		default:
			errs = append(errs, fmt.Errorf("%s.children: expects an expectation map or a list of steps, got %s", path, toolcall.DescribeOperand(x)))
		}
	}
	return st, errors.Join(errs...)
}

func mastraStepKeysAny() map[string]any {
	out := make(map[string]any, len(mastraStepKeys))
	for k := range mastraStepKeys {
		out[k] = nil
	}
	return out
}

// parseMastraExpectation parses a TrajectoryExpectation written with
// snake_case keys.
func parseMastraExpectation(m map[string]any, path string) (*mastraExpectation, error) {
	r := toolcall.NewOptionReader(path, m)
	e := &mastraExpectation{}
	var errs []error
	if x, ok := r.Raw("steps"); ok {
		list, isList := x.([]any)
		if !isList {
			r.Fail("steps", "expects a list of steps, got %s", toolcall.DescribeOperand(x))
		} else {
			steps, err := parseMastraStepList(list, path+".steps")
			if err != nil {
				errs = append(errs, err)
			}
			if steps == nil {
				steps = []mastraExpectedStep{}
			}
			e.steps = mastraStepsOpt{set: true, v: steps}
		}
	}
	e.ordering = r.String("ordering", "")
	e.allowRepeated = optBoolOf(r, "allow_repeated_steps")
	e.maxSteps = optNumOf(r, "max_steps")
	e.maxTotalTokens = optNumOf(r, "max_total_tokens")
	e.maxTotalDurationMs = optNumOf(r, "max_total_duration_ms")
	e.noRedundantCalls = optBoolOf(r, "no_redundant_calls")
	if _, ok := r.Opts["blacklisted_tools"]; ok && r.Opts["blacklisted_tools"] != nil {
		e.blacklistedTools = mastraStringsOpt{set: true, v: StringsOrEmpty(r.Strings("blacklisted_tools"))}
	} else {
		r.Known = append(r.Known, "blacklisted_tools")
	}
	if x, ok := r.Raw("blacklisted_sequences"); ok {
		seqs, err := parseSequences(x)
		if err != nil {
			r.Fail("blacklisted_sequences", "%v", err)
		} else {
			e.blacklistedSequences = mastraSeqsOpt{set: true, v: seqs}
		}
	}
	e.maxRetriesPerTool = optNumOf(r, "max_retries_per_tool")
	if err := r.Err(); err != nil {
		errs = append(errs, err)
	}
	return e, errors.Join(errs...)
}

func parseSequences(x any) ([][]string, error) {
	list, ok := x.([]any)
	if !ok {
		if ss, isSS := x.([][]string); isSS {
			return ss, nil
		}
		return nil, fmt.Errorf("expects a list of lists of tool names, got %s", toolcall.DescribeOperand(x))
	}
	out := make([][]string, 0, len(list))
	for i, s := range list {
		var seq []string
		switch t := s.(type) {
		case []string:
			seq = t
		case []any:
			for j, n := range t {
				name, isStr := n.(string)
				if !isStr {
					return nil, fmt.Errorf("[%d][%d]: expects a tool name, got %s", i, j, toolcall.DescribeOperand(n))
				}
				seq = append(seq, name)
			}
		default:
			return nil, fmt.Errorf("[%d]: expects a list of tool names, got %s", i, toolcall.DescribeOperand(s))
		}
		if seq == nil {
			seq = []string{}
		}
		out = append(out, seq)
	}
	return out, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// mastraStepsFromExpectation maps expected calls onto Mastra expected steps.
func mastraStepsFromExpectation(calls []toolcall.ExpectedCall) []mastraExpectedStep {
	out := make([]mastraExpectedStep, 0, len(calls))
	// The steps' data share one slice, each step's capped at its most.
	mostData := func(c *toolcall.ExpectedCall) int {
		n := len(c.Fields)
		if c.Args.Kind() != jsonv.KindUndefined {
			n++
		}
		if c.Result.Kind() != jsonv.KindUndefined {
			n++
		}
		if c.MustSucceed {
			n++
		}
		return n
	}
	most := 0
	for i := range calls {
		most += mostData(&calls[i])
	}
	slab := make([]mastraField, 0, most)
	for i := range calls {
		c := &calls[i]
		if c.StepType == StepMessage {
			continue
		}
		st := mastraExpectedStep{name: c.Name, stepType: c.StepType}
		n := len(slab)
		st.data = slab[n:n:min(n+mostData(c), cap(slab))]
		switch {
		case st.stepType != "":
		case toolcall.NormalizeType(c.Type) == "mcp":
			st.stepType = toolcall.StepMCPToolCall
		default:
			st.stepType = toolcall.StepToolCall
		}
		if c.Args.Kind() != jsonv.KindUndefined {
			st.data = append(st.data, mastraField{name: "toolArgs", v: c.Args})
		}
		if c.Result.Kind() != jsonv.KindUndefined {
			st.data = append(st.data, mastraField{name: "toolResult", v: c.Result})
		}
		if c.MustSucceed {
			st.data = append(st.data, mastraField{name: "success", v: jsonv.Bool(true)})
		}
		for _, k := range sortedValueKeys(c.Fields) {
			if k == "toolArgs" || k == "toolResult" || (k == "success" && c.MustSucceed) {
				continue
			}
			st.data = append(st.data, mastraField{name: k, v: c.Fields[k]})
		}
		if len(st.data) == 0 {
			st.data = nil
		}
		slab = slab[:n+len(st.data)]
		out = append(out, st)
	}
	return out
}

func sortedValueKeys(m map[string]jsonv.Value) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func mastraExpectedNames(steps []mastraExpectedStep) []string {
	out := make([]string, len(steps))
	for i := range steps {
		out[i] = steps[i].name
	}
	return out
}

// mastraSteps drops message steps, which Mastra trajectories do not have.
// Not inlined: appending a Call copies it through a temporary in the frame
// (see toolExpectations).
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func mastraSteps(calls []toolcall.Call) []toolcall.Call {
	for i := range calls {
		if calls[i].StepType == StepMessage {
			out := make([]toolcall.Call, 0, len(calls))
			for j := range calls {
				if calls[j].StepType != StepMessage {
					out = append(out, calls[j])
				}
			}
			return out
		}
	}
	return calls
}

// mastraStepType is an actual step's stepType.
func mastraStepType(c *toolcall.Call) string {
	if c.StepType == "" {
		return toolcall.StepToolCall
	}
	return c.StepType
}

// mastraActualField reads an actual step's field by Mastra name; known is
// false when the field is toolArgs and the arguments were not recorded.
func mastraActualField(c *toolcall.Call, name string) (v jsonv.Value, known bool) {
	switch name {
	case "toolArgs":
		if c.ArgsUnknown {
			return jsonv.Value{}, false
		}
		if c.Args.Kind() != jsonv.KindUndefined {
			return c.Args, true
		}
	case "toolResult":
		if c.Result.Kind() != jsonv.KindUndefined {
			return c.Result, true
		}
	case "success":
		switch c.Status {
		case toolcall.StatusOK:
			return jsonv.Bool(true), true
		case toolcall.StatusError, toolcall.StatusRefused, toolcall.StatusUnknownTool:
			return jsonv.Bool(false), true
		}
	}
	if v, ok := c.Fields[name]; ok {
		return v, true
	}
	return jsonv.Value{}, true
}

// errMastraArgs marks a comparison that needed unknown arguments.
type errMastraArgs struct {
	name string
	pos  int
}

func (e *errMastraArgs) Error() string {
	return fmt.Sprintf("arguments unavailable for step %d (%s); Mastra compares toolArgs in this configuration", e.pos+1, e.name)
}

// mastraStepMatches is expectedStepMatches.
func mastraStepMatches(a *toolcall.Call, pos int, e *mastraExpectedStep) (bool, error) {
	if a.Name != e.name {
		return false, nil
	}
	if e.stepType == "" {
		return true, nil
	}
	if mastraStepType(a) != e.stepType {
		return false, nil
	}
	for _, f := range mastraComparableFieldsOf(e.stepType) {
		ef := e.fieldRef(f)
		if ef == nil || ef.v.Kind() == jsonv.KindUndefined {
			continue
		}
		// The arguments, nearly always the field compared, are read in
		// place rather than copied.
		av := &a.Args
		if f != "toolArgs" || a.ArgsUnknown || av.Kind() == jsonv.KindUndefined {
			v, known := mastraActualField(a, f)
			if !known {
				return false, &errMastraArgs{name: a.Name, pos: pos}
			}
			av = &v
		}
		if av.Kind() == jsonv.KindUndefined {
			return false, nil
		}
		if ef.plain && !stringifyEqualPlain(av, &ef.v) || !ef.plain && !stringifyEqual(av, &ef.v) {
			return false, nil
		}
	}
	return true, nil
}

// mastraComparableFieldsOf returns mastraComparableFields[stepType]. Tool
// calls, nearly every step, are told apart by one string comparison
// rather than a map lookup, which costs several times as much.
func mastraComparableFieldsOf(stepType string) []string {
	if stepType == toolcall.StepToolCall {
		return mastraToolCallFields
	}
	return mastraComparableFields[stepType]
}

// mastraComparison is TrajectoryComparisonResult.
type mastraComparison struct {
	score          float64
	matched        int
	totalExpected  int
	totalActual    int
	missing        []string
	extra          []string
	outOfOrder     []string
	repeated       []string
	pairs          []toolcall.Pair
	expectedLength int
	// stepNames, when compare is asked for them, holds the actual then the
	// expected step names, in the allocation of the lists above.
	stepNames []string
}

func (c *mastraComparison) details() map[string]any { return c.detailsSized(0) }

// detailsSized is details in a map with room for extra more entries, so
// adding them does not grow it.
func (c *mastraComparison) detailsSized(extra int) map[string]any {
	d := make(map[string]any, 8+extra)
	d["score"] = mastraScoreValue(c.score)
	d["matchedSteps"] = c.matched
	d["totalExpectedSteps"] = c.totalExpected
	d["totalActualSteps"] = c.totalActual
	d["missingSteps"] = boxNames(c.missing)
	d["extraSteps"] = mastraNameList(c.extra)
	d["outOfOrderSteps"] = boxNames(c.outOfOrder)
	d["repeatedSteps"] = mastraNameList(c.repeated)
	return d
}

// mastraScoreValues holds the scores compareTrajectories can give (it
// rounds to hundredths) as interface values, so that a comparison's
// details need not box its score.
var mastraScoreValues = func() (v [101]any) {
	for k := range v {
		v[k] = float64(k) / 100
	}
	return v
}()

// mastraScoreValue returns x as an interface value, from mastraScoreValues
// when it holds exactly x.
func mastraScoreValue(x float64) any {
	if k := int(x*100 + 0.5); k >= 0 && k < len(mastraScoreValues) && math.Float64bits(float64(k)/100) == math.Float64bits(x) {
		return mastraScoreValues[k]
	}
	return x
}

// mastraNameList is a list of actual step names for Details: a nameless
// step (Name "") is nil there, as JSON.stringify writes Mastra's undefined
// name (null); a list without nameless steps stays a []string.
func mastraNameList(names []string) any {
	for _, n := range names {
		if n == "" {
			out := make([]any, len(names))
			for i, n := range names {
				if n != "" {
					out[i] = n
				}
			}
			return out
		}
	}
	return boxNames(names)
}

// noNames is an empty name list ([]string{}) as an interface value. An
// empty list has no element a caller could change, so details share this
// one rather than box a list of their own: boxing a slice allocates.
var noNames any = []string{}

// boxNames returns names as an interface value, an empty []string (never
// nil) when there are none.
func boxNames(names []string) any {
	if len(names) == 0 {
		return noNames
	}
	return names
}

// breakdownInto writes to b the pairs, the expected steps no pair took
// (Missing) and the actual steps no pair took (Unexpected), the two lists
// in one allocation. A step is in at most one pair (compare pairs each expected
// and each actual step once at most), so the lists' lengths are known from
// the number of pairs and each is filled in one pass.
func (c *mastraComparison) breakdownInto(b *toolcall.Breakdown, nActual int) {
	*b = toolcall.Breakdown{}
	b.Pairs, b.OrderScore = c.pairs, toolcall.OrderScore(c.pairs)
	missing, unexpected := c.totalExpected-len(c.pairs), nActual-len(c.pairs)
	if missing+unexpected == 0 {
		return
	}
	var buf [128]bool
	var used []bool
	if n := c.totalExpected + nActual; n <= len(buf) {
		used = buf[:n]
	} else {
		used = make([]bool, n)
	}
	usedE, usedA := used[:c.totalExpected], used[c.totalExpected:]
	for _, p := range c.pairs {
		usedE[p.Expected] = true
		usedA[p.Actual] = true
	}
	ints := make([]int, missing+unexpected)
	k := 0
	for i, u := range usedE {
		if !u {
			ints[k] = i
			k++
		}
	}
	for j, u := range usedA {
		if !u {
			ints[k] = j
			k++
		}
	}
	if missing > 0 {
		b.Missing = ints[:missing:missing]
	}
	if unexpected > 0 {
		b.Unexpected = ints[missing:]
	}
}

// explain writes the comparison's explanation into a stack buffer, so the
// string is its only allocation (unless it is long).
func (c *mastraComparison) explain(ordering string) string {
	if ordering == "" {
		ordering = "relaxed"
	}
	var buf [256]byte
	t := toolcall.AppendScore(buf[:0], c.score)
	t = append(t, ": "...)
	t = strconv.AppendInt(t, int64(c.matched), 10)
	t = append(t, '/')
	t = strconv.AppendInt(t, int64(c.totalExpected), 10)
	t = append(t, " expected steps matched ("...)
	t = append(t, ordering...)
	t = append(t, " ordering)"...)
	t = appendMastraNames(t, "; missing: ", c.missing)
	t = appendMastraNames(t, "; extra: ", c.extra)
	t = appendMastraNames(t, "; out of order: ", c.outOfOrder)
	t = appendMastraNames(t, "; repeated: ", c.repeated)
	return string(t)
}

// appendMastraNames is appendJoinedNames with the label written out
// ("; label: "): one append for it, and the separators stored as bytes.
func appendMastraNames(t []byte, label string, names []string) []byte {
	if len(names) == 0 {
		return t
	}
	t = append(t, label...)
	t = append(t, names[0]...)
	for _, name := range names[1:min(len(names), toolcall.MaxNamesShown)] {
		t = append(t, ',', ' ')
		t = append(t, name...)
	}
	return toolcall.AppendMore(t, len(names))
}

// compareTrajectories is Mastra's compareTrajectories.
func compareTrajectories(actual []toolcall.Call, expected []mastraExpectedStep, ordering string, allowRepeated bool) (*mastraComparison, error) {
	c := new(mastraComparison)
	// The names are indexed here rather than in compare, whose frame is
	// large (see ScoreInto).
	var names *mastraStepNames
	if len(expected) > 0 {
		names = newMastraStepNames(expected)
	}
	if err := c.compare(actual, expected, names, ordering, allowRepeated, false); err != nil {
		return nil, err
	}
	return c, nil
}

// mastraStepNames indexes expected steps' names, so that a comparison
// compares names as integers: table holds the distinct names and id[i] is
// expected step i's index in it.
type mastraStepNames struct {
	table toolcall.NameTable
	id    []int
}

// newMastraStepNames indexes the names of steps.
func newMastraStepNames(steps []mastraExpectedStep) *mastraStepNames {
	if len(steps) > 64 {
		return newMastraStepNamesIndexed(steps)
	}
	n := &mastraStepNames{id: make([]int, len(steps))}
	distinct := make([]string, 0, len(steps))
	for i := range steps {
		name := steps[i].name
		k := slices.Index(distinct, name)
		if k < 0 {
			k = len(distinct)
			distinct = append(distinct, name)
		}
		n.id[i] = k
	}
	n.table = toolcall.NewNameTable(distinct)
	return n
}

// newMastraStepNamesIndexed is newMastraStepNames for many steps, with a map of
// the names seen. (Apart: the map would be made in the frame, which is on
// the way down to the comparison: see ScoreInto.)
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func newMastraStepNamesIndexed(steps []mastraExpectedStep) *mastraStepNames {
	n := &mastraStepNames{id: make([]int, len(steps))}
	distinct := make([]string, 0, len(steps))
	seen := make(map[string]int, len(steps))
	for i := range steps {
		name := steps[i].name
		k, ok := seen[name]
		if !ok {
			k = len(distinct)
			distinct = append(distinct, name)
			seen[name] = k
		}
		n.id[i] = k
	}
	n.table = toolcall.NewNameTable(distinct)
	return n
}

// mastraScratch is compare's working memory, pooled: the step lists are
// gathered here as step references and then written out as names into one
// allocation.
type mastraScratch struct {
	// lists hold step references: j >= 0 is actual step j, -1-i expected
	// step i.
	lists    [mastraNumLists][]int
	pairs    []int // expected, actual, expected, actual, ...
	matchedE []bool
	used     []bool
	// actualID is each actual step's name id (see compare); count counts
	// the actual steps of each id.
	actualID []int
	count    []int
}

// The name lists compare gathers, in mastraScratch.lists.
const (
	mastraMissing = iota
	mastraExtra
	mastraOutOfOrder
	mastraRepeated
	mastraNumLists
)

var mastraPool = sync.Pool{New: func() any { return new(mastraScratch) }}

// maxPooledMastra bounds the lists a pooled mastraScratch keeps.
const maxPooledMastra = 4 * toolcall.MaxCalls

// compare fills c with Mastra's comparison of actual with expected. names
// indexes expected's names (newMastraStepNames; its callers index them, as
// compare's frame is large: see ScoreInto); it is not read when expected is
// empty.
//
// Names are compared by id: an expected name's id is its index among the
// distinct expected names (names.table); an actual name no expected step
// has gets the number of distinct names plus the index of the first
// actual step with that name. Two steps have the same name exactly when
// they have the same id.
func (c *mastraComparison) compare(actual []toolcall.Call, expected []mastraExpectedStep, names *mastraStepNames, ordering string, allowRepeated, withNames bool) error {
	*c = mastraComparison{totalExpected: len(expected), totalActual: len(actual)}
	if len(expected) == 0 {
		if len(actual) == 0 {
			c.score = 1
		}
		c.extra = make([]string, len(actual))
		for i := range actual {
			c.extra[i] = actual[i].Name
		}
		if withNames {
			c.stepNames = mastraStepNameList(actual, expected, make([]string, len(actual)))
		}
		return nil
	}
	sc := mastraPool.Get().(*mastraScratch)
	defer mastraPool.Put(sc)
	lists := &sc.lists
	for k := range lists {
		lists[k] = lists[k][:0]
	}
	pairs := sc.pairs[:0]
	expectedID := names.id
	nd := len(names.table.Names)
	actualID := toolcall.GrowInts(sc.actualID, len(actual))
	sc.actualID = actualID
	for j := range actual {
		id := names.table.Lookup(actual[j].Name)
		if id < 0 {
			id = nd + j
			for k := 0; k < j; k++ {
				if actualID[k] >= nd && actual[k].Name == actual[j].Name {
					id = actualID[k]
					break
				}
			}
		}
		actualID[j] = id
	}
	count := toolcall.GrowInts(sc.count, nd+len(actual))
	sc.count = count
	clear(count)
	for _, id := range actualID {
		count[id]++
	}
	matchedE := toolcall.GrowBools(sc.matchedE, len(expected))
	sc.matchedE = matchedE
	switch ordering {
	case "strict":
		n := max(len(actual), len(expected))
		for i := 0; i < n; i++ {
			switch {
			case i < len(actual) && i < len(expected) && actualID[i] == expectedID[i]:
				ok, err := mastraStepMatches(&actual[i], i, &expected[i])
				if err != nil {
					return err
				}
				if ok {
					c.matched++
					matchedE[i] = true
					pairs = append(pairs, i, i)
				}
			case i >= len(expected) && actual[i].Name == "":
				// A nameless step past the end: undefined === undefined,
				// and with no expected step to compare it counts as
				// matched (matchedSteps may exceed the expected steps).
				c.matched++
			case i < len(actual) && actual[i].Name != "" && actualID[i] < nd:
				lists[mastraOutOfOrder] = append(lists[mastraOutOfOrder], i)
			}
		}
	case "unordered":
		used := toolcall.GrowBools(sc.used, len(actual))
		sc.used = used
		for i := range expected {
			for j := range actual {
				if used[j] || actualID[j] != expectedID[i] {
					continue
				}
				ok, err := mastraStepMatches(&actual[j], j, &expected[i])
				if err != nil {
					return err
				}
				if ok {
					c.matched++
					matchedE[i] = true
					used[j] = true
					pairs = append(pairs, i, j)
					break
				}
			}
		}
	default: // relaxed
		last := -1
		for i := range expected {
			found := false
			for j := last + 1; j < len(actual); j++ {
				if actualID[j] != expectedID[i] {
					continue
				}
				ok, err := mastraStepMatches(&actual[j], j, &expected[i])
				if err != nil {
					return err
				}
				if ok {
					c.matched++
					last = j
					matchedE[i] = true
					found = true
					pairs = append(pairs, i, j)
					break
				}
			}
			if !found && count[expectedID[i]] > 0 {
				lists[mastraOutOfOrder] = append(lists[mastraOutOfOrder], -1-i)
			}
		}
	}
	sc.pairs = pairs
	for i := range expected {
		if !matchedE[i] {
			lists[mastraMissing] = append(lists[mastraMissing], -1-i)
		}
	}
	for j, id := range actualID {
		if id >= nd {
			lists[mastraExtra] = append(lists[mastraExtra], j)
		}
		// repeatedSteps: names occurring more than once, by first
		// occurrence (the count is negated once reported).
		if count[id] > 1 {
			lists[mastraRepeated] = append(lists[mastraRepeated], j)
			count[id] = -count[id]
		}
	}
	repeated := len(lists[mastraRepeated])
	score := float64(c.matched) / float64(len(expected))
	if ordering == "strict" && len(actual) > len(expected) {
		penalty := float64(len(actual)-len(expected)) / float64(len(expected))
		score = max(0, score-penalty*0.5)
	}
	if !allowRepeated && repeated > 0 {
		score = max(0, score-float64(repeated)*0.1)
	}
	c.score = MastraRound2(max(0, min(1, score)))

	// Write the lists out as names in one allocation (each capped at its
	// length, so appending to one never writes into another), followed by
	// the step names when asked for; the pairs into another.
	total := 0
	for k := range lists {
		total += len(lists[k])
	}
	size := total
	if withNames {
		size += len(actual) + len(expected)
	}
	all := make([]string, size)
	if withNames {
		c.stepNames = mastraStepNameList(actual, expected, all[total:])
	}
	take := func(refs []int) []string {
		if len(refs) == 0 {
			return nil
		}
		out := all[:len(refs):len(refs)]
		all = all[len(refs):]
		for k, ref := range refs {
			if ref >= 0 {
				out[k] = actual[ref].Name
			} else {
				out[k] = expected[-1-ref].name
			}
		}
		return out
	}
	c.missing = take(lists[mastraMissing])
	c.extra = take(lists[mastraExtra])
	c.outOfOrder = take(lists[mastraOutOfOrder])
	c.repeated = take(lists[mastraRepeated])
	if len(pairs) > 0 {
		c.pairs = make([]toolcall.Pair, len(pairs)/2)
		for k := range c.pairs {
			// Fresh zeroed pairs: set the scalar fields (assigning whole
			// structs would zero each slot under a write barrier first).
			p := &c.pairs[k]
			p.Expected, p.Actual, p.Score = int32(pairs[2*k]), int32(pairs[2*k+1]), 1
		}
	}
	for k := range lists {
		if cap(lists[k]) > maxPooledMastra {
			lists[k] = nil
		}
	}
	return nil
}
