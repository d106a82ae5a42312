package evaluationsconnector

import (
	"context"
	"flag"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/plogtest"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/pmetrictest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/aggregate"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/evaluation"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/metadatatest"
)

var update = flag.Bool("update", false, "rewrite testdata/logs and testdata/metrics from the current output")

// testStart is the fake clock's time when a harness starts.
var testStart = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// fakeClock is a clock tests move by hand, with a ticker they tick.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	ticks chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: testStart, ticks: make(chan time.Time)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *fakeClock) NewTicker(time.Duration) ticker { return fakeTicker{c} }

// tick delivers a tick; it returns when the flush loop has taken it.
func (c *fakeClock) tick() { c.ticks <- c.Now() }

type fakeTicker struct{ c *fakeClock }

func (t fakeTicker) C() <-chan time.Time { return t.c.ticks }

func (fakeTicker) Stop() {}

// harness is a logs and a metrics connector made by the factory over a fake
// clock, with sinks and a telemetry reader.
type harness struct {
	clock   *fakeClock
	tel     *componenttest.Telemetry
	logs    *consumertest.LogsSink
	metrics *consumertest.MetricsSink
	lc, mc  connector.Traces
}

func newHarness(t testing.TB, cfg *Config) *harness {
	return newHarnessWith(t, cfg, nil, nil)
}

// newHarnessWith builds the connectors with the given next consumers
// (nil: the harness's sinks).
func newHarnessWith(t testing.TB, cfg *Config, nextLogs consumer.Logs, nextMetrics consumer.Metrics) *harness {
	t.Helper()
	require.NoError(t, cfg.Validate())
	h := &harness{clock: newFakeClock(), tel: componenttest.NewTelemetry(), logs: new(consumertest.LogsSink), metrics: new(consumertest.MetricsSink)}
	t.Cleanup(func() { require.NoError(t, h.tel.Shutdown(context.Background())) })
	if nextLogs == nil {
		nextLogs = h.logs
	}
	if nextMetrics == nil {
		nextMetrics = h.metrics
	}
	f := newFactory(h.clock)
	set := metadatatest.NewSettings(h.tel)
	set.BuildInfo.Version = "1.2.3"
	var err error
	h.lc, err = f.CreateTracesToLogs(context.Background(), set, cfg, nextLogs)
	require.NoError(t, err)
	h.mc, err = f.CreateTracesToMetrics(context.Background(), set, cfg, nextMetrics)
	require.NoError(t, err)
	require.NoError(t, h.lc.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, h.mc.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() {
		require.NoError(t, h.lc.Shutdown(context.Background()))
		require.NoError(t, h.mc.Shutdown(context.Background()))
	})
	return h
}

// consume gives td to both connectors.
func (h *harness) consume(t testing.TB, td ptrace.Traces) {
	t.Helper()
	require.NoError(t, h.lc.ConsumeTraces(context.Background(), td))
	require.NoError(t, h.mc.ConsumeTraces(context.Background(), td))
}

// flush moves the clock and flushes the metrics as a tick does, returning
// what the flush sent (an empty Metrics when nothing).
func (h *harness) flush(t testing.TB, after time.Duration) pmetric.Metrics {
	t.Helper()
	before := len(h.metrics.AllMetrics())
	h.clock.advance(after)
	h.mc.(*metricsConnector).flush(context.Background())
	all := h.metrics.AllMetrics()
	if len(all) == before {
		return pmetric.NewMetrics()
	}
	require.Len(t, all, before+1)
	return all[before]
}

// allLogs merges what the logs connector sent.
func (h *harness) allLogs() plog.Logs {
	out := plog.NewLogs()
	for _, ld := range h.logs.AllLogs() {
		ld.ResourceLogs().MoveAndAppendTo(out.ResourceLogs())
	}
	return out
}

func readTraces(t testing.TB, name string) ptrace.Traces {
	t.Helper()
	td, err := golden.ReadTraces(filepath.Join("testdata", "traces", name))
	require.NoError(t, err)
	return td
}

