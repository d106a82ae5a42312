package peers

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// RagasName is the registered name of the Ragas profile (ToolCallAccuracy
// and ToolCallF1), documented on the ragas type in ragas.go.
const RagasName = "ragas"

// The Ragas metrics the profile reproduces.
const (
	RagasToolCallAccuracy = "tool_call_accuracy"
	RagasToolCallF1       = "tool_call_f1"
)

func init() { toolcall.Register(RagasName, newRagas) }

// ragas reproduces Ragas' ToolCallAccuracy and ToolCallF1
// (src/ragas/metrics/_tool_call_accuracy.py and _tool_call_f1.py at git
// 3e28e9de, 2025-12-06).
//
// Options:
//
//	metric                 tool_call_accuracy (default) | tool_call_f1
//	strict_order           bool, default true (tool_call_accuracy only)
//	arg_comparison_metric  only "exact_match" (the default; other Ragas metrics need models or fuzzy scorers)
//
// tool_call_accuracy:
//
//	both empty -> 1; no predicted calls -> 0; no reference calls -> 0
//	strict_order false: both lists are stably sorted by (name, k1, str(v1), k2, str(v2), ...), keys sorted
//	aligned = names equal as sequences (strict) or as sorted lists; any length mismatch -> 0
//	score = sum over zip(reference, predicted) of same-name pairs of arg_score / len(reference), times aligned
//	arg_score: both empty -> 1; reference empty -> 0; else for each reference key present in the
//	    prediction, ExactMatch(str(pred[k]), str(ref[k])), divided by the reference key count
//
// tool_call_f1: sets of (name, frozenset(args.items())); TP = |A & E|, P = TP/|A|, R = TP/|E|,
// F1 = 2PR/(P+R) (0 when P+R = 0), round(F1, 4).
//
// Quirks reproduced (each has a test case):
//
//   - All-or-nothing on names: any length or name-sequence mismatch scores
//     0; partial credit comes only from arguments.
//   - Values compare as Python str(): 5 matches "5", None matches "None",
//     True matches "True", but 1.0 does not match 1 ("1.0" vs "1") and dicts
//     depend on key order ("{'a': 1, 'b': 2}").
//   - Extra predicted arguments are free; a reference without arguments
//     fails a prediction that has some.
//   - Unordered mode pairs by sorted position, not by best match.
//   - F1 collapses duplicates (sets); both empty -> 0.0 (not 1); 1, 1.0 and
//     True are the same element but "1" is not.
//   - F1 raises TypeError: unhashable type: 'dict' (or 'list') on any nested
//     argument value, on either side: an error result here.
//   - round(f1, 4) is Python's correct decimal rounding (0.03125 -> 0.0312).
//   - reference_tool_calls None: tool_call_accuracy asserts it is set
//     (AssertionError "Reference tool calls is not set", an error result
//     here); tool_call_f1 reads it as empty. Score has no None reference;
//     ScoreSample takes one.
//
// Expectation mapping: expected calls become reference_tool_calls (name;
// Args -> args, absent -> {}); actual calls become the tool_calls of the AI
// messages (absent Args -> {}); arguments that are null or not an object are
// a Ragas validation error. Order exact and in_order map to strict_order
// true, any to false, unless strict_order is given. Matchers, optional calls,
// must_succeed and forbidden tools are rejected. Calls with unknown
// arguments make the result an error when their arguments are compared
// (accuracy: a same-name pair with reference arguments; F1: always).
//
// Reference vs source notes (the notes win): F1's nested-argument TypeError
// holds for the pinned commit 3e28e9de (Ragas fixed it on 2025-12-15; we
// follow the pinned version, as the vectors do); F1 equality is Python's,
// so 1, 1.0 and True collapse; round(f1, 4) rounds the exact binary value
// half to even; str() compares Python reprs (1.0 is "1.0", dicts keep
// insertion order) and top-level strings unquoted; unordered mode pairs by
// sorted position.
//
// Details: tool_call_accuracy: warnings (Ragas' warning texts);
// tool_call_f1: tp, fp, fn.
type ragas struct {
	metric      string
	strictOrder bool
	threshold   float64
	// omitDetails: Settings.OmitDetails.
	omitDetails bool
	reference   []toolcall.ExpectedCall
	refIdx      []int
}

