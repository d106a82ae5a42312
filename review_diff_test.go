package toolcallaccuracyprocessor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestReviewMultiRuleOutput writes the processor's output on every bundled
// trace, each file in one batch and every file again in one batch, under a
// config of several rules of different scorers, to REVIEW_OUT: the output
// of two commits compared byte for byte.
func TestReviewMultiRuleOutput(t *testing.T) {
	dir := os.Getenv("REVIEW_OUT")
	if dir == "" {
		t.Skip("REVIEW_OUT not set")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "traces", "*", "*.json*"))
	require.NoError(t, err)
	cfg := loadConfig(t, filepath.Join("testdata", "review", "multirule.yaml"), "multi")
	m := &ptrace.JSONMarshaler{}
	for _, f := range files {
		in := readTraceFile(t, f)
		one := ptrace.NewTraces()
		for _, td := range cloneAll(in) {
			td.ResourceSpans().MoveAndAppendTo(one.ResourceSpans())
		}
		for name, batches := range map[string][]ptrace.Traces{"batches": cloneAll(in), "one": {one}} {
			out := newHarness(t, cfg).run(t, batches)
			b, err := m.MarshalTraces(out)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)+"."+name+".json"), b, 0o644))
		}
	}
	// Many runs of one batch, each asking for another city.
	out := newHarness(t, cfg).run(t, []ptrace.Traces{citiesBatch(40)})
	b, err := m.MarshalTraces(out)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cities.json"), b, 0o644))
}
