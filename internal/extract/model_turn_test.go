package extract

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

var updateTurns = flag.Bool("update-turns", false, "rewrite testdata/model_turns.golden.txt")

// TestModelTurnsInCaptures reads the model turns of every capture and
// compares what they record (the calls each turn requested, the calls and
// outcomes its request carries, whether it ends with tool results) with testdata/model_turns.golden.txt, one
// block per capture: every convention that records requested calls is
// covered by a real framework's run.
func TestModelTurnsInCaptures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "traces", "*", "*.json*"))
	require.NoError(t, err)
	sort.Strings(files)
	var b strings.Builder
	for _, f := range files {
		var lines []string
		for _, td := range readTraces(t, f) {
			for _, rs := range td.ResourceSpans().All() {
				for _, ss := range rs.ScopeSpans().All() {
					for _, span := range ss.Spans().All() {
						lines = append(lines, turnSummary(span, ss)...)
					}
				}
			}
		}
		if len(lines) == 0 {
			continue
		}
		b.WriteString("== " + filepath.Base(f) + "\n")
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	path := filepath.Join("testdata", "model_turns.golden.txt")
	if *updateTurns {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./internal/extract -run TestModelTurnsInCaptures -update-turns to create it")
	require.Equal(t, string(want), b.String())
}

// turnSummary describes the turn a span records, in span start order.
func turnSummary(span ptrace.Span, ss ptrace.ScopeSpans) []string {
	res := Classify(span, ss.Scope(), &Options{})
	if !IsTurn(&res) {
		return nil
	}
	var turn ModelTurn
	if !ReadTurn(span, &turn) {
		return []string{span.Name() + ": nothing recorded"}
	}
	out := []string{span.Name() + ": requests tools " + boolText(turn.RequestsTools()) + ", follows tool results " + boolText(turn.FollowsTools())}
	for _, c := range turn.Requested() {
		out = append(out, "  requested "+callText(c))
	}
	for _, c := range turn.History() {
		out = append(out, "  history   "+callText(c))
	}
	for _, o := range turn.Outcomes() {
		line := "  outcome   " + o.ID + " " + o.Name + " " + cut(o.Result)
		if o.Failed {
			line += " FAILED"
		}
		out = append(out, line)
	}
	return out
}

func callText(c RequestedCall) string { return c.ID + " " + c.Name + " " + cut(c.Args) }

func cut(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

func boolText(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
