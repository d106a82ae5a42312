package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// TestVectors runs every case of every testdata/vectors/*.json file
// (schema toolcall-scorer-vectors/v1, §0 of the peer reference) against the
// profile that reproduces its peer algorithm:
//
//	calculateToolCallingAccuracy        mongodb
//	createToolCallAccuracyScorerCode    mastra_tool_call (ScoreAgentRun when peer_input carries the run's messages)
//	compareTrajectories                 mastra_trajectory, expected_trajectory = peer_input.expected,
//	                                    comparison_options = the case options
//	createTrajectoryAccuracyScorerCode  mastra_trajectory (ScoreRun, item expectation from peer_input.itemExpectation)
//	createTrajectoryScorerCode          mastra_trajectory_full (ScoreRun, as above)
//	checkTrajectoryEfficiency           MastraCheckTrajectoryEfficiency (score = its score field)
//	checkTrajectoryBlacklist            MastraCheckTrajectoryBlacklist
//	analyzeToolFailures                 MastraAnalyzeToolFailures
//	ToolCorrectnessMetric               deepeval
//	createTrajectoryMatchEvaluator      agentevals (messages rebuilt from peer_input: one turn per assistant
//	                                    message with tool calls, a "message" step per other message;
//	                                    without peer_input, one assistant message per neutral call)
//	TrajectoryEvaluator                 adk, metric tool_trajectory_avg_score (ScoreInvocations for peer_input.invocations)
//	ToolParameterMatchEvaluator         adk, metric tool_parameter_match
//	ToolCallAccuracy / ToolCallF1       ragas (calls from the AI messages of peer_input.user_input when given)
//
// Peer option names are converted to snake_case; data values (tool
// arguments, results, outputs, metadata) keep their keys as written and
// their key order. Checked: expected_score (with expected_score_op),
// expected_error (a substring of the error), expected_detail (dotted paths
// into Result.Details), observed_exact_score (the real peer's exact score
// where its test asserted an inequality) and observed_by_version (Mastra,
// re-run with option version). expected_detail_unverified is not checked.
// {"$undefined": true} becomes an undefined value,
// MongoDB {"$matcher": ...} objects become matchers at their paths, and
// {"$fn": "<js>"} predicates are translated by jsfn_test.go.
func TestVectors(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "vectors", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	total := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var file struct {
			Schema string            `json:"schema"`
			Cases  []json.RawMessage `json:"cases"`
		}
		require.NoError(t, json.Unmarshal(data, &file), f)
		for _, raw := range file.Cases {
			var c vectorCase
			require.NoError(t, json.Unmarshal(raw, &c), f)
			require.NoError(t, c.parseOrdered(raw), c.ID)
			total++
			t.Run(c.ID, func(t *testing.T) {
				if reason, ok := vectorSkips[c.ID]; ok {
					t.Skip(reason)
				}
				c.run(t)
			})
		}
	}
	t.Logf("%d vector cases", total)
}

// vectorSkips lists the cases whose expected value the peer reference marks
// unverified, with the reason. (A case's expected_detail_unverified fields
// are simply not checked; the rest of such a case still runs.)
var vectorSkips = map[string]string{}

type vectorCase struct {
	ID                string          `json:"id"`
	Peer              string          `json:"peer"`
	Algorithm         string          `json:"algorithm"`
	ExpectedScore     *float64        `json:"expected_score"`
	ExpectedScoreOp   string          `json:"expected_score_op"`
	ExpectedError     *string         `json:"expected_error"`
	ExpectedDetail    map[string]any  `json:"expected_detail"`
	ObservedByVersion map[string]any  `json:"observed_by_version"`
	ObservedExact     *float64        `json:"observed_exact_score"`
	RawOptions        json.RawMessage `json:"options"`

	options   jsonv.Value
	expected  jsonv.Value
	actual    jsonv.Value
	peerInput jsonv.Value
}

func (c *vectorCase) parseOrdered(raw json.RawMessage) error {
	v, err := jsonv.Parse(string(raw))
	if err != nil {
		return err
	}
	c.options, _ = v.Get("options")
	c.expected, _ = v.Get("expected_calls")
	c.actual, _ = v.Get("actual_calls")
	c.peerInput, _ = v.Get("peer_input")
	return nil
}

func get(v jsonv.Value, key string) jsonv.Value {
	x, _ := v.Get(key)
	return x
}

func has(v jsonv.Value, key string) bool { return v.Has(key) }

