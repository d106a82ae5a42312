package trajectory

import (
	"hash/fnv"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Run keys: an agent whose calls name their run by a key the run's agent
// span carries too (Codex: turn.id) has them attached to the span id the
// key stands for (RunKeySpan), which is linked under the agent span when it
// arrives. Its other spans (Codex: a thousand tracing spans between a turn
// and its tool calls) then need not be remembered as links: a trace marked
// keyed (MarkKeyed) has none kept.

// RunKeySpan is the span id a run key stands for: a hash of the key, with
// its first byte's top bit set and its last byte 0xff, so that it is never
// empty and unlikely to be a real span's.
func RunKeySpan(key string) pcommon.SpanID {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	sum := h.Sum64()
	var id pcommon.SpanID
	for i := range 8 {
		id[i] = byte(sum >> (8 * (7 - i)))
	}
	id[0] |= 0x80
	id[7] = 0xff
	return id
}

// MarkKeyed records that the trace's calls reach their runs by run key, so
// that its ordinary spans need not be kept as links (see Keyed).
func (s *Store) MarkKeyed(trace pcommon.TraceID, now int64) {
	s.trace(trace, now, true).keyed = true
}

// Keyed reports whether MarkKeyed marked the trace (while it is tracked).
// It is asked for the trace of every ordinary span while anything is
// tracked: lookup's trace filter answers for the untracked ones (most of
// them) without a miss in the traces map.
func (s *Store) Keyed(trace pcommon.TraceID) bool {
	ts := s.lookup(trace)
	return ts != nil && ts.keyed
}
