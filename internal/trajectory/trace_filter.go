package trajectory

import "go.opentelemetry.io/collector/pdata/pcommon"

// filterFrom is how many tracked traces make a store build its traceFilter:
// below it the map is small enough to stay in cache, and a store (one per
// processor) does not pay the filter's 128 KiB.
const filterFrom = 1024

// track adds a new trace to the filter, building the filter from the map
// once the store tracks filterFrom traces. Called after the map insert.
func (s *Store) track(id pcommon.TraceID) {
	if s.filter != nil {
		s.filter.add(id)
		return
	}
	if len(s.traces) < s.filterFrom {
		return
	}
	s.filter = new(traceFilter)
	for t := range s.traces {
		s.filter.add(t)
	}
}

// traceFilter answers "might this trace be tracked?" from one read of a
// small table, so that the ordinary spans of untracked traces (most spans,
// each of its own trace) are passed over without a lookup in the store's
// map, whose misses cost cache misses once it holds thousands of traces.
// It counts the tracked traces per bucket of the trace id's last two bytes
// (random in W3C trace ids); a false "maybe" only costs the map lookup. A
// bucket that reaches the counter's limit stays "maybe" for good.
type traceFilter struct {
	count [1 << 16]uint16
}

func filterBucket(id pcommon.TraceID) int { return int(id[14])<<8 | int(id[15]) }

func (f *traceFilter) add(id pcommon.TraceID) {
	if c := &f.count[filterBucket(id)]; *c < ^uint16(0) {
		*c++
	}
}

func (f *traceFilter) remove(id pcommon.TraceID) {
	if c := &f.count[filterBucket(id)]; *c < ^uint16(0) {
		*c--
	}
}

func (f *traceFilter) mayHave(id pcommon.TraceID) bool { return f.count[filterBucket(id)] != 0 }
