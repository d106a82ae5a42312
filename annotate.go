package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"slices"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/rules"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// Attribute names written on agent spans.
const (
	attrPrefix      = "tool_call_accuracy."
	attrRules       = attrPrefix + "rules"
	attrScore       = attrPrefix + "score"
	attrPassed      = attrPrefix + "passed"
	attrFailedRules = attrPrefix + "failed_rules"
	attrToolCalls   = attrPrefix + "tool_calls"

	eventEvaluation  = "gen_ai.evaluation.result"
	attrEvalName     = "gen_ai.evaluation.name"
	attrEvalScore    = "gen_ai.evaluation.score.value"
	attrEvalLabel    = "gen_ai.evaluation.score.label"
	attrEvalExplain  = "gen_ai.evaluation.explanation"
	attrErrorType    = "error.type"
	attrEventRule    = attrPrefix + "rule"
	attrEventScorer  = attrPrefix + "scorer"
	errorTypeScoring = "scoring_error"
	droppedWarning   = " (incomplete: calls over max_calls_per_trajectory were dropped)"
	rootPassedNote   = " (the trace root passed before the spans of its run: the run's verdict is written on this span of it)"
)

// The keys written whatever the rules, as the writer takes them.
var (
	keyRules, keyScore, keyPassed, keyFailedRules, keyToolCalls = fixedKey(attrRules), fixedKey(attrScore), fixedKey(attrPassed), fixedKey(attrFailedRules), fixedKey(attrToolCalls)
	keyEvalName, keyEventRule, keyEventScorer                   = fixedKey(attrEvalName), fixedKey(attrEventRule), fixedKey(attrEventScorer)
	keyEvalScore, keyEvalLabel, keyErrorType, keyEvalExplain    = fixedKey(attrEvalScore), fixedKey(attrEvalLabel), fixedKey(attrErrorType), fixedKey(attrEvalExplain)
	// callStatusKeys are the keys of call_statuses, by status.
	callStatusKeys = func() (keys [numCallStatuses]annotationKey) {
		for st, name := range callStatusNames {
			keys[st] = fixedKey(name)
		}
		return keys
	}()
)

// runGaps is what a run's explanations say it lacks: calls dropped over
// max_calls_per_trajectory, or spans its trace still showed missing when
// wait_for_missing ran out.
type runGaps struct {
	dropped int32
	missing trajectory.Missing
	// noToolSpans marks a run still waiting, at its deadline, for the tool
	// spans of calls its model requested, without any: its app most likely
	// ran them by hand.
	noToolSpans bool
	// early marks a run released before wait_for_missing ran out because
	// limits.max_held_runs runs were held; rootPassed the run of a trace
	// root that passed before its spans, written on a span of the run.
	early, rootPassed bool
}

// gapsOf returns what traj lacks.
func gapsOf(traj *trajectory.Trajectory) runGaps {
	return runGaps{dropped: traj.Dropped, missing: traj.Missing, noToolSpans: traj.Missing == trajectory.MissingExecution && len(traj.Calls) == 0, early: traj.ReleasedEarly, rootPassed: traj.RootPassed}
}

// note is appended to each explanation of a run with gaps.
func (g runGaps) note() string {
	var s string
	if g.rootPassed {
		s = rootPassedNote
	}
	if g.dropped > 0 {
		s += droppedWarning
	}
	switch {
	case g.noToolSpans && !g.early:
		s += " (no tool span arrived for the requested calls within wait_for_missing: scored from the model's requests)"
	case g.missing != trajectory.MissingNone && g.early:
		s += " (incomplete: scored without " + g.missing.String() + ", released early: limits.max_held_runs runs were held)"
	case g.missing != trajectory.MissingNone:
		s += " (incomplete: scored without " + g.missing.String() + ")"
	}
	return s
}

// ruleOutput holds the attribute keys and event names of one rule's
// results, built once when the processor starts rather than per span.
type ruleOutput struct {
	name                                  string
	scorer, outcome, passed, score        annotationKey
	missingTools, unexpectedTools, reason annotationKey
	callStatuses                          annotationKey
	// labels and evalNames ("<rule>/<label>") are per configured scorer.
	labels, evalNames []string
}

// eventAttrs is how many attributes annotateEvent writes at most.
const eventAttrs = 6

