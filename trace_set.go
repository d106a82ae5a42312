package toolcallaccuracyprocessor

import (
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// traceSetLinear is how many trace ids a traceSet keeps in a slice before
// it indexes them: a batch usually carries GenAI spans of a few traces, and
// a short scan beats hashing, but a batch of thousands must not be scanned
// once per span.
const traceSetLinear = 16

// traceSet is a reusable set of trace ids.
type traceSet struct {
	list  []pcommon.TraceID
	index map[pcommon.TraceID]struct{}
	// seen has bit maskBit(t) set for every t added: most trace ids asked
	// about (ordinary spans', each of its own trace) are answered from it.
	seen uint64
}

// maskBit is a trace id's bit in traceSet.seen: six bits of its last byte,
// random in W3C trace ids.
func maskBit(t pcommon.TraceID) uint64 { return 1 << (t[15] & 63) }

func (s *traceSet) reset() {
	s.list = s.list[:0]
	clear(s.index)
	s.seen = 0
}

func (s *traceSet) add(t pcommon.TraceID) {
	s.seen |= maskBit(t)
	if len(s.list) < traceSetLinear {
		if !slices.Contains(s.list, t) {
			s.list = append(s.list, t)
		}
		return
	}
	if s.index == nil {
		s.index = make(map[pcommon.TraceID]struct{})
	}
	if len(s.index) == 0 {
		for _, id := range s.list {
			s.index[id] = struct{}{}
		}
	}
	s.index[t] = struct{}{}
}

func (s *traceSet) has(t pcommon.TraceID) bool {
	if s.seen&maskBit(t) == 0 {
		return false
	}
	if len(s.index) > 0 {
		_, ok := s.index[t]
		return ok
	}
	return slices.Contains(s.list, t)
}