// undef replaces {"$undefined": true} with undefined values.
func undef(v jsonv.Value) jsonv.Value {
	switch v.Kind() {
	case jsonv.KindObject:
		if v.Len() == 1 {
			if k, x := v.MemberAt(0); k == "$undefined" && x.Kind() == jsonv.KindBool && x.BoolValue() {
				return jsonv.Undefined()
			}
		}
		ms := make([]jsonv.Member, v.Len())
		for i := range ms {
			k, x := v.MemberAt(i)
			ms[i] = jsonv.Member{Key: k, Value: undef(x)}
		}
		return jsonv.Object(ms...)
	case jsonv.KindArray:
		items := make([]jsonv.Value, v.Len())
		for i := range items {
			items[i] = undef(v.Index(i))
		}
		return jsonv.Array(items...)
	}
	return v
}

// mastraDataKeys are step fields whose values are data: kept as Values.
var mastraDataKeys = map[string]bool{"toolArgs": true, "toolResult": true, "output": true, "metadata": true}

// snakeOptions converts peer options to this library's form: keys to
// snake_case, data values kept as ordered Values.
func snakeOptions(v jsonv.Value) any {
	switch v.Kind() {
	case jsonv.KindObject:
		m := make(map[string]any, v.Len())
		for i := 0; i < v.Len(); i++ {
			k, x := v.MemberAt(i)
			if mastraDataKeys[k] {
				m[snakeCase(k)] = undef(x)
				continue
			}
			m[snakeCase(k)] = snakeOptions(x)
		}
		return m
	case jsonv.KindArray:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = snakeOptions(v.Index(i))
		}
		return out
	}
	return v.Interface()
}

func optionsMap(v jsonv.Value) map[string]any {
	if v.Kind() != jsonv.KindObject {
		return map[string]any{}
	}
	return snakeOptions(v).(map[string]any)
}

// plainCall builds an actual call from a neutral actual_calls entry.
func plainCall(v jsonv.Value, pos int) toolcall.Call {
	c := toolcall.Call{Name: get(v, "name").StringValue(), Position: pos}
	if a, ok := v.Get("args"); ok {
		c.Args = undef(a)
	}
	if t := get(v, "type"); t.Kind() == jsonv.KindString {
		c.Type = t.StringValue()
	}
	if o, ok := v.Get("output"); ok {
		c.Result = undef(o)
	}
	if s := get(v, "state"); s.Kind() == jsonv.KindString {
		c.Fields = map[string]jsonv.Value{"state": s}
	}
	return c
}

func plainExpected(t *testing.T, v jsonv.Value, mongo bool) toolcall.ExpectedCall {
	e := toolcall.ExpectedCall{Name: get(v, "name").StringValue()}
	e.Optional = jsTruthy(get(v, "optional"))
	if tp := get(v, "type"); tp.Kind() == jsonv.KindString {
		e.Type = tp.StringValue()
	}
	if o, ok := v.Get("output"); ok {
		e.Result = undef(o)
	}
	a, ok := v.Get("args")
	switch {
	case mongo:
		var pms []toolcall.PathMatcher
		lit, isM, err := splitMongo(a, "$", &pms)
		require.NoError(t, err)
		if isM {
			lit = jsonv.Undefined()
		}
		if lit.IsUndefined() && len(pms) == 0 {
			// Absent or {"$undefined": true} parameters are JS undefined:
			// Matcher.value(undefined) accepts only null or undefined
			// (the profile reads an expected call without arguments as
			// accepting any, for configurations).
			m, err := MongoDBValue(jsonv.Undefined())
			require.NoError(t, err)
			pms = []toolcall.PathMatcher{{Path: "$", Matcher: m}}
		}
		e.Args, e.Matchers = lit, pms
	case ok:
		e.Args = undef(a)
	}
	return e
}

func (c *vectorCase) plainCalls() []toolcall.Call {
	var out []toolcall.Call
	for i := 0; i < c.actual.Len(); i++ {
		out = append(out, plainCall(c.actual.Index(i), i))
	}
	return out
}

func (c *vectorCase) plainExpectation(t *testing.T, mongo bool) toolcall.Expectation {
	var e toolcall.Expectation
	for i := 0; i < c.expected.Len(); i++ {
		e.Calls = append(e.Calls, plainExpected(t, c.expected.Index(i), mongo))
	}
	return e
}

// ---------------------------------------------------------------------------
// MongoDB matcher encodings.

