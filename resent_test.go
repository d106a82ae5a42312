package toolcallaccuracyprocessor

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/memtest"
)

// agentSpansOf returns the spans of td named name, in order.
func agentSpansOf(td ptrace.Traces, name string) []ptrace.Span {
	var out []ptrace.Span
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				if s.Name() == name {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// TestResentCaptureGetsTheSameAnnotations: a capture sent twice to the
// quick start's configuration (the downstream accepting both), as a user
// re-sending a file or an at-least-once upstream does: the second copy of
// the agent span carries the same tool_call_accuracy.* attributes and
// evaluation events as the first (so the evaluations connector writes its
// record for it too), and the run is scored and counted once.
func TestResentCaptureGetsTheSameAnnotations(t *testing.T) {
	for _, tt := range []struct {
		name string
		// scoreAtOnce turns wait_for_missing off.
		scoreAtOnce bool
	}{
		{name: "wait_for_missing default"},
		{name: "wait_for_missing off", scoreAtOnce: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := weatherConfig() // the quick start's rule
			if tt.scoreAtOnce {
				cfg.WaitForMissing = 0
			}
			c, _ := newFlaky(t, cfg)
			in := readTraceFile(t, filepath.Join("testdata", "demo", "traces", "adk-go-mock.otlp.jsonl"))
			for _, td := range cloneAll(in) {
				require.NoError(t, c.proc.ConsumeTraces(context.Background(), td))
			}
			c.release() // a run held by wait_for_missing goes out before the copy comes
			for _, td := range cloneAll(in) {
				require.NoError(t, c.proc.ConsumeTraces(context.Background(), td))
			}
			require.NoError(t, c.proc.Shutdown(context.Background()))
			agents := agentSpansOf(mergeTraces(c.sink.AllTraces()), "invoke_agent weather_agent")
			require.Len(t, agents, 2, "both copies go out")
			for i, s := range agents {
				assert.Equal(t, map[string]string{"weather/native": "pass"}, evaluationEvents(s), "copy %d", i+1)
				a := copyAnnotations(s)
				require.NotNil(t, a, "copy %d carries tool_call_accuracy.*", i+1)
			}
			assert.Equal(t, annotationsOf(agents[0]), annotationsOf(agents[1]))
			evaluationsMetric(t, c, 1)
		})
	}
}

// BenchmarkScoredReplayEntry measures the heap an entry of the scored runs'
// annotations keeps (replay_scored.go) for the quick start's rule on the
// ADK capture's agent span: the cost per run of recognising a span sent
// again, at most max_open_trajectories entries.
func BenchmarkScoredReplayEntry(b *testing.B) {
	const entries = 5000
	h := newHarness(b, weatherConfig())
	for _, td := range readTraceFile(b, filepath.Join("testdata", "demo", "traces", "adk-go-mock.otlp.jsonl")) {
		require.NoError(b, h.proc.ConsumeTraces(context.Background(), td))
	}
	require.NoError(b, h.proc.Shutdown(context.Background()))
	agents := agentSpansOf(mergeTraces(h.sink.AllTraces()), "invoke_agent weather_agent")
	require.Len(b, agents, 1)
	span := agents[0]
	for b.Loop() {
		c := newReplayCache(entries, int64(time.Hour))
		retained := memtest.RetainedBytes(func() {
			for i := range entries {
				c.put(runKey{traceID(uint64(i)), span.SpanID()}, copyAnnotations(span), 0)
			}
		})
		b.ReportMetric(float64(retained)/entries, "B/entry")
		runtime.KeepAlive(c)
	}
}

// annotationsOf returns span's tool_call_accuracy.* attributes and
// evaluation events as raw values, for comparison.
func annotationsOf(span ptrace.Span) []any {
	s := ptrace.NewSpan()
	copyAnnotations(span).writeTo(s)
	var events []any
	for _, e := range s.Events().All() {
		events = append(events, e.Name(), e.Timestamp(), e.Attributes().AsRaw())
	}
	return []any{s.Attributes().AsRaw(), events}
}

// TestPackedAnnotationsRoundTrip: kept annotations come back exactly as
// written, for every value type pdata has, and only the processor's.
func TestPackedAnnotationsRoundTrip(t *testing.T) {
	span := ptrace.NewSpan()
	a := span.Attributes()
	a.PutStr("http.route", "/not/ours")
	a.PutEmptySlice(attrRules).AppendEmpty().SetStr("weather")
	a.PutDouble(attrPrefix+"weather.score", 0.5)
	a.PutBool(attrPrefix+"passed", false)
	a.PutInt(attrPrefix+"count", -42)
	a.PutEmptyBytes(attrPrefix + "bytes").FromRaw([]byte{0, 1, 255})
	a.PutEmpty(attrPrefix + "empty")
	m := a.PutEmptyMap(attrPrefix + "weather.call_statuses")
	m.PutEmptySlice("matched").FromRaw([]any{"get_weather", "ünïcode"})
	m.PutEmptyMap("nested").PutStr("k", "v")
	e := span.Events().AppendEmpty()
	e.SetName(eventEvaluation)
	e.SetTimestamp(1_800_000_000_123_456_789)
	e.SetDroppedAttributesCount(3)
	e.Attributes().PutStr(attrEvalName, "weather/native")
	e.Attributes().PutDouble("gen_ai.evaluation.score.value", 0.5)
	span.Events().AppendEmpty().SetName("exception") // not ours

	out := ptrace.NewSpan()
	copyAnnotations(span).writeTo(out)
	want := span.Attributes().AsRaw()
	delete(want, "http.route")
	assert.Equal(t, want, out.Attributes().AsRaw())
	require.Equal(t, 1, out.Events().Len())
	got := out.Events().At(0)
	assert.Equal(t, eventEvaluation, got.Name())
	assert.Equal(t, e.Timestamp(), got.Timestamp())
	assert.Equal(t, uint32(3), got.DroppedAttributesCount())
	assert.Equal(t, e.Attributes().AsRaw(), got.Attributes().AsRaw())
}

// TestPackedAnnotationsManyAttributes: counts past what one byte of the
// packed form holds (a uvarint of two bytes) come back exactly, in order.
func TestPackedAnnotationsManyAttributes(t *testing.T) {
	span := ptrace.NewSpan()
	a := span.Attributes()
	a.PutEmptySlice(attrRules).AppendEmpty().SetStr("r")
	for i := range 300 {
		a.PutInt(fmt.Sprintf("%sr.n%03d", attrPrefix, i), int64(i))
	}
	for i := range 130 {
		e := span.Events().AppendEmpty()
		e.SetName(eventEvaluation)
		e.Attributes().PutInt("i", int64(i))
	}
	out := ptrace.NewSpan()
	copyAnnotations(span).writeTo(out)
	var want, got []string
	for k, v := range span.Attributes().All() {
		want = append(want, k+"="+v.AsString())
	}
	for k, v := range out.Attributes().All() {
		got = append(got, k+"="+v.AsString())
	}
	assert.Equal(t, want, got)
	require.Equal(t, 130, out.Events().Len())
	for i := range 130 {
		v, _ := out.Events().At(i).Attributes().Get("i")
		assert.Equal(t, int64(i), v.Int())
	}
}

// TestReplayCacheBounds: the cache keeps the newest limit runs, each for at
// most its ttl, first in first out; a run put again answers with its newest
// annotations until that entry leaves, however its older entry leaves.
func TestReplayCacheBounds(t *testing.T) {
	key := func(i uint64) runKey { return runKey{traceID(i), spanID(i)} }
	ann := func() *annotations { return &annotations{packed: []byte{0, 0}} }
	c := newReplayCache(3, 100)
	a1, a2, a3, a1again, a4 := ann(), ann(), ann(), ann(), ann()
	c.put(key(1), a1, 0)
	c.put(key(2), a2, 10)
	c.put(key(1), a1again, 20) // the run's older entry is left stale
	c.put(key(3), a3, 30)
	assert.Equal(t, 3, c.len())
	assert.Same(t, a1again, c.get(key(1)))
	c.put(key(4), a4, 40) // drops the stale entry, then run 2
	assert.Equal(t, 3, c.len())
	assert.Nil(t, c.get(key(2)))
	assert.Same(t, a1again, c.get(key(1)))
	assert.Same(t, a3, c.get(key(3)))
	assert.Same(t, a4, c.get(key(4)))
	c.sweep(125) // older than 100: run 1's newest entry (20)
	assert.Nil(t, c.get(key(1)))
	assert.Same(t, a3, c.get(key(3)))
	c.sweep(1000)
	assert.Zero(t, c.len())
	c.put(key(5), a1, 1000) // nothing stale is left: one map operation a drop
	assert.Zero(t, c.stale)
	assert.Same(t, a1, c.get(key(5)))
}
