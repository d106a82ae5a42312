package trajectory

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/idtable"
)

// newTraceTable returns an empty table of trace states by trace id. Under
// load the store tracks max_tracked_traces traces and drops the least
// recently touched one for each new one: the table, grown to that size,
// takes that churn without tombstones or rehashing (see idtable.Table).
// Trace ids come from senders: the table's hash is seeded.
func newTraceTable() *idtable.Table[pcommon.TraceID, traceState] {
	return idtable.NewSeeded[pcommon.TraceID, traceState]()
}
