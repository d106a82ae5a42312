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

// TestRememberedTraceBound holds README's sizing: what the processor keeps
// of a scored run (its remembered trace, and its annotations for spans sent
// again) does not grow with what its spans recorded. Five-span runs whose
// model calls each record 25 KiB of instructions, tool definitions and
// messages, with tool arguments and results, leave at most 64 B per run
// more than the same runs recorded without content, under the end-to-end
// benchmark's rules (checks reads the run context).
func TestRememberedTraceBound(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("decodes 10 MB of runs; the race detector's allocations are not the production build's")
	}
	const runs = 2000
	retained := func(kb int) float64 {
		raw := encodedContentRuns(t, runs, 10, kb)
		cfg := contentRuleConfigs()[2].cfg()
		cfg.Limits.MaxTrackedTraces = runs
		p, err := NewFactory().CreateTraces(context.Background(), processortest.NewNopSettings(NewFactory().Type()), cfg, consumertest.NewNop())
		require.NoError(t, err)
		require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
		defer func() { _ = p.Shutdown(context.Background()) }()
		kept := memtest.RetainedBytes(func() { consumeEncoded(t, p, raw) })
		runtime.KeepAlive(raw)
		runtime.KeepAlive(p)
		return float64(kept) / runs
	}
	without, with := retained(0), retained(25)
	t.Logf("kept per scored run: %.0f B without content, %.0f B with 25 KiB per model call", without, with)
	if with > without+64 {
		t.Fatalf("a scored run's content costs %.0f B kept: text of its spans is kept", with-without)
	}
}
