//go:build e2e

package e2e

import (
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestGeminiInteractive sends the interactive Gemini CLI session's export
// requests (log records, then spans, as the agent's exporters sent them) to
// the collector on README's two-pipeline configuration: each prompt is
// scored once, on its own user_prompt span, as the factory-level test
// scores it (testdata/golden/gemini-interactive.txt).
func TestGeminiInteractive(t *testing.T) {
	c := launchCollector(t, *collectorBin, []string{"testdata/coding-agents.yaml"}, freePorts(t, 3))
	const name = "gemini-cli-interactive-mock"
	for _, line := range jsonLines(t, "../testdata/logs/captures/"+name+".logs.otlp.jsonl") {
		c.postJSON(t, "logs", line)
	}
	total := 0
	for _, line := range jsonLines(t, "../testdata/traces/captures/"+name+".otlp.jsonl") {
		c.postJSON(t, "traces", line)
	}
	for _, r := range readRequests(t, "../testdata/traces/captures/"+name+".otlp.jsonl") {
		total += r.td.SpanCount()
	}
	var out ptrace.Traces
	deadline := time.Now().Add(60 * time.Second)
	for {
		td, complete := readExported(t, c.out)
		if complete && td.SpanCount() >= total {
			out = td
			break
		}
		require.True(t, time.Now().Before(deadline), "%d of %d spans out after 60s", td.SpanCount(), total)
		time.Sleep(200 * time.Millisecond)
	}
	assert.Equal(t, total, out.SpanCount(), "every span goes out once")

	got := map[string]string{}
	for _, rs := range out.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				if _, ok := s.Attributes().Get("tool_call_accuracy.rules"); !ok {
					continue
				}
				var lines []string
				for k, v := range s.Attributes().All() {
					if strings.HasPrefix(k, "tool_call_accuracy.") {
						lines = append(lines, k+"="+v.AsString())
					}
				}
				sort.Strings(lines)
				id := s.SpanID().String()
				require.NotContains(t, got, id, "span %s scored once", id)
				got[id] = strings.Join(lines, "\n")
			}
		}
	}
	golden, err := os.ReadFile("../testdata/golden/gemini-interactive.txt")
	require.NoError(t, err)
	want := map[string]string{}
	for _, block := range strings.Split(strings.TrimPrefix(string(golden), "== "), "\n== ") {
		header, verdict, _ := strings.Cut(block, "\n")
		want[strings.Fields(header)[0]] = strings.TrimSuffix(verdict, "\n")
	}
	assert.Equal(t, want, got, "one run per prompt, the factory-level test's verdicts")
}