// withoutEvents returns td without its evaluation events: spans as a
// processor with output.events: false annotates them.
func withoutEvents(td ptrace.Traces) ptrace.Traces {
	out := ptrace.NewTraces()
	td.CopyTo(out)
	for _, rs := range out.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				s.Events().RemoveIf(func(e ptrace.SpanEvent) bool { return e.Name() == evaluation.EventName })
			}
		}
	}
	return out
}

// goldenConfig is the configuration of the golden tests: the README's
// suggested dimensions.
func goldenConfig() *Config {
	cfg := createDefaultConfig().(*Config)
	cfg.Dimensions = []DimensionConfig{
		{Name: "service.name"}, {Name: "gen_ai.agent.name"}, {Name: "gen_ai.request.model"}, {Name: "deployment.environment.name"},
	}
	return cfg
}

// TestGolden: the log records and metrics of evaluations from the
// processor, from another producer, and from the processor's attributes
// alone, against testdata/logs and testdata/metrics.
func TestGolden(t *testing.T) {
	tests := []struct {
		name  string
		input ptrace.Traces
		cfg   func(*Config)
	}{
		{name: "processor", input: readTraces(t, "processor.yaml")},
		{name: "sdk-evaluator", input: readTraces(t, "sdk-evaluator.yaml")},
		{
			name:  "processor-attributes",
			input: withoutEvents(readTraces(t, "processor.yaml")),
			cfg:   func(c *Config) { c.ProcessorAttributes = true },
		},
		{
			name:  "delta",
			input: readTraces(t, "sdk-evaluator.yaml"),
			cfg:   func(c *Config) { c.AggregationTemporality = temporalityDelta },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := goldenConfig()
			if tt.cfg != nil {
				tt.cfg(cfg)
			}
			h := newHarness(t, cfg)
			h.consume(t, tt.input)
			// The metrics twice: the series add up.
			require.NoError(t, h.mc.ConsumeTraces(context.Background(), tt.input))
			md := h.flush(t, 10*time.Second)
			ld := h.allLogs()

			logsPath := filepath.Join("testdata", "logs", tt.name+".yaml")
			metricsPath := filepath.Join("testdata", "metrics", tt.name+".yaml")
			if *update {
				require.NoError(t, golden.WriteLogsToFile(logsPath, ld))
				require.NoError(t, golden.WriteMetricsToFile(metricsPath, md, golden.SkipMetricTimestampNormalization()))
				return
			}
			wantLogs, err := golden.ReadLogs(logsPath)
			require.NoError(t, err)
			require.NoError(t, plogtest.CompareLogs(wantLogs, ld))
			assertEventNames(t, wantLogs, ld)
			assertConventionalNames(t, ld, md)

			wantMetrics, err := golden.ReadMetrics(metricsPath)
			require.NoError(t, err)
			require.NoError(t, pmetrictest.CompareMetrics(wantMetrics, md, pmetrictest.IgnoreMetricsOrder(), pmetrictest.IgnoreMetricDataPointsOrder()))
		})
	}
}

// assertEventNames: every record is a gen_ai.evaluation.result event, as
// in the golden file (which CompareLogs does not compare).
func assertEventNames(t *testing.T, want, got plog.Logs) {
	t.Helper()
	var wantNames, gotNames []string
	for _, ld := range []plog.Logs{want, got} {
		var names []string
		for _, rl := range ld.ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					names = append(names, lr.EventName())
				}
			}
		}
		if len(wantNames) == 0 && ld == want {
			wantNames = names
		} else {
			gotNames = names
		}
	}
	require.NotEmpty(t, gotNames)
	assert.Equal(t, wantNames, gotNames)
	for _, n := range gotNames {
		assert.Equal(t, evaluation.EventName, n)
	}
}

