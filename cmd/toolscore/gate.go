package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Gate says what fails a report (exit 1), beyond a failed or errored
// evaluation of a gating scorer, a configured rule that selected no run, a
// gating scorer that evaluated none of its runs, and a report with no run.
type Gate struct {
	// PrimaryOnly gates on each rule's primary (first) scorer only; the
	// further scorers are reported and do not fail the gate
	// (-primary-only). By default every scorer gates.
	PrimaryOnly bool `json:"primary_only"`
	// FailNotEvaluated fails the gate on any not_evaluated result of a
	// gating scorer (-fail-not-evaluated). By default only a scorer that
	// evaluated none of its runs does.
	FailNotEvaluated bool `json:"fail_not_evaluated"`
}

// gateFlags defines score's and report's flags that change the gate.
func gateFlags(fs *flag.FlagSet) *Gate {
	g := new(Gate)
	fs.BoolVar(&g.PrimaryOnly, "primary-only", false, "gate on each rule's first scorer only: further scorers are reported but do not fail the gate")
	fs.BoolVar(&g.FailNotEvaluated, "fail-not-evaluated", false, "fail the gate on any result not evaluated (by default only a rule or scorer that evaluated none of its runs fails it)")
	return g
}

// setGate applies g to the report.
func (rep *Report) setGate(g Gate) {
	rep.Gate = g
	rep.Summary.OK = rep.exitCode() == exitOK
}

// gates reports whether an evaluation of the named scorer (a rule's name for
// its primary scorer, rule/label for a further one) can fail the gate.
func (g Gate) gates(name string) bool {
	return !g.PrimaryOnly || !strings.Contains(name, "/")
}

// evaluation is one result on a run: a rule's primary scorer's (from the
// flat attributes, with its missing and unexpected tools) or a further
// scorer's (from its event).
type evaluation struct {
	name                string // the rule's name, or rule/label for a further scorer
	outcome             string
	score               *float64
	explanation         string
	missing, unexpected []string
}

// evaluations lists the run's results, each rule's primary one first.
func (run *Run) evaluations() []evaluation {
	var out []evaluation
	for _, rr := range run.Rules {
		out = append(out, evaluation{name: rr.Rule, outcome: rr.Outcome, score: rr.Score, explanation: rr.Explanation,
			missing: rr.MissingTools, unexpected: rr.UnexpectedTools})
		for _, e := range run.Evaluations {
			if e.Rule != rr.Rule || e.Scorer == rr.Scorer {
				continue
			}
			outcome := e.Label
			if e.ErrorType != "" {
				outcome = "error"
			}
			out = append(out, evaluation{name: e.Rule + "/" + e.Scorer, outcome: outcome, score: e.Score, explanation: e.Explanation})
		}
	}
	return out
}

// summarize fills Rules, UnmatchedRules, NotEvaluated and Summary.
// configured lists the configured rules, in order (nil when unknown).
func (rep *Report) summarize(configured []string) {
	type acc struct {
		Tally
		sum    float64
		scored int
	}
	accs := map[string]*acc{}
	var rules []string               // rule names, in order
	further := map[string][]string{} // rule -> its further scorers' names, in order
	add := func(name string) *acc {
		if a, ok := accs[name]; ok {
			return a
		}
		a := &acc{}
		accs[name] = a
		if rule, _, ok := strings.Cut(name, "/"); ok {
			further[rule] = append(further[rule], name)
		} else {
			rules = append(rules, name)
		}
		return a
	}
	for _, name := range configured {
		add(name)
	}
	s := &rep.Summary
	for _, run := range rep.Runs {
		for _, e := range run.evaluations() {
			a := add(e.name)
			a.Runs++
			s.Evaluations++
			switch e.outcome {
			case "pass":
				a.Passed++
				s.Passed++
			case "fail":
				a.Failed++
				s.Failed++
			case "error":
				a.Errors++
				s.Errors++
			default:
				a.NotEvaluated++
				s.NotEvaluated++
			}
			if e.score != nil {
				a.sum += *e.score
				a.scored++
			}
		}
	}
	tally := func(name string) Tally {
		a := accs[name]
		if a.scored > 0 {
			mean := a.sum / float64(a.scored)
			a.MeanScore = &mean
		}
		if a.Runs == 0 && !strings.Contains(name, "/") {
			rep.UnmatchedRules = append(rep.UnmatchedRules, name)
		} else if a.Runs > 0 && a.NotEvaluated == a.Runs {
			rep.NotEvaluated = append(rep.NotEvaluated, name)
		}
		return a.Tally
	}
	rep.Rules = []RuleSummary{}
	rep.UnmatchedRules, rep.NotEvaluated = []string{}, []string{}
	for _, rule := range rules {
		rs := RuleSummary{Rule: rule, Tally: tally(rule)}
		for _, name := range further[rule] {
			_, label, _ := strings.Cut(name, "/")
			rs.Scorers = append(rs.Scorers, ScorerSummary{Scorer: label, Tally: tally(name)})
		}
		rep.Rules = append(rep.Rules, rs)
	}
	s.Runs = len(rep.Runs)
	s.OK = rep.exitCode() == exitOK
}

