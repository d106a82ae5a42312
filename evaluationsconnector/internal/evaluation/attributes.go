package evaluation // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/evaluation"

import (
	"math"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// The processor's per-rule span attributes, tool_call_accuracy.<rule>.<field>,
// that the reader uses.
const (
	fieldScore        = "score"
	fieldOutcome      = "outcome"
	fieldScorer       = "scorer"
	fieldExplanation  = "explanation"
	fieldCallStatuses = "call_statuses"
	outcomeError      = "error"
)

// ruleAttributes are one rule's attributes on a span.
type ruleAttributes struct {
	name                          string
	outcome, scorer, explanation  string
	score                         float64
	hasOutcome, hasScore, invalid bool
	statuses                      pcommon.Value
	hasStatuses                   bool
}

// collectRules adds to rules the processor's rule attribute groups found
// in attrs, in one pass; at most MaxRulesPerSpan rules.
func collectRules(attrs pcommon.Map, rules []ruleAttributes) []ruleAttributes {
	for k, v := range attrs.All() {
		rest, ok := strings.CutPrefix(k, ProcessorPrefix)
		if !ok {
			continue
		}
		dot := strings.LastIndexByte(rest, '.')
		if dot <= 0 {
			continue // a summary attribute (tool_call_accuracy.score, ...)
		}
		name, field := rest[:dot], rest[dot+1:]
		if strings.IndexByte(name, '.') >= 0 {
			continue // not a rule name (lower_snake_case)
		}
		switch field {
		case fieldScore, fieldOutcome, fieldScorer, fieldExplanation, fieldCallStatuses:
		default:
			continue
		}
		ra := findRule(&rules, name)
		if ra == nil {
			continue
		}
		switch field {
		case fieldScore:
			switch v.Type() {
			case pcommon.ValueTypeDouble:
				if f := v.Double(); !math.IsNaN(f) && !math.IsInf(f, 0) {
					ra.score, ra.hasScore = f, true
				} else {
					ra.invalid = true
				}
			case pcommon.ValueTypeInt:
				ra.score, ra.hasScore = float64(v.Int()), true
			default:
				ra.invalid = true
			}
		case fieldOutcome:
			if v.Type() == pcommon.ValueTypeStr && v.Str() != "" {
				ra.outcome, ra.hasOutcome = v.Str(), true
			}
		case fieldScorer:
			if v.Type() == pcommon.ValueTypeStr {
				ra.scorer = v.Str()
			}
		case fieldExplanation:
			if v.Type() == pcommon.ValueTypeStr {
				ra.explanation = v.Str()
			}
		case fieldCallStatuses:
			if v.Type() == pcommon.ValueTypeMap {
				ra.statuses, ra.hasStatuses = v, true
			}
		}
	}
	return rules
}

// findRule returns the entry of rules for name, added if new; nil when
// rules holds MaxRulesPerSpan others.
func findRule(rules *[]ruleAttributes, name string) *ruleAttributes {
	rs := *rules
	for i := range rs {
		if rs[i].name == name {
			return &rs[i]
		}
	}
	if len(rs) >= MaxRulesPerSpan {
		return nil
	}
	*rules = append(rs, ruleAttributes{name: name})
	return &(*rules)[len(rs)]
}

// evaluation is the rule's primary evaluation as the processor's event
// would report it: named <rule>/<scorer>, stamped with the span's end, an
// error outcome as error.type scoring_error.
func (ra *ruleAttributes) evaluation(span ptrace.Span) Evaluation {
	ev := Evaluation{
		Name: ra.name, Rule: ra.name, Scorer: ra.scorer, Explanation: ra.explanation,
		Score: ra.score, HasScore: ra.hasScore, InvalidScore: ra.invalid,
		Timestamp: span.EndTimestamp(), Source: SourceSpanAttributes,
	}
	if ra.scorer != "" {
		ev.Name = ra.name + "/" + ra.scorer
	}
	if ra.outcome == outcomeError {
		ev.ErrorType = ErrorTypeScoring
	} else {
		ev.Label = ra.outcome
	}
	return ev
}

// appendToolCalls adds the calls of a call_statuses map, status → tool
// names; entries of another shape are skipped.
func appendToolCalls(calls []ToolCall, rule string, statuses pcommon.Value) []ToolCall {
	for status, names := range statuses.Map().All() {
		if names.Type() != pcommon.ValueTypeSlice || status == "" {
			continue
		}
		for _, n := range names.Slice().All() {
			if n.Type() == pcommon.ValueTypeStr {
				calls = append(calls, ToolCall{Rule: rule, Tool: n.Str(), Status: status})
			}
		}
	}
	return calls
}
