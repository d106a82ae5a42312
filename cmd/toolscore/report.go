package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Attribute and event names the processor writes on agent spans.
const (
	attrPrefix    = "tool_call_accuracy."
	attrRules     = attrPrefix + "rules"
	attrScore     = attrPrefix + "score"
	attrPassed    = attrPrefix + "passed"
	attrToolCalls = attrPrefix + "tool_calls"
	eventEval     = "gen_ai.evaluation.result"
)

// Report is what score and report print (the JSON form is the -format json
// output).
type Report struct {
	Runs  []Run         `json:"runs"`
	Rules []RuleSummary `json:"rules"`
	// UnmatchedRules are configured rules that selected no run.
	UnmatchedRules []string `json:"unmatched_rules"`
	// NotEvaluated lists the scorers that selected runs but evaluated none
	// of them (every result not_evaluated): a rule's name for its primary
	// scorer, rule/label for a further one.
	NotEvaluated []string `json:"not_evaluated"`
	// MonitoringOnly lists the scorers that pass every run (their rule's
	// threshold is 0): marked in the table and summary (marks.go).
	MonitoringOnly []string `json:"monitoring_only"`
	// UnselectedRuns are the runs with tool calls that no rule selected,
	// with their calls (score only).
	UnselectedRuns []Run `json:"unselected_runs,omitempty"`
	// Gate says what fails the gate (the exit code and Summary.OK).
	Gate    Gate    `json:"gate"`
	Summary Summary `json:"summary"`
}

// Run is one scored agent run: an agent span carrying tool_call_accuracy.*.
type Run struct {
	TraceID   string `json:"trace_id"`
	SpanID    string `json:"span_id"`
	Service   string `json:"service"`
	AgentSpan string `json:"agent_span"`
	AgentName string `json:"agent_name,omitempty"`
	// Source is the input file (score only).
	Source    string   `json:"source,omitempty"`
	ToolCalls []string `json:"tool_calls"`
	// Score is the lowest primary score over the rules; absent when no rule
	// produced a score.
	Score       *float64     `json:"score,omitempty"`
	Passed      bool         `json:"passed"`
	Rules       []RuleResult `json:"rules"`
	Evaluations []Evaluation `json:"evaluations,omitempty"`
	// Calls are the run's tool calls: from score, the calls its scorers
	// received, in their order, each with the records that saw it
	// (requested calls no span executed included); from report, which has
	// only the annotated spans, the calls its tool spans recorded, in the
	// order the spans appear.
	Calls []CallDetail `json:"calls,omitempty"`
}

// RuleResult is a rule's primary-scorer result on a run (the flat
// tool_call_accuracy.<rule>.* attributes).
type RuleResult struct {
	Rule            string   `json:"rule"`
	Scorer          string   `json:"scorer"`
	Outcome         string   `json:"outcome"`
	Passed          bool     `json:"passed"`
	Score           *float64 `json:"score,omitempty"`
	MissingTools    []string `json:"missing_tools"`
	UnexpectedTools []string `json:"unexpected_tools"`
	Explanation     string   `json:"explanation,omitempty"`
}

// Evaluation is one gen_ai.evaluation.result event (one per rule and
// scorer).
type Evaluation struct {
	Name        string   `json:"name"`
	Rule        string   `json:"rule"`
	Scorer      string   `json:"scorer"`
	Score       *float64 `json:"score,omitempty"`
	Label       string   `json:"label,omitempty"`
	ErrorType   string   `json:"error_type,omitempty"`
	Explanation string   `json:"explanation,omitempty"`
}

// RuleSummary aggregates one rule over the runs: its primary scorer's
// results, and each further scorer's.
type RuleSummary struct {
	Rule string `json:"rule"`
	Tally
	// Scorers are the rule's further scorers (its second and later), each
	// by its label.
	Scorers []ScorerSummary `json:"scorers,omitempty"`
}

// ScorerSummary aggregates one further scorer of a rule over the runs.
type ScorerSummary struct {
	Scorer string `json:"scorer"`
	Tally
}