func newRuleOutputs(rs []*rules.Rule) []ruleOutput {
	out := make([]ruleOutput, len(rs))
	for i, r := range rs {
		o := ruleOutput{
			name:            r.Name,
			scorer:          ruleKey(r.Name, fieldScorer),
			outcome:         ruleKey(r.Name, fieldOutcome),
			passed:          ruleKey(r.Name, fieldPassed),
			score:           ruleKey(r.Name, fieldScore),
			missingTools:    ruleKey(r.Name, fieldMissingTools),
			unexpectedTools: ruleKey(r.Name, fieldUnexpectedTools),
			reason:          ruleKey(r.Name, fieldExplanation),
			callStatuses:    ruleKey(r.Name, fieldCallStatuses),
		}
		for _, sc := range r.Scorers {
			o.labels = append(o.labels, sc.Label)
			o.evalNames = append(o.evalNames, r.Name+"/"+sc.Label)
		}
		out[i] = o
	}
	return out
}

// annotate writes a run's results on its agent span: flat attributes under
// tool_call_accuracy.* (a summary, then one group per rule, from the rule's
// primary scorer; with rule_attributes on_failure, per rule that failed or
// errored) and one gen_ai.evaluation.result event per rule and scorer.
// The run's tool names are listed as cfg.ToolCalls says.
// Lists that would be empty (failed rules, missing and unexpected tools) are
// left out. Attributes other than ours are never touched.
//
// When run.keep is set and the span carries the attributes, the
// annotations are also appended to *run.keep, packed as written (see
// annotationWriter), unless the span carried annotations before: then
// nothing is appended, and whoever keeps them reads the span back.
func annotate(span ptrace.Span, run *scoredRun, rs []*rules.Rule, outs []ruleOutput, cfg *OutputConfig) {
	w := annotationWriter{pack: run.keep != nil && cfg.Attributes && packs(span)}
	if w.pack {
		w.buf = *run.keep
	}
	if cfg.Attributes {
		annotateAttributes(&w, span.Attributes(), run, rs, outs, cfg)
	}
	events := span.Events()
	before := events.Len()
	at := w.begin()
	if cfg.Events {
		events.EnsureCapacity(before + len(run.evals))
		for i := range run.evals {
			annotateEvent(&w, events, span.EndTimestamp(), &run.evals[i], run, outs, cfg.MaxExplanationLength)
		}
	}
	w.end(at, events.Len()-before)
	if w.pack {
		*run.keep = w.buf
	}
}

// annotateAttributes writes the run's attributes. Each key is written once
// (rule names are unique and have no dot), so the attributes grow by one
// per key written unless the span had the key before.
func annotateAttributes(w *annotationWriter, attrs pcommon.Map, run *scoredRun, rs []*rules.Rule, outs []ruleOutput, cfg *OutputConfig) {
	before := attrs.Len()
	attrs.EnsureCapacity(before + attributeCount(run, cfg))
	at := w.begin()
	rules, failing := primaryCount(run)
	names, namesAt := w.putEmptySlice(attrs, &keyRules, rules)
	for i := range run.evals {
		if run.evals[i].scorer == 0 {
			w.appendStr(names, outs[run.evals[i].rule].name)
		}
	}
	w.end(namesAt, names.Len())
	minScore, allPassed, scored := 1.0, true, false
	for i := range run.evals {
		ev := &run.evals[i]
		if ev.scorer != 0 {
			continue
		}
		o := &outs[ev.rule]
		res := &ev.result
		if hasScore(res.Outcome) {
			minScore = min(minScore, res.Score)
			scored = true
		}
		if !failsRun(res.Outcome) && !cfg.writesPassingRules() {
			continue // its result is in its event alone
		}
		w.putStr(attrs, &o.scorer, o.labels[0])
		w.putStr(attrs, &o.outcome, res.Outcome.String())
		w.putBool(attrs, &o.passed, res.Outcome == toolcall.OutcomePass)
		if hasScore(res.Outcome) {
			w.putDouble(attrs, &o.score, res.Score)
		}
		if failsRun(res.Outcome) {
			if allPassed {
				putFailedRules(w, attrs, run.evals[i:], outs, failing)
			}
			allPassed = false
		}
		b := &res.Breakdown
		putNames(w, attrs, &o.missingTools, rs[ev.rule].Expectation.Calls, expectedName, b.Missing)
		putNames(w, attrs, &o.unexpectedTools, ev.calls, callName, b.Unexpected, b.Forbidden, b.Hallucinated)
		putCallStatuses(w, attrs, &o.callStatuses, ev, rs[ev.rule].Expectation.Calls)
		w.putStr(attrs, &o.reason, ev.explanation(run.gaps, cfg.MaxExplanationLength))
	}
	if scored {
		w.putDouble(attrs, &keyScore, minScore)
	}
	w.putBool(attrs, &keyPassed, allPassed)
	if cfg.listsToolCalls(allPassed) {
		calls, callsAt := w.putEmptySlice(attrs, &keyToolCalls, len(run.calls))
		for i := range run.calls {
			w.appendStr(calls, validText(run.calls[i].Name))
		}
		w.end(callsAt, calls.Len())
	}
	w.end(at, attrs.Len()-before)
}