func pathKey(path, key string) string {
	return path + `["` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(key) + `"]`
}

// splitMongo separates {"$matcher": ...} nodes from a literal: each becomes
// a path matcher; a matcher in an array keeps a null placeholder. It
// reports whether v itself is a matcher.
func splitMongo(v jsonv.Value, path string, pms *[]toolcall.PathMatcher) (jsonv.Value, bool, error) {
	switch v.Kind() {
	case jsonv.KindObject:
		if has(v, "$matcher") {
			m, err := vectorMongoMatcher(v)
			if err != nil {
				return jsonv.Value{}, false, err
			}
			*pms = append(*pms, toolcall.PathMatcher{Path: path, Matcher: m})
			return jsonv.Value{}, true, nil
		}
		if v.Len() == 1 && has(v, "$undefined") {
			return jsonv.Undefined(), false, nil
		}
		var ms []jsonv.Member
		for i := 0; i < v.Len(); i++ {
			k, x := v.MemberAt(i)
			lit, isM, err := splitMongo(x, pathKey(path, k), pms)
			if err != nil {
				return jsonv.Value{}, false, err
			}
			if !isM {
				ms = append(ms, jsonv.Member{Key: k, Value: lit})
			}
		}
		return jsonv.Object(ms...), false, nil
	case jsonv.KindArray:
		items := make([]jsonv.Value, v.Len())
		for i := range items {
			lit, isM, err := splitMongo(v.Index(i), path+"["+strconv.Itoa(i)+"]", pms)
			if err != nil {
				return jsonv.Value{}, false, err
			}
			if isM {
				lit = jsonv.Null()
			}
			items[i] = lit
		}
		return jsonv.Array(items...), false, nil
	}
	return v, false, nil
}

// mongoMatcher translates one {"$matcher": ...} encoding.
func vectorMongoMatcher(v jsonv.Value) (toolcall.Matcher, error) {
	name := get(v, "$matcher").StringValue()
	sub := func(x jsonv.Value) (toolcall.Matcher, error) {
		if x.Kind() == jsonv.KindObject && has(x, "$matcher") {
			return vectorMongoMatcher(x)
		}
		var pms []toolcall.PathMatcher
		lit, isM, err := splitMongo(x, "$", &pms)
		if err != nil {
			return nil, err
		}
		if isM {
			lit = jsonv.Undefined()
		}
		return MongoDBValue(lit, pms...)
	}
	withFilter := func(base toolcall.Matcher) (toolcall.Matcher, error) {
		f, ok := v.Get("filter")
		if !ok {
			return base, nil
		}
		fm, err := jsPredicateMatcher(get(f, "$fn").StringValue())
		if err != nil || fm == nil {
			return base, err
		}
		return toolcall.AllOf(base, fm), nil
	}
	switch name {
	case "anyValue":
		return toolcall.Any(), nil
	case "emptyObjectOrUndefined":
		return toolcall.AnyOf(toolcall.Absent(), toolcall.IsNull(), toolcall.AllOf(toolcall.OfType("object", "array"), toolcall.Empty())), nil
	case "undefined":
		return toolcall.Absent(), nil
	case "null":
		return toolcall.IsNull(), nil
	case "number":
		return withFilter(toolcall.OfType("number"))
	case "string":
		return withFilter(toolcall.OfType("string"))
	case "boolean":
		if exp, ok := v.Get("expected"); ok && exp.Kind() == jsonv.KindBool {
			return toolcall.Equals(exp, false), nil
		}
		return toolcall.OfType("boolean"), nil
	case "caseInsensitiveString":
		return MongoDBCaseInsensitive(get(v, "expected").StringValue()), nil
	case "not":
		m, err := sub(get(v, "of"))
		if err != nil {
			return nil, err
		}
		return toolcall.Not(m), nil
	case "arrayOrSingle":
		m, err := sub(get(v, "of"))
		if err != nil {
			return nil, err
		}
		return toolcall.ArrayOrSingle(m), nil
	case "anyOf":
		of := get(v, "of")
		ms := make([]toolcall.Matcher, of.Len())
		for i := range ms {
			m, err := sub(of.Index(i))
			if err != nil {
				return nil, err
			}
			ms[i] = m
		}
		return toolcall.AnyOf(ms...), nil
	case "value":
		return sub(get(v, "expected"))
	}
	return nil, fmt.Errorf("unsupported MongoDB matcher %q", name)
}

// ---------------------------------------------------------------------------
// Mastra inputs.

