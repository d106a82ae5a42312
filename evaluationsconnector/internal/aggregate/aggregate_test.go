package aggregate

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

func kv(pairs ...string) []KeyValue {
	var out []KeyValue
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, KeyValue{Key: pairs[i], Value: pairs[i+1]})
	}
	return out
}

func ts(sec int) pcommon.Timestamp {
	return pcommon.NewTimestampFromTime(time.Unix(int64(sec), 0))
}

var (
	trace1 = pcommon.TraceID{1}
	trace2 = pcommon.TraceID{2}
)

func flushSum(m *Sum, now pcommon.Timestamp) pmetric.NumberDataPointSlice {
	sum := pmetric.NewSum()
	m.Flush(sum, now)
	return sum.DataPoints()
}

func flushHistogram(h *Histogram, now pcommon.Timestamp) pmetric.HistogramDataPointSlice {
	hist := pmetric.NewHistogram()
	h.Flush(hist, now)
	return hist.DataPoints()
}

func TestSumCumulative(t *testing.T) {
	m := NewSum(Settings{Limit: 10, Exemplars: true})
	assert.False(t, m.Add(kv("agent", "a"), 1, &Exemplar{TraceID: trace1, Value: 1, Time: ts(1)}, ts(1)))
	m.Add(kv("agent", "b"), 2, nil, ts(2))
	m.Add(kv("agent", "a"), 3, &Exemplar{TraceID: trace2, Value: 1, Time: ts(3)}, ts(3))

	dps := flushSum(m, ts(10))
	require.Equal(t, 2, dps.Len())
	a, b := dps.At(0), dps.At(1)
	assert.Equal(t, map[string]any{"agent": "a"}, a.Attributes().AsRaw(), "creation order")
	assert.Equal(t, int64(4), a.IntValue())
	assert.Equal(t, ts(1), a.StartTimestamp())
	assert.Equal(t, ts(10), a.Timestamp())
	require.Equal(t, 1, a.Exemplars().Len(), "the latest exemplar")
	assert.Equal(t, trace2, a.Exemplars().At(0).TraceID())
	assert.Equal(t, int64(2), b.IntValue())
	assert.Zero(t, b.Exemplars().Len())

	// Cumulative: every series again, totals kept, exemplars written once.
	m.Add(kv("agent", "b"), 1, nil, ts(11))
	dps = flushSum(m, ts(20))
	require.Equal(t, 2, dps.Len())
	assert.Equal(t, int64(4), dps.At(0).IntValue())
	assert.Equal(t, ts(1), dps.At(0).StartTimestamp())
	assert.Zero(t, dps.At(0).Exemplars().Len())
	assert.Equal(t, int64(3), dps.At(1).IntValue())
}

func TestSumDelta(t *testing.T) {
	m := NewSum(Settings{Limit: 10, Delta: true})
	m.Add(kv("agent", "a"), 1, nil, ts(1))
	m.Add(kv("agent", "b"), 1, nil, ts(2))
	dps := flushSum(m, ts(10))
	require.Equal(t, 2, dps.Len())

	// Only what changed, from the last flush.
	m.Add(kv("agent", "a"), 5, nil, ts(12))
	dps = flushSum(m, ts(20))
	require.Equal(t, 1, dps.Len())
	assert.Equal(t, int64(5), dps.At(0).IntValue())
	assert.Equal(t, ts(10), dps.At(0).StartTimestamp())
	assert.Equal(t, ts(20), dps.At(0).Timestamp())

	// b's next point starts where its last ended, quiet intervals included.
	m.Add(kv("agent", "b"), 1, nil, ts(31))
	dps = flushSum(m, ts(40))
	require.Equal(t, 1, dps.Len())
	assert.Equal(t, ts(10), dps.At(0).StartTimestamp())
	assert.Equal(t, pmetric.AggregationTemporalityDelta, func() pmetric.AggregationTemporality {
		s := pmetric.NewSum()
		m.Flush(s, ts(50))
		return s.AggregationTemporality()
	}())
}

