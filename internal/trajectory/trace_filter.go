package trajectory

import "go.opentelemetry.io/collector/pdata/pcommon"

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
