package peers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// DeepEvalName is the registered name of the DeepEval profile
// (ToolCorrectnessMetric), documented on the deepeval type in deepeval.go.
const DeepEvalName = "deepeval"

// DeepEvalLLMName is the registered name of DeepEval's ToolCorrectnessMetric
// with its LLM tool-selection judge (internal/judges), which the
// deterministic profile's errors point to.
const DeepEvalLLMName = "deepeval_llm"

func init() { toolcall.Register(DeepEvalName, NewDeepEval) }

// deepEvalDefaultThreshold is ToolCorrectnessMetric's threshold default
// (tool_correctness.py, __init__: threshold: Optional[float] = 0.5).
const deepEvalDefaultThreshold = 0.5

// Deepeval reproduces the deterministic part of DeepEval's
// ToolCorrectnessMetric (deepeval/metrics/tool_correctness/tool_correctness.py
// at git a2e0d4cf, 4.1.10).
//
// Options (the peer's own):
//
//	threshold                 DeepEval's pass threshold (default 0.5; DeepEval's own default)
//	should_exact_match        bool (takes precedence over ordering)
//	should_consider_ordering  bool
//	strict_mode               bool: threshold becomes 1 and any score below 1 becomes 0
//	evaluation_params         list of "input_parameters" and/or "output" (default []; case-insensitive,
//	                          "ToolCallParams.INPUT_PARAMETERS" also accepted)
//	include_reason, async_mode, verbose_mode, model, evaluation_template  accepted and ignored
//	                          (they do not change the deterministic score; model and the
//	                          template only serve the LLM)
//
// A non-empty available_tools is rejected: it enables DeepEval's LLM
// tool-selection judge, which this library does not run (an empty list is
// falsy in Python and changes nothing). A None tools_called or
// expected_tools list is DeepEval's MissingTestCaseParamsError; Score always
// has lists, ScoreTestCase takes the None flags.
//
// Algorithm (a call matches by name AND type; type defaults to FUNCTION):
//
//	exact:    lengths differ -> 0; both empty -> 1; position by position: name, type, and with
//	          input_parameters the dicts, with output the outputs must be == (Python); else 0 -> 1
//	ordering: weighted LCS over (expected, called), cell gain = 1 * compare_dicts (input_parameters)
//	          * (output equal); the score is the sum of dp differences along the backtrack (up, then
//	          left, then diagonal) divided by len(expected); both empty -> 1; expected empty -> 0
//	default:  for each expected call, the best-scoring called call not "already used" (strict >, so
//	          the first wins ties) adds its score; score = total / len(expected); extra calls are free
//	compare_dicts(expected, called): == -> 1; else sum over shared keys of 1/|union| when equal, or
//	          compare_dicts/|union| when both values are dicts (partial credit; lists only count when ==)
//	strict_mode: score < 1 -> 0. success = score >= threshold; with
//	threshold None (and no strict_mode, which makes it 1) success is None.
//
// Pass or fail: DeepEval's success (score >= threshold, is_successful in
// base_metric.py) when the rule sets no threshold, so a team keeps the
// verdict it tracks; a rule's own threshold decides otherwise, and also
// when DeepEval's threshold is None.
//
// Quirks reproduced (each has a test case):
//
//   - The used-set tests membership by ToolCall equality (name, arguments,
//     output; NOT type), so identical duplicates collapse: expected [a,a]
//     vs called [a,a] scores 0.5, and a FUNCTION/MCP twin with the same
//     arguments is skipped. Arguments matter to the used-set even when
//     input_parameters is not evaluated.
//   - Greedy: an earlier expected call can take the call a later one needed
//     (0.25 where 1.0 is possible).
//   - An extra key halves the parameter score ({a:1} vs {a:1,b:2} -> 0.5).
//   - The docs' ordering example [W,T,W] vs [W,W,T] gives 2/3, not 1.
//   - Python ==: 1 == 1.0 == True; "5" != 5; key order is irrelevant.
//   - input_parameters None (no arguments) against a dict with
//     input_parameters evaluated crashes DeepEval in the default and ordering
//     modes (AttributeError: 'NoneType' object has no attribute 'keys'): an
//     error result here. Exact mode just scores 0.
//   - No rounding anywhere.
//
// Expectation mapping: expected calls become expected_tools (name; Type
// "" or "function" -> FUNCTION, "mcp" -> MCP, others rejected; Args ->
// input_parameters, absent or null -> None; Result -> output). Actual calls:
// Type "mcp" (any case) -> MCP, anything else FUNCTION; Args ->
// input_parameters (absent or null -> None; a non-object is a DeepEval
// validation error); Result -> output. Order exact maps to
// should_exact_match and in_order to should_consider_ordering unless either
// option is given. Arguments are compared only with evaluation_params
// [input_parameters], as in DeepEval. Matchers, optional calls,
// must_succeed and forbidden tools are rejected. Calls with unknown
// arguments make the result an error when input_parameters is evaluated, or
// when the used-set must compare their arguments (two calls to the same
// tool).
//
// Reference vs source notes (the notes win): the ordering score is the sum
// of dp differences along the backtrack, not dp[m][n] (they differ in the
// last bits); compare_dicts adds 1/|union| once per matching key; its
// should_exact_match branch is dead code (the reference lists it); the
// used-set compares name, arguments and output but not type, so
// FUNCTION/MCP twins collapse and arguments matter even when not evaluated;
// None input_parameters crash only when exactly one side is None, never in
// exact mode; no rounding. compare_dicts iterates keys in Python's
// hash-seed-dependent set order; we use the written order (same sum up to
// the last bit).
//
// Reason: DeepEval's _generate_reason text, the explanation after the
// score, and (wrapped as DeepEval's final reason) Details["reason"]. The
// unordered form lists the missing expected ToolCalls as DeepEval prints
// them (ToolCall.__repr__: name, type, input_parameters and output as
// indented JSON), one per group of equal ToolCalls; the ordered form lists
// missing and out-of-order tool names. Lists built from Python sets are
// in expected order here, in a hash-seed dependent order in DeepEval.
//
// DeepEval's LLMTestCase requires input, a string (pydantic rejects None;
// "" is accepted), and the deterministic score never reads it: the profile
// scores a run whether or not its request was recorded, as DeepEval scores
// a test case whose input is "" (traces often leave the request out, with
// content capture off). deepeval_llm, whose judge reads the request,
// returns an error without one.
//
// Details: success, reason (DeepEval's final reason text), threshold.
type Deepeval struct {
	exact, ordering, Strict bool
	inputParams, output     bool
	// Threshold is DeepEval's (its success, and strict_mode's zeroing);
	// Pass decides the result's outcome (see toolcall.Settings.PassThreshold).
	Threshold, Pass float64
	// noThreshold: threshold given as None, so DeepEval's success is None.
	NoThreshold bool
	// omitDetails: Settings.OmitDetails.
	omitDetails bool
	expected    []deCall
	expIdx      []int
}

