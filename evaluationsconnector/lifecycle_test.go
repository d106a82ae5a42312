package evaluationsconnector

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/metadata"
)

// TestLifecycle runs both connectors through the public factory on the
// system clock: the ticker flushes, Shutdown sends what is left, and a
// second Shutdown does nothing.
func TestLifecycle(t *testing.T) {
	f := NewFactory()
	cfg := f.CreateDefaultConfig().(*Config)
	cfg.MetricsFlushInterval = 20 * time.Millisecond
	logs, metrics := new(consumertest.LogsSink), new(consumertest.MetricsSink)
	set := connectortest.NewNopSettings(metadata.Type)
	lc, err := f.CreateTracesToLogs(context.Background(), set, cfg, logs)
	require.NoError(t, err)
	mc, err := f.CreateTracesToMetrics(context.Background(), set, cfg, metrics)
	require.NoError(t, err)
	assert.False(t, lc.Capabilities().MutatesData)
	assert.False(t, mc.Capabilities().MutatesData)

	host := componenttest.NewNopHost()
	require.NoError(t, lc.Start(context.Background(), host))
	require.NoError(t, mc.Start(context.Background(), host))
	require.NoError(t, mc.Start(context.Background(), host), "a second Start starts nothing")

	td := readTraces(t, "processor.yaml")
	td.MarkReadOnly() // the connectors only read
	require.NoError(t, lc.ConsumeTraces(context.Background(), td))
	require.NoError(t, mc.ConsumeTraces(context.Background(), td))
	assert.Equal(t, 3, logs.LogRecordCount())
	require.Eventually(t, func() bool { return len(metrics.AllMetrics()) > 0 }, 10*time.Second, 5*time.Millisecond, "the ticker flushes")

	require.NoError(t, lc.Shutdown(context.Background()))
	require.NoError(t, mc.Shutdown(context.Background()))
	n := len(metrics.AllMetrics())
	last := metrics.AllMetrics()[n-1]
	assert.Equal(t, 10, last.DataPointCount(), "the cumulative series, sent at Shutdown")
	require.NoError(t, mc.Shutdown(context.Background()))
	require.NoError(t, mc.Start(context.Background(), host), "no restart after Shutdown")
	// Shutdown waited for the flush goroutine to end: nothing comes after.
	assert.Len(t, metrics.AllMetrics(), n)
}

// TestShutdownWithoutStart: both connectors shut down without starting,
// and the metrics connector sends nothing.
func TestShutdownWithoutStart(t *testing.T) {
	f := NewFactory()
	metrics := new(consumertest.MetricsSink)
	mc, err := f.CreateTracesToMetrics(context.Background(), connectortest.NewNopSettings(metadata.Type), f.CreateDefaultConfig(), metrics)
	require.NoError(t, err)
	require.NoError(t, mc.ConsumeTraces(context.Background(), readTraces(t, "processor.yaml")))
	require.NoError(t, mc.Shutdown(context.Background()))
	assert.Empty(t, metrics.AllMetrics())
	lc, err := f.CreateTracesToLogs(context.Background(), connectortest.NewNopSettings(metadata.Type), f.CreateDefaultConfig(), consumertest.NewNop())
	require.NoError(t, err)
	require.NoError(t, lc.Shutdown(context.Background()))
}

// TestTicks: each tick of the injected ticker flushes; a tick with nothing
// to send sends nothing (delta).
func TestTicks(t *testing.T) {
	cfg := goldenConfig()
	cfg.AggregationTemporality = temporalityDelta
	h := newHarness(t, cfg)
	h.consume(t, readTraces(t, "sdk-evaluator.yaml"))
	h.clock.advance(15 * time.Second)
	h.clock.tick()
	require.Eventually(t, func() bool { return len(h.metrics.AllMetrics()) == 1 }, 10*time.Second, time.Millisecond)
	first := h.metrics.AllMetrics()[0]
	assert.Equal(t, 5, first.DataPointCount())
	ts := first.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0)
	assert.Equal(t, pmetric.AggregationTemporalityDelta, ts.Histogram().AggregationTemporality())

	h.clock.tick()
	h.clock.tick() // the second tick is taken after the first's flush
	assert.Len(t, h.metrics.AllMetrics(), 1, "nothing new, nothing sent")
}

// TestConcurrentConsume: batches from several goroutines while the ticker
// flushes (run with -race); every evaluation is counted once.
func TestConcurrentConsume(t *testing.T) {
	h := newHarness(t, goldenConfig())
	td := readTraces(t, "processor.yaml")
	td.MarkReadOnly()
	const workers, batches = 4, 50
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 20 {
			h.clock.tick()
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range batches {
				assert.NoError(t, h.lc.ConsumeTraces(context.Background(), td))
				assert.NoError(t, h.mc.ConsumeTraces(context.Background(), td))
			}
		})
	}
	wg.Wait()
	<-done
	assert.Equal(t, workers*batches*3, h.logs.LogRecordCount())
	// Shutdown waits for the flush of the last tick (tick returns once the
	// loop has taken it, not once its flush is sent) and flushes the rest.
	// The sums are cumulative: each series' latest point is its total.
	h.clock.advance(time.Second)
	require.NoError(t, h.mc.Shutdown(context.Background()))
	latest := map[string]int64{} // by attributes (fmt prints a map's keys sorted)
	for _, md := range h.metrics.AllMetrics() {
		for _, m := range md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().All() {
			if m.Name() == metricResults {
				for _, dp := range m.Sum().DataPoints().All() {
					latest[fmt.Sprint(dp.Attributes().AsRaw())] = dp.IntValue()
				}
			}
		}
	}
	var evaluations int64
	for _, n := range latest {
		evaluations += n
	}
	assert.Equal(t, int64(workers*batches*3), evaluations)
}
