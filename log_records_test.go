package toolcallaccuracyprocessor

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/plogtest"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadatatest"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

// logCapture is a capture whose content is in log records: its traces file
// (testdata/traces/captures/NAME.otlp.jsonl) and its logs file
// (testdata/logs/captures/NAME.otlp.jsonl).
type logCapture struct {
	name string
	want ruleResult
}

// logCaptures are the OTel contrib OpenAI instrumentation's captures: the
// manual loop's calls are read only from log records (its spans record no
// message), scored like the same loop under OpenInference and OpenLLMetry
// (retryRequested in goldenCases): book_flight was never offered.
func logCaptures() []logCapture {
	retryRequested := ruleResult{score: 0, passed: false, unexpected: []string{"get_weather", "book_flight"}}
	return []logCapture{
		{"openai-sdk-otel-contrib-manual-simple", retryRequested},
		{"openai-sdk-otel-contrib-manual-batch", retryRequested},
		{"openai-sdk-otel-contrib-responses-simple", retryRequested},
	}
}

// readLogCapture reads a capture's traces and logs requests.
func readLogCapture(t testing.TB, name string) ([]ptrace.Traces, []plog.Logs) {
	t.Helper()
	docs, logs, err := otlpjson.ReadSignals(filepath.Join("testdata", "traces", "captures", name+".otlp.jsonl"), filepath.Join("testdata", "logs", "captures", name+".otlp.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, logs)
	out := make([]plog.Logs, len(logs))
	for i, d := range logs {
		out[i] = d.Logs
	}
	return otlpjson.Traces(docs), out
}

// bothPipelines is one processor serving a traces and a logs pipeline,
// created through the factory as a collector does, with a fake clock and
// releases the test drives.
type bothPipelines struct {
	*controlled
	logs     processor.Logs
	logsSink *consumertest.LogsSink
}

func newBothPipelines(t *testing.T, cfg *Config) *bothPipelines {
	t.Helper()
	c := &controlled{clock: &fakeClock{t: time.Unix(1_800_000_000, 0)}}
	h := &harness{sink: new(consumertest.TracesSink), tel: componenttest.NewTelemetry()}
	t.Cleanup(func() { require.NoError(t, h.tel.Shutdown(context.Background())) })
	f := newFactory(func(p *tcaProcessor) {
		p.now = c.clock.now
		p.tick = make(chan time.Time)
		c.p = p
	})
	set := metadatatest.NewSettings(h.tel)
	b := &bothPipelines{controlled: c, logsSink: new(consumertest.LogsSink)}
	// The logs pipeline first: the traces pipeline must find its instance.
	var err error
	b.logs, err = f.CreateLogs(context.Background(), set, cfg, b.logsSink)
	require.NoError(t, err)
	first := c.p
	h.proc, err = f.CreateTraces(context.Background(), set, cfg, h.sink)
	require.NoError(t, err)
	require.Same(t, first, c.p, "one processor for both pipelines")
	require.NoError(t, b.logs.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, h.proc.Start(context.Background(), componenttest.NewNopHost()))
	c.harness = h
	return b
}

// unit is one request of a capture: traces or logs.
type unit struct {
	td ptrace.Traces
	ld plog.Logs
}

func (b *bothPipelines) send(t *testing.T, u unit) {
	t.Helper()
	if u.ld != (plog.Logs{}) {
		require.NoError(t, b.logs.ConsumeLogs(context.Background(), u.ld))
		return
	}
	require.NoError(t, b.proc.ConsumeTraces(context.Background(), u.td))
}

// shutdown shuts both pipelines down (the logs pipeline first, as a
// collector may) and returns every span sent on.
func (b *bothPipelines) shutdown(t *testing.T) ptrace.Traces {
	t.Helper()
	require.NoError(t, b.logs.Shutdown(context.Background()))
	require.NoError(t, b.proc.Shutdown(context.Background()))
	return mergeTraces(b.sink.AllTraces())
}

// units returns a capture's requests as units: the log records first, as
// they are emitted before the spans they witness end (the in-order
// delivery), then the traces.
func units(tds []ptrace.Traces, lds []plog.Logs) []unit {
	var out []unit
	for _, ld := range lds {
		c := plog.NewLogs()
		ld.CopyTo(c)
		out = append(out, unit{ld: c})
	}
	for _, td := range tds {
		c := ptrace.NewTraces()
		td.CopyTo(c)
		out = append(out, unit{td: c})
	}
	return out
}

// TestLogRecordsGolden scores each capture through the factory with both
// pipelines naming the processor, records before spans, and compares the
// annotated spans with the golden and the verdict with the one the same
// manual loop gets under span-recording instrumentations; the log records
// pass through unchanged.
func TestLogRecordsGolden(t *testing.T) {
	for _, lc := range logCaptures() {
		t.Run(lc.name, func(t *testing.T) {
			tds, lds := readLogCapture(t, lc.name)
			cfg := loadConfig(t, filepath.Join("testdata", "golden", "config.yaml"), "two_turns")
			b := newBothPipelines(t, cfg)
			for _, u := range units(tds, lds) {
				b.send(t, u)
			}
			out := b.shutdown(t)
			assertConserved(t, tds, out)
			span, ok := scoredSpans(out)["weather-loop"]
			require.True(t, ok, "the root run is scored")
			assertRule(t, span, "retry_after_error", lc.want)

			require.Len(t, b.logsSink.AllLogs(), len(lds))
			for i, ld := range b.logsSink.AllLogs() {
				require.NoError(t, plogtest.CompareLogs(lds[i], ld), "log records pass through unchanged")
			}

			goldenPath := filepath.Join("testdata", "golden", lc.name+".yaml")
			assertGoldenTraces(t, goldenPath, out)
		})
	}
}

// assertGoldenTraces compares out, regrouped, with the golden at path
// (rewritten with -update).
func assertGoldenTraces(t *testing.T, path string, out ptrace.Traces) {
	t.Helper()
	out = regroup(out)
	if *updateGolden {
		require.NoError(t, golden.WriteTraces(t, path, out))
		return
	}
	expected, err := golden.ReadTraces(path)
	require.NoError(t, err)
	require.NoError(t, ptracetest.CompareTraces(expected, out,
		ptracetest.IgnoreResourceSpansOrder(), ptracetest.IgnoreScopeSpansOrder(), ptracetest.IgnoreSpansOrder()))
}

// TestLogRecordsTracesOnly: without its log records the manual loop's run
// has nothing to score (its spans record no message), which is why the
// logs pipeline matters.
func TestLogRecordsTracesOnly(t *testing.T) {
	tds, _ := readLogCapture(t, "openai-sdk-otel-contrib-manual-batch")
	cfg := loadConfig(t, filepath.Join("testdata", "golden", "config.yaml"), "two_turns")
	out := newHarness(t, cfg).run(t, cloneAll(tds))
	_, scored := scoredSpans(out)["weather-loop"]
	assert.False(t, scored)
}

// TestLogRecordsEveryOrder feeds each capture's requests (traces and logs,
// one request each) in every order where there are few and in a seeded
// sample of orders otherwise, spans shuffled, after one run of the same
// service (from which the processor learns that the service sends log
// records), releasing after each request the runs it completed, and
// asserts every span gets the annotations of the in-order delivery.
func TestLogRecordsEveryOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("many orders")
	}
	total, rootFirst := 0, [1]int{}
	for _, lc := range logCaptures() {
		t.Run(lc.name, func(t *testing.T) {
			tds, lds := readLogCapture(t, lc.name)
			cfg := loadConfig(t, filepath.Join("testdata", "golden", "config.yaml"), "two_turns")
			in := units(tds, lds)
			before := units(tds, lds)
			for _, u := range before {
				flipTraceIDs(u)
			}
			want := feedUnits(t, cfg, units(pickTraces(before), pickLogs(before)), units(pickTraces(in), pickLogs(in)))
			span, ok := scoredSpans(want)["weather-loop"]
			require.True(t, ok)
			assertRule(t, span, "retry_after_error", lc.want)
			orders := requestOrders(len(in), uint64(len(lc.name)))
			r := rand.New(rand.NewPCG(7, uint64(len(lc.name))))
			for _, order := range orders {
				batch := make([]unit, len(order))
				for i, k := range order {
					batch[i] = units(oneTraces(in[k]), oneLogs(in[k]))[0]
					if batch[i].td != (ptrace.Traces{}) {
						shuffleSpans(batch[i].td, r)
					}
				}
				got := feedUnits(t, cfg, units(pickTraces(before), pickLogs(before)), batch)
				require.Equal(t, want.SpanCount(), got.SpanCount(), "order %v", order)
				diff := annotationDiffMovedRoots(want, got)
				if isLoneRoot(in[order[0]]) {
					rootFirst[0]++ // a plain root before anything of its trace
				}
				if diff != "" {
					t.Fatalf("requests in order %v: %s", order, diff)
				}
				total++
			}
		})
	}
	t.Logf("FIGURES %d orders of spans and log records of %d captures gave the in-order verdicts, %d of them with the plain root first", total, len(logCaptures()), rootFirst[0])
}

