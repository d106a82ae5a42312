package trajectory

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/tracefilter"
)

// filterFrom is how many tracked traces make a store build its trace filter (tracefilter.Filter):
// below it the map is small enough to stay in cache, and a store (one per
// processor) does not pay for the filter.
const filterFrom = 1024

// track adds a new trace to the filter, building the filter from the map
// once the store tracks filterFrom traces, and rebuilding it twice as large
// when the store tracks more traces than it was sized for. Called after
// the map insert. The store never tracks more than max_tracked_traces, so
// the filter's size follows the traces tracked and stays below twice the
// limit's.
func (s *Store) track(id pcommon.TraceID) {
	if s.filter != nil && s.traces.Len() <= s.filter.Capacity() {
		s.filter.Add(id)
		return
	}
	if s.traces.Len() < s.filterFrom {
		return
	}
	s.filter = tracefilter.New(s.traces.Len() + 1)
	for t := range s.traces.All() {
		s.filter.Add(t)
	}
}
