package toolcallaccuracyprocessor

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// TestDifferential scores the cases of testdata/differential, which
// tools/peers generated from a seed and ran through each peer's real code
// (MongoDB's calculateToolCallingAccuracy, Mastra's code scorers at 1.2.0
// and 1.10.2, DeepEval's ToolCorrectnessMetric), with the matching profile,
// the way the processor scores a run with the default configuration: the
// rule is compiled from its configuration (compileRule, where a rule's
// threshold and its default are applied), the calls are decoded from their
// recorded argument text (trajectory.ScoringCalls with the default
// empty_arguments), the rule's view of them is taken, and the scorer runs
// through toolcall.ScoreInto. It compares the score (within 1e-12), pass or
// fail (the peer's own success where it has one; where it has none, the
// rule's default threshold, 1), and DeepEval's reason; an error must meet
// an error. Differences are reported by category.
func TestDifferential(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "differential", "*.json.gz"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data := readDifferential(t, f)
			diffs := map[string][]string{}
			for i := range data.cases {
				c := &data.cases[i]
				for _, d := range c.check(t, data.peerVersion) {
					diffs[d.category] = append(diffs[d.category], c.id+": "+d.detail)
				}
			}
			report(t, filepath.Base(f), data, diffs)
		})
	}
}

// knownDifferences are the differences each file is known to show, by
// category; the test fails when the counts change either way (a case
// counts once per category; an error hides the rest of its case). None:
// the profiles score every recorded case as the peers did.
var knownDifferences = map[string]map[string]int{}

func report(t *testing.T, file string, data *diffData, diffs map[string][]string) {
	t.Helper()
	cats := make([]string, 0, len(diffs))
	total := 0
	for c, l := range diffs {
		cats = append(cats, c)
		if c != byDesign {
			total += len(l)
		}
	}
	sort.Strings(cats)
	t.Logf("%s %s: %d cases, %d differences", data.peer, data.peerVersion, len(data.cases), total)
	got := map[string]int{}
	for _, c := range cats {
		l := diffs[c]
		msg := fmt.Sprintf("%5d  %s", len(l), c)
		for i := 0; i < len(l) && i < 3 && c != byDesign; i++ {
			msg += "\n         e.g. " + l[i]
		}
		t.Log(msg)
		if c != byDesign {
			got[c] = len(l)
		}
	}
	want := knownDifferences[file]
	if want == nil {
		want = map[string]int{}
	}
	require.Equal(t, want, got, "differences from %s %s by category (knownDifferences)", data.peer, data.peerVersion)
}

type diffData struct {
	peer, peerVersion string
	cases             []diffCase
}

// diffCase is one recorded case: the neutral fields of the generator
// (tools/peers/gen.mjs) and what the peer returned.
type diffCase struct {
	id, peer, algorithm string
	v                   jsonv.Value // the whole case, keys in written order
}

