//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeBlock returns the YAML block that follows marker in README.md.
func readmeBlock(t *testing.T, marker string) string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(data), marker+"\n```yaml\n")
	require.True(t, ok, "README.md has no YAML block after %s", marker)
	block, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	return block
}

// TestQuickStart: README's quick-start configuration, exactly as written
// but for its ports, passes otelcol validate, starts the collector, and
// does what README says: the agent span carries the rule's attributes (the
// debug exporter prints them) and the metrics are served on the telemetry
// port.
func TestQuickStart(t *testing.T) {
	block := readmeBlock(t, "<!-- quick-start-config -->")
	ports := freePorts(t, 3)
	config := strings.NewReplacer(
		"localhost:4317", fmt.Sprintf("127.0.0.1:%d", ports[0]),
		"localhost:4318", fmt.Sprintf("127.0.0.1:%d", ports[1]),
		"host: localhost, port: 8888", fmt.Sprintf("host: 127.0.0.1, port: %d", ports[2]),
	).Replace(block)
	require.NotEqual(t, block, config)
	for _, p := range []string{"4317", "4318", "8888"} {
		require.NotContains(t, config, p, "a port the test did not move")
	}
	path := filepath.Join(t.TempDir(), "quick-start.yaml")
	require.NoError(t, os.WriteFile(path, []byte(config), 0o644))

	out, err := exec.Command(*collectorBin, "validate", "--config", path).CombinedOutput()
	require.NoError(t, err, "otelcol validate rejects README's quick-start configuration:\n%s", out)

	c := launchCollector(t, *collectorBin, []string{path}, ports)
	for _, r := range readRequests(t, "../testdata/demo/traces/adk-go-mock.otlp.jsonl") {
		c.sendHTTP(t, r.td)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		log, err := os.ReadFile(c.log)
		require.NoError(t, err)
		if strings.Contains(string(log), "tool_call_accuracy.weather.outcome: Str(pass)") {
			assert.Contains(t, string(log), "tool_call_accuracy.weather.score: Double(1)")
			break
		}
		require.True(t, time.Now().Before(deadline), "no scored agent span in the debug exporter's output:\n%s", log)
		time.Sleep(200 * time.Millisecond)
	}
	// The capture sent again, as a user re-sending a file or an
	// at-least-once upstream does: the copy of the agent span carries the
	// same annotations, and the run is counted once.
	for _, r := range readRequests(t, "../testdata/demo/traces/adk-go-mock.otlp.jsonl") {
		c.sendHTTP(t, r.td)
	}
	for {
		log, err := os.ReadFile(c.log)
		require.NoError(t, err)
		if strings.Count(string(log), "tool_call_accuracy.weather.outcome: Str(pass)") == 2 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the agent span sent again is not annotated:\n%s", log)
		time.Sleep(200 * time.Millisecond)
	}
	samples, _ := c.scrape(t)
	got, ok := value(samples, ourPrefix+"evaluations", map[string]string{"processor": processor, "rule": "weather", "outcome": "pass"})
	assert.True(t, ok, "the metrics are not served where README says")
	assert.Equal(t, 1.0, got, "a run sent twice is counted once")
}