func mastraStepCall(v jsonv.Value) toolcall.Call {
	c := toolcall.Call{Name: get(v, "name").StringValue(), StepType: get(v, "stepType").StringValue()}
	if !has(v, "stepType") {
		// A Mastra step without a step type matches no typed expectation
		// and is no tool call; "" would mean a tool call here.
		c.StepType = "undefined"
	}
	for i := 0; i < v.Len(); i++ {
		k, x := v.MemberAt(i)
		x = undef(x)
		switch k {
		case "name", "stepType":
		case "toolArgs":
			c.Args = x
		case "toolResult":
			c.Result = x
		case "success":
			switch {
			case x.Kind() == jsonv.KindBool && x.BoolValue():
				c.Status = toolcall.StatusOK
			case x.Kind() == jsonv.KindBool:
				c.Status = toolcall.StatusError
			default:
				if c.Fields == nil {
					c.Fields = map[string]jsonv.Value{}
				}
				c.Fields[k] = x
			}
		case "children":
			for j := 0; j < x.Len(); j++ {
				c.Children = append(c.Children, mastraStepCall(x.Index(j)))
			}
		default:
			if c.Fields == nil {
				c.Fields = map[string]jsonv.Value{}
			}
			c.Fields[k] = x
		}
	}
	return c
}

func (c *vectorCase) mastraRun() MastraRun {
	var run MastraRun
	if act, ok := c.peerInput.Get("actual"); ok {
		steps := get(act, "steps")
		for i := 0; i < steps.Len(); i++ {
			s := mastraStepCall(steps.Index(i))
			s.Position = i
			run.Steps = append(run.Steps, s)
		}
		run.TotalDurationMs = get(act, "totalDurationMs")
	} else {
		run.Steps = c.plainCalls()
		for i := range run.Steps {
			run.Steps[i].StepType = toolcall.StepToolCall
		}
	}
	if item, ok := c.peerInput.Get("itemExpectation"); ok && item.Kind() == jsonv.KindObject {
		run.ExpectedTrajectory = optionsMap(item)
	}
	return run
}

// ---------------------------------------------------------------------------
// agentevals, Ragas and ADK inputs.

// aeMessages turns an OpenAI-format message list into steps: each assistant
// message with tool calls is one turn, every other message a "message" step.
func aeMessages(t *testing.T, v jsonv.Value) (calls []toolcall.Call, expected []toolcall.ExpectedCall) {
	if v.Kind() == jsonv.KindObject {
		v = get(v, "messages")
	}
	turn := 0
	for i := 0; i < v.Len(); i++ {
		m := v.Index(i)
		role := get(m, "role").StringValue()
		tcs, ok := m.Get("tool_calls")
		if !ok || tcs.Kind() <= jsonv.KindNull {
			calls = append(calls, toolcall.Call{StepType: StepMessage, Name: role})
			expected = append(expected, toolcall.ExpectedCall{StepType: StepMessage, Name: role})
			continue
		}
		if tcs.Len() == 0 {
			f := map[string]jsonv.Value{"tool_calls": jsonv.Array()}
			calls = append(calls, toolcall.Call{StepType: StepMessage, Name: role, Fields: f})
			expected = append(expected, toolcall.ExpectedCall{StepType: StepMessage, Name: role, Fields: f})
			continue
		}
		turn++
		for j := 0; j < tcs.Len(); j++ {
			tc := tcs.Index(j)
			name, args := get(tc, "name").StringValue(), get(tc, "args")
			fields := map[string]jsonv.Value{}
			if !has(tc, "function") {
				fields["tool_call_format"] = jsonv.String("flat")
			}
			if role != "assistant" {
				fields["role"] = jsonv.String(role)
			}
			if fn := get(tc, "function"); fn.Kind() == jsonv.KindObject {
				name = get(fn, "name").StringValue()
				if a := get(fn, "arguments"); a.Kind() == jsonv.KindString {
					// The profile JSON.parses the text itself, where the
					// peer does (invalid text throws there).
					fields["arguments"] = a
					args = jsonv.Undefined()
				} else {
					args = jsonv.Undefined()
				}
			}
			args = undef(args)
			calls = append(calls, toolcall.Call{Name: name, Args: args, Turn: turn, Position: len(calls), Fields: fields})
			expected = append(expected, toolcall.ExpectedCall{Name: name, Args: args, Turn: turn, Fields: fields})
		}
	}
	return calls, expected
}

