package aggregate // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/aggregate"

import (
	"math"
	"sort"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// Histogram is an explicit-bucket histogram's series. Bucket i counts the
// values in (bounds[i-1], bounds[i]], the last bucket those above every
// bound, as OTLP defines them.
type Histogram struct {
	table[*histogramSeries]
	bounds []float64
}

type histogramSeries struct {
	series
	counts   []uint64
	count    uint64
	sum      float64
	min, max float64
	// exemplars holds the latest exemplar of each bucket; one whose Time
	// is 0 is not set.
	exemplars []Exemplar
}

func (s *histogramSeries) base() *series { return &s.series }

// NewHistogram returns an empty histogram with the given bucket bounds,
// which must be finite and increasing.
func NewHistogram(s Settings, bounds []float64) *Histogram {
	h := &Histogram{bounds: bounds}
	h.table = newTable(s, func() *histogramSeries {
		hs := &histogramSeries{counts: make([]uint64, len(bounds)+1)}
		if s.Exemplars {
			hs.exemplars = make([]Exemplar, len(bounds)+1)
		}
		hs.reset()
		return hs
	})
	return h
}

// reset empties the series' buckets.
func (s *histogramSeries) reset() {
	clear(s.counts)
	s.count, s.sum, s.min, s.max = 0, 0, math.Inf(1), math.Inf(-1)
}

// Record adds the value v to the series attrs name at now, with ex (if not
// nil) as the exemplar of v's bucket. It reports whether the series was
// full and v went to the overflow series.
func (h *Histogram) Record(attrs []KeyValue, v float64, ex *Exemplar, now pcommon.Timestamp) (overflow bool) {
	s, overflow := h.find(attrs, now)
	b := sort.SearchFloat64s(h.bounds, v) // the first bound >= v
	s.counts[b]++
	s.count++
	s.sum += v
	s.min, s.max = min(s.min, v), max(s.max, v)
	if ex != nil && s.exemplars != nil && ex.Time != 0 {
		s.exemplars[b] = *ex
	}
	return overflow
}

// Flush writes the series as data points into hist as of now (see
// Settings.Delta), then readies them for the next interval and drops the
// expired ones.
func (h *Histogram) Flush(hist pmetric.Histogram, now pcommon.Timestamp) {
	hist.SetAggregationTemporality(h.settings.Temporality())
	dps := hist.DataPoints()
	dps.EnsureCapacity(h.Len())
	delta := h.settings.Delta
	h.all(func(s *histogramSeries) {
		if delta && !s.dirty {
			return
		}
		dp := dps.AppendEmpty()
		s.putAttributes(dp.Attributes())
		dp.SetStartTimestamp(s.start)
		dp.SetTimestamp(now)
		dp.ExplicitBounds().FromRaw(h.bounds)
		dp.BucketCounts().FromRaw(s.counts)
		dp.SetCount(s.count)
		dp.SetSum(s.sum)
		if s.count > 0 {
			dp.SetMin(s.min)
			dp.SetMax(s.max)
		}
		for i := range s.exemplars {
			if s.exemplars[i].Time != 0 {
				putExemplar(dp.Exemplars(), &s.exemplars[i])
				s.exemplars[i] = Exemplar{}
			}
		}
		if delta {
			s.reset()
		}
		s.written(now, delta)
	})
	h.expire(now)
}