// TestCardinalityLimit: past the limit, new series go to one overflow
// series; known series keep counting.
func TestCardinalityLimit(t *testing.T) {
	m := NewSum(Settings{Limit: 2, Exemplars: true})
	assert.False(t, m.Add(kv("agent", "a"), 1, nil, ts(1)))
	assert.False(t, m.Add(kv("agent", "b"), 1, nil, ts(1)))
	assert.True(t, m.Add(kv("agent", "c"), 1, &Exemplar{TraceID: trace1, Time: ts(1)}, ts(1)))
	assert.True(t, m.Add(kv("agent", "d"), 1, nil, ts(1)))
	assert.False(t, m.Add(kv("agent", "a"), 1, nil, ts(1)))
	assert.Equal(t, 3, m.Len())

	dps := flushSum(m, ts(2))
	require.Equal(t, 3, dps.Len())
	over := dps.At(2)
	assert.Equal(t, map[string]any{OverflowKey: "true"}, over.Attributes().AsRaw())
	assert.Equal(t, int64(2), over.IntValue())
	assert.Equal(t, 1, over.Exemplars().Len(), "the overflow series points at a span too")
	assert.Equal(t, int64(2), dps.At(0).IntValue())
}

// TestManySeriesBounded: a million distinct series make limit+1.
func TestManySeriesBounded(t *testing.T) {
	h := NewHistogram(Settings{Limit: 100, Exemplars: true}, []float64{0.5, 1})
	overflowed := 0
	for i := range 1_000_000 {
		if h.Record(kv("agent", fmt.Sprint(i)), 0.25, &Exemplar{TraceID: trace1, Time: ts(1)}, ts(1)) {
			overflowed++
		}
	}
	assert.Equal(t, 101, h.Len())
	assert.Equal(t, 1_000_000-100, overflowed)
	assert.Len(t, h.index, 100)
}

func TestExpiration(t *testing.T) {
	m := NewSum(Settings{Limit: 2, Expiration: 30 * time.Second})
	m.Add(kv("agent", "a"), 1, nil, ts(0))
	m.Add(kv("agent", "b"), 1, nil, ts(0))
	m.Add(kv("agent", "c"), 1, nil, ts(0)) // overflow
	flushSum(m, ts(10))
	m.Add(kv("agent", "b"), 1, nil, ts(20))
	dps := flushSum(m, ts(35)) // a and the overflow expire after this flush
	assert.Equal(t, 3, dps.Len(), "written once more before they go")
	assert.Equal(t, 1, m.Len())

	// a's place is free: c gets its own series, a starts again.
	assert.False(t, m.Add(kv("agent", "c"), 1, nil, ts(36)))
	dps = flushSum(m, ts(40))
	require.Equal(t, 2, dps.Len())
	assert.Equal(t, "b", dps.At(0).Attributes().AsRaw()["agent"])
	assert.Equal(t, "c", dps.At(1).Attributes().AsRaw()["agent"])
	assert.Equal(t, ts(36), dps.At(1).StartTimestamp())
	assert.Equal(t, int64(1), dps.At(1).IntValue())
}