// aeTrajectory returns an agentevals case's output trajectory and reference:
// from peer_input's outputs and referenceOutputs or, when the case has no
// peer_input, from messages built from actual_calls and expected_calls. A
// case it cannot map fails the test.
func (c *vectorCase) aeTrajectory(t *testing.T) ([]toolcall.Call, []toolcall.ExpectedCall) {
	t.Helper()
	var outputs, reference jsonv.Value
	if c.peerInput.IsNullish() {
		outputs = aeNeutralMessages(t, c.actual, "actual_calls")
		reference = aeNeutralMessages(t, c.expected, "expected_calls")
	} else {
		outputs = aeMessageList(t, c.peerInput, "outputs")
		reference = aeMessageList(t, c.peerInput, "referenceOutputs")
	}
	actual, _ := aeMessages(t, outputs)
	_, expected := aeMessages(t, reference)
	return actual, expected
}

// aeMessageList returns peer_input's message list under key: a list, or an
// object whose messages member is one.
func aeMessageList(t *testing.T, peerInput jsonv.Value, key string) jsonv.Value {
	t.Helper()
	v, ok := peerInput.Get(key)
	if v.Kind() == jsonv.KindObject {
		v, ok = v.Get("messages")
	}
	if !ok || v.Kind() != jsonv.KindArray {
		t.Fatalf("peer_input.%s: no message list to map", key)
	}
	return v
}

// aeNeutralMessages builds OpenAI-format messages from neutral calls: one
// assistant message per call, its tool call in function form with the
// arguments as JSON text ("{}" when the call has none).
func aeNeutralMessages(t *testing.T, calls jsonv.Value, field string) jsonv.Value {
	t.Helper()
	if calls.Kind() != jsonv.KindArray {
		t.Fatalf("%s: no list of calls to map (and no peer_input)", field)
	}
	msgs := make([]jsonv.Value, calls.Len())
	for i := range msgs {
		v := calls.Index(i)
		name := get(v, "name")
		if name.Kind() != jsonv.KindString {
			t.Fatalf("%s[%d]: no tool name to map", field, i)
		}
		if jsTruthy(get(v, "optional")) {
			t.Fatalf("%s[%d]: agentevals has no optional calls", field, i)
		}
		args := "{}"
		if a, ok := v.Get("args"); ok {
			a = undef(a)
			if a.IsUndefined() {
				t.Fatalf("%s[%d]: undefined arguments have no JSON text", field, i)
			}
			args = a.JSON()
		}
		fn := jsonv.Object(jsonv.Member{Key: "name", Value: name}, jsonv.Member{Key: "arguments", Value: jsonv.String(args)})
		msgs[i] = jsonv.Object(
			jsonv.Member{Key: "role", Value: jsonv.String("assistant")},
			jsonv.Member{Key: "content", Value: jsonv.String("")},
			jsonv.Member{Key: "tool_calls", Value: jsonv.Array(jsonv.Object(jsonv.Member{Key: "function", Value: fn}))},
		)
	}
	return jsonv.Array(msgs...)
}

// aeOptions converts agentevals options, translating $fn comparators.
func aeOptions(t *testing.T, v jsonv.Value) map[string]any {
	out := map[string]any{}
	for i := 0; i < v.Len(); i++ {
		k, x := v.MemberAt(i)
		if k != "toolArgsMatchOverrides" {
			out[snakeCase(k)] = x.Interface()
			continue
		}
		ov := map[string]any{}
		for j := 0; j < x.Len(); j++ {
			tool, spec := x.MemberAt(j)
			if fn, ok := spec.Get("$fn"); ok {
				cmp, err := jsComparatorSpec(fn.StringValue())
				require.NoError(t, err, "unsupported agentevals comparator")
				ov[tool] = cmp
				continue
			}
			ov[tool] = spec.Interface()
		}
		out["tool_args_match_overrides"] = ov
	}
	return out
}

// ragasCalls reads the tool calls of the AI messages of a Ragas user_input.
func ragasCalls(v jsonv.Value) []toolcall.Call {
	var calls []toolcall.Call
	for i := 0; i < v.Len(); i++ {
		m := v.Index(i)
		if get(m, "type").StringValue() != "ai" {
			continue
		}
		tcs := get(m, "tool_calls")
		for j := 0; j < tcs.Len(); j++ {
			tc := tcs.Index(j)
			calls = append(calls, toolcall.Call{Name: get(tc, "name").StringValue(), Args: undef(get(tc, "args")), Position: len(calls)})
		}
	}
	return calls
}