var _ toolcall.Scorer = (*ragas)(nil)

func newRagas(s toolcall.Settings) (toolcall.Scorer, error) {
	r := toolcall.NewOptionReader(RagasName, s.Options)
	g := &ragas{threshold: s.Threshold, omitDetails: s.OmitDetails}
	g.metric = r.String("metric", RagasToolCallAccuracy, RagasToolCallAccuracy, RagasToolCallF1)
	_, hasStrict := r.Opts["strict_order"]
	g.strictOrder = r.Bool("strict_order", true)
	if x, ok := r.Raw("arg_comparison_metric"); ok {
		if name, isStr := x.(string); !isStr || name != "exact_match" {
			r.Fail("arg_comparison_metric", "only \"exact_match\" is supported, got %s", toolcall.DescribeOperand(x))
		}
	}
	if g.metric == RagasToolCallF1 && hasStrict {
		r.Fail("strict_order", "applies only to metric %q", RagasToolCallAccuracy)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	e := s.Expectation
	if err := CheckPeerExpectation(RagasName, e, PeerFeatures{}); err != nil {
		return nil, err
	}
	if !hasStrict && e.Order == toolcall.OrderAny {
		g.strictOrder = false
	}
	g.reference, g.refIdx = toolExpectations(e.Calls)
	for i := range g.reference {
		if k := g.reference[i].Args.Kind(); k != jsonv.KindUndefined && k != jsonv.KindObject {
			return nil, fmt.Errorf("ragas: calls[%d] (%s): args must be a dict, got %s", mapIndex(g.refIdx, i), g.reference[i].Name, k)
		}
	}
	return g, nil
}

func (g *ragas) Name() string { return RagasName }

// ScoreSample scores a MultiTurnSample whose reference_tool_calls may be
// None (referenceNone). ToolCallAccuracy asserts the reference is set
// (AssertionError, an error result here); ToolCallF1 reads None as an empty
// list. Otherwise it is Score.
func (g *ragas) ScoreSample(ctx context.Context, calls []toolcall.Call, referenceNone bool) toolcall.Result {
	if !referenceNone {
		return g.Score(ctx, calls)
	}
	if g.metric != RagasToolCallF1 {
		return toolcall.ErrorResult(RagasName, g.threshold, errors.New("ragas: AssertionError: Reference tool calls is not set"))
	}
	empty := *g
	empty.reference = nil
	return empty.Score(ctx, calls)
}

// ragasCall is a Ragas ToolCall.
type ragasCall struct {
	name    string
	args    jsonv.Value // an object (undefined args read as {})
	unknown bool
	pos     int
}

var emptyObject = jsonv.Object()

// Score implements Scorer.
func (g *ragas) Score(_ context.Context, calls []toolcall.Call) (res toolcall.Result) {
	g.ScoreInto(calls, nil, &res)
	return res
}

// ScoreInto is Score writing its result to res (see ScoreInto).
func (g *ragas) ScoreInto(calls []toolcall.Call, _ *toolcall.RunContext, res *toolcall.Result) {
	calls = toolcall.WithArguments(calls)
	tools := FlattenToolCalls(calls)
	pred := make([]ragasCall, len(tools))
	for j := range tools {
		t := &tools[j]
		rc := ragasCall{name: t.Name, args: t.Args, unknown: t.ArgsUnknown, pos: j}
		switch {
		case t.ArgsUnknown:
		case t.Args.Kind() == jsonv.KindUndefined:
			rc.args = emptyObject
		case t.Args.Kind() != jsonv.KindObject:
			toolcall.SetError(res, RagasName, g.threshold, fmt.Errorf("ragas: call %d (%s): ToolCall.args must be a dict, got %s (pydantic ValidationError)", j+1, t.Name, t.Args.Kind()))
			return
		}
		pred[j] = rc
	}
	ref := make([]ragasCall, len(g.reference))
	for i := range g.reference {
		ref[i] = ragasCall{name: g.reference[i].Name, args: g.reference[i].Args, pos: i}
		if ref[i].args.Kind() == jsonv.KindUndefined {
			ref[i].args = emptyObject
		}
	}
	if g.metric == RagasToolCallF1 {
		g.f1(pred, ref, res)
		return
	}
	g.accuracy(pred, ref, res)
}

func (g *ragas) accuracy(pred, ref []ragasCall, res *toolcall.Result) {
	*res = toolcall.Result{Scorer: RagasName, Threshold: g.threshold}
	warnings := []string{}
	finish := func(score float64, why string) {
		res.Score = score
		if !g.omitDetails {
			res.Details = map[string]any{"warnings": warnings}
		}
		res.Decide()
		res.Explanation = toolcall.FormatScore(score) + ": " + why
	}
	switch {
	case len(pred) == 0 && len(ref) == 0:
		finish(1, "no tool calls expected and none made")
		return
	case len(pred) == 0:
		warnings = append(warnings, "No tool calls found in the user input")
		finish(0, "no tool calls found in the user input")
		return
	case len(ref) == 0:
		warnings = append(warnings, "Reference tool calls are empty but predictions exist")
		finish(0, "reference tool calls are empty but predictions exist")
		return
	}
	if !g.strictOrder {
		for _, list := range [][]ragasCall{pred, ref} {
			for i := range list {
				if list[i].unknown {
					toolcall.SetError(res, RagasName, g.threshold, fmt.Errorf("ragas: arguments unavailable for call %d (%s); Ragas sorts calls by their arguments when strict_order is false", list[i].pos+1, list[i].name))
					return
				}
			}
		}
		pred = ragasSorted(pred)
		ref = ragasSorted(ref)
	}
	if len(pred) != len(ref) {
		n := min(len(pred), len(ref))
		warnings = append(warnings, fmt.Sprintf("Length mismatch: predicted tool calls (%d) vs reference tool calls (%d). Only the first %d tool calls will be compared.", len(pred), len(ref), n))
	}
	aligned := len(pred) == len(ref)
	if aligned {
		pn := make([]string, len(pred))
		rn := make([]string, len(ref))
		for i := range pred {
			pn[i], rn[i] = pred[i].name, ref[i].name
		}
		if !g.strictOrder {
			sort.Strings(pn)
			sort.Strings(rn)
		}
		for i := range pn {
			if pn[i] != rn[i] {
				aligned = false
				break
			}
		}
	}
	score := 0.0
	n := min(len(pred), len(ref))
	for i := 0; i < n; i++ {
		if ref[i].name != pred[i].name {
			continue
		}
		s, err := g.argScore(&pred[i], &ref[i])
		if err != nil {
			toolcall.SetError(res, RagasName, g.threshold, err)
			return
		}
		score += s
		if aligned {
			res.Breakdown.Pairs = append(res.Breakdown.Pairs, toolcall.Pair{Expected: int32(mapIndex(g.refIdx, ref[i].pos)), Actual: int32(pred[i].pos), Score: s})
		}
	}
	score /= float64(len(ref))
	if n < len(ref) {
		score *= float64(n) / float64(len(ref))
	}
	if !aligned {
		score = 0
		finish(0, "the called tools do not match the reference sequence")
		return
	}
	finish(score, fmt.Sprintf("tool names aligned, mean argument score %s", toolcall.FormatScore(score)))
}

// argScore is _get_arg_score(preds, refs) with ExactMatch on str().
func (g *ragas) argScore(p, r *ragasCall) (float64, error) {
	if p.unknown {
		return 0, fmt.Errorf("ragas: arguments unavailable for call %d (%s); Ragas compares arguments", p.pos+1, p.name)
	}
	if r.args.Len() == 0 {
		if p.args.Len() == 0 {
			return 1, nil
		}
		return 0, nil
	}
	s := 0.0
	for k := 0; k < r.args.Len(); k++ {
		key, rv := r.args.MemberAt(k)
		pv, ok := p.args.Get(key)
		if !ok {
			continue
		}
		if pyStrEqual(pv, rv) {
			s += 1
		}
	}
	return s / float64(r.args.Len()), nil
}

// ragasSorted is sorted(calls, key=_sorted_key_for_tool_call).
func ragasSorted(calls []ragasCall) []ragasCall {
	type keyed struct {
		key []string
		c   ragasCall
	}
	ks := make([]keyed, len(calls))
	for i, c := range calls {
		key := []string{c.name}
		names := c.args.Keys()
		sort.Strings(names)
		for _, n := range names {
			v, _ := c.args.Get(n)
			key = append(key, n, PyStr(v))
		}
		ks[i] = keyed{key, c}
	}
	sort.SliceStable(ks, func(a, b int) bool {
		x, y := ks[a].key, ks[b].key
		for i := 0; i < len(x) && i < len(y); i++ {
			if x[i] != y[i] {
				return x[i] < y[i]
			}
		}
		return len(x) < len(y)
	})
	out := make([]ragasCall, len(calls))
	for i := range ks {
		out[i] = ks[i].c
	}
	return out
}

// ragasHashable checks that frozenset(args.items()) can be built.
func ragasHashable(c *ragasCall) error {
	if c.unknown {
		return fmt.Errorf("ragas: arguments unavailable for call %d (%s); ToolCallF1 compares arguments", c.pos+1, c.name)
	}
	for k := 0; k < c.args.Len(); k++ {
		_, v := c.args.MemberAt(k)
		switch v.Kind() {
		case jsonv.KindObject:
			return fmt.Errorf("ragas: TypeError: unhashable type: 'dict' (argument of %s; ToolCallF1 at 3e28e9de cannot score nested arguments)", c.name)
		case jsonv.KindArray:
			return fmt.Errorf("ragas: TypeError: unhashable type: 'list' (argument of %s; ToolCallF1 at 3e28e9de cannot score nested arguments)", c.name)
		}
	}
	return nil
}

// ragasSameElement is equality of (name, frozenset(args.items())).
func ragasSameElement(a, b *ragasCall) bool {
	if a.name != b.name || a.args.Len() != b.args.Len() {
		return false
	}
	for k := 0; k < a.args.Len(); k++ {
		key, v := a.args.MemberAt(k)
		w, ok := b.args.Get(key)
		if !ok || !pyEqual(v, w) {
			return false
		}
	}
	return true
}

func ragasSet(calls []ragasCall) []ragasCall {
	var out []ragasCall
	for i := range calls {
		dup := false
		for j := range out {
			if ragasSameElement(&out[j], &calls[i]) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, calls[i])
		}
	}
	return out
}

