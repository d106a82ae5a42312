package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/rules"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"
)

// Attribute names written on agent spans.
const (
	attrPrefix      = "tool_call_accuracy."
	attrRules       = attrPrefix + "rules"
	attrScore       = attrPrefix + "score"
	attrPassed      = attrPrefix + "passed"
	attrFailedRules = attrPrefix + "failed_rules"
	attrToolCalls   = attrPrefix + "tool_calls"

	eventEvaluation   = "gen_ai.evaluation.result"
	attrEvalName      = "gen_ai.evaluation.name"
	attrEvalScore     = "gen_ai.evaluation.score.value"
	attrEvalLabel     = "gen_ai.evaluation.score.label"
	attrEvalExplain   = "gen_ai.evaluation.explanation"
	attrErrorType     = "error.type"
	attrEventRule     = attrPrefix + "rule"
	attrEventScorer   = attrPrefix + "scorer"
	errorTypeScoring  = "scoring_error"
	incompleteWarning = " (incomplete: calls over max_calls_per_trajectory were dropped)"
)

// annotate writes a run's results on its agent span: flat attributes under
// tool_call_accuracy.* (a summary, then one group per rule, from the rule's
// primary scorer) and one gen_ai.evaluation.result event per rule and scorer.
// Attributes other than ours are never touched.
func annotate(span ptrace.Span, run *scoredRun, rs []*rules.Rule, out *OutputConfig) {
	if out.Attributes {
		annotateAttributes(span.Attributes(), run, rs, out.MaxExplanationLength)
	}
	if out.Events {
		for _, ev := range run.evals {
			annotateEvent(span, ev, run, rs, out.MaxExplanationLength)
		}
	}
}

func annotateAttributes(attrs pcommon.Map, run *scoredRun, rs []*rules.Rule, maxLen int) {
	names := attrs.PutEmptySlice(attrRules)
	failed := attrs.PutEmptySlice(attrFailedRules)
	minScore, allPassed, scored := 1.0, true, false
	for _, ev := range run.evals {
		if ev.scorer != 0 {
			continue
		}
		r := rs[ev.rule]
		res := &ev.result
		names.AppendEmpty().SetStr(r.Name)
		prefix := attrPrefix + r.Name + "."
		attrs.PutStr(prefix+"scorer", r.Scorers[0].Label)
		attrs.PutStr(prefix+"outcome", res.Outcome.String())
		passed := res.Outcome == scoring.OutcomePass
		attrs.PutBool(prefix+"passed", passed)
		if res.Outcome == scoring.OutcomePass || res.Outcome == scoring.OutcomeFail {
			attrs.PutDouble(prefix+"score", res.Score)
			minScore = min(minScore, res.Score)
			scored = true
		}
		if !passed && res.Outcome != scoring.OutcomeNotEvaluated {
			allPassed = false
			failed.AppendEmpty().SetStr(r.Name)
		}
		putStrings(attrs, prefix+"missing_tools", res.Breakdown.MissingTools(r.Expectation.Calls))
		putStrings(attrs, prefix+"unexpected_tools", unexpectedNames(&res.Breakdown, ev.calls))
		attrs.PutStr(prefix+"explanation", explanation(res, run.dropped, maxLen))
	}
	if scored {
		attrs.PutDouble(attrScore, minScore)
	}
	attrs.PutBool(attrPassed, allPassed)
	calls := attrs.PutEmptySlice(attrToolCalls)
	calls.EnsureCapacity(len(run.calls))
	for i := range run.calls {
		calls.AppendEmpty().SetStr(run.calls[i].Name)
	}
}

// unexpectedNames lists the tools of every actual call the expectation did
// not account for: unexpected, forbidden and hallucinated calls.
func unexpectedNames(b *scoring.Breakdown, calls []scoring.Call) []string {
	var names []string
	for _, idx := range [][]int{b.Unexpected, b.Forbidden, b.Hallucinated} {
		for _, j := range idx {
			names = append(names, calls[j].Name)
		}
	}
	return names
}

func putStrings(attrs pcommon.Map, key string, values []string) {
	s := attrs.PutEmptySlice(key)
	s.EnsureCapacity(len(values))
	for _, v := range values {
		s.AppendEmpty().SetStr(v)
	}
}

func annotateEvent(span ptrace.Span, ev evaluation, run *scoredRun, rs []*rules.Rule, maxLen int) {
	r := rs[ev.rule]
	res := &ev.result
	label := r.Scorers[ev.scorer].Label
	e := span.Events().AppendEmpty()
	e.SetName(eventEvaluation)
	e.SetTimestamp(span.EndTimestamp())
	attrs := e.Attributes()
	attrs.PutStr(attrEvalName, r.Name+"/"+label)
	attrs.PutStr(attrEventRule, r.Name)
	attrs.PutStr(attrEventScorer, label)
	switch res.Outcome {
	case scoring.OutcomePass, scoring.OutcomeFail:
		attrs.PutDouble(attrEvalScore, res.Score)
		attrs.PutStr(attrEvalLabel, res.Outcome.String())
	case scoring.OutcomeError:
		attrs.PutStr(attrErrorType, errorTypeScoring)
	case scoring.OutcomeNotEvaluated:
		attrs.PutStr(attrEvalLabel, res.Outcome.String())
	}
	attrs.PutStr(attrEvalExplain, explanation(res, run.dropped, maxLen))
}

// explanation returns the result's explanation, noting an incomplete run,
// truncated to maxLen bytes.
func explanation(res *scoring.Result, dropped, maxLen int) string {
	s := res.Explanation
	if dropped > 0 {
		s += incompleteWarning
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
