// Package evaluation reads the GenAI evaluations recorded on a span: the
// gen_ai.evaluation.result span events any producer writes, and the
// tool_call_accuracy processor's per-rule span attributes, which stand in
// for the events of a processor that writes none (output.events: false).
//
// Reading never fails: a malformed evaluation is kept without the malformed
// attribute, or dropped when it has no name, and counted as an [Issue].
package evaluation // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/evaluation"

import (
	"math"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// Names of the event and its attributes (semantic conventions v1.41.0, the
// last release that defines them in this module graph), and those the
// tool_call_accuracy processor adds.
const (
	EventName       = "gen_ai.evaluation.result"
	AttrName        = string(semconv.GenAIEvaluationNameKey)
	AttrScore       = string(semconv.GenAIEvaluationScoreValueKey)
	AttrLabel       = string(semconv.GenAIEvaluationScoreLabelKey)
	AttrExplanation = string(semconv.GenAIEvaluationExplanationKey)
	AttrErrorType   = string(semconv.ErrorTypeKey)

	// ProcessorPrefix starts every attribute the processor writes.
	ProcessorPrefix = "tool_call_accuracy."
	AttrRule        = ProcessorPrefix + "rule"
	AttrScorer      = ProcessorPrefix + "scorer"

	// ErrorTypeScoring is the processor's error.type for a scorer that
	// could not score; its span attributes say outcome "error" instead.
	ErrorTypeScoring = "scoring_error"
)

// MaxRulesPerSpan bounds the rules whose processor attributes are read
// from one span; a span with more (which the processor never writes) has
// the rest ignored, so that a hostile span costs linear time.
const MaxRulesPerSpan = 64

// Source is where an evaluation was read from.
type Source uint8

// Sources of evaluations.
const (
	SourceSpanEvent Source = iota
	SourceSpanAttributes
	NumSources
)

var sourceNames = [NumSources]string{"span_event", "span_attributes"}

func (s Source) String() string { return sourceNames[s] }

// Issue is what was wrong with an evaluation as recorded.
type Issue uint8

// Issues found while reading.
const (
	// IssueMissingName: no gen_ai.evaluation.name string; dropped.
	IssueMissingName Issue = iota
	// IssueInvalidScore: a score that is not a finite number; the
	// evaluation is kept without it.
	IssueInvalidScore
	// IssueInvalidLabel: a label that is not a string; kept without it.
	IssueInvalidLabel
	// IssueMissingResult: neither score, label nor error.type; kept.
	IssueMissingResult
	NumIssues
)

var issueNames = [NumIssues]string{"missing_name", "invalid_score", "invalid_label", "missing_result"}

func (i Issue) String() string { return issueNames[i] }

// Outcome is an evaluation's verdict as its label and error.type say.
type Outcome uint8

// Outcomes of evaluations.
const (
	// OutcomeOther: a label other than the ones below, or none.
	OutcomeOther Outcome = iota
	OutcomePass
	OutcomeFail
	OutcomeError
	OutcomeNotEvaluated
)

// Evaluation is one evaluation of a span. Its strings are the span's own,
// not copies: they live as long as the span.
type Evaluation struct {
	Name        string
	Score       float64
	HasScore    bool
	Label       string
	Explanation string
	ErrorType   string
	// Rule and Scorer identify the processor's evaluator, when it wrote
	// the evaluation.
	Rule, Scorer string
	// Timestamp is the event's, or the span's end for an event without one
	// and for an evaluation read from span attributes (the processor stamps
	// its events with the span's end).
	Timestamp pcommon.Timestamp
	Source    Source
	// Event is the span event the evaluation was read from (Source
	// SourceSpanEvent); a log record carries its other attributes too.
	Event ptrace.SpanEvent
	// IntScore reports a score recorded as an integer; InvalidScore and
	// InvalidLabel report the event's score or label attribute malformed.
	IntScore, InvalidScore, InvalidLabel bool
}

// Outcome returns the evaluation's verdict: an error.type is an error;
// labels pass/passed, fail/failed and not_evaluated are matched without
// regard to case.
func (e *Evaluation) Outcome() Outcome {
	switch {
	case e.ErrorType != "":
		return OutcomeError
	case strings.EqualFold(e.Label, "pass"), strings.EqualFold(e.Label, "passed"):
		return OutcomePass
	case strings.EqualFold(e.Label, "fail"), strings.EqualFold(e.Label, "failed"):
		return OutcomeFail
	case strings.EqualFold(e.Label, "not_evaluated"):
		return OutcomeNotEvaluated
	}
	return OutcomeOther
}

// ToolCall is one call a processor's rule judged: the tool and what became
// of the call (a status of the processor's tool_calls metric).
type ToolCall struct {
	Rule, Tool, Status string
}

// Span is what Read found on one span. Reuse it with Reset.
type Span struct {
	Evaluations []Evaluation
	ToolCalls   []ToolCall
	// Issues counts the evaluations found wanting, by issue.
	Issues [NumIssues]int64
	// Read counts the evaluations kept, by source.
	Read  [NumSources]int64
	rules []ruleAttributes
}

// Reset empties s for the next span, keeping its memory.
func (s *Span) Reset() {
	clear(s.Evaluations)
	s.Evaluations = s.Evaluations[:0]
	clear(s.ToolCalls)
	s.ToolCalls = s.ToolCalls[:0]
	s.Issues = [NumIssues]int64{}
	s.Read = [NumSources]int64{}
	clear(s.rules)
	s.rules = s.rules[:0]
}

// Reader reads evaluations from spans.
type Reader struct {
	// ProcessorAttributes reads the processor's per-rule span attributes
	// as evaluations, for rules no span event reports. Every span is then
	// searched for them, which costs a pass over its attributes.
	ProcessorAttributes bool
}

// Has reports whether span may carry evaluations: it has an evaluation
// event, or the reader reads processor attributes. It is all a span without
// evaluations costs.
func (r Reader) Has(span ptrace.Span) bool {
	if r.ProcessorAttributes {
		return true
	}
	events := span.Events()
	for i := 0; i < events.Len(); i++ {
		if events.At(i).Name() == EventName {
			return true
		}
	}
	return false
}

// Read adds the span's evaluations, and the tool calls of the processor's
// rules it read an evaluation of, to s.
func (r Reader) Read(span ptrace.Span, s *Span) {
	start := len(s.Evaluations)
	events := span.Events()
	for i := 0; i < events.Len(); i++ {
		if e := events.At(i); e.Name() == EventName {
			readEvent(span, e, s)
		}
	}
	if len(s.Evaluations) == start && !r.ProcessorAttributes {
		return
	}
	s.rules = collectRules(span.Attributes(), s.rules[:0])
	for i := range s.rules {
		ra := &s.rules[i]
		evaluated := hasRule(s.Evaluations[start:], ra.name)
		if !evaluated && r.ProcessorAttributes && ra.hasOutcome {
			s.Evaluations = append(s.Evaluations, ra.evaluation(span))
			s.Read[SourceSpanAttributes]++
			if ra.invalid {
				s.Issues[IssueInvalidScore]++
			}
			evaluated = true
		}
		if evaluated && ra.hasStatuses {
			s.ToolCalls = appendToolCalls(s.ToolCalls, ra.name, ra.statuses)
		}
	}
}

// readEvent adds the evaluation event e records, if it names one.
func readEvent(span ptrace.Span, e ptrace.SpanEvent, s *Span) {
	ev := Evaluation{Source: SourceSpanEvent, Event: e, Timestamp: e.Timestamp()}
	if ev.Timestamp == 0 {
		ev.Timestamp = span.EndTimestamp()
	}
	named := false
	for k, v := range e.Attributes().All() {
		switch k {
		case AttrName:
			if v.Type() == pcommon.ValueTypeStr && v.Str() != "" {
				ev.Name, named = v.Str(), true
			}
		case AttrScore:
			switch v.Type() {
			case pcommon.ValueTypeDouble:
				if f := v.Double(); !math.IsNaN(f) && !math.IsInf(f, 0) {
					ev.Score, ev.HasScore = f, true
				} else {
					ev.InvalidScore = true
				}
			case pcommon.ValueTypeInt:
				ev.Score, ev.HasScore, ev.IntScore = float64(v.Int()), true, true
			default:
				ev.InvalidScore = true
			}
		case AttrLabel:
			if v.Type() == pcommon.ValueTypeStr {
				ev.Label = v.Str()
			} else {
				ev.InvalidLabel = true
			}
		case AttrExplanation:
			if v.Type() == pcommon.ValueTypeStr {
				ev.Explanation = v.Str()
			}
		case AttrErrorType:
			if v.Type() == pcommon.ValueTypeStr {
				ev.ErrorType = v.Str()
			}
		case AttrRule:
			if v.Type() == pcommon.ValueTypeStr {
				ev.Rule = v.Str()
			}
		case AttrScorer:
			if v.Type() == pcommon.ValueTypeStr {
				ev.Scorer = v.Str()
			}
		}
	}
	if !named {
		s.Issues[IssueMissingName]++
		return
	}
	if ev.InvalidScore {
		s.Issues[IssueInvalidScore]++
	}
	if ev.InvalidLabel {
		s.Issues[IssueInvalidLabel]++
	}
	if !ev.HasScore && ev.Label == "" && ev.ErrorType == "" {
		s.Issues[IssueMissingResult]++
	}
	s.Evaluations = append(s.Evaluations, ev)
	s.Read[SourceSpanEvent]++
}

// hasRule reports whether an evaluation of evals was written by the
// processor's rule.
func hasRule(evals []Evaluation, rule string) bool {
	for i := range evals {
		if evals[i].Rule == rule {
			return true
		}
	}
	return false
}
