package evaluation

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

const spanEnd = pcommon.Timestamp(2_000)

// newSpan returns a span ending at spanEnd with the attributes attrs.
func newSpan(attrs map[string]any) ptrace.Span {
	s := ptrace.NewSpan()
	s.SetEndTimestamp(spanEnd)
	if attrs != nil {
		if err := s.Attributes().FromRaw(attrs); err != nil {
			panic(err)
		}
	}
	return s
}

// addEvent adds an event named name with attrs, at ts.
func addEvent(s ptrace.Span, name string, ts pcommon.Timestamp, attrs map[string]any) ptrace.SpanEvent {
	e := s.Events().AppendEmpty()
	e.SetName(name)
	e.SetTimestamp(ts)
	if err := e.Attributes().FromRaw(attrs); err != nil {
		panic(err)
	}
	return e
}

// read reads span and drops the events from the evaluations, which tests
// compare as values.
func read(r Reader, span ptrace.Span) *Span {
	var s Span
	r.Read(span, &s)
	for i := range s.Evaluations {
		s.Evaluations[i].Event = ptrace.SpanEvent{}
	}
	return &s
}

// TestNamesAreTheConventions: the names read are the semantic conventions'.
func TestNamesAreTheConventions(t *testing.T) {
	assert.Equal(t, "gen_ai.evaluation.name", string(semconv.GenAIEvaluationNameKey))
	assert.Equal(t, string(semconv.GenAIEvaluationNameKey), AttrName)
	assert.Equal(t, string(semconv.GenAIEvaluationScoreValueKey), AttrScore)
	assert.Equal(t, string(semconv.GenAIEvaluationScoreLabelKey), AttrLabel)
	assert.Equal(t, string(semconv.GenAIEvaluationExplanationKey), AttrExplanation)
	assert.Equal(t, string(semconv.ErrorTypeKey), AttrErrorType)
}

func TestReadEvent(t *testing.T) {
	tests := []struct {
		name   string
		attrs  map[string]any
		ts     pcommon.Timestamp
		want   []Evaluation
		issues [NumIssues]int64
	}{
		{
			name:  "the processor's event",
			attrs: map[string]any{AttrName: "paris_trip/native", AttrRule: "paris_trip", AttrScorer: "native", AttrScore: 0.5, AttrLabel: "fail", AttrExplanation: "score 0.5"},
			ts:    1_500,
			want:  []Evaluation{{Name: "paris_trip/native", Rule: "paris_trip", Scorer: "native", Score: 0.5, HasScore: true, Label: "fail", Explanation: "score 0.5", Timestamp: 1_500}},
		},
		{
			name:  "an integer score, no timestamp: the span's end",
			attrs: map[string]any{AttrName: "Relevance", AttrScore: 4, AttrLabel: "relevant"},
			want:  []Evaluation{{Name: "Relevance", Score: 4, HasScore: true, IntScore: true, Label: "relevant", Timestamp: spanEnd}},
		},
		{
			name:  "a label alone",
			attrs: map[string]any{AttrName: "Tone", AttrLabel: "polite"},
			want:  []Evaluation{{Name: "Tone", Label: "polite", Timestamp: spanEnd}},
		},
		{
			name:  "an evaluator error",
			attrs: map[string]any{AttrName: "Groundedness", AttrErrorType: "timeout"},
			want:  []Evaluation{{Name: "Groundedness", ErrorType: "timeout", Timestamp: spanEnd}},
		},
		{
			name:   "no name: dropped",
			attrs:  map[string]any{AttrScore: 1.0, AttrLabel: "pass"},
			issues: [NumIssues]int64{IssueMissingName: 1},
		},
		{
			name:   "an empty name: dropped",
			attrs:  map[string]any{AttrName: "", AttrScore: 1.0},
			issues: [NumIssues]int64{IssueMissingName: 1},
		},
		{
			name:   "a name that is not a string: dropped",
			attrs:  map[string]any{AttrName: 3, AttrScore: 1.0},
			issues: [NumIssues]int64{IssueMissingName: 1},
		},
		{
			name:   "a score that is text: kept without it",
			attrs:  map[string]any{AttrName: "Relevance", AttrScore: "high", AttrLabel: "relevant"},
			want:   []Evaluation{{Name: "Relevance", Label: "relevant", InvalidScore: true, Timestamp: spanEnd}},
			issues: [NumIssues]int64{IssueInvalidScore: 1},
		},
		{
			name:   "a score that is not a number, nor anything else",
			attrs:  map[string]any{AttrName: "Relevance", AttrScore: math.NaN()},
			want:   []Evaluation{{Name: "Relevance", InvalidScore: true, Timestamp: spanEnd}},
			issues: [NumIssues]int64{IssueInvalidScore: 1, IssueMissingResult: 1},
		},
		{
			name:   "an infinite score",
			attrs:  map[string]any{AttrName: "Relevance", AttrScore: math.Inf(1), AttrLabel: "x"},
			want:   []Evaluation{{Name: "Relevance", Label: "x", InvalidScore: true, Timestamp: spanEnd}},
			issues: [NumIssues]int64{IssueInvalidScore: 1},
		},
		{
			name:   "a label that is not a string",
			attrs:  map[string]any{AttrName: "Relevance", AttrScore: 0.25, AttrLabel: true},
			want:   []Evaluation{{Name: "Relevance", Score: 0.25, HasScore: true, InvalidLabel: true, Timestamp: spanEnd}},
			issues: [NumIssues]int64{IssueInvalidLabel: 1},
		},
		{
			name:   "neither score, label nor error",
			attrs:  map[string]any{AttrName: "Relevance", AttrExplanation: "?"},
			want:   []Evaluation{{Name: "Relevance", Explanation: "?", Timestamp: spanEnd}},
			issues: [NumIssues]int64{IssueMissingResult: 1},
		},
		{
			name:  "an explanation that is not a string is not read",
			attrs: map[string]any{AttrName: "Relevance", AttrLabel: "ok", AttrExplanation: 42},
			want:  []Evaluation{{Name: "Relevance", Label: "ok", Timestamp: spanEnd}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			span := newSpan(nil)
			addEvent(span, EventName, tt.ts, tt.attrs)
			addEvent(span, "exception", 0, map[string]any{AttrName: "not an evaluation"})
			for _, r := range []Reader{{}, {ProcessorAttributes: true}} {
				assert.True(t, r.Has(span))
				got := read(r, span)
				if tt.want == nil {
					assert.Empty(t, got.Evaluations)
				} else {
					assert.Equal(t, tt.want, got.Evaluations)
				}
				assert.Equal(t, tt.issues, got.Issues)
				assert.Equal(t, int64(len(tt.want)), got.Read[SourceSpanEvent])
			}
		})
	}
}

