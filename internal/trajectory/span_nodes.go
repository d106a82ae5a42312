package trajectory

import (
	"iter"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// inlineNodes is how many span nodes a trace keeps inline before it moves
// them into a map. Most traces the store tracks at a time are small (a run's
// tool spans and their parent: six for a run of five calls), and a Go map
// costs more memory than the store's whole budget for one held call.
const inlineNodes = 6

// spanNodes maps a trace's span ids to nodes: in a small inline array up to
// inlineNodes spans, in a map past that.
type spanNodes struct {
	n int32
	// runs counts the groups and held agents (see isRun), so that a trace
	// dropped is counted without a walk. Their kinds change in place only
	// between the two.
	runs  int32
	ids   [inlineNodes]pcommon.SpanID
	nodes [inlineNodes]*node
	m     map[pcommon.SpanID]*node
}

// get returns the span's node, or nil.
func (s *spanNodes) get(id pcommon.SpanID) *node {
	if s.m != nil {
		return s.m[id]
	}
	for i := range s.n {
		if s.ids[i] == id {
			return s.nodes[i]
		}
	}
	return nil
}

// inlineLink returns an inline entry's link node to parent, or nil (always
// nil once the entries are in a map).
func (s *spanNodes) inlineLink(parent pcommon.SpanID) *node {
	for _, n := range s.nodes[:s.n] {
		if n.kind == nodeLink && n.parent == parent {
			return n
		}
	}
	return nil
}

// len returns how many spans have a node.
func (s *spanNodes) len() int {
	if s.m != nil {
		return len(s.m)
	}
	return int(s.n)
}

// isRun reports a node that carries an open run: a group or a held agent.
func isRun(n *node) int32 {
	if n != nil && (n.kind == nodeGroup || n.kind == nodeHeld) {
		return 1
	}
	return 0
}

// set records the span's node, replacing any it had. The map, when the
// entries move into one, comes from maps (which may be nil).
func (s *spanNodes) set(id pcommon.SpanID, n *node, maps *nodeMaps) {
	s.runs += isRun(n)
	if s.m != nil {
		s.runs -= isRun(s.m[id])
		s.m[id] = n
		return
	}
	for i := range s.n {
		if s.ids[i] == id {
			s.runs -= isRun(s.nodes[i])
			s.nodes[i] = n
			return
		}
	}
	if s.n < inlineNodes {
		s.ids[s.n], s.nodes[s.n] = id, n
		s.n++
		return
	}
	s.m = maps.take()
	for i := range s.n {
		s.m[s.ids[i]] = s.nodes[i]
	}
	s.ids, s.nodes, s.n = [inlineNodes]pcommon.SpanID{}, [inlineNodes]*node{}, 0
	s.m[id] = n
}

// remove forgets the span.
func (s *spanNodes) remove(id pcommon.SpanID) {
	if s.m != nil {
		s.runs -= isRun(s.m[id])
		delete(s.m, id)
		return
	}
	for i := range s.n {
		if s.ids[i] == id {
			s.removeAt(i)
			return
		}
	}
}

// removeAt removes inline entry i, moving the last entry into its place.
func (s *spanNodes) removeAt(i int32) {
	s.runs -= isRun(s.nodes[i])
	s.n--
	s.ids[i], s.nodes[i] = s.ids[s.n], s.nodes[s.n]
	s.ids[s.n], s.nodes[s.n] = pcommon.SpanID{}, nil
}

// removeIf forgets every span for which drop returns true, calling it once
// per span in no particular order.
func (s *spanNodes) removeIf(drop func(pcommon.SpanID, *node) bool) {
	if s.m != nil {
		for id, n := range s.m {
			if drop(id, n) {
				s.runs -= isRun(n)
				delete(s.m, id)
			}
		}
		return
	}
	// Backwards, so the entry moved into a removed slot was visited.
	for i := s.n - 1; i >= 0; i-- {
		if drop(s.ids[i], s.nodes[i]) {
			s.removeAt(i)
		}
	}
}

// all yields every span's node, in no particular order.
func (s *spanNodes) all() iter.Seq[*node] {
	return func(yield func(*node) bool) {
		if s.m != nil {
			for _, n := range s.m {
				if !yield(n) {
					return
				}
			}
			return
		}
		for i := range s.n {
			if !yield(s.nodes[i]) {
				return
			}
		}
	}
}

// release gives the map, if any, back to maps, emptied, and forgets every
// span.
func (s *spanNodes) release(maps *nodeMaps) {
	if s.m != nil {
		maps.put(s.m)
	}
	*s = spanNodes{}
}

// nodeMaps are emptied maps of dropped traces, for reuse by new traces that
// outgrow their inline entries: under load a new trace is tracked for each
// one dropped.
type nodeMaps []map[pcommon.SpanID]*node

// Bounds on the maps kept for reuse: how many, and the entries a map held
// (maps do not shrink; one grown by a large trace is left to the collector).
const (
	maxSpareMaps   = 64
	maxReusedSpans = 4 * inlineNodes
)

// take returns an empty map, a kept one when there is one. maps may be nil.
func (maps *nodeMaps) take() map[pcommon.SpanID]*node {
	if maps == nil || len(*maps) == 0 {
		return make(map[pcommon.SpanID]*node, 2*inlineNodes)
	}
	last := len(*maps) - 1
	m := (*maps)[last]
	(*maps)[last] = nil
	*maps = (*maps)[:last]
	return m
}

// put keeps m, emptied, for reuse, unless it is large or enough are kept.
func (maps *nodeMaps) put(m map[pcommon.SpanID]*node) {
	if len(m) > maxReusedSpans || len(*maps) >= maxSpareMaps {
		return
	}
	clear(m)
	*maps = append(*maps, m)
}
