package trajectory

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// StoredCallOf is what the store keeps of a span's call, as [Store.Tool]
// keeps it (parent unset).
func StoredCallOf(c *extract.SpanCall) StoredCall {
	return newStoredCall(c, pcommon.SpanID{}, pcommon.SpanID{}, c.Name)
}

// MergeDuplicate fills what outer, a call's outer record, lacks from inner,
// another record of the same call (a tool span under a tool span), exactly
// as the store merges them: reports use it to show the call the scorers saw.
func MergeDuplicate(outer, inner *StoredCall) { mergeDuplicate(outer, inner) }