// putFailedRules writes tool_call_accuracy.failed_rules, where the first
// failing rule's attributes are, listing that rule and every later one that
// fails: evals starts at the first failing primary evaluation, failing
// counts them.
func putFailedRules(w *annotationWriter, attrs pcommon.Map, evals []evaluation, outs []ruleOutput, failing int) {
	failed, at := w.putEmptySlice(attrs, &keyFailedRules, failing)
	for i := range evals {
		if evals[i].scorer == 0 && failsRun(evals[i].result.Outcome) {
			w.appendStr(failed, outs[evals[i].rule].name)
		}
	}
	w.end(at, failed.Len())
}

// attributeCount returns how many attributes annotateAttributes writes for
// run at most, so that the span's attributes grow once, to the size they
// need.
func attributeCount(run *scoredRun, cfg *OutputConfig) int {
	n := 2 // rules, passed
	scored, failed := false, false
	for i := range run.evals {
		ev := &run.evals[i]
		if ev.scorer != 0 {
			continue
		}
		res := &ev.result
		if hasScore(res.Outcome) {
			scored = true
		}
		failed = failed || failsRun(res.Outcome)
		if !failsRun(res.Outcome) && !cfg.writesPassingRules() {
			continue
		}
		n += 4 // scorer, outcome, passed, explanation
		if hasScore(res.Outcome) {
			n++
		}
		b := &res.Breakdown
		if len(b.Missing) > 0 {
			n++
		}
		if len(b.Unexpected)+len(b.Forbidden)+len(b.Hallucinated) > 0 {
			n++
		}
		if hasCallStatuses(b) {
			n++
		}
	}
	if scored {
		n++
	}
	if failed {
		n++ // failed_rules
	}
	if cfg.listsToolCalls(!failed) {
		n++
	}
	return n
}

// hasScore reports whether an outcome carries a score.
func hasScore(o toolcall.Outcome) bool {
	return o == toolcall.OutcomePass || o == toolcall.OutcomeFail
}

// failsRun reports whether an outcome makes tool_call_accuracy.passed false
// (a fail or an error; a run no scorer evaluated does not fail).
func failsRun(o toolcall.Outcome) bool {
	return o != toolcall.OutcomePass && o != toolcall.OutcomeNotEvaluated
}

// listsToolCalls reports whether tool_call_accuracy.tool_calls is written
// for a run that passed, or did not.
func (cfg *OutputConfig) listsToolCalls(passed bool) bool {
	return cfg.ToolCalls == ToolCallsAlways || cfg.ToolCalls == ToolCallsOnFailure && !passed
}

// writesPassingRules reports whether the rules that did not fail or error
// the run (passed, not evaluated) get their tool_call_accuracy.<rule>.*
// attributes.
func (cfg *OutputConfig) writesPassingRules() bool {
	return cfg.RuleAttributes != RuleAttributesOnFailure
}

// primaryCount returns how many rules the run's evaluations cover (one
// evaluation per rule is its primary scorer's) and how many of those fail
// the run, to size the rules and failed_rules lists.
func primaryCount(run *scoredRun) (rules, failing int) {
	for i := range run.evals {
		if run.evals[i].scorer != 0 {
			continue
		}
		rules++
		if failsRun(run.evals[i].result.Outcome) {
			failing++
		}
	}
	return rules, failing
}