func TestHas(t *testing.T) {
	plain := newSpan(map[string]any{"gen_ai.operation.name": "chat"})
	addEvent(plain, "exception", 0, nil)
	assert.False(t, Reader{}.Has(plain))
	assert.True(t, Reader{ProcessorAttributes: true}.Has(plain), "with processor attributes every span is read")
	assert.Empty(t, read(Reader{ProcessorAttributes: true}, plain).Evaluations)
}

// processorSpan is an agent span as the processor annotates it, without
// events: rule paris_trip passed, stock failed to score.
func processorSpan() ptrace.Span {
	return newSpan(map[string]any{
		"gen_ai.agent.name":                         "weather",
		"tool_call_accuracy.rules":                  []any{"paris_trip", "stock"},
		"tool_call_accuracy.score":                  1.0,
		"tool_call_accuracy.passed":                 false,
		"tool_call_accuracy.paris_trip.scorer":      "native",
		"tool_call_accuracy.paris_trip.outcome":     "pass",
		"tool_call_accuracy.paris_trip.passed":      true,
		"tool_call_accuracy.paris_trip.score":       1.0,
		"tool_call_accuracy.paris_trip.explanation": "score 1",
		"tool_call_accuracy.paris_trip.call_statuses": map[string]any{
			"matched":    []any{"get_weather", "lookup_stock"},
			"unexpected": []any{"search"},
		},
		"tool_call_accuracy.stock.scorer":      "mongodb",
		"tool_call_accuracy.stock.outcome":     "error",
		"tool_call_accuracy.stock.passed":      false,
		"tool_call_accuracy.stock.explanation": "scorer failed",
	})
}

func TestProcessorAttributes(t *testing.T) {
	span := processorSpan()
	assert.False(t, Reader{}.Has(span), "read only when asked")

	got := read(Reader{ProcessorAttributes: true}, span)
	assert.Equal(t, []Evaluation{
		{Name: "paris_trip/native", Rule: "paris_trip", Scorer: "native", Score: 1, HasScore: true, Label: "pass", Explanation: "score 1", Timestamp: spanEnd, Source: SourceSpanAttributes},
		{Name: "stock/mongodb", Rule: "stock", Scorer: "mongodb", ErrorType: ErrorTypeScoring, Explanation: "scorer failed", Timestamp: spanEnd, Source: SourceSpanAttributes},
	}, sortedByName(got.Evaluations))
	assert.ElementsMatch(t, []ToolCall{
		{Rule: "paris_trip", Tool: "get_weather", Status: "matched"},
		{Rule: "paris_trip", Tool: "lookup_stock", Status: "matched"},
		{Rule: "paris_trip", Tool: "search", Status: "unexpected"},
	}, got.ToolCalls)
	assert.Equal(t, int64(2), got.Read[SourceSpanAttributes])
	assert.Zero(t, got.Issues)
}