// deCall is a DeepEval ToolCall.
type deCall struct {
	name    string
	mcp     bool
	params  jsonv.Value // null or undefined: None
	output  jsonv.Value
	unknown bool
	pos     int
}

var _ toolcall.Scorer = (*Deepeval)(nil)

func NewDeepEval(s toolcall.Settings) (toolcall.Scorer, error) {
	r := toolcall.NewOptionReader(DeepEvalName, s.Options)
	d := &Deepeval{omitDetails: s.OmitDetails}
	d.Threshold = r.Float("threshold", deepEvalDefaultThreshold, 0, 1)
	if v, given := r.Opts["threshold"]; given && v == nil {
		d.NoThreshold = true
	}
	_, hasExact := r.Opts["should_exact_match"]
	_, hasOrdering := r.Opts["should_consider_ordering"]
	d.exact = r.Bool("should_exact_match", false)
	d.ordering = r.Bool("should_consider_ordering", false)
	d.Strict = r.Bool("strict_mode", false)
	r.Bool("include_reason", true)
	r.Bool("async_mode", true)
	r.Bool("verbose_mode", false)
	r.String("model", "")
	for _, p := range r.Strings("evaluation_params") {
		switch strings.ToLower(strings.TrimPrefix(p, "ToolCallParams.")) {
		case "input_parameters":
			d.inputParams = true
		case "output":
			d.output = true
		default:
			r.Fail("evaluation_params", "invalid value %q, expected \"input_parameters\" or \"output\"", p)
		}
	}
	// evaluation_template only shapes the LLM-written reason.
	r.Raw("evaluation_template")
	if x, ok := r.Raw("available_tools"); ok && !toolcall.IsEmptyList(x) {
		// DeepEval skips the judge when the list is empty (falsy).
		r.Fail("available_tools", "needs DeepEval's LLM tool-selection judge: use the %s scorer, or remove it to score tool correctness deterministically", DeepEvalLLMName)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if d.Strict {
		d.Threshold = 1
		d.NoThreshold = false
	}
	d.Pass = s.PassThreshold(d.Threshold)
	if d.NoThreshold {
		d.Pass = s.Threshold
	}
	e := s.Expectation
	if err := CheckPeerExpectation(DeepEvalName, e, PeerFeatures{}); err != nil {
		return nil, err
	}
	if !hasExact && !hasOrdering {
		switch e.Order {
		case toolcall.OrderExact:
			d.exact = true
		case toolcall.OrderInOrder:
			d.ordering = true
		}
	}
	calls, idx := toolExpectations(e.Calls)
	d.expIdx = idx
	var errs []error
	for i := range calls {
		c := &calls[i]
		dc := deCall{name: c.Name, params: c.Args, output: c.Result, pos: i}
		switch {
		case c.Type == "" || strings.EqualFold(c.Type, "function"):
		case strings.EqualFold(c.Type, "mcp"):
			dc.mcp = true
		default:
			errs = append(errs, fmt.Errorf("deepeval: calls[%d] (%s): type %q: DeepEval knows FUNCTION and MCP", mapIndex(idx, i), c.Name, c.Type))
		}
		if k := c.Args.Kind(); k > jsonv.KindNull && k != jsonv.KindObject {
			errs = append(errs, fmt.Errorf("deepeval: calls[%d] (%s): input_parameters must be a dict, got %s", mapIndex(idx, i), c.Name, k))
		}
		d.expected = append(d.expected, dc)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Deepeval) Name() string { return DeepEvalName }

// ReadsResults reports that the profile reads tool results (ToolCall.output).
func (d *Deepeval) ReadsResults() bool { return true }

func (d *Deepeval) fail(err error) (res toolcall.Result) {
	d.failInto(&res, err)
	return res
}

// ScoreTestCase scores an LLMTestCase whose tools_called or expected_tools
// may be None (calledNone, expectedNone), as DeepEval's
// check_llm_test_case_params does before scoring: a None list is a
// MissingTestCaseParamsError (empty lists are fine). Otherwise it is Score.
func (d *Deepeval) ScoreTestCase(ctx context.Context, calls []toolcall.Call, calledNone, expectedNone bool) toolcall.Result {
	var missing []string
	if calledNone {
		missing = append(missing, "'tools_called'")
	}
	if expectedNone {
		missing = append(missing, "'expected_tools'")
	}
	if len(missing) == 0 {
		return d.Score(ctx, calls)
	}
	return d.fail(fmt.Errorf("%s cannot be None for the 'Tool Correctness' metric (MissingTestCaseParamsError)", strings.Join(missing, " and ")))
}

// Score implements Scorer.
func (d *Deepeval) Score(_ context.Context, calls []toolcall.Call) (res toolcall.Result) {
	d.ScoreWithReason(calls, &res)
	return res
}

// ScoreInto is Score writing its result to res (see ScoreInto).
func (d *Deepeval) ScoreInto(calls []toolcall.Call, _ *toolcall.RunContext, res *toolcall.Result) {
	d.ScoreWithReason(calls, res)
}

// score is Score writing its result to res; it also returns the
// tool-calling reason (DeepEval's _generate_reason), which the LLM-judged
// profile wraps with its own.
func (d *Deepeval) ScoreWithReason(calls []toolcall.Call, res *toolcall.Result) string {
	called, score, lcs, ok := d.compare(calls, res)
	if !ok {
		return ""
	}
	reason := d.reason(called, score, lcs)
	if !d.omitDetails {
		d.addDetails(res, score, reason)
	}
	// DeepEval's success is exactly score >= threshold; decide adds a
	// rounding tolerance, which the outcome keeps.
	res.Decide()
	res.Explanation = toolcall.FormatScore(score) + ": " + reason
	return reason
}

// compare scores the calls against the expected tools and writes the result
// but for its Details, outcome and explanation; ok is false when it wrote
// an error result. (Apart from score, whose frame is on the way down to
// reason's string building: see ScoreInto.)
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (d *Deepeval) compare(calls []toolcall.Call, res *toolcall.Result) (called []deCall, score float64, lcs []int, ok bool) {
	calls = toolcall.WithArguments(calls)
	tools := FlattenToolCalls(calls)
	called = make([]deCall, len(tools))
	for j := range tools {
		t := &tools[j]
		if k := t.Args.Kind(); !t.ArgsUnknown && k > jsonv.KindNull && k != jsonv.KindObject {
			d.notADict(res, j, t.Name, k)
			return nil, 0, nil, false
		}
		// Field by field: a deCall built whole is built in the frame
		// first (see ScoreInto).
		c := &called[j]
		c.name, c.mcp, c.params, c.output, c.unknown, c.pos = t.Name, strings.EqualFold(t.Type, "mcp"), t.Args, t.Result, t.ArgsUnknown, j
		if t.ArgsUnknown && d.inputParams {
			d.unavailable(res, t, j)
			return nil, 0, nil, false
		}
	}
	var pairs []toolcall.Pair
	var err error
	switch {
	case d.exact:
		score, pairs = d.exactScore(called)
	case d.ordering:
		score, pairs, err = d.lcsScore(called)
		for _, p := range pairs {
			lcs = append(lcs, int(p.Expected))
		}
	default:
		score, pairs, err = d.defaultScore(called)
	}
	if err != nil {
		d.failInto(res, err)
		return nil, 0, nil, false
	}
	if d.Strict && score < d.Threshold {
		score = 0
	}
	*res = toolcall.Result{Scorer: DeepEvalName, Threshold: d.Pass, Score: score}
	b := &res.Breakdown
	pe := make([]bool, len(d.expected))
	pc := make([]bool, len(called))
	for i := range pairs {
		pe[pairs[i].Expected] = true
		pc[pairs[i].Actual] = true
		pairs[i].Expected = int32(mapIndex(d.expIdx, int(pairs[i].Expected)))
	}
	b.Pairs = pairs
	b.OrderScore = toolcall.OrderScore(pairs)
	for i, ok := range pe {
		if !ok {
			b.Missing = append(b.Missing, mapIndex(d.expIdx, i))
		}
	}
	for j, ok := range pc {
		if !ok {
			b.Unexpected = append(b.Unexpected, j)
		}
	}
	return called, score, lcs, true
}

// addDetails sets the result's Details (DeepEval's success, threshold and
// reason), in a frame of its own (see ScoreInto).
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (d *Deepeval) addDetails(res *toolcall.Result, score float64, reason string) {
	var success any = score >= d.Threshold
	var threshold any = d.Threshold
	if d.NoThreshold {
		// is_successful: threshold None -> success None.
		success, threshold = nil, nil
	}
	res.Details = map[string]any{
		"success":   success,
		"threshold": threshold,
		"reason":    "[\n\t Tool Calling Reason: " + reason + "\n\t Tool Selection Reason: No available tools were provided to assess tool selection criteria\n]\n",
	}
}

// failInto writes the error result of err; notADict that of call j
// (name), whose arguments are a k and not an object. In frames of their
// own (see ScoreInto).
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (d *Deepeval) failInto(res *toolcall.Result, err error) {
	toolcall.SetError(res, DeepEvalName, d.Pass, prefixError("deepeval: ", err))
}

//go:noinline
func (d *Deepeval) unavailable(res *toolcall.Result, t *toolcall.Call, j int) {
	toolcall.SetError(res, DeepEvalName, d.Pass, argsUnavailable(DeepEvalName, t, j)) // named already
}

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (d *Deepeval) notADict(res *toolcall.Result, j int, name string, k jsonv.Kind) {
	// Without fmt, as argsUnavailable.
	toolcall.SetError(res, DeepEvalName, d.Pass, errors.New("deepeval: call "+strconv.Itoa(j+1)+" ("+name+"): ToolCall input_parameters must be a dict, got "+k.String()+" (pydantic ValidationError)"))
}

func (d *Deepeval) callsMatch(e, c *deCall) bool { return e.name == c.name && e.mcp == c.mcp }

func (d *Deepeval) exactScore(called []deCall) (float64, []toolcall.Pair) {
	if len(called) != len(d.expected) {
		return 0, nil
	}
	if len(d.expected) == 0 {
		return 1, nil
	}
	pairs := make([]toolcall.Pair, 0, len(called))
	for i := range called {
		e, c := &d.expected[i], &called[i]
		if !d.callsMatch(e, c) {
			return 0, nil
		}
		if d.inputParams && !pyEqual(c.params, e.params) {
			return 0, nil
		}
		if d.output && !pyEqual(c.output, e.output) {
			return 0, nil
		}
		pairs = append(pairs, toolcall.Pair{Expected: int32(i), Actual: int32(i), Score: 1})
	}
	return 1, pairs
}

// gain is the cell score of an expected/called pair with matching name and
// type.
func (d *Deepeval) gain(e, c *deCall) (float64, error) {
	s := 1.0
	if d.inputParams {
		cd, err := deCompareDicts(e.params, c.params)
		if err != nil {
			return 0, err
		}
		s *= cd
	}
	if d.output && !pyEqual(e.output, c.output) {
		s = 0
	}
	return s, nil
}

// deCompareDicts is _compare_dicts(expected, called).
func deCompareDicts(d1, d2 jsonv.Value) (float64, error) {
	if pyEqual(d1, d2) {
		return 1, nil
	}
	if d1.Kind() <= jsonv.KindNull || d2.Kind() <= jsonv.KindNull {
		return 0, errors.New("AttributeError: 'NoneType' object has no attribute 'keys' (input_parameters is None on one side)")
	}
	union := d1.Len()
	for i := 0; i < d2.Len(); i++ {
		k, _ := d2.MemberAt(i)
		if !d1.Has(k) {
			union++
		}
	}
	acc := 0.0
	for i := 0; i < d1.Len(); i++ {
		k, v1 := d1.MemberAt(i)
		v2, ok := d2.Get(k)
		if !ok {
			continue
		}
		if pyEqual(v1, v2) {
			acc += 1 / float64(union)
		} else if v1.Kind() == jsonv.KindObject && v2.Kind() == jsonv.KindObject {
			sub, err := deCompareDicts(v1, v2)
			if err != nil {
				return 0, err
			}
			acc += sub / float64(union)
		}
	}
	return acc, nil
}

// deToolCallEqual is ToolCall.__eq__: name, input_parameters and output.
func deToolCallEqual(a, b *deCall) (bool, error) {
	if a.name != b.name {
		return false, nil
	}
	if a.unknown || b.unknown {
		u := a
		if !a.unknown {
			u = b
		}
		return false, fmt.Errorf("arguments unavailable for call %d (%s); DeepEval's used-set compares the arguments of calls to the same tool", u.pos+1, u.name)
	}
	return pyEqual(a.params, b.params) && pyEqual(a.output, b.output), nil
}

func (d *Deepeval) defaultScore(called []deCall) (float64, []toolcall.Pair, error) {
	total := 0.0
	var used []int
	var pairs []toolcall.Pair
	for i := range d.expected {
		e := &d.expected[i]
		best, bestC := 0.0, -1
		for j := range called {
			c := &called[j]
			inUsed := false
			for _, u := range used {
				eq, err := deToolCallEqual(&called[u], c)
				if err != nil {
					return 0, nil, err
				}
				if eq {
					inUsed = true
					break
				}
			}
			if inUsed || !d.callsMatch(e, c) {
				continue
			}
			s, err := d.gain(e, c)
			if err != nil {
				return 0, nil, err
			}
			if s > best {
				best, bestC = s, j
			}
		}
		if best > 0 {
			total += best
			used = append(used, bestC)
			pairs = append(pairs, toolcall.Pair{Expected: int32(i), Actual: int32(bestC), Score: best})
		}
	}
	switch {
	case len(d.expected) == 0 && len(called) == 0:
		return 1, pairs, nil
	case len(d.expected) == 0:
		return 0, pairs, nil
	}
	return total / float64(len(d.expected)), pairs, nil
}

func (d *Deepeval) lcsScore(called []deCall) (float64, []toolcall.Pair, error) {
	m, n := len(d.expected), len(called)
	dp := make([][]float64, m+1)
	for i := range dp {
		dp[i] = make([]float64, n+1)
	}
	for i := 1; i <= m; i++ {
		for j := 1; j <= n; j++ {
			e, c := &d.expected[i-1], &called[j-1]
			if !d.callsMatch(e, c) {
				dp[i][j] = max(dp[i-1][j], dp[i][j-1])
				continue
			}
			s, err := d.gain(e, c)
			if err != nil {
				return 0, nil, err
			}
			diag := 0.0
			if s > 0 {
				diag = dp[i-1][j-1] + s
			}
			dp[i][j] = max(dp[i-1][j], dp[i][j-1], diag)
		}
	}
	i, j, total := m, n, 0.0
	var pairs []toolcall.Pair
	for i > 0 && j > 0 {
		switch {
		case dp[i][j] == dp[i-1][j]:
			i--
		case dp[i][j] == dp[i][j-1]:
			j--
		default:
			g := dp[i][j] - dp[i-1][j-1]
			total += g
			pairs = append(pairs, toolcall.Pair{Expected: int32(i - 1), Actual: int32(j - 1), Score: g})
			i--
			j--
		}
	}
	for l, r := 0, len(pairs)-1; l < r; l, r = l+1, r-1 {
		pairs[l], pairs[r] = pairs[r], pairs[l]
	}
	switch {
	case m == 0 && n == 0:
		return 1, pairs, nil
	case m == 0:
		return 0, pairs, nil
	}
	return total / float64(m), pairs, nil
}

// repr is ToolCall.__repr__ (deepeval/test_case/llm_test_case.py): name,
// type, then a non-empty input_parameters and a dict output as
// json.dumps(indent=4, ensure_ascii=False) after "field=", their later
// lines indented four spaces, or another output (even 0 or "") as
// repr(output); one field a line inside "ToolCall(\n    …\n)".
func (c *deCall) repr() string {
	fields := make([]string, 0, 4)
	if c.name != "" {
		fields = append(fields, `name="`+c.name+`"`)
	}
	fields = append(fields, `type="`+DeTypeName(c.mcp)+`"`)
	if c.params.Kind() == jsonv.KindObject && c.params.Len() > 0 {
		fields = append(fields, pyNestedField("input_parameters", PyJSONDumpsUnicode(c.params, 4)))
	}
	switch k := c.output.Kind(); {
	case k == jsonv.KindObject:
		fields = append(fields, pyNestedField("output", PyJSONDumpsUnicode(c.output, 4)))
	case k > jsonv.KindNull:
		fields = append(fields, "output="+PyRepr(c.output))
	}
	return "ToolCall(\n    " + strings.Join(fields, ",\n    ") + "\n)"
}

// pyNestedField is ToolCall._indent_nested_field: the first line after
// "name=", a newline, then the other lines indented four spaces (so a
// one-line value ends in a newline).
func pyNestedField(name, formatted string) string {
	lines := pySplitLines(formatted)
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('=')
	if len(lines) > 0 {
		b.WriteString(lines[0])
	}
	b.WriteByte('\n')
	for i, l := range lines[min(1, len(lines)):] {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("    ")
		b.WriteString(l)
	}
	return b.String()
}

// pySplitLines is Python's str.splitlines(): lines end at \n, \r, \r\n,
// \v, \f, \x1c, \x1d, \x1e, \x85, U+2028 and U+2029; no empty last line.
func pySplitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			lines = append(lines, s[start:i])
			i += size
			if r == '\r' && i < len(s) && s[i] == '\n' {
				i++
			}
			start = i
			continue
		}
		i += size
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

func DeTypeName(mcp bool) string {
	if mcp {
		return "MCP"
	}
	return "FUNCTION"
}

// reason is _generate_reason. The names DeepEval lists from Python sets
// (missing and out-of-order tools, missing ToolCalls) come in a hash-seed
// dependent order there; here in expected order.
func (d *Deepeval) reason(called []deCall, score float64, lcs []int) string {
	en := make([]string, len(d.expected))
	for i := range d.expected {
		en[i] = d.expected[i].name
	}
	cn := make([]string, len(called))
	for i := range called {
		cn[i] = called[i].name
	}
	mismatches := d.typeMismatches(called)
	el, cl := pyListRepr(en), pyListRepr(cn)
	// Each form in a frame of its own: their string building takes room,
	// and this frame is on the OTLP receiver's stack (see ScoreInto).
	switch {
	case d.exact:
		return exactReason(score, el, cl, mismatches)
	case d.ordering:
		return d.orderedReason(score, en, cn, el, cl, lcs, mismatches)
	}
	return d.unorderedReason(called, score, el, cl, mismatches)
}

// typeMismatches names the expected tools called with another type (MCP or
// function).
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (d *Deepeval) typeMismatches(called []deCall) []string {
	var mismatches []string
	for i := range d.expected {
		for j := range called {
			if d.expected[i].name == called[j].name && d.expected[i].mcp != called[j].mcp {
				mismatches = append(mismatches, fmt.Sprintf("%s (expected %s, called %s)", d.expected[i].name, DeTypeName(d.expected[i].mcp), DeTypeName(called[j].mcp)))
				break
			}
		}
	}
	return mismatches
}

// namesNotIn returns the names of a not in b, once each, in a's order.
func namesNotIn(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func exactReason(score float64, el, cl string, mismatches []string) string {
	s := "Not an exact match"
	if score > 0 {
		s = "Exact match"
	}
	s += ": expected " + el + ", called " + cl + "."
	if len(mismatches) > 0 {
		s += " Tool type mismatches: " + pyListRepr(mismatches) + "."
	}
	return s + " See details above."
}

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (d *Deepeval) orderedReason(score float64, en, cn []string, el, cl string, lcs []int, mismatches []string) string {
	if score == 1 {
		return "Correct ordering: all expected tools " + el + " were called in the correct order."
	}
	var lcsNames []string
	for _, i := range lcs {
		lcsNames = append(lcsNames, d.expected[i].name)
	}
	var issues []string
	if m := namesNotIn(en, cn); len(m) > 0 {
		issues = append(issues, "missing tools "+pyListRepr(m))
	}
	if o := namesNotIn(en, lcsNames); len(o) > 0 {
		issues = append(issues, "out-of-order tools "+pyListRepr(o))
	}
	if len(mismatches) > 0 {
		issues = append(issues, "tool type mismatches "+pyListRepr(mismatches))
	}
	return usageReason("Incorrect tool usage: ", issues, " and ", el, cl)
}

// usageReason writes head, the issues joined by sep, and the expected and
// called lists: the reason of an incomplete or incorrect usage. (One
// builder rather than a concatenation of seven strings, whose operands
// would take room in the caller's frame: see ScoreInto.)
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func usageReason(head string, issues []string, sep, el, cl string) string {
	var b strings.Builder
	b.Grow(len(head) + 64 + len(el) + len(cl))
	b.WriteString(head)
	for k, is := range issues {
		if k > 0 {
			b.WriteString(sep)
		}
		b.WriteString(is)
	}
	b.WriteString("; expected ")
	b.WriteString(el)
	b.WriteString(", called ")
	b.WriteString(cl)
	b.WriteString(". See more details above.")
	return b.String()
}

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (d *Deepeval) unorderedReason(called []deCall, score float64, el, cl string, mismatches []string) string {
	if score == 1 {
		return "All expected tools " + el + " were called (order not considered)."
	}
	// missing = set(expected_tools) - (set(tools_called) & set(expected_tools)):
	// the expected ToolCalls (one per equal group, the first, as a set keeps
	// it) equal to no call made, listed as list(missing) prints them.
	var missing []string
	for i := range d.expected {
		e := &d.expected[i]
		if slices.ContainsFunc(d.expected[:i], func(x deCall) bool { eq, err := deToolCallEqual(&x, e); return err == nil && eq }) {
			continue // the set holds the first of equal ToolCalls
		}
		if !slices.ContainsFunc(called, func(c deCall) bool { eq, err := deToolCallEqual(e, &c); return err == nil && eq }) {
			missing = append(missing, e.repr())
		}
	}
	var issues []string
	if len(missing) > 0 || len(mismatches) == 0 {
		issues = append(issues, "missing tools ["+strings.Join(missing, ", ")+"]")
	}
	if len(mismatches) > 0 {
		issues = append(issues, "tool type mismatches "+pyListRepr(mismatches))
	}
	return usageReason("Incomplete tool usage: ", issues, "; ", el, cl)
}
