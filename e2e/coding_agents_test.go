//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestCodingAgents runs README's coding-agent configuration on the real
// binary and sends each agent's capture as the agent exports it, OTLP/HTTP
// JSON, log records and spans to their own endpoints: every run is scored
// with the verdict the factory-level test gets (testdata/golden/
// coding-agents.txt), Codex's refused, unknown and failing calls read from
// its log records.
func TestCodingAgents(t *testing.T) {
	c := launchCollector(t, *collectorBin, []string{"testdata/coding-agents.yaml"}, freePorts(t, 3))
	names := []string{"claude-code-mock", "gemini-cli-p-mock", "codex-exec-mock"}
	total := 0
	for _, name := range names {
		total += c.sendCapture(t, name)
	}
	verdicts := map[string]string{}
	for _, r := range scoredSpans(t, c.waitSpans(t, total)) {
		require.NotContains(t, verdicts, r.service, "one run per agent")
		verdicts[r.service] = r.span + "\n" + r.verdict
	}
	golden, err := os.ReadFile("../testdata/golden/coding-agents.txt")
	require.NoError(t, err)
	var got strings.Builder
	for i, service := range []string{"claude-code", "gemini-cli", "codex_exec"} {
		require.Contains(t, verdicts, service)
		fmt.Fprintf(&got, "== %s: %s\n", names[i], verdicts[service])
	}
	assert.Equal(t, string(golden), got.String(), "the collector's verdicts are the factory-level test's")
}

// sendCapture sends a coding agent's capture as the agent exports it,
// OTLP/HTTP JSON: its log requests, then its span requests. It returns the
// number of spans sent.
func (c *collector) sendCapture(t *testing.T, name string) int {
	t.Helper()
	for _, line := range jsonLines(t, "../testdata/logs/captures/"+name+".logs.otlp.jsonl") {
		c.postJSON(t, "logs", line)
	}
	for _, line := range jsonLines(t, "../testdata/traces/captures/"+name+".otlp.jsonl") {
		c.postJSON(t, "traces", line)
	}
	total := 0
	for _, r := range readRequests(t, "../testdata/traces/captures/"+name+".otlp.jsonl") {
		total += r.td.SpanCount()
	}
	return total
}

// waitSpans waits until the file exporter has written total spans and
// returns them, checking that none went out twice.
func (c *collector) waitSpans(t *testing.T, total int) ptrace.Traces {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		td, complete := readExported(t, c.out)
		if complete && td.SpanCount() >= total {
			assert.Equal(t, total, td.SpanCount(), "every span goes out once")
			return td
		}
		require.True(t, time.Now().Before(deadline), "%d of %d spans out after 60s", td.SpanCount(), total)
		time.Sleep(200 * time.Millisecond)
	}
}

// scoredRun is a span that carries a verdict: its service, name, id and
// tool_call_accuracy.* attributes as sorted key=value lines.
type scoredRun struct {
	service, span, id, verdict string
}

// scoredSpans returns the spans of td that carry a verdict.
func scoredSpans(t *testing.T, td ptrace.Traces) []scoredRun {
	t.Helper()
	var out []scoredRun
	for _, rs := range td.ResourceSpans().All() {
		service, _ := rs.Resource().Attributes().Get("service.name")
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
				out = append(out, scoredRun{service: service.Str(), span: s.Name(), id: s.SpanID().String(), verdict: strings.Join(lines, "\n")})
			}
		}
	}
	return out
}

// jsonLines returns the lines of an OTLP JSON lines file.
func jsonLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			out = append(out, bytes.Clone(line))
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// postJSON sends one OTLP/HTTP JSON request of signal (traces, logs), as
// the agents' exporters do.
func (c *collector) postJSON(t *testing.T, signal string, body []byte) {
	t.Helper()
	resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/v1/%s", c.httpPort, signal), "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
}
