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
		for _, line := range jsonLines(t, "../testdata/logs/captures/"+name+".logs.otlp.jsonl") {
			c.postJSON(t, "logs", line)
		}
		for _, line := range jsonLines(t, "../testdata/traces/captures/"+name+".otlp.jsonl") {
			c.postJSON(t, "traces", line)
		}
		for _, r := range readRequests(t, "../testdata/traces/captures/"+name+".otlp.jsonl") {
			total += r.td.SpanCount()
		}
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

	verdicts := map[string]string{}
	for _, rs := range out.ResourceSpans().All() {
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
				require.NotContains(t, verdicts, service.Str(), "one run per agent")
				verdicts[service.Str()] = s.Name() + "\n" + strings.Join(lines, "\n")
			}
		}
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
