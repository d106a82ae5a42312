package toolcallaccuracyprocessor

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/loadgen"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadatatest"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

var holdingFigures = flag.Bool("holding.figures", false, "run TestHoldingLoadFigures: the holding benchmark of docs/performance.md (about 2 minutes)")

// timedSink counts what the processor sends on: spans, runs that passed,
// and when the last span came.
type timedSink struct {
	spans, passed, scored atomic.Int64
	last                  atomic.Int64 // Unix ns
}

func (s *timedSink) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

// ConsumeTraces counts the batch's spans last: a reader that sees every
// span counted sees their verdicts counted too.
func (s *timedSink) ConsumeTraces(_ context.Context, td ptrace.Traces) error {
	s.last.Store(time.Now().UnixNano())
	defer s.spans.Add(int64(td.SpanCount()))
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				if v, ok := sp.Attributes().Get(attrPrefix + "paris_trip.passed"); ok {
					s.scored.Add(1)
					if v.Bool() {
						s.passed.Add(1)
					}
				}
			}
		}
	}
	return nil
}

// holdingLoad is what one run of loadThroughProcessor measured.
type holdingLoad struct {
	spans, scored, passed, evicted, overLimit, complete, deadline int64
	// lastExport is the time from the first request to the last span
	// sent on; cpu the process's CPU time over the same span (senders'
	// request building included, alike in every variant).
	lastExport, cpu time.Duration
}

func (l holdingLoad) String() string {
	return fmt.Sprintf("%d spans, %d runs scored, %d passed, %d evicted, held: %d complete %d deadline %d over_limit, last span out after %v, CPU %v",
		l.spans, l.scored, l.passed, l.evicted, l.complete, l.deadline, l.overLimit, l.lastExport.Round(time.Millisecond), l.cpu.Round(time.Millisecond))
}

// demoTemplates reads the demo's captured runs, reshaped.
func demoTemplates(t testing.TB, shape string) ([]*loadgen.Template, []loadgen.SpanGroup) {
	files, err := filepath.Glob(filepath.Join("testdata", "demo", "traces", "*.otlp.jsonl"))
	require.NoError(t, err)
	docs, err := otlpjson.ReadFiles(files...)
	require.NoError(t, err)
	groups := []loadgen.SpanGroup{loadgen.OrdinaryGroup()}
	templates, err := loadgen.ReadTemplates(docs, &groups)
	require.NoError(t, err)
	templates, err = loadgen.ShapeTemplates(templates, groups, shape)
	require.NoError(t, err)
	return templates, groups
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadThroughProcessor sends spans spans of the demo's runs, reshaped, with
// share of GenAI spans, from senders goroutines as fast as the processor
// takes them, through a processor made by the factory from cfg; with
// warmUp, first learnAfter runs of each template alone, and waits past
// wait_for_missing for what the processor learns of them. It returns what
// it measured once every span went out.
func loadThroughProcessor(t testing.TB, cfg *Config, shape string, share float64, spans int64, senders int, warmUp bool) holdingLoad {
	templates, groups := demoTemplates(t, shape)
	tel := componenttest.NewTelemetry()
	defer func() { require.NoError(t, tel.Shutdown(context.Background())) }()
	sink := new(timedSink)
	ctx := context.Background()
	proc, err := NewFactory().CreateTraces(ctx, metadatatest.NewSettings(tel), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, proc.Start(ctx, componenttest.NewNopHost()))
	var sent int64
	if warmUp {
		warm := loadgen.NewTraffic(loadgen.Config{Batch: 100, Share: 1, Limit: int64(learnAfter * countSpans(templates))}, templates, groups, 7)
		for {
			rb, state := warm.Next(0, 0)
			if state != loadgen.NextRequest {
				break
			}
			sent += int64(rb.Spans)
			require.NoError(t, proc.ConsumeTraces(ctx, rb.TD))
		}
		time.Sleep(cfg.WaitForMissing + 1500*time.Millisecond)
		require.Eventually(t, func() bool { return sink.spans.Load() == sent }, 10*time.Second, 10*time.Millisecond)
	}
	var warm holdingLoad
	warm.complete = sumMetric(tel, "otelcol_processor_tool_call_accuracy_incomplete_runs", "complete")
	warm.deadline = sumMetric(tel, "otelcol_processor_tool_call_accuracy_incomplete_runs", "deadline")
	base := sink.spans.Load()
	scored0, passed0 := sink.scored.Load(), sink.passed.Load()
	tr := loadgen.NewTraffic(loadgen.Config{Batch: 100, Share: share, Limit: spans}, templates, groups, 11)
	var mu sync.Mutex
	var burst atomic.Int64
	start, cpu0 := time.Now(), cpuTime()
	var wg sync.WaitGroup
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				rb, state := tr.Next(0, 0)
				mu.Unlock()
				if state != loadgen.NextRequest {
					return
				}
				burst.Add(int64(rb.Spans))
				if err := proc.ConsumeTraces(ctx, rb.TD); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	want := base + burst.Load()
	require.Eventually(t, func() bool { return sink.spans.Load() == want }, 30*time.Second, time.Millisecond, "every span goes out")
	res := holdingLoad{
		spans:      burst.Load(),
		scored:     sink.scored.Load() - scored0,
		passed:     sink.passed.Load() - passed0,
		lastExport: time.Duration(sink.last.Load() - start.UnixNano()),
		cpu:        cpuTime() - cpu0,
	}
	require.NoError(t, proc.Shutdown(ctx))
	res.evicted = sumMetric(tel, "otelcol_processor_tool_call_accuracy_evicted_trajectories", "")

	res.overLimit = sumMetric(tel, "otelcol_processor_tool_call_accuracy_incomplete_runs", "over_limit")
	res.complete = sumMetric(tel, "otelcol_processor_tool_call_accuracy_incomplete_runs", "complete") - warm.complete
	res.deadline = sumMetric(tel, "otelcol_processor_tool_call_accuracy_incomplete_runs", "deadline") - warm.deadline
	return res
}

func countSpans(templates []*loadgen.Template) int {
	n := 0
	for _, tpl := range templates {
		n += tpl.Len()
	}
	return n
}

// sumMetric sums a counter's points (those whose attributes hold value,
// when value is set), 0 when it was never recorded.
func sumMetric(tel *componenttest.Telemetry, name, value string) int64 {
	m, err := tel.GetMetric(name)
	if err != nil {
		return 0
	}
	var n int64
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		if value == "" {
			n += dp.Value
			continue
		}
		for _, kv := range dp.Attributes.ToSlice() {
			if kv.Value.AsString() == value {
				n += dp.Value
			}
		}
	}
	return n
}

