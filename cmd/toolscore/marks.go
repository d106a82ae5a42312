package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor"
)

// What a passing row does not show by itself: a rule that cannot fail
// (threshold 0, monitoring only) and a pass judged without the arguments
// (content capture off). Both are marked in the table and the summary, so
// a green gate is never green for a reason the user cannot see.

// ownThreshold lists the scorers that decide pass or fail by a threshold of
// their own whatever the rule's (README, "threshold").
var ownThreshold = []string{"meai_tool_call_accuracy", "azure_tool_call_accuracy"}

// monitoringOnly returns the scorers (a rule's name for its primary scorer,
// rule/label for a further one) that pass every run: the rule's threshold
// is 0 and the scorer decides by it.
func monitoringOnly(rules []toolcallaccuracyprocessor.RuleConfig) []string {
	out := []string{}
	for _, r := range rules {
		if r.Threshold == nil || *r.Threshold != 0 {
			continue
		}
		scorers := r.Scorers
		if len(scorers) == 0 {
			scorers = []toolcallaccuracyprocessor.ScorerConfig{{Name: "native"}}
		}
		for i, sc := range scorers {
			if slices.Contains(ownThreshold, sc.Name) {
				continue
			}
			name := r.Name
			if i > 0 {
				name += "/" + cmp.Or(sc.Label, sc.Name)
			}
			out = append(out, name)
		}
	}
	return out
}

// argumentsUnavailable reports whether a result was had without reading
// some call's arguments (the native scorer's explanation says so).
func argumentsUnavailable(e evaluation) bool {
	return strings.Contains(e.explanation, "(judged by name and order)")
}

// rowResult is the RESULT column of an evaluation's row.
func (rep *Report) rowResult(e evaluation) string {
	label := resultLabel(e.outcome)
	if e.outcome != "pass" {
		return label
	}
	switch {
	case slices.Contains(rep.MonitoringOnly, e.name):
		return label + " (monitoring only)"
	case argumentsUnavailable(e):
		return label + " (arguments unavailable)"
	}
	return label
}

// summaryMark is what follows a scorer's summary line.
func (rep *Report) summaryMark(name string) string {
	switch {
	case slices.Contains(rep.MonitoringOnly, name):
		return "\t(monitoring only: threshold 0, never fails)"
	case !rep.Gate.gates(name):
		return "\t(does not gate: -primary-only)"
	}
	return ""
}

// writeUnchecked lists the passes had without some call's arguments.
func (rep *Report) writeUnchecked(w io.Writer) {
	var lines []string
	for _, run := range rep.Runs {
		for _, e := range run.evaluations() {
			if e.outcome == "pass" && !slices.Contains(rep.MonitoringOnly, e.name) && argumentsUnavailable(e) {
				lines = append(lines, fmt.Sprintf("  %s / %s / %s: %s", orDash(run.Service), run.AgentSpan, e.name, e.explanation))
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "\nPassed with arguments unavailable (judged by name and order; content capture off?):")
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}