func readDifferential(t *testing.T, path string) *diffData {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	raw, err := io.ReadAll(zr)
	require.NoError(t, err)
	var head struct {
		Schema      string            `json:"schema"`
		Peer        string            `json:"peer"`
		PeerVersion string            `json:"peer_version"`
		Cases       []json.RawMessage `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(raw, &head))
	require.Equal(t, "toolcall-differential/v1", head.Schema)
	d := &diffData{peer: head.Peer, peerVersion: head.PeerVersion}
	for _, rc := range head.Cases {
		v, err := jsonv.Parse(string(rc))
		require.NoError(t, err)
		d.cases = append(d.cases, diffCase{id: str(v, "id"), peer: str(v, "peer"), algorithm: str(v, "algorithm"), v: v})
	}
	return d
}

func member(v jsonv.Value, key string) jsonv.Value {
	x, _ := v.Get(key)
	return x
}

func str(v jsonv.Value, key string) string {
	x := member(v, key)
	if x.Kind() != jsonv.KindString {
		return ""
	}
	return x.StringValue()
}

func items(v jsonv.Value) []jsonv.Value {
	out := make([]jsonv.Value, v.Len())
	for i := range out {
		out[i] = v.Index(i)
	}
	return out
}

// ---------------------------------------------------------------------------
// The case as a rule and a run.

// rule is the case's rule configuration, as a user migrating from the peer
// writes it: the peer's options under the profile, the expected calls under
// expect, no threshold.
func (c *diffCase) rule(t *testing.T, peerVersion string) RuleConfig {
	r := RuleConfig{Name: "differential"}
	opts := map[string]any{}
	var name string
	switch c.algorithm {
	case "calculateToolCallingAccuracy":
		name = "mongodb"
		for _, e := range items(member(c.v, "expected_calls")) {
			r.Expect.Calls = append(r.Expect.Calls, mongoExpected(t, e))
		}
	case "ToolCorrectnessMetric":
		name = "deepeval"
		o := member(c.v, "options")
		for i := 0; i < o.Len(); i++ {
			k, x := o.MemberAt(i)
			opts[k] = x.Interface()
		}
		for _, e := range items(member(c.v, "expected_calls")) {
			// As JSON text, which keeps the written key order (DeepEval
			// prints the arguments of missing calls in it).
			call := ExpectedCallConfig{Tool: str(e, "name")}
			if a, ok := e.Get("args"); ok {
				call.ArgsJSON = a.JSON()
			}
			if o, ok := e.Get("output"); ok {
				call.ResultJSON = o.JSON()
			}
			if strings.EqualFold(str(e, "type"), "mcp") {
				call.Type = "mcp"
			}
			r.Expect.Calls = append(r.Expect.Calls, call)
		}
	case "createToolCallAccuracyScorerCode":
		name = "mastra_tool_call"
		opts = mastraOptions(member(c.v, "options"))
	case "createTrajectoryAccuracyScorerCode":
		name = "mastra_trajectory"
		opts = mastraOptions(member(c.v, "options"))
	case "createTrajectoryScorerCode":
		name = "mastra_trajectory_full"
		opts = mastraOptions(member(c.v, "options"))
	default:
		t.Fatalf("%s: unknown algorithm %q", c.id, c.algorithm)
	}
	if c.peer == "mastra" {
		opts["version"] = peerVersion
	}
	r.Scorers = []ScorerConfig{{Name: name, Options: opts}}
	if str(c.v, "tools_where") == "configured" {
		for _, d := range items(member(c.v, "tools")) {
			tc := ToolConfig{Name: str(d, "name")}
			if x, ok := d.Get("description"); ok {
				desc := x.StringValue()
				tc.Description = &desc
			}
			if p, ok := d.Get("parameters"); ok {
				tc.Parameters, _ = p.Interface().(map[string]any)
			}
			r.Tools = append(r.Tools, tc)
		}
	}
	return r
}

// mongoExpected maps a MongoDB expected call: its literal parameters to
// args, its {"$matcher": ...} nodes to matchers at their paths.
func mongoExpected(t *testing.T, e jsonv.Value) ExpectedCallConfig {
	optional := member(e, "optional")
	call := ExpectedCallConfig{Tool: str(e, "name"), Optional: optional.Kind() == jsonv.KindBool && optional.BoolValue()}
	a := member(e, "args")
	match := map[string]any{}
	if m, ok := a.Get("$matcher"); ok {
		if m.StringValue() != "anyValue" || len(call.Tool)%2 == 0 {
			// anyValue for the whole parameters is also written as an
			// expected call without args: so for the tools whose name
			// has an odd length (aggregate, count), as match "$": any
			// for the others. Both must score alike.
			match["$"] = mongoMatcher(t, a)
		}
	} else {
		call.Args = splitMatchers(t, a, "$", match).Interface()
	}
	if len(match) > 0 {
		call.Match = match
	}
	return call
}

// splitMatchers returns v without its matcher nodes, adding each to match
// at its path.
func splitMatchers(t *testing.T, v jsonv.Value, path string, match map[string]any) jsonv.Value {
	switch v.Kind() {
	case jsonv.KindObject:
		var ms []jsonv.Member
		for i := 0; i < v.Len(); i++ {
			k, x := v.MemberAt(i)
			p := path + `["` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(k) + `"]`
			if x.Kind() == jsonv.KindObject && x.Has("$matcher") {
				match[p] = mongoMatcher(t, x)
				continue
			}
			ms = append(ms, jsonv.Member{Key: k, Value: splitMatchers(t, x, p, match)})
		}
		return jsonv.Object(ms...)
	case jsonv.KindArray:
		out := make([]jsonv.Value, v.Len())
		for i := range out {
			x := v.Index(i)
			if x.Kind() == jsonv.KindObject && x.Has("$matcher") {
				match[path+"["+strconv.Itoa(i)+"]"] = mongoMatcher(t, x)
				out[i] = jsonv.Null()
				continue
			}
			out[i] = splitMatchers(t, x, path+"["+strconv.Itoa(i)+"]", match)
		}
		return jsonv.Array(out...)
	}
	return v
}

// mongoMatcher writes a MongoDB Matcher as a rule's matcher configuration.
func mongoMatcher(t *testing.T, m jsonv.Value) any {
	of := member(m, "of")
	switch str(m, "$matcher") {
	case "anyValue":
		return "any"
	case "emptyObjectOrUndefined":
		return map[string]any{"any_of": []any{"absent", "null", map[string]any{"type": []any{"object", "array"}, "empty": true}}}
	case "undefined":
		return "absent"
	case "null":
		return "null"
	case "number":
		if f := member(member(m, "filter"), "$fn"); f.Kind() == jsonv.KindString {
			require.Equal(t, "(v) => v > 10", f.StringValue())
			return map[string]any{"type": "number", "range": map[string]any{"gt": 10}}
		}
		return map[string]any{"type": "number"}
	case "string":
		return map[string]any{"type": "string"}
	case "boolean":
		if x, ok := m.Get("expected"); ok {
			return map[string]any{"equals": x.Interface()}
		}
		return map[string]any{"type": "boolean"}
	case "caseInsensitiveString":
		return map[string]any{"case_insensitive": str(m, "expected")}
	case "not":
		return map[string]any{"not": mongoMatcher(t, of)}
	case "anyOf":
		var list []any
		for _, x := range items(of) {
			list = append(list, mongoMatcher(t, x))
		}
		return map[string]any{"any_of": list}
	case "arrayOrSingle":
		return map[string]any{"array_or_single": mongoMatcher(t, of)}
	case "value":
		return map[string]any{"equals": member(m, "expected").Interface()}
	}
	t.Fatalf("unknown MongoDB matcher %s", m.JSON())
	return nil
}

// mastraOptions writes Mastra's options as a configuration gives them:
// the expected trajectory (expectedTrajectory, or createTrajectoryScorerCode's
// defaults) as JSON text written as in Mastra's code, which keeps the key
// order of its data; the other options in snake_case.
func mastraOptions(v jsonv.Value) map[string]any {
	m := map[string]any{}
	for i := 0; i < v.Len(); i++ {
		k, x := v.MemberAt(i)
		switch k {
		case "expectedTrajectory", "defaults":
			m[snake(k)] = x.JSON()
		default:
			m[snake(k)] = snakeKeys(x)
		}
	}
	return m
}

func snakeKeys(v jsonv.Value) any {
	switch v.Kind() {
	case jsonv.KindObject:
		m := make(map[string]any, v.Len())
		for i := 0; i < v.Len(); i++ {
			k, x := v.MemberAt(i)
			m[snake(k)] = snakeKeys(x)
		}
		return m
	case jsonv.KindArray:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = snakeKeys(v.Index(i))
		}
		return out
	}
	return v.Interface()
}

func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

var diffAgent = pcommon.SpanID{1}

// run is the case's agent run as the processor holds it: each call a tool
// span under the agent span, one after another, its arguments and result
// as recorded text.
func (c *diffCase) run() *trajectory.Trajectory {
	conv := extract.ConventionGenAI
	if str(c.v, "convention") == "adk" {
		conv = extract.ConventionADK
	}
	var traj trajectory.Trajectory
	for i, a := range items(member(c.v, "actual_calls")) {
		call := trajectory.StoredCall{Name: str(a, "name"), Parent: diffAgent, Encoding: extract.EncodingAbsent, Convention: conv}
		if x, ok := a.Get("args"); ok {
			call.Args, call.Encoding = x.JSON(), extract.EncodingJSON
		}
		if x, ok := a.Get("output"); ok {
			call.Result = x.JSON()
		}
		call.Failed = boolMember(a, "failed")
		call.MCP = (boolMember(a, "mcp")) || strings.EqualFold(str(a, "type"), "mcp")
		call.Start = uint64(i+1) * 1e9
		dur := 1.0
		if d := member(a, "duration_ms"); d.Kind() == jsonv.KindNumber {
			dur = d.NumberValue()
		}
		call.End = call.Start + uint64(dur*1e6)
		traj.Calls = append(traj.Calls, call)
	}
	return &traj
}

// runContext is the run context holding the recorded tool definitions,
// when the case has them.
func (c *diffCase) runContext(t *testing.T) *toolcall.RunContext {
	if str(c.v, "tools_where") != "recorded" {
		return nil
	}
	defs, err := toolcall.ParseToolDefinitions(member(c.v, "tools").JSON())
	require.NoError(t, err)
	rc := &toolcall.RunContext{}
	rc.Tools.Add(defs...)
	return rc
}

// score scores the case as the processor does, with the default
// configuration (empty_arguments: empty when emptyKnown).
func (c *diffCase) score(t *testing.T, peerVersion string, emptyKnown bool) (toolcall.Result, error) {
	rc := c.rule(t, peerVersion)
	rule, err := compileRule(&rc, nopTelemetry(), nil)
	if err != nil {
		return toolcall.Result{}, err
	}
	cfg := createDefaultConfig().(*Config)
	if emptyKnown {
		cfg.EmptyArguments = "empty"
	}
	opts := trajectory.ScoringOptions{Decode: extract.DecodeOptions{EmptyIsKnown: cfg.EmptyArguments == "empty"}, Durations: true}
	calls := trajectory.ScoringCalls(c.run(), diffAgent, &opts)
	run := c.runContext(t)
	var res toolcall.Result
	toolcall.ScoreInto(context.Background(), rule.Scorers[0].Scorer, rule.Calls(calls, recordedTools(run)), run, &res)
	return res, nil
}

// ---------------------------------------------------------------------------
// Comparing.

// check scores the case and returns the categories of its differences
// from the peer (none when they agree), each with what differs.
func (c *diffCase) check(t *testing.T, peerVersion string) []diffFound {
	res, err := c.score(t, peerVersion, false)
	if err != nil {
		return []diffFound{{"configuration rejected", err.Error()}}
	}
	if res.Outcome == toolcall.OutcomeError && strings.Contains(res.Err.Error(), "arguments unavailable") && c.placeholder() {
		// By design: under empty_arguments: unknown a "{}" that may be a
		// placeholder is unknown. With empty_arguments: empty the profile
		// must score as the peer.
		res, _ = c.score(t, peerVersion, true)
		if found := c.compare(res); len(found) > 0 {
			return found
		}
		return []diffFound{{byDesign, ""}}
	}
	return c.compare(res)
}

// byDesign counts the cases whose "{}" may be a placeholder, which the
// default configuration does not score (and empty_arguments: empty does,
// as the peer).
const byDesign = `by design: "{}" may be a placeholder (agrees with empty_arguments: empty)`

type diffFound struct{ category, detail string }

// compare compares a result with what the peer returned.
func (c *diffCase) compare(res toolcall.Result) []diffFound {
	peerErr, peerFailed := c.v.Get("error")
	if res.Outcome == toolcall.OutcomeError {
		if peerFailed {
			return nil
		}
		return []diffFound{{c.errorCategory(res.Err), fmt.Sprintf("profile error %q, peer score %v", res.Err, member(c.v, "score").JSON())}}
	}
	if peerFailed {
		return []diffFound{{"peer error, profile scored", fmt.Sprintf("peer %q, profile %v", peerErr.StringValue(), res.Score)}}
	}
	var found []diffFound
	score := member(c.v, "score")
	want := score.NumberValue()
	if math.Abs(res.Score-want) > 1e-12 {
		found = append(found, diffFound{c.scoreCategory(), fmt.Sprintf("score %v, peer %v", res.Score, want)})
	} else {
		pass := res.Outcome == toolcall.OutcomePass
		peerPass := want >= 1 // no success rule of its own: the rule's default threshold
		if s, ok := c.v.Get("success"); ok && s.Kind() == jsonv.KindBool {
			peerPass = s.BoolValue()
		}
		if pass != peerPass {
			found = append(found, diffFound{"pass/fail (threshold)", fmt.Sprintf("score %v: profile %v (threshold %v), peer %v", res.Score, res.Outcome, res.Threshold, peerPass)})
		}
	}
	if r, ok := c.v.Get("reason"); ok && c.peer == "deepeval" {
		want := deepevalCallingReason(r.StringValue())
		_, got, _ := strings.Cut(res.Explanation, ": ")
		if canonicalReason(got) != canonicalReason(want) {
			found = append(found, diffFound{"reason text", fmt.Sprintf("\n           profile %q\n           peer    %q", got, want)})
		}
	}
	return found
}

// placeholder reports whether a call of the case was made with "{}" that
// may be a placeholder: recorded in a convention that writes "{}" for
// arguments it does not capture (ADK), to a tool whose definition (when
// the case has one) requires parameters, and not expected with "{}".
func (c *diffCase) placeholder() bool {
	if str(c.v, "convention") != "adk" {
		return false
	}
	for _, a := range items(member(c.v, "actual_calls")) {
		x := member(a, "args")
		if x.Kind() != jsonv.KindObject || x.Len() != 0 {
			continue
		}
		name := str(a, "name")
		if !c.definedWithoutRequired(name) && !c.expectsEmpty(name) {
			return true
		}
	}
	return false
}

func (c *diffCase) definedWithoutRequired(name string) bool {
	for _, d := range items(member(c.v, "tools")) {
		if str(d, "name") == name {
			return member(member(d, "parameters"), "required").Len() == 0
		}
	}
	return false
}

// expectsEmpty reports whether the case expects a call to name with "{}":
// an expected call's arguments, or an expected step's toolArgs.
func (c *diffCase) expectsEmpty(name string) bool {
	empty := func(v jsonv.Value) bool { return v.Kind() == jsonv.KindObject && v.Len() == 0 }
	for _, e := range items(member(c.v, "expected_calls")) {
		if str(e, "name") == name && empty(member(e, "args")) {
			return true
		}
	}
	var steps func(v jsonv.Value) bool
	steps = func(v jsonv.Value) bool {
		switch v.Kind() {
		case jsonv.KindObject:
			if str(v, "name") == name && empty(member(v, "toolArgs")) {
				return true
			}
			for i := 0; i < v.Len(); i++ {
				if _, x := v.MemberAt(i); steps(x) {
					return true
				}
			}
		case jsonv.KindArray:
			for i := 0; i < v.Len(); i++ {
				if steps(v.Index(i)) {
					return true
				}
			}
		}
		return false
	}
	return steps(member(c.v, "options"))
}

func (c *diffCase) errorCategory(err error) string {
	msg := err.Error()
	if strings.Contains(msg, "arguments unavailable") && c.hasEmptyArgs() {
		return `"{}" read as unknown arguments`
	}
	if len(msg) > 60 {
		msg = msg[:60]
	}
	return "profile error, peer scored: " + msg
}

// hasEmptyArgs reports a call made with "{}".
func (c *diffCase) hasEmptyArgs() bool {
	for _, a := range items(member(c.v, "actual_calls")) {
		if x := member(a, "args"); x.Kind() == jsonv.KindObject && x.Len() == 0 {
			return true
		}
	}
	return false
}

// scoreCategory names a score difference: for Mastra's data comparisons,
// whether an expected data object is written with its keys out of sorted
// order (the order a configuration map gives them).
func (c *diffCase) scoreCategory() string {
	if c.peer == "mastra" && unsortedData(member(c.v, "options")) {
		return "score (expected data keys not in sorted order)"
	}
	return "score"
}

func unsortedData(v jsonv.Value) bool {
	switch v.Kind() {
	case jsonv.KindObject:
		for i := 0; i < v.Len(); i++ {
			k, x := v.MemberAt(i)
			if (k == "toolArgs" || k == "toolResult") && !sortedKeys(x) {
				return true
			}
			if unsortedData(x) {
				return true
			}
		}
	case jsonv.KindArray:
		for i := 0; i < v.Len(); i++ {
			if unsortedData(v.Index(i)) {
				return true
			}
		}
	}
	return false
}

func sortedKeys(v jsonv.Value) bool {
	switch v.Kind() {
	case jsonv.KindObject:
		for i := 0; i < v.Len(); i++ {
			k, x := v.MemberAt(i)
			if i > 0 {
				if prev, _ := v.MemberAt(i - 1); prev > k {
					return false
				}
			}
			if !sortedKeys(x) {
				return false
			}
		}
	case jsonv.KindArray:
		for i := 0; i < v.Len(); i++ {
			if !sortedKeys(v.Index(i)) {
				return false
			}
		}
	}
	return true
}

// deepevalCallingReason is the tool-calling part of DeepEval's final
// reason ("[\n\t Tool Calling Reason: ...\n\t Tool Selection Reason: ...").
func deepevalCallingReason(final string) string {
	_, rest, _ := strings.Cut(final, "Tool Calling Reason: ")
	r, _, _ := strings.Cut(rest, "\n\t Tool Selection Reason: ")
	return r
}

// canonicalReason sorts the items of the lists DeepEval builds from
// Python sets ("missing tools [...]", "out-of-order tools [...]"), whose
// order depends on the process's string hash seed: any order is DeepEval's.
func canonicalReason(s string) string {
	var b strings.Builder
	for {
		i, label := -1, ""
		for _, l := range []string{"missing tools [", "out-of-order tools ["} {
			if j := strings.Index(s, l); j >= 0 && (i < 0 || j < i) {
				i, label = j, l
			}
		}
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+len(label)])
		s = s[i+len(label):]
		elems, rest := splitPyList(s)
		sort.Strings(elems)
		b.WriteString(strings.Join(elems, ", "))
		s = rest
	}
}

// splitPyList splits the items of a Python list repr whose "[" was just
// read, up to its "]": items are separated by ", " outside brackets,
// parentheses, braces and quotes.
func splitPyList(s string) (elems []string, rest string) {
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '[' || ch == '(' || ch == '{':
			depth++
		case ch == ')' || ch == '}':
			depth--
		case ch == ']':
			if depth == 0 {
				if i > start {
					elems = append(elems, s[start:i])
				}
				return elems, s[i:]
			}
			depth--
		case ch == ',' && depth == 0:
			elems = append(elems, s[start:i])
			start = i + 2
			i++
		}
	}
	return elems, ""
}

// boolMember reports whether member key of v is true.
func boolMember(v jsonv.Value, key string) bool {
	m := member(v, key)
	return m.Kind() == jsonv.KindBool && m.BoolValue()
}
