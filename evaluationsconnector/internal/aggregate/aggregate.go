// Package aggregate holds a connector's metric series between flushes:
// counters ([Sum]) and explicit-bucket histograms ([Histogram]) keyed by
// their attributes, each bounded to a number of series beyond which
// measurements go to one overflow series marked otel.metric.overflow=true,
// as the OpenTelemetry SDK and the spanmetrics connector do.
//
// Each series keeps exemplars that point at the spans behind its
// measurements: a counter its latest, a histogram the latest of each
// bucket, so that a bucket's exemplar is a run that scored in that bucket.
// Exemplars are written once, at the flush after they were recorded.
//
// Types here are not safe for concurrent use; the connector owns them under
// its lock.
package aggregate // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/aggregate"

import (
	"encoding/binary"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// OverflowKey marks the overflow series, as the OpenTelemetry SDK's
// cardinality limit does.
const OverflowKey = "otel.metric.overflow"

// KeyValue is one attribute of a series.
type KeyValue struct {
	Key, Value string
}

// Exemplar is a measurement's value and the span it came from.
type Exemplar struct {
	TraceID pcommon.TraceID
	SpanID  pcommon.SpanID
	Value   float64
	Time    pcommon.Timestamp
}

// Settings shape a metric's series.
type Settings struct {
	// Limit is how many series the metric keeps besides its overflow
	// series; at least 1.
	Limit int
	// Exemplars keeps exemplars.
	Exemplars bool
	// Delta writes each flush's change and only the series that changed;
	// otherwise every series' total since it started.
	Delta bool
	// Expiration drops a series not updated for this long, at a flush,
	// which frees its place under Limit; 0 keeps series.
	Expiration time.Duration
}

// series is what sums and histograms share: the attributes, the data
// point's start, when it was last updated, and whether since the last flush.
type series struct {
	key     string
	attrs   []KeyValue
	start   pcommon.Timestamp
	updated pcommon.Timestamp
	dirty   bool
}

// touch notes an update at now.
func (s *series) touch(now pcommon.Timestamp) {
	s.updated, s.dirty = now, true
}

// written readies a series written at a flush at now for the next interval.
func (s *series) written(now pcommon.Timestamp, delta bool) {
	if delta {
		s.start = now
	}
	s.dirty = false
}

// expired reports whether a series not updated since the expiration is
// dropped at now.
func (s *series) expired(now pcommon.Timestamp, expiration time.Duration) bool {
	return expiration > 0 && now.AsTime().Sub(s.updated.AsTime()) >= expiration
}

// putAttributes writes the series' attributes.
func (s *series) putAttributes(m pcommon.Map) {
	m.EnsureCapacity(len(s.attrs))
	for _, kv := range s.attrs {
		m.PutStr(kv.Key, kv.Value)
	}
}

// entry is a series of a table: *sumSeries or *histogramSeries.
type entry interface {
	base() *series
}

// table finds series by attributes, and keeps them in creation order with
// the overflow series last, so that a flush writes them in a stable order.
type table[E entry] struct {
	settings    Settings
	newEntry    func() E
	index       map[string]int
	order       []E
	overflow    E
	hasOverflow bool
	keyBuf      []byte
}

func newTable[E entry](s Settings, newEntry func() E) table[E] {
	if s.Limit < 1 {
		s.Limit = 1
	}
	return table[E]{settings: s, newEntry: newEntry, index: map[string]int{}}
}

// key encodes attrs, keys and values length-prefixed, into the table's
// buffer; valid until the next call.
func (t *table[E]) key(attrs []KeyValue) []byte {
	b := t.keyBuf[:0]
	for _, kv := range attrs {
		b = binary.AppendUvarint(b, uint64(len(kv.Key)))
		b = append(b, kv.Key...)
		b = binary.AppendUvarint(b, uint64(len(kv.Value)))
		b = append(b, kv.Value...)
	}
	t.keyBuf = b
	return b
}

// find returns the series for attrs, made when new, or the overflow series
// (made when first needed) when the table is full; overflow reports the
// latter. A series found or made is noted updated at now.
func (t *table[E]) find(attrs []KeyValue, now pcommon.Timestamp) (e E, overflow bool) {
	k := t.key(attrs)
	if i, ok := t.index[string(k)]; ok {
		e = t.order[i]
	} else if len(t.order) >= t.settings.Limit {
		if !t.hasOverflow {
			t.overflow, t.hasOverflow = t.newEntry(), true
			b := t.overflow.base()
			b.attrs = []KeyValue{{Key: OverflowKey, Value: "true"}}
			b.start = now
		}
		e, overflow = t.overflow, true
	} else {
		e = t.newEntry()
		b := e.base()
		b.key = string(k)
		b.attrs = cloneAttributes(attrs)
		b.start = now
		t.index[b.key] = len(t.order)
		t.order = append(t.order, e)
	}
	e.base().touch(now)
	return e, overflow
}

// expire drops the series not updated since the expiration.
func (t *table[E]) expire(now pcommon.Timestamp) {
	exp := t.settings.Expiration
	if exp <= 0 {
		return
	}
	kept := t.order[:0]
	for _, e := range t.order {
		b := e.base()
		if b.expired(now, exp) {
			delete(t.index, b.key)
			continue
		}
		t.index[b.key] = len(kept)
		kept = append(kept, e)
	}
	clear(t.order[len(kept):])
	t.order = kept
	if t.hasOverflow && t.overflow.base().expired(now, exp) {
		var zero E
		t.overflow, t.hasOverflow = zero, false
	}
}

// all calls f with every series, the overflow series last.
func (t *table[E]) all(f func(E)) {
	for _, e := range t.order {
		f(e)
	}
	if t.hasOverflow {
		f(t.overflow)
	}
}

// Len returns how many series the table holds, the overflow series
// included.
func (t *table[E]) Len() int {
	n := len(t.order)
	if t.hasOverflow {
		n++
	}
	return n
}

// cloneAttributes copies attrs and their strings, so that a series holds
// no memory of the span it was made from.
func cloneAttributes(attrs []KeyValue) []KeyValue {
	out := make([]KeyValue, len(attrs))
	for i, kv := range attrs {
		out[i] = KeyValue{Key: strings.Clone(kv.Key), Value: strings.Clone(kv.Value)}
	}
	return out
}

// putExemplar writes e into an exemplar slice.
func putExemplar(dst pmetric.ExemplarSlice, e *Exemplar) {
	x := dst.AppendEmpty()
	x.SetTraceID(e.TraceID)
	x.SetSpanID(e.SpanID)
	x.SetDoubleValue(e.Value)
	x.SetTimestamp(e.Time)
}

// Temporality returns the aggregation temporality the settings write.
func (s Settings) Temporality() pmetric.AggregationTemporality {
	if s.Delta {
		return pmetric.AggregationTemporalityDelta
	}
	return pmetric.AggregationTemporalityCumulative
}
