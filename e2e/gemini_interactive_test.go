//go:build e2e

package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGeminiInteractive sends the interactive Gemini CLI session's export
// requests (log records, then spans, as the agent's exporters sent them) to
// the collector on README's two-pipeline configuration: each prompt is
// scored once, on its own user_prompt span, as the factory-level test
// scores it (testdata/golden/gemini-interactive.txt).
func TestGeminiInteractive(t *testing.T) {
	c := launchCollector(t, *collectorBin, []string{"testdata/coding-agents.yaml"}, freePorts(t, 3))
	got := map[string]string{}
	for _, r := range scoredSpans(t, c.waitSpans(t, c.sendCapture(t, "gemini-cli-interactive-mock"))) {
		require.NotContains(t, got, r.id, "span %s scored once", r.id)
		got[r.id] = r.verdict
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
