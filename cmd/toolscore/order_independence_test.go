package main

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// ordersPerCapture is how many orders of each capture's lines (and of the
// spans in each line) score is run on.
const ordersPerCapture = 8

// TestScoreDoesNotDependOnOrder runs score over every bundled capture with
// its lines, and the spans in each line, in seeded random orders, the file
// split in two files given in either order, and asserts the report is the
// one of the capture as recorded: toolscore reads every span before it
// scores.
func TestScoreDoesNotDependOnOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("many orders of every capture")
	}
	files, err := filepath.Glob("../../testdata/traces/captures/*.otlp.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	runs := 0
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			section := "tool_call_accuracy/paris"
			if strings.Contains(file, "-simple") || strings.Contains(file, "-batch") || strings.Contains(file, "perspan") {
				section = "tool_call_accuracy/two_turns"
			}
			score := func(files ...string) *Report {
				args := append([]string{"score", "-format", "json", "-no-judges", "-config", "../../testdata/golden/config.yaml", "-processor", section}, files...)
				_, out, errOut := toolscore(t, args...)
				require.Empty(t, errOut)
				return stripSources(decodeReport(t, out))
			}
			// A capture whose content is in log records has them beside it;
			// their lines are shuffled with the spans' lines.
			inputs := []string{file}
			if logs := filepath.Join("../../testdata/logs/captures", filepath.Base(file)); fileExists(logs) {
				inputs = append(inputs, logs)
			}
			want := score(inputs...)
			require.NotEmpty(t, want.Runs, "the capture's runs are scored")
			var lines []string
			for _, f := range inputs {
				lines = append(lines, readLines(t, f)...)
			}
			r := rand.New(rand.NewPCG(3, uint64(len(file))))
			dir := t.TempDir()
			for i := range ordersPerCapture {
				shuffled := append([]string(nil), lines...)
				r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				for k := range shuffled {
					shuffled[k] = shuffleLine(t, shuffled[k], r)
				}
				half := len(shuffled) / 2
				a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
				require.NoError(t, os.WriteFile(a, []byte(strings.Join(shuffled[:half], "\n")+"\n"), 0o600))
				require.NoError(t, os.WriteFile(b, []byte(strings.Join(shuffled[half:], "\n")+"\n"), 0o600))
				if half == 0 {
					require.Equal(t, want, score(b), "order %d", i)
				} else {
					require.Equal(t, want, score(a, b), "order %d", i)
					require.Equal(t, want, score(b, a), "order %d, files swapped", i)
				}
				runs++
			}
		})
	}
	t.Logf("FIGURES %d shuffled inputs of %d captures scored as recorded", runs, len(files))
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out = append(out, line)
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// shuffleLine shuffles the spans of each scope of one OTLP/JSON request.
func shuffleLine(t *testing.T, line string, r *rand.Rand) string {
	t.Helper()
	if strings.HasPrefix(line, `{"resourceLogs"`) {
		return line // a logs request: its lines are shuffled with the spans'
	}
	var u ptrace.JSONUnmarshaler
	td, err := u.UnmarshalTraces([]byte(line))
	require.NoError(t, err)
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			spans := ss.Spans()
			shuffled := ptrace.NewSpanSlice()
			for _, i := range r.Perm(spans.Len()) {
				spans.At(i).CopyTo(shuffled.AppendEmpty())
			}
			shuffled.CopyTo(spans)
		}
	}
	var m ptrace.JSONMarshaler
	b, err := m.MarshalTraces(td)
	require.NoError(t, err)
	require.True(t, json.Valid(b))
	return string(b)
}
