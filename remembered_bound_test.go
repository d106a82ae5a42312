package toolcallaccuracyprocessor

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/memtest"
)

// TestRememberedTraceBound holds README's sizing: a closed run's remembered
// trace keeps about 450 B of heap whatever its spans recorded. Five-span
// runs whose model calls each record 25 KiB of instructions, tool
// definitions and messages, with tool arguments and results, are scored
// under the end-to-end benchmark's rules (checks reads the run context);
// what stays is the remembered traces, at most 600 B each.
func TestRememberedTraceBound(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("decodes 10 MB of runs; the race detector's allocations are not the production build's")
	}
	const runs = 2000
	raw := encodedContentRuns(t, runs, 10, 25)
	cfg := contentRuleConfigs()[2].cfg()
	cfg.Limits.MaxTrackedTraces = runs
	p, err := NewFactory().CreateTraces(context.Background(), processortest.NewNopSettings(NewFactory().Type()), cfg, consumertest.NewNop())
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	retained := memtest.RetainedBytes(func() { consumeEncoded(t, p, raw) })
	runtime.KeepAlive(raw)
	runtime.KeepAlive(p)
	perTrace := float64(retained) / runs
	t.Logf("%.0f B per remembered trace", perTrace)
	if perTrace > 600 {
		t.Fatalf("a remembered trace keeps %.0f B, over 600 B: text of its spans is kept", perTrace)
	}
}