// ---------------------------------------------------------------------------
// Running and checking.

type runOutcome struct {
	score    float64
	hasScore bool
	details  map[string]any
	err      error
	res      toolcall.Result
}

func fromResult(r toolcall.Result) runOutcome {
	o := runOutcome{res: r, details: r.Details, err: r.Err}
	if r.Outcome != toolcall.OutcomeError && r.Outcome != toolcall.OutcomeNotEvaluated {
		o.score, o.hasScore = r.Score, true
	}
	return o
}

func fromDetails(d map[string]any, err error) runOutcome {
	if err != nil {
		return runOutcome{err: err}
	}
	s, _ := d["score"].(float64)
	return runOutcome{score: s, hasScore: true, details: d}
}

func build(name string, s toolcall.Settings) (toolcall.Scorer, error) {
	if s.Threshold == 0 {
		s.Threshold = 0.5
	}
	return toolcall.New(name, s)
}

// checkOmitDetails checks that the scorer built with OmitDetails gives res
// but for its Details, which it leaves nil.
func checkOmitDetails(t *testing.T, name string, s toolcall.Settings, run func(toolcall.Scorer) toolcall.Result, res toolcall.Result) {
	t.Helper()
	s.OmitDetails = true
	lean, err := build(name, s)
	if err != nil {
		t.Fatalf("%s: built without OmitDetails, not with it: %v", name, err)
	}
	got := run(lean)
	if got.Details != nil {
		t.Errorf("%s: details built with OmitDetails: %v", name, got.Details)
	}
	res.Details = nil
	if !reflect.DeepEqual(res, got) {
		t.Errorf("%s: with OmitDetails\n%+v\nwithout\n%+v", name, got, res)
	}
}