// exitCode is 1 when the gate fails (see [Gate]), 0 otherwise.
func (rep *Report) exitCode() int {
	if len(rep.Runs) == 0 || len(rep.UnmatchedRules) > 0 {
		return exitFailed
	}
	for _, name := range rep.NotEvaluated {
		if rep.Gate.gates(name) {
			return exitFailed
		}
	}
	for _, run := range rep.Runs {
		for _, e := range run.evaluations() {
			if rep.Gate.gates(e.name) && (e.outcome == "fail" || e.outcome == "error" || e.outcome == "not_evaluated" && rep.Gate.FailNotEvaluated) {
				return exitFailed
			}
		}
	}
	return exitOK
}

// writeSummary prints the counts, one line per scorer, and what else fails
// the gate.
func (rep *Report) writeSummary(w io.Writer) error {
	s := rep.Summary
	fmt.Fprintf(w, "\n%s, %s: %d passed, %d failed", plural(s.Runs, "agent run"), plural(s.Evaluations, "evaluation"), s.Passed, s.Failed)
	if s.Errors > 0 {
		fmt.Fprintf(w, ", %d errors", s.Errors)
	}
	if s.NotEvaluated > 0 {
		fmt.Fprintf(w, ", %d not evaluated", s.NotEvaluated)
	}
	fmt.Fprintln(w, ".")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(name string, t Tally) {
		fmt.Fprintf(tw, "  %s\t%s\t%d passed\t%d failed", name, plural(t.Runs, "run"), t.Passed, t.Failed+t.Errors)
		if s.NotEvaluated > 0 {
			fmt.Fprintf(tw, "\t%d not evaluated", t.NotEvaluated)
		}
		fmt.Fprintf(tw, "\tmean score %s", formatScore(t.MeanScore))
		fmt.Fprintln(tw, rep.summaryMark(name))
	}
	for _, r := range rep.Rules {
		line(r.Rule, r.Tally)
		for _, sc := range r.Scorers {
			line(r.Rule+"/"+sc.Scorer, sc.Tally)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s.RunsWithoutRule != nil && *s.RunsWithoutRule > 0 {
		fmt.Fprintf(w, "%s with tool calls matched no rule.\n", plural(int(*s.RunsWithoutRule), "agent run"))
	}
	for _, name := range rep.UnmatchedRules {
		fmt.Fprintf(w, "Rule %s scored no run.\n", name)
	}
	for _, name := range rep.NotEvaluated {
		what := "Rule " + name
		if strings.Contains(name, "/") {
			what = "Scorer " + name
		}
		if rep.Gate.gates(name) {
			fmt.Fprintf(w, "%s scored no run: it was not evaluated on any of the runs it selected.\n", what)
		}
	}
	if rep.Gate.FailNotEvaluated && s.NotEvaluated > 0 {
		fmt.Fprintln(w, "Results not evaluated fail the gate (-fail-not-evaluated).")
	}
	return nil
}

// writeReasons prints why each evaluation failed, one line each, and why
// evaluations were not evaluated, one line per scorer and reason.
func (rep *Report) writeReasons(w io.Writer) {
	var failed []string
	type reason struct{ name, why string }
	notEvaluated := map[reason]int{}
	var order []reason
	for _, run := range rep.Runs {
		for _, e := range run.evaluations() {
			switch e.outcome {
			case "pass":
			case "not_evaluated":
				r := reason{e.name, e.explanation}
				if notEvaluated[r] == 0 {
					order = append(order, r)
				}
				notEvaluated[r]++
			default:
				failed = append(failed, fmt.Sprintf("  %s / %s / %s: %s", orDash(run.Service), run.AgentSpan, e.name, e.explanation))
			}
		}
	}
	if len(failed) > 0 {
		fmt.Fprintln(w, "\nWhy evaluations failed:")
		for _, l := range failed {
			fmt.Fprintln(w, l)
		}
	}
	if len(order) > 0 {
		fmt.Fprintln(w, "\nWhy evaluations were not evaluated:")
		for _, r := range order {
			fmt.Fprintf(w, "  %s, %s: %s\n", r.name, plural(notEvaluated[r], "run"), orDash(r.why))
		}
	}
}