// Tally counts one scorer's evaluations over the runs.
type Tally struct {
	Runs         int      `json:"runs"`
	Passed       int      `json:"passed"`
	Failed       int      `json:"failed"`
	Errors       int      `json:"errors"`
	NotEvaluated int      `json:"not_evaluated"`
	MeanScore    *float64 `json:"mean_score,omitempty"`
}

// Summary counts the report. Evaluations counts every scorer of every rule
// on every run.
type Summary struct {
	Spans        int `json:"spans"`
	Runs         int `json:"runs"`
	Evaluations  int `json:"evaluations"`
	Passed       int `json:"passed"`
	Failed       int `json:"failed"`
	Errors       int `json:"errors"`
	NotEvaluated int `json:"not_evaluated"`
	// RunsWithoutRule counts agent runs with tool calls that no rule
	// selected (score only: read from the processor's metrics).
	RunsWithoutRule *int64 `json:"runs_without_rule,omitempty"`
	// OK is true when the exit code is 0.
	OK bool `json:"ok"`
}

// buildReport collects the scored agent spans of td and their calls. rules,
// when known, lists the configured rule names (to find rules that scored no
// run); skipTools are the tool names that are not calls (skip_tools).
func buildReport(td ptrace.Traces, rules, skipTools []string) *Report {
	rep := &Report{Runs: []Run{}, UnmatchedRules: []string{}, MonitoringOnly: []string{}}
	rep.Summary.Spans = td.SpanCount()
	for _, rs := range td.ResourceSpans().All() {
		service := strAttr(rs.Resource().Attributes(), "service.name")
		for _, ss := range rs.ScopeSpans().All() {
			for _, span := range ss.Spans().All() {
				if _, ok := span.Attributes().Get(attrRules); !ok {
					continue
				}
				rep.Runs = append(rep.Runs, readRun(span, service))
			}
		}
	}
	attachCalls(rep, td, skipTools)
	sortRuns(rep.Runs)
	rep.summarize(rules)
	return rep
}

// sortRuns orders runs by service, agent span, trace and span id.
func sortRuns(runs []Run) {
	slices.SortFunc(runs, func(a, b Run) int {
		return cmp.Or(cmp.Compare(a.Service, b.Service), cmp.Compare(a.AgentSpan, b.AgentSpan),
			cmp.Compare(a.TraceID, b.TraceID), cmp.Compare(a.SpanID, b.SpanID))
	})
}

func readRun(span ptrace.Span, service string) Run {
	attrs := span.Attributes()
	run := Run{
		TraceID:   span.TraceID().String(),
		SpanID:    span.SpanID().String(),
		Service:   service,
		AgentSpan: span.Name(),
		AgentName: strAttr(attrs, "gen_ai.agent.name"),
		ToolCalls: strSlice(attrs, attrToolCalls),
		Score:     floatAttr(attrs, attrScore),
		Rules:     []RuleResult{},
	}
	if v, ok := attrs.Get(attrPassed); ok {
		run.Passed = v.Bool()
	}
	for _, rule := range strSlice(attrs, attrRules) {
		p := attrPrefix + rule + "."
		rr := RuleResult{
			Rule:            rule,
			Scorer:          strAttr(attrs, p+"scorer"),
			Outcome:         strAttr(attrs, p+"outcome"),
			Score:           floatAttr(attrs, p+"score"),
			MissingTools:    strSlice(attrs, p+"missing_tools"),
			UnexpectedTools: strSlice(attrs, p+"unexpected_tools"),
			Explanation:     strAttr(attrs, p+"explanation"),
		}
		if v, ok := attrs.Get(p + "passed"); ok {
			rr.Passed = v.Bool()
		}
		run.Rules = append(run.Rules, rr)
	}
	for _, e := range span.Events().All() {
		if e.Name() != eventEval {
			continue
		}
		ea := e.Attributes()
		run.Evaluations = append(run.Evaluations, Evaluation{
			Name:        strAttr(ea, "gen_ai.evaluation.name"),
			Rule:        strAttr(ea, attrPrefix+"rule"),
			Scorer:      strAttr(ea, attrPrefix+"scorer"),
			Score:       floatAttr(ea, "gen_ai.evaluation.score.value"),
			Label:       strAttr(ea, "gen_ai.evaluation.score.label"),
			ErrorType:   strAttr(ea, "error.type"),
			Explanation: strAttr(ea, "gen_ai.evaluation.explanation"),
		})
	}
	// The processor writes no flat explanation for a result it could not
	// have (not_evaluated); the rule's event says why.
	for i := range run.Rules {
		if rr := &run.Rules[i]; rr.Explanation == "" {
			for _, e := range run.Evaluations {
				if e.Rule == rr.Rule && e.Scorer == rr.Scorer {
					rr.Explanation = e.Explanation
				}
			}
		}
	}
	return run
}