func (g *ragas) f1(pred, ref []ragasCall, res *toolcall.Result) {
	for i := range ref {
		if err := ragasHashable(&ref[i]); err != nil {
			toolcall.SetError(res, RagasName, g.threshold, err)
			return
		}
	}
	for i := range pred {
		if err := ragasHashable(&pred[i]); err != nil {
			toolcall.SetError(res, RagasName, g.threshold, err)
			return
		}
	}
	e, a := ragasSet(ref), ragasSet(pred)
	tp := 0
	for i := range a {
		for j := range e {
			if ragasSameElement(&a[i], &e[j]) {
				tp++
				break
			}
		}
	}
	fp, fn := len(a)-tp, len(e)-tp
	var p, r, f1 float64
	if tp+fp > 0 {
		p = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		r = float64(tp) / float64(tp+fn)
	}
	if p+r > 0 {
		f1 = 2 * p * r / (p + r)
	}
	score := pyRound4(f1)
	*res = toolcall.Result{Scorer: RagasName, Threshold: g.threshold, Score: score}
	if !g.omitDetails {
		res.Details = map[string]any{"tp": tp, "fp": fp, "fn": fn}
	}
	res.Decide()
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: F1 of tool calls (%d matched, %d unexpected, %d missing)", toolcall.FormatScore(score), tp, fp, fn)
	res.Explanation = sb.String()
}