// TestHoldingUnderSustainedLoad: runs that end on a tool call, every span
// of them, from 16 senders through a processor with default settings but a
// small max_open_trajectories, from a cold start (nothing learned: every
// run is held): every run that passes without wait_for_missing passes,
// nothing is evicted, and every span goes out.
func TestHoldingUnderSustainedLoad(t *testing.T) {
	spans := int64(60_000)
	if testing.Short() {
		spans = 12_000
	}
	cfg := func(wait time.Duration) *Config {
		c := parisConfig(t)
		c.WaitForMissing = wait
		c.Limits.MaxOpenTrajectories = 500
		c.Limits.MaxHeldRuns = int(spans / 60) // fewer than the runs held at once
		return c
	}
	without := loadThroughProcessor(t, cfg(0), loadgen.ShapeEndsOnTools, 1, spans, 16, false)
	with := loadThroughProcessor(t, cfg(5*time.Second), loadgen.ShapeEndsOnTools, 1, spans, 16, false)
	t.Logf("wait_for_missing 0s: %v", without)
	t.Logf("wait_for_missing 5s: %v", with)
	require.Equal(t, without.scored, with.scored, "every run is scored")
	require.Equal(t, without.passed, with.passed, "every run that passes in order passes")
	require.Zero(t, with.evicted, "holding evicts nothing")
	require.Positive(t, with.overLimit, "the load held more runs than max_held_runs: the oldest went first")
}

// TestHoldingLoadFigures is the holding benchmark of docs/performance.md
// (go test -run TestHoldingLoadFigures -holding.figures -v .): for each
// traffic, default settings beside wait_for_missing: 0s, alternating,
// once the services' runs were learned.
func TestHoldingLoadFigures(t *testing.T) {
	if !*holdingFigures {
		t.Skip("-holding.figures not set")
	}
	traffic := []struct {
		shape string
		share float64
		spans int64
	}{
		{loadgen.ShapeEndsOnTools, 0.1, 400_000},
		{loadgen.ShapeEndsOnTools, 1, 200_000},
		{loadgen.ShapeAgentsAlone, 1, 100_000},
	}
	for _, tr := range traffic {
		for round := range 3 {
			for _, wait := range []time.Duration{0, 5 * time.Second} {
				cfg := parisConfig(t)
				cfg.WaitForMissing = wait
				res := loadThroughProcessor(t, cfg, tr.shape, tr.share, tr.spans, 16, wait > 0)
				t.Logf("FIGURES shape=%s share=%v round=%d wait_for_missing=%v: %v", tr.shape, tr.share, round, wait, res)
			}
		}
	}
}