// assertConventionalNames: the attributes written are the semantic
// conventions' (checked against the semconv package's constants), the
// processor's, a configured dimension, or ones a producer recorded on its
// event.
func assertConventionalNames(t *testing.T, ld plog.Logs, md pmetric.Metrics) {
	t.Helper()
	conventions := map[string]bool{
		string(semconv.GenAIEvaluationNameKey):        true,
		string(semconv.GenAIEvaluationScoreValueKey):  true,
		string(semconv.GenAIEvaluationScoreLabelKey):  true,
		string(semconv.GenAIEvaluationExplanationKey): true,
		string(semconv.GenAIResponseIDKey):            true,
		string(semconv.ErrorTypeKey):                  true,
		string(semconv.GenAIToolNameKey):              true,
		string(semconv.GenAIAgentNameKey):             true,
		string(semconv.GenAIRequestModelKey):          true,
		string(semconv.ServiceNameKey):                true,
		string(semconv.DeploymentEnvironmentNameKey):  true,
		aggregate.OverflowKey:                         true,
	}
	producerOwn := map[string]bool{"evaluator.version": true}
	check := func(where, k string) {
		assert.True(t, conventions[k] || strings.HasPrefix(k, evaluation.ProcessorPrefix) || producerOwn[k], "%s: attribute %q", where, k)
	}
	for _, rl := range ld.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			assert.Equal(t, semconv.SchemaURL, sl.SchemaUrl())
			for _, lr := range sl.LogRecords().All() {
				for k := range lr.Attributes().All() {
					check("log record", k)
				}
			}
		}
	}
	for _, rm := range md.ResourceMetrics().All() {
		for _, sm := range rm.ScopeMetrics().All() {
			for _, m := range sm.Metrics().All() {
				assert.Contains(t, []string{metricScore, metricResults, metricToolCalls}, m.Name())
				forEachAttributes(m, func(k string) { check(m.Name(), k) })
			}
		}
	}
}

func forEachAttributes(m pmetric.Metric, f func(string)) {
	switch m.Type() {
	case pmetric.MetricTypeHistogram:
		for _, dp := range m.Histogram().DataPoints().All() {
			for k := range dp.Attributes().All() {
				f(k)
			}
		}
	case pmetric.MetricTypeSum:
		for _, dp := range m.Sum().DataPoints().All() {
			for k := range dp.Attributes().All() {
				f(k)
			}
		}
	}
}

// TestAttributesStandInForEvents: with the processor's events off, the
// records read from its attributes are those of its events for each rule's
// primary scorer (a second scorer reports through events only).
func TestAttributesStandInForEvents(t *testing.T) {
	td := readTraces(t, "processor.yaml")
	fromEvents := newHarness(t, goldenConfig())
	fromEvents.consume(t, td)
	cfg := goldenConfig()
	cfg.ProcessorAttributes = true
	fromAttrs := newHarness(t, cfg)
	fromAttrs.consume(t, withoutEvents(td))

	records := func(ld plog.Logs) map[string]plog.LogRecord {
		out := map[string]plog.LogRecord{}
		for _, lr := range ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().All() {
			name, _ := lr.Attributes().Get(evaluation.AttrName)
			out[name.Str()] = lr
		}
		return out
	}
	byEvent, byAttrs := records(fromEvents.allLogs()), records(fromAttrs.allLogs())
	assert.ElementsMatch(t, []string{"paris_trip/native", "paris_trip/deepeval", "stock_must_succeed/native"}, slices.Collect(maps.Keys(byEvent)))
	assert.ElementsMatch(t, []string{"paris_trip/native", "stock_must_succeed/native"}, slices.Collect(maps.Keys(byAttrs)))
	for name, lr := range byAttrs {
		require.NoError(t, plogtest.CompareLogRecord(byEvent[name], lr), name)
	}

	// The metrics too, less the second scorer's series.
	evMetrics, attrMetrics := fromEvents.flush(t, time.Second), fromAttrs.flush(t, time.Second)
	results := func(md pmetric.Metrics) map[string]int64 {
		out := map[string]int64{}
		for _, m := range md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().All() {
			if m.Type() != pmetric.MetricTypeSum {
				continue
			}
			for _, dp := range m.Sum().DataPoints().All() {
				out[m.Name()+" "+attrString(dp.Attributes().AsRaw())] += dp.IntValue()
			}
		}
		return out
	}
	want := results(evMetrics)
	for k := range want {
		if strings.Contains(k, "deepeval") {
			delete(want, k)
		}
	}
	assert.Equal(t, want, results(attrMetrics))
}

func attrString(m map[string]any) string {
	keys := slices.Sorted(maps.Keys(m))
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(m[k].(string))
		b.WriteByte(',')
	}
	return b.String()
}