// TestEventsWinOverAttributes: a rule with an event is read from it (all its
// scorers), its attributes only for its call statuses; a rule without one
// falls back to its attributes when asked.
func TestEventsWinOverAttributes(t *testing.T) {
	span := processorSpan()
	addEvent(span, EventName, 1_900, map[string]any{AttrName: "paris_trip/native", AttrRule: "paris_trip", AttrScorer: "native", AttrScore: 1.0, AttrLabel: "pass"})
	addEvent(span, EventName, 1_900, map[string]any{AttrName: "paris_trip/deepeval", AttrRule: "paris_trip", AttrScorer: "deepeval", AttrScore: 0.5, AttrLabel: "fail"})

	got := read(Reader{}, span)
	assert.Equal(t, []string{"paris_trip/deepeval", "paris_trip/native"}, names(got.Evaluations))
	assert.Len(t, got.ToolCalls, 3, "the rule's call statuses, read once")

	got = read(Reader{ProcessorAttributes: true}, span)
	assert.Equal(t, []string{"paris_trip/deepeval", "paris_trip/native", "stock/mongodb"}, names(got.Evaluations))
	assert.Equal(t, [NumSources]int64{2, 1}, got.Read)
	assert.Len(t, got.ToolCalls, 3)
}

// TestCallStatusesNeedAnEvaluation: statuses of a rule whose evaluation was
// not read are not counted.
func TestCallStatusesNeedAnEvaluation(t *testing.T) {
	span := processorSpan()
	addEvent(span, EventName, 0, map[string]any{AttrName: "Relevance", AttrLabel: "relevant"})
	got := read(Reader{}, span)
	assert.Equal(t, []string{"Relevance"}, names(got.Evaluations))
	assert.Empty(t, got.ToolCalls)
}

func TestMalformedProcessorAttributes(t *testing.T) {
	span := newSpan(map[string]any{
		"tool_call_accuracy.a.outcome":       "fail",
		"tool_call_accuracy.a.score":         "0.5", // text
		"tool_call_accuracy.a.call_statuses": []any{"get_weather"},
		"tool_call_accuracy.b.outcome":       "pass",
		"tool_call_accuracy.b.score":         int64(1),
		"tool_call_accuracy.b.call_statuses": map[string]any{"matched": "get_weather", "": []any{"x"}, "missing": []any{1, "lookup"}},
		"tool_call_accuracy.c.d.outcome":     "pass", // not a rule name
		"tool_call_accuracy.e.outcome":       7,      // no outcome
		"tool_call_accuracy..outcome":        "pass", // no name
	})
	got := read(Reader{ProcessorAttributes: true}, span)
	assert.Equal(t, []Evaluation{
		{Name: "a", Rule: "a", Label: "fail", InvalidScore: true, Timestamp: spanEnd, Source: SourceSpanAttributes},
		{Name: "b", Rule: "b", Label: "pass", Score: 1, HasScore: true, Timestamp: spanEnd, Source: SourceSpanAttributes},
	}, sortedByName(got.Evaluations))
	assert.Equal(t, []ToolCall{{Rule: "b", Tool: "lookup", Status: "missing"}}, got.ToolCalls)
	assert.Equal(t, int64(1), got.Issues[IssueInvalidScore])
}

// TestRulesPerSpanBounded: a span with more rule attributes than
// MaxRulesPerSpan has the rest ignored.
func TestRulesPerSpanBounded(t *testing.T) {
	attrs := map[string]any{}
	for i := range 3 * MaxRulesPerSpan {
		attrs["tool_call_accuracy.r"+strings.Repeat("x", i)+".outcome"] = "pass"
	}
	got := read(Reader{ProcessorAttributes: true}, newSpan(attrs))
	assert.Len(t, got.Evaluations, MaxRulesPerSpan)
}

func TestOutcome(t *testing.T) {
	for _, tt := range []struct {
		ev   Evaluation
		want Outcome
	}{
		{Evaluation{Label: "pass"}, OutcomePass},
		{Evaluation{Label: "Passed"}, OutcomePass},
		{Evaluation{Label: "FAIL"}, OutcomeFail},
		{Evaluation{Label: "failed"}, OutcomeFail},
		{Evaluation{Label: "not_evaluated"}, OutcomeNotEvaluated},
		{Evaluation{Label: "relevant"}, OutcomeOther},
		{Evaluation{}, OutcomeOther},
		{Evaluation{Label: "pass", ErrorType: "timeout"}, OutcomeError},
	} {
		assert.Equal(t, tt.want, tt.ev.Outcome(), "%+v", tt.ev)
	}
}

// TestReset: a Span is reused without carrying anything over.
func TestReset(t *testing.T) {
	var s Span
	span := processorSpan()
	Reader{ProcessorAttributes: true}.Read(span, &s)
	require.NotEmpty(t, s.Evaluations)
	s.Reset()
	Reader{}.Read(newSpan(nil), &s)
	assert.Empty(t, s.Evaluations)
	assert.Empty(t, s.ToolCalls)
	assert.Zero(t, s.Read)
	assert.Zero(t, s.Issues)
}

func names(evals []Evaluation) []string {
	var out []string
	for _, e := range sortedByName(evals) {
		out = append(out, e.Name)
	}
	return out
}

func sortedByName(evals []Evaluation) []Evaluation {
	out := slices.Clone(evals)
	slices.SortFunc(out, func(a, b Evaluation) int { return strings.Compare(a.Name, b.Name) })
	return out
}
