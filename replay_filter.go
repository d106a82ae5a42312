package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"encoding/binary"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// traceCounts answers "may a replay cache hold a run of this trace?" from
// one byte: a count, per bucket of trace ids, of the runs the cache holds.
// While held runs' annotations are kept, the root of every trace the store
// does not track is looked for in the caches (keepLinks): at a few tens of
// thousands of traces a second, nearly all of them ordinary, each lookup
// was a miss in a map of up to max_open_trajectories runs, costing a cache
// miss. A zero bucket answers without it; a false "maybe" (about one
// trace in seven with 10,000 runs kept) only costs the lookup.
//
// A count that reaches its maximum stays there (the bucket answers "maybe"
// for good) rather than wrap, so a zero is never wrong.
type traceCounts [traceCountBuckets]uint8

const traceCountBuckets = 1 << 16 // 64 KiB

func traceBucket(trace pcommon.TraceID) int {
	return int(binary.LittleEndian.Uint64(trace[:8]) & (traceCountBuckets - 1))
}

func (c *traceCounts) add(trace pcommon.TraceID) {
	if b := &c[traceBucket(trace)]; *b < 0xff {
		*b++
	}
}

func (c *traceCounts) remove(trace pcommon.TraceID) {
	if b := &c[traceBucket(trace)]; *b < 0xff {
		*b--
	}
}

func (c *traceCounts) mayHave(trace pcommon.TraceID) bool { return c[traceBucket(trace)] != 0 }
