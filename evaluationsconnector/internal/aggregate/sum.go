package aggregate // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/aggregate"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// Sum is a monotonic counter's series.
type Sum struct {
	table[*sumSeries]
}

type sumSeries struct {
	series
	value       int64
	exemplar    Exemplar
	hasExemplar bool
}

func (s *sumSeries) base() *series { return &s.series }

// NewSum returns an empty counter.
func NewSum(s Settings) *Sum {
	return &Sum{table: newTable(s, func() *sumSeries { return new(sumSeries) })}
}

// Add adds n to the series attrs name at now, with ex (if not nil) as the
// series' exemplar. It reports whether the series was full and n went to
// the overflow series.
func (m *Sum) Add(attrs []KeyValue, n int64, ex *Exemplar, now pcommon.Timestamp) (overflow bool) {
	s, overflow := m.find(attrs, now)
	s.value += n
	if ex != nil && m.settings.Exemplars {
		s.exemplar, s.hasExemplar = *ex, true
	}
	return overflow
}

// Flush writes the series as data points into sum as of now (see
// Settings.Delta), then readies them for the next interval and drops the
// expired ones.
func (m *Sum) Flush(sum pmetric.Sum, now pcommon.Timestamp) {
	sum.SetIsMonotonic(true)
	sum.SetAggregationTemporality(m.settings.Temporality())
	dps := sum.DataPoints()
	dps.EnsureCapacity(m.Len())
	delta := m.settings.Delta
	m.all(func(s *sumSeries) {
		if delta && !s.dirty {
			return
		}
		dp := dps.AppendEmpty()
		s.putAttributes(dp.Attributes())
		dp.SetStartTimestamp(s.start)
		dp.SetTimestamp(now)
		dp.SetIntValue(s.value)
		if s.hasExemplar {
			putExemplar(dp.Exemplars(), &s.exemplar)
			s.hasExemplar = false
		}
		if delta {
			s.value = 0
		}
		s.written(now, delta)
	})
	m.expire(now)
}
