package trajectory

import (
	"iter"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// inlineNodes is how many span nodes a trace keeps inline before it spills
// them into an overflow. Most traces the store tracks at a time are small (a
// run's tool spans and their parent: six for a run of five calls), and a Go
// map costs more memory than the store's whole budget for one held call.
const inlineNodes = 6

// spillNodes is how many span nodes past the inline ones a trace keeps in
// its overflow's list before it moves them all into the overflow's map: a
// run of a few steps has 7 to 16 spans, and a list that short is searched
// faster than a map is hashed.
const spillNodes = 10

// spanNodes maps a trace's span ids to nodes: in a small inline array up to
// inlineNodes spans, then also in an overflow's list up to spillNodes more,
// in the overflow's map past that. It also holds the trace's first link
// nodes (see traceState.linkTo).
//
// An inline entry whose node is closedNode or one of links is kept as a tag,
// not a pointer: most of a remembered trace's spans are such (its closed
// runs, the links its tool spans and model calls share), and every garbage
// collection scans every remembered trace's state, following its pointers.
type spanNodes struct {
	// n counts the entries inline and in the overflow's list (0 once they
	// are in the map).
	n int32
	// runs counts the groups and held agents (see isRun), so that a trace
	// dropped is counted without a walk. Their kinds change in place only
	// between the two.
	runs int32
	ids  [inlineNodes]pcommon.SpanID
	// nodes are the inline entries' nodes, nil where tags says which
	// (see at).
	nodes [inlineNodes]*node
	tags  [inlineNodes]nodeTag
	// links are the trace's first link nodes (the steps', the parents of
	// model calls), made in place; nlinks of them.
	links  [inlineLinks]node
	nlinks int32
	// more holds the entries past the inline ones (nil until there are).
	more *overflow
}

// nodeTag says which node an inline entry without a pointer has.
type nodeTag uint8

const (
	// tagPointer: the entry's node is its pointer in nodes.
	tagPointer nodeTag = iota
	// tagClosed: closedNode.
	tagClosed
	// tagLink (and above): links[tag-tagLink].
	tagLink
)

// at returns listed entry i's node.
func (s *spanNodes) at(i int32) *node {
	if i >= inlineNodes {
		return s.more.nodes[i-inlineNodes]
	}
	switch t := s.tags[i]; {
	case t == tagPointer:
		return s.nodes[i]
	case t == tagClosed:
		return closedNode
	default:
		return &s.links[t-tagLink]
	}
}

// put sets listed entry i's node, as a tag when it is closedNode or one of
// links.
func (s *spanNodes) put(i int32, n *node) {
	if i >= inlineNodes {
		s.more.nodes[i-inlineNodes] = n
		return
	}
	tag := tagPointer
	if n == closedNode {
		tag = tagClosed
	}
	for k := range s.links {
		if n == &s.links[k] {
			tag = tagLink + nodeTag(k)
		}
	}
	s.tags[i] = tag
	if tag != tagPointer {
		n = nil
	}
	s.nodes[i] = n
}

// id returns listed entry i's span id.
func (s *spanNodes) id(i int32) *pcommon.SpanID {
	if i < inlineNodes {
		return &s.ids[i]
	}
	return &s.more.ids[i-inlineNodes]
}

// overflow holds a trace's span nodes past its inline ones: a list, then a
// map.
type overflow struct {
	ids   [spillNodes]pcommon.SpanID
	nodes [spillNodes]*node
	// m holds every entry once there are more than the list and inline
	// entries hold; it may be kept, empty, from an earlier trace.
	m      map[pcommon.SpanID]*node
	mapped bool
}

// index returns the map that holds every entry, or nil while the entries
// are listed.
func (s *spanNodes) index() map[pcommon.SpanID]*node {
	if s.more == nil || !s.more.mapped {
		return nil
	}
	return s.more.m
}

// find returns the index of the span's listed entry, or -1.
func (s *spanNodes) find(id pcommon.SpanID) int32 {
	for i := range min(s.n, inlineNodes) {
		if s.ids[i] == id {
			return i
		}
	}
	for i := range s.n - min(s.n, inlineNodes) {
		if s.more.ids[i] == id {
			return inlineNodes + i
		}
	}
	return -1
}

// get returns the span's node, or nil.
func (s *spanNodes) get(id pcommon.SpanID) *node {
	if m := s.index(); m != nil {
		return m[id]
	}
	if i := s.find(id); i >= 0 {
		return s.at(i)
	}
	return nil
}

// inlineLink returns a listed entry's link node (of kind) to parent, or nil
// (always nil once the entries are in a map).
func (s *spanNodes) inlineLink(parent pcommon.SpanID, kind nodeKind) *node {
	for i := range s.n {
		if n := s.at(i); n.kind == kind && n.parent == parent {
			return n
		}
	}
	return nil
}

// len returns how many spans have a node.
func (s *spanNodes) len() int {
	if m := s.index(); m != nil {
		return len(m)
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

// set records the span's node, replacing any it had. The overflow, when
// the entries need one, comes from pool (which may be nil).
func (s *spanNodes) set(id pcommon.SpanID, n *node, pool *overflows) {
	s.runs += isRun(n)
	if m := s.index(); m != nil {
		s.runs -= isRun(m[id])
		m[id] = n
		return
	}
	if i := s.find(id); i >= 0 {
		s.runs -= isRun(s.at(i))
		s.put(i, n)
		return
	}
	if s.n == inlineNodes && s.more == nil {
		s.more = pool.take()
	}
	if s.n < inlineNodes+spillNodes {
		*s.id(s.n) = id
		s.put(s.n, n)
		s.n++
		return
	}
	s.mapAll()[id] = n
}

// mapAll moves the listed entries into the overflow's map and returns it.
func (s *spanNodes) mapAll() map[pcommon.SpanID]*node {
	o := s.more
	if o.m == nil {
		o.m = make(map[pcommon.SpanID]*node, 2*(inlineNodes+spillNodes))
	}
	for i := range s.n {
		o.m[*s.id(i)] = s.at(i)
	}
	s.ids, s.nodes, s.tags, s.n = [inlineNodes]pcommon.SpanID{}, [inlineNodes]*node{}, [inlineNodes]nodeTag{}, 0
	o.ids, o.nodes = [spillNodes]pcommon.SpanID{}, [spillNodes]*node{}
	o.mapped = true
	return o.m
}

// remove forgets the span.
func (s *spanNodes) remove(id pcommon.SpanID) {
	if m := s.index(); m != nil {
		s.runs -= isRun(m[id])
		delete(m, id)
		return
	}
	if i := s.find(id); i >= 0 {
		s.removeAt(i)
	}
}

// removeAt removes listed entry i, moving the last entry into its place.
func (s *spanNodes) removeAt(i int32) {
	s.runs -= isRun(s.at(i))
	s.n--
	*s.id(i) = *s.id(s.n)
	s.put(i, s.at(s.n))
	*s.id(s.n) = pcommon.SpanID{}
	s.put(s.n, nil)
}

// removeIf forgets every span for which drop returns true, calling it once
// per span in no particular order.
func (s *spanNodes) removeIf(drop func(pcommon.SpanID, *node) bool) {
	if m := s.index(); m != nil {
		for id, n := range m {
			if drop(id, n) {
				s.runs -= isRun(n)
				delete(m, id)
			}
		}
		return
	}
	// Backwards, so the entry moved into a removed slot was visited.
	for i := s.n - 1; i >= 0; i-- {
		if drop(*s.id(i), s.at(i)) {
			s.removeAt(i)
		}
	}
}

// all yields every span's node, in no particular order.
func (s *spanNodes) all() iter.Seq[*node] {
	return func(yield func(*node) bool) {
		if m := s.index(); m != nil {
			for _, n := range m {
				if !yield(n) {
					return
				}
			}
			return
		}
		for i := range s.n {
			if !yield(s.at(i)) {
				return
			}
		}
	}
}

// each calls f with every span and its node, in no particular order, until
// f returns false.
func (s *spanNodes) each(f func(pcommon.SpanID, *node) bool) {
	if m := s.index(); m != nil {
		for id, n := range m {
			if !f(id, n) {
				return
			}
		}
		return
	}
	for i := range s.n {
		if !f(*s.id(i), s.at(i)) {
			return
		}
	}
}

// release gives the overflow, if any, back to pool, emptied, and forgets
// every span.
func (s *spanNodes) release(pool *overflows) {
	if s.more != nil {
		pool.put(s.more)
	}
	*s = spanNodes{}
}

// overflows are emptied overflows of dropped traces, for reuse by new traces
// that outgrow their inline entries: under load a new trace is tracked for
// each one dropped.
type overflows []*overflow

// Bounds on the overflows kept for reuse: how many, and the entries an
// overflow's map held (maps do not shrink; one grown by a large trace is
// left to the collector).
const (
	maxSpareOverflows = 64
	maxReusedSpans    = 4 * (inlineNodes + spillNodes)
)

// take returns an empty overflow, a kept one when there is one. pool may be
// nil.
func (pool *overflows) take() *overflow {
	if pool == nil || len(*pool) == 0 {
		return new(overflow)
	}
	last := len(*pool) - 1
	o := (*pool)[last]
	(*pool)[last] = nil
	*pool = (*pool)[:last]
	return o
}

// put keeps o, emptied, for reuse, unless enough are kept; a large map is
// not kept.
func (pool *overflows) put(o *overflow) {
	if len(*pool) >= maxSpareOverflows {
		return
	}
	m := o.m
	if len(m) > maxReusedSpans {
		m = nil
	}
	clear(m)
	*o = overflow{m: m}
	*pool = append(*pool, o)
}
