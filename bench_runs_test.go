package toolcallaccuracyprocessor

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

var updateBenchRuns = flag.Bool("update-bench-runs", false, "rewrite tools/bench/runs/*.otlp.jsonl")

// benchRuns are the end-to-end benchmark's constructed traffic
// (tools/bench/e2e.sh TRAFFIC=...): one complete five-span agent run each
// (see contentRun), replayed by `toolscore load` under fresh ids. The
// content sizes are per model-call span: 2 KiB is instructions of 1 KiB,
// tool definitions of 0.5 KiB and a user message of 0.5 KiB, the shape of
// a small chat agent with content capture on; 27 KiB carries 20 KiB of
// instructions and tool definitions, as coding agents record on every
// model call.
var benchRuns = []struct {
	file string
	kb   int
}{
	{"five-span-no-content.otlp.jsonl", 0},
	{"five-span-content.otlp.jsonl", 2},
	{"five-span-20kb-instructions.otlp.jsonl", 27},
}

// TestBenchRunsAreGenerated keeps tools/bench/runs what contentRun builds
// (go test -run TestBenchRunsAreGenerated -update-bench-runs . rewrites
// them).
func TestBenchRunsAreGenerated(t *testing.T) {
	for _, r := range benchRuns {
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", "bench-agent")
		ss := rs.ScopeSpans().AppendEmpty()
		ss.Scope().SetName("bench")
		contentRun(ss, r.kb)
		for _, s := range ss.Spans().All() {
			s.SetTraceID(traceID(1))
		}
		var m ptrace.JSONMarshaler
		buf, err := m.MarshalTraces(td)
		require.NoError(t, err)
		buf = append(buf, '\n')
		path := filepath.Join("tools", "bench", "runs", r.file)
		if *updateBenchRuns {
			require.NoError(t, os.WriteFile(path, buf, 0o644))
		}
		got, err := os.ReadFile(path)
		require.NoError(t, err, "go test -run TestBenchRunsAreGenerated -update-bench-runs . writes it")
		require.Equal(t, string(buf), string(got), "%s is not what contentRun builds: -update-bench-runs rewrites it", path)
	}
}