// feedUnits sends before, then batch, one by one to a processor serving
// both pipelines, releasing after each the runs it completed, and returns
// what it sent on of batch's traces.
func feedUnits(t *testing.T, cfg *Config, before, batch []unit) ptrace.Traces {
	t.Helper()
	earlier := map[pcommon.TraceID]bool{}
	for _, u := range before {
		if u.td != (ptrace.Traces{}) {
			for _, s := range allSpans(u.td) {
				earlier[s.TraceID()] = true
			}
		}
	}
	b := newBothPipelines(t, cfg)
	for _, u := range append(before, batch...) {
		b.send(t, u)
		b.release()
	}
	out := b.shutdown(t)
	for _, rs := range out.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			ss.Spans().RemoveIf(func(s ptrace.Span) bool { return earlier[s.TraceID()] })
		}
	}
	return out
}

// isLoneRoot reports a unit that holds a trace root and nothing else.
func isLoneRoot(u unit) bool {
	if u.td == (ptrace.Traces{}) {
		return false
	}
	spans := allSpans(u.td)
	return len(spans) == 1 && spans[0].ParentSpanID().IsEmpty()
}

// flipTraceIDs gives a unit's spans or records trace ids no capture uses.
func flipTraceIDs(u unit) {
	flip := func(id pcommon.TraceID) pcommon.TraceID {
		for i := range id {
			id[i] ^= 0xff
		}
		return id
	}
	if u.td != (ptrace.Traces{}) {
		for _, s := range allSpans(u.td) {
			s.SetTraceID(flip(s.TraceID()))
		}
		return
	}
	for _, rl := range u.ld.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				lr.SetTraceID(flip(lr.TraceID()))
			}
		}
	}
}

func oneTraces(u unit) []ptrace.Traces {
	if u.td == (ptrace.Traces{}) {
		return nil
	}
	return []ptrace.Traces{u.td}
}

func oneLogs(u unit) []plog.Logs {
	if u.ld == (plog.Logs{}) {
		return nil
	}
	return []plog.Logs{u.ld}
}

func pickTraces(us []unit) []ptrace.Traces {
	var out []ptrace.Traces
	for _, u := range us {
		out = append(out, oneTraces(u)...)
	}
	return out
}

func pickLogs(us []unit) []plog.Logs {
	var out []plog.Logs
	for _, u := range us {
		out = append(out, oneLogs(u)...)
	}
	return out
}