// exec runs the case once; version, when set, selects a Mastra version.
func (c *vectorCase) exec(t *testing.T, version string) runOutcome {
	ctx := context.Background()
	opts := optionsMap(c.options)
	withVersion := func(m map[string]any) map[string]any {
		if version != "" {
			m["version"] = version
		}
		return m
	}
	scoreWith := func(name string, s toolcall.Settings, run func(toolcall.Scorer) toolcall.Result) runOutcome {
		sc, err := build(name, s)
		if err != nil {
			return runOutcome{err: err}
		}
		res := run(sc)
		checkOmitDetails(t, name, s, run, res)
		return fromResult(res)
	}
	plain := func(sc toolcall.Scorer) toolcall.Result { return sc.Score(ctx, c.plainCalls()) }
	switch c.Algorithm {
	case "calculateToolCallingAccuracy":
		return scoreWith(MongoDBName, toolcall.Settings{Expectation: c.plainExpectation(t, true), Options: opts}, plain)
	case "createToolCallAccuracyScorerCode":
		return scoreWith(MastraToolCallName, toolcall.Settings{Options: withVersion(opts)}, func(sc toolcall.Scorer) toolcall.Result {
			if has(c.peerInput, "inputMessages") || has(c.peerInput, "output") {
				return sc.(interface {
					ScoreAgentRun(context.Context, MastraAgentRun) toolcall.Result
				}).ScoreAgentRun(ctx, MastraAgentRun{InputMessages: undef(get(c.peerInput, "inputMessages")), Output: undef(get(c.peerInput, "output"))})
			}
			return plain(sc)
		})
	case "compareTrajectories", "createTrajectoryAccuracyScorerCode", "createTrajectoryScorerCode":
		name := MastraTrajectoryName
		if c.Algorithm == "createTrajectoryScorerCode" {
			name = MastraTrajectoryFullName
		}
		if c.Algorithm == "compareTrajectories" {
			cmp := map[string]any{}
			for k, v := range opts {
				cmp[k] = v
			}
			opts = map[string]any{"expected_trajectory": snakeOptions(get(c.peerInput, "expected")), "comparison_options": cmp}
		}
		return scoreWith(name, toolcall.Settings{Options: withVersion(opts)}, func(sc toolcall.Scorer) toolcall.Result {
			return sc.(interface {
				ScoreRun(context.Context, MastraRun) toolcall.Result
			}).ScoreRun(ctx, c.mastraRun())
		})
	case "checkTrajectoryEfficiency":
		return fromDetails(MastraCheckTrajectoryEfficiency(c.mastraRun(), withVersion(opts)))
	case "checkTrajectoryBlacklist":
		return fromDetails(MastraCheckTrajectoryBlacklist(c.mastraRun(), opts))
	case "analyzeToolFailures":
		return fromDetails(MastraAnalyzeToolFailures(c.mastraRun(), opts))
	case "ToolCorrectnessMetric":
		return scoreWith(DeepEvalName, toolcall.Settings{Expectation: c.plainExpectation(t, false), Options: opts}, func(sc toolcall.Scorer) toolcall.Result {
			// A null list is Python None.
			return sc.(interface {
				ScoreTestCase(context.Context, []toolcall.Call, bool, bool) toolcall.Result
			}).ScoreTestCase(ctx, c.plainCalls(), c.actual.Kind() == jsonv.KindNull, c.expected.Kind() == jsonv.KindNull)
		})
	case "createTrajectoryMatchEvaluator":
		actual, expected := c.aeTrajectory(t)
		return scoreWith(AgentEvalsName, toolcall.Settings{Expectation: toolcall.Expectation{Calls: expected}, Options: aeOptions(t, c.options)}, func(sc toolcall.Scorer) toolcall.Result {
			return sc.Score(ctx, actual)
		})
	case "TrajectoryEvaluator", "ToolParameterMatchEvaluator":
		if c.Algorithm == "ToolParameterMatchEvaluator" {
			opts["metric"] = ADKToolParameterMatch
		}
		return scoreWith(ADKName, toolcall.Settings{Expectation: c.plainExpectation(t, false), Options: opts}, func(sc toolcall.Scorer) toolcall.Result {
			invs, ok := c.peerInput.Get("invocations")
			if !ok {
				return plain(sc)
			}
			actual, expected := [][]toolcall.Call{}, [][]toolcall.ExpectedCall{}
			for i := 0; i < invs.Len(); i++ {
				inv := invs.Index(i)
				var a []toolcall.Call
				var e []toolcall.ExpectedCall
				for j := 0; j < get(inv, "actual").Len(); j++ {
					a = append(a, plainCall(get(inv, "actual").Index(j), j))
				}
				for j := 0; j < get(inv, "expected").Len(); j++ {
					e = append(e, plainExpected(t, get(inv, "expected").Index(j), false))
				}
				actual, expected = append(actual, a), append(expected, e)
			}
			return sc.(interface {
				ScoreInvocations(context.Context, [][]toolcall.Call, [][]toolcall.ExpectedCall) toolcall.Result
			}).ScoreInvocations(ctx, actual, expected)
		})
	case "ToolCallAccuracy", "ToolCallF1":
		if c.Algorithm == "ToolCallF1" {
			opts["metric"] = RagasToolCallF1
		}
		return scoreWith(RagasName, toolcall.Settings{Expectation: c.plainExpectation(t, false), Options: opts}, func(sc toolcall.Scorer) toolcall.Result {
			calls := c.plainCalls()
			if ui, ok := c.peerInput.Get("user_input"); ok {
				calls = ragasCalls(ui)
			}
			// A null reference list is Python None.
			return sc.(interface {
				ScoreSample(context.Context, []toolcall.Call, bool) toolcall.Result
			}).ScoreSample(ctx, calls, c.expected.Kind() == jsonv.KindNull)
		})
	}
	t.Fatalf("unknown algorithm %q", c.Algorithm)
	return runOutcome{}
}

func (c *vectorCase) run(t *testing.T) {
	out := c.exec(t, "")
	if c.ExpectedError != nil {
		require.Error(t, out.err, "expected an error containing %q", *c.ExpectedError)
		require.Contains(t, out.err.Error(), *c.ExpectedError)
		return
	}
	require.NoError(t, out.err)
	if c.ExpectedScore != nil {
		require.True(t, out.hasScore, "expected a score, got outcome %v (%s)", out.res.Outcome, out.res.Explanation)
		checkScore(t, out.score, *c.ExpectedScore, c.ExpectedScoreOp)
	}
	if c.ObservedExact != nil {
		// What the real peer code returned where its test only asserted an
		// inequality (or no score).
		require.True(t, out.hasScore, "expected a score, got outcome %v (%s)", out.res.Outcome, out.res.Explanation)
		require.InDelta(t, *c.ObservedExact, out.score, 1e-9, "observed_exact_score")
	}
	if len(c.ExpectedDetail) > 0 {
		got := normalize(t, out.details)
		for _, path := range sortedDetailKeys(c.ExpectedDetail) {
			v, found := lookupDetail(got, path)
			checkDetail(t, path, c.ExpectedDetail[path], v, found)
		}
	}
	for _, version := range sortedDetailKeys(c.ObservedByVersion) {
		want := c.ObservedByVersion[version]
		vo := c.exec(t, version)
		if f, ok := want.(float64); ok {
			require.NoError(t, vo.err, "version %s", version)
			require.True(t, vo.hasScore, "version %s: no score", version)
			require.InDelta(t, f, vo.score, 1e-9, "version %s", version)
		} else {
			require.Error(t, vo.err, "version %s: expected %v", version, want)
		}
	}
}