func TestHistogram(t *testing.T) {
	bounds := []float64{0, 0.4999, 0.7999, 1}
	h := NewHistogram(Settings{Limit: 10, Exemplars: true}, bounds)
	failing := &Exemplar{TraceID: trace1, SpanID: pcommon.SpanID{1}, Value: 0.5, Time: ts(1)}
	passing := &Exemplar{TraceID: trace2, SpanID: pcommon.SpanID{2}, Value: 1, Time: ts(2)}
	h.Record(kv("agent", "a"), 0.5, failing, ts(1))
	h.Record(kv("agent", "a"), 1, passing, ts(2))
	h.Record(kv("agent", "a"), 0, nil, ts(3))
	h.Record(kv("agent", "a"), 0.8, nil, ts(3))
	h.Record(kv("agent", "a"), 7, nil, ts(3))

	dps := flushHistogram(h, ts(10))
	require.Equal(t, 1, dps.Len())
	dp := dps.At(0)
	assert.Equal(t, bounds, dp.ExplicitBounds().AsRaw())
	// (-inf,0] (0,0.4999] (0.4999,0.7999] (0.7999,1] (1,+inf)
	assert.Equal(t, []uint64{1, 0, 1, 2, 1}, dp.BucketCounts().AsRaw())
	assert.Equal(t, uint64(5), dp.Count())
	assert.InDelta(t, 9.3, dp.Sum(), 1e-9)
	assert.Equal(t, 0.0, dp.Min())
	assert.Equal(t, 7.0, dp.Max())
	// One exemplar per bucket, each in its value's bucket: the failing
	// run's score points at it.
	require.Equal(t, 2, dp.Exemplars().Len())
	assert.Equal(t, trace1, dp.Exemplars().At(0).TraceID())
	assert.Equal(t, 0.5, dp.Exemplars().At(0).DoubleValue())
	assert.Equal(t, trace2, dp.Exemplars().At(1).TraceID())

	dps = flushHistogram(h, ts(20))
	assert.Equal(t, uint64(5), dps.At(0).Count(), "cumulative")
	assert.Zero(t, dps.At(0).Exemplars().Len(), "exemplars are written once")
}

func TestHistogramDelta(t *testing.T) {
	h := NewHistogram(Settings{Limit: 10, Delta: true}, []float64{1})
	h.Record(kv("agent", "a"), 0.5, &Exemplar{TraceID: trace1, Time: ts(1)}, ts(1))
	dps := flushHistogram(h, ts(10))
	require.Equal(t, 1, dps.Len())
	assert.Zero(t, dps.At(0).Exemplars().Len(), "exemplars off")
	assert.Zero(t, flushHistogram(h, ts(20)).Len(), "nothing new")
	h.Record(kv("agent", "a"), 2, nil, ts(21))
	dps = flushHistogram(h, ts(30))
	require.Equal(t, 1, dps.Len())
	assert.Equal(t, []uint64{0, 1}, dps.At(0).BucketCounts().AsRaw())
	assert.Equal(t, 2.0, dps.At(0).Min())
	assert.Equal(t, ts(10), dps.At(0).StartTimestamp())
}

// TestSeriesCopyTheirAttributes: a series keeps no reference to the
// strings it was made from.
func TestSeriesCopyTheirAttributes(t *testing.T) {
	m := NewSum(Settings{Limit: 10})
	buf := []byte("agent-a")
	attrs := []KeyValue{{Key: "agent", Value: string(buf)}}
	m.Add(attrs, 1, nil, ts(1))
	attrs[0].Value = "changed"
	assert.Equal(t, "agent-a", flushSum(m, ts(2)).At(0).Attributes().AsRaw()["agent"])
}

// TestKeysAreUnambiguous: attribute sets that concatenate alike are
// different series.
func TestKeysAreUnambiguous(t *testing.T) {
	m := NewSum(Settings{Limit: 10})
	m.Add(kv("ab", "c"), 1, nil, ts(1))
	m.Add(kv("a", "bc"), 1, nil, ts(1))
	m.Add(kv("a", "b", "c", ""), 1, nil, ts(1))
	assert.Equal(t, 3, m.Len())
}

func BenchmarkSumAdd(b *testing.B) {
	m := NewSum(Settings{Limit: 1000, Exemplars: true})
	attrs := kv("service.name", "travel", "gen_ai.agent.name", "weather", "gen_ai.evaluation.name", "paris_trip/native", "gen_ai.evaluation.score.label", "pass")
	ex := &Exemplar{TraceID: trace1, Time: ts(1)}
	b.ReportAllocs()
	for b.Loop() {
		m.Add(attrs, 1, ex, ts(1))
	}
}