// writeJSON prints the report as indented JSON.
func (rep *Report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// writeTable prints one row per run and evaluation (a rule's primary
// scorer, then each further scorer as rule/label), a summary per scorer, what
// fails the gate, and why evaluations failed or were not evaluated.
func (rep *Report) writeTable(w io.Writer) error {
	if len(rep.Runs) == 0 {
		fmt.Fprintf(w, "No scored agent runs in %d spans.\n", rep.Summary.Spans)
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SERVICE\tAGENT SPAN\tRULE\tSCORE\tRESULT\tMISSING\tUNEXPECTED")
		for _, run := range rep.Runs {
			for _, e := range run.evaluations() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", orDash(run.Service), run.AgentSpan, e.name,
					formatScore(e.score), rep.rowResult(e), list(e.missing), list(e.unexpected))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if err := rep.writeSummary(w); err != nil {
		return err
	}
	rep.writeReasons(w)
	rep.writeUnchecked(w)
	return nil
}

// plural formats a count with a noun: "1 run", "2 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func resultLabel(outcome string) string {
	switch outcome {
	case "pass":
		return "pass"
	case "fail":
		return "FAIL"
	case "error":
		return "ERROR"
	case "":
		return "-"
	}
	return outcome
}

func formatScore(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *v)
}

func list(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func strAttr(m pcommon.Map, key string) string {
	if v, ok := m.Get(key); ok {
		return v.AsString()
	}
	return ""
}

func floatAttr(m pcommon.Map, key string) *float64 {
	v, ok := m.Get(key)
	if !ok {
		return nil
	}
	var f float64
	switch v.Type() {
	case pcommon.ValueTypeDouble:
		f = v.Double()
	case pcommon.ValueTypeInt:
		f = float64(v.Int())
	default:
		return nil
	}
	return &f
}

func strSlice(m pcommon.Map, key string) []string {
	out := []string{}
	v, ok := m.Get(key)
	if !ok || v.Type() != pcommon.ValueTypeSlice {
		return out
	}
	for _, e := range v.Slice().All() {
		out = append(out, e.AsString())
	}
	return out
}

// mergeDocs concatenates the documents into one Traces (the documents are
// moved, not copied).
func mergeDocs(docs []otlpjson.Doc) ptrace.Traces {
	out := ptrace.NewTraces()
	for _, d := range docs {
		d.Traces.ResourceSpans().MoveAndAppendTo(out.ResourceSpans())
	}
	return out
}

// write prints the report in the format asked for; calls adds each run's
// calls to the table (the JSON report always has them).
func (rep *Report) write(w io.Writer, format string, calls bool) error {
	if format == "json" {
		return rep.writeJSON(w)
	}
	if err := rep.writeTable(w); err != nil {
		return err
	}
	if calls {
		rep.writeCalls(w)
	}
	return nil
}

// checkFormat validates -format.
func checkFormat(format string) error {
	switch format {
	case "table", "json":
		return nil
	}
	return fmt.Errorf("-format %q: expected table or json", format)
}