// putNames writes, as one list attribute, the names of the items at the
// indexes of each list in turn; indexes out of range are skipped, and an
// empty list is left out. The names go straight into the attribute, with
// no list of strings in between.
func putNames[T any](w *annotationWriter, attrs pcommon.Map, key *annotationKey, items []T, name func(*T) string, lists ...[]int) {
	n := 0
	for _, idx := range lists {
		for _, i := range idx {
			if i >= 0 && i < len(items) {
				n++
			}
		}
	}
	if n == 0 {
		return
	}
	s, at := w.putEmptySlice(attrs, key, n)
	for _, idx := range lists {
		for _, i := range idx {
			if i >= 0 && i < len(items) {
				w.appendStr(s, validText(name(&items[i])))
			}
		}
	}
	w.end(at, s.Len())
}

func expectedName(c *toolcall.ExpectedCall) string { return c.Name }

func callName(c *toolcall.Call) string { return c.Name }

// validText returns s with every byte sequence that is not UTF-8 replaced
// by U+FFFD. Tool names, and the explanations that quote them and their
// arguments, come from span attributes, which OTLP/protobuf senders may fill
// with any bytes; an attribute we write must be a valid string, or exporters
// that encode JSON or protobuf strings fail or alter it. Valid text, the
// usual case, is returned as it is, without allocating.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// annotateEvent appends the evaluation's event to events, at ts.
func annotateEvent(w *annotationWriter, events ptrace.SpanEventSlice, ts pcommon.Timestamp, ev *evaluation, run *scoredRun, outs []ruleOutput, maxLen int) {
	o := &outs[ev.rule]
	res := &ev.result
	attrs, at := w.appendEvent(events, ts, eventAttrs)
	w.putStr(attrs, &keyEvalName, o.evalNames[ev.scorer])
	w.putStr(attrs, &keyEventRule, o.name)
	w.putStr(attrs, &keyEventScorer, o.labels[ev.scorer])
	switch res.Outcome {
	case toolcall.OutcomePass, toolcall.OutcomeFail:
		w.putDouble(attrs, &keyEvalScore, res.Score)
		w.putStr(attrs, &keyEvalLabel, res.Outcome.String())
	case toolcall.OutcomeError:
		w.putStr(attrs, &keyErrorType, errorTypeScoring)
	case toolcall.OutcomeNotEvaluated:
		w.putStr(attrs, &keyEvalLabel, res.Outcome.String())
	}
	w.putStr(attrs, &keyEvalExplain, ev.explanation(run.gaps, maxLen))
	w.end(at, attrs.Len())
}

// explanation returns the evaluation's explanation as written: made once,
// for the rule's attribute and its event.
func (ev *evaluation) explanation(gaps runGaps, maxLen int) string {
	if !ev.explained {
		ev.text, ev.explained = explanation(&ev.result, gaps, maxLen), true
	}
	return ev.text
}

// explanation returns the result's explanation as valid UTF-8, noting what
// an incomplete run lacks, truncated to maxLen bytes.
func explanation(res *toolcall.Result, gaps runGaps, maxLen int) string {
	s := validText(res.Explanation)
	if gaps != (runGaps{}) {
		s += gaps.note()
	}
	if len(s) <= maxLen {
		return s
	}
	cut := maxLen
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// annotations are what the processor wrote on one span: its
// tool_call_accuracy.* attributes and evaluation events. A copy is kept for
// runs whose span may come again (a batch refused downstream, a held span),
// so that the retried span gets the same scores without scoring, or
// counting, its run twice. Annotations are not changed once made.
type annotations struct {
	// packed holds the attributes and events (annotations_packed.go).
	packed []byte
}

// copyAnnotations copies the processor's annotations of span, or returns nil
// when the span carries none.
func copyAnnotations(span ptrace.Span) *annotations {
	if _, ok := span.Attributes().Get(attrRules); !ok {
		return nil
	}
	buf := packScratch.Get().(*[]byte)
	*buf = packAnnotations((*buf)[:0], span)
	a := &annotations{packed: slices.Clone(*buf)}
	packScratch.Put(buf)
	return a
}

// writeTo annotates span as the run was annotated before, unless the span
// already carries annotations (the same pdata sent again).
func (a *annotations) writeTo(span ptrace.Span) {
	if _, ok := span.Attributes().Get(attrRules); ok {
		return
	}
	unpackTo(a.packed, span)
}