func checkScore(t *testing.T, got, want float64, op string) {
	t.Helper()
	switch op {
	case "", "==":
		require.InDelta(t, want, got, 1e-9, "score")
	case "<":
		require.Less(t, got, want, "score")
	case ">":
		require.Greater(t, got, want, "score")
	case "<=":
		require.LessOrEqual(t, got, want, "score")
	case ">=":
		require.GreaterOrEqual(t, got, want, "score")
	case "round2==":
		require.InDelta(t, want, math.Round(got*100)/100, 1e-9, "score rounded to 2 decimals")
	default:
		t.Fatalf("unknown expected_score_op %q", op)
	}
}

func sortedDetailKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func normalize(t *testing.T, d map[string]any) any {
	t.Helper()
	b, err := json.Marshal(d)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// lookupDetail resolves a dotted path ("patterns.0.retryCount",
// "redundantCalls.length") in normalized details.
func lookupDetail(v any, path string) (any, bool) {
	for _, seg := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[seg]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			if seg == "length" {
				v = float64(len(x))
				continue
			}
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// checkDetail compares an expected detail with what the profile reported. A
// dimension object (a map with a score) stands for its score when the
// expectation is a number, the shorthand the upstream vectors use for
// Mastra's nested blacklist.
func checkDetail(t *testing.T, path string, want, got any, found bool) {
	t.Helper()
	if want == nil {
		require.Nil(t, got, "detail %s", path)
		return
	}
	require.True(t, found, "detail %s missing", path)
	if m, ok := got.(map[string]any); ok {
		if _, isNum := want.(float64); isNum {
			if s, has := m["score"]; has {
				got = s
			}
		}
	}
	require.True(t, detailEqual(want, got), "detail %s: want %#v, got %#v", path, want, got)
}

func detailEqual(want, got any) bool {
	switch w := want.(type) {
	case float64:
		g, ok := got.(float64)
		return ok && math.Abs(w-g) < 1e-9
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !detailEqual(w[i], g[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k := range w {
			if !detailEqual(w[k], g[k]) {
				return false
			}
		}
		return true
	}
	return want == got
}

// TestVectorAgentEvalsWithoutPeerInput pins that an agentevals case without
// peer_input is scored on messages built from its expected_calls and
// actual_calls, not on an empty trajectory (which agentevals matches in
// every mode).
func TestVectorAgentEvalsWithoutPeerInput(t *testing.T) {
	sf := `{"name":"get_weather","args":{"city":"San Francisco"}}`
	seattle := `{"name":"get_weather","args":{"city":"Seattle"}}`
	stock := `{"name":"lookup_stock","args":{"symbol":"ZZZZ"}}`
	tests := []struct {
		name, mode, expected, actual string
		score                        float64
	}{
		{"strict, same call", "strict", sf, sf, 1},
		{"strict, other arguments", "strict", sf, seattle, 0},
		{"strict, extra call", "strict", sf, sf + "," + stock, 0},
		{"superset, extra call", "superset", sf, stock + "," + sf, 1},
		{"unordered, calls swapped", "unordered", sf + "," + stock, stock + "," + sf, 1},
		{"unordered, missing call", "unordered", sf + "," + stock, sf, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := json.RawMessage(fmt.Sprintf(`{"id":"agentevals/neutral","peer":"agentevals","algorithm":"createTrajectoryMatchEvaluator",`+
				`"options":{"trajectoryMatchMode":%q},"expected_calls":[%s],"actual_calls":[%s],"expected_score":%v}`,
				tt.mode, tt.expected, tt.actual, tt.score))
			var c vectorCase
			require.NoError(t, json.Unmarshal(raw, &c))
			require.NoError(t, c.parseOrdered(raw))
			actual, expected := c.aeTrajectory(t)
			require.Len(t, actual, c.actual.Len())
			require.Len(t, expected, c.expected.Len())
			c.run(t)
		})
	}
}
