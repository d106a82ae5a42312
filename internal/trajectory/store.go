// Package trajectory assembles agent trajectories from tool spans as they
// stream by, without buffering traces.
//
// Children end before their parents, so a tool span arrives before the agent
// span that owns it. The [Store] keeps only the extracted calls of open
// trajectories, attached to the nearest ancestor span seen so far: when an
// intermediate span (an agent step, a model call, a framework wrapper)
// arrives, the calls attached to it move up to its parent; when the agent
// span arrives, the calls attached to it are its trajectory. Spans themselves
// are never held here.
//
// The store is not safe for concurrent use: one owner (the processor, under
// one mutex) calls it. Memory is bounded by [Limits]; every eviction and every
// late call is counted in [Stats].
package trajectory // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/idtable"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/tracefilter"
)

// Limits bound the store's memory.
type Limits struct {
	// MaxOpenTrajectories bounds the trajectories holding calls at once
	// while their agent span has not arrived; the oldest is evicted when a
	// new one would exceed it. Held runs do not count (see MaxHeldRuns).
	MaxOpenTrajectories int
	// MaxHeldRuns bounds the runs held open because their trace showed
	// them incomplete; past it the run held longest is released (see
	// held.go). 0: no bound.
	MaxHeldRuns int
	// MaxCallsPerTrajectory bounds the calls kept per trajectory; further
	// calls are dropped and the trajectory is marked incomplete.
	MaxCallsPerTrajectory int
	// MaxAge is how long a trace may stay idle before its state is dropped
	// (open trajectories are then evicted).
	MaxAge time.Duration
	// MaxTrackedTraces bounds the traces whose span links are remembered;
	// the least recently active is dropped when a new one would exceed it.
	MaxTrackedTraces int
	// MaxSpansPerTrace bounds the spans remembered per trace (0: no bound).
	// Past it, new spans of the trace are not remembered, and calls that
	// would need a new one to reach their run are dropped and counted.
	MaxSpansPerTrace int
	// MaxContextBytes caps the run context (tool definitions, request,
	// response) held per run; 0 captures none.
	MaxContextBytes int
}

// maxWalk bounds ancestor walks, so a cycle in hostile span ids cannot loop.
// A walk that reaches it is taken as a cycle.
const maxWalk = 64

// StoredCall is what the store keeps of a tool call: only what scoring
// needs, so an open run costs little memory. Strings reference the span's
// attribute values.
type StoredCall struct {
	// Name is the tool name (interned).
	Name string
	// Args is the raw argument text; Encoding says how to decode it.
	Args string
	// Result is the raw result text, "" unless a scorer compares results.
	Result string
	// Start and End are the tool span's timestamps (Unix nanoseconds).
	Start, End uint64
	// Span is the tool span; Parent is its parent, the step that ran it.
	Span, Parent pcommon.SpanID
	// ID is the call id the model assigned, when the span records it.
	ID         string
	Encoding   extract.Encoding
	Convention extract.Convention
	// ResultForm says which wrapper the framework put around Result.
	ResultForm extract.ResultForm
	// Failed reports a call that did not succeed; Ended says when it was
	// refused or named no tool. MCP marks an MCP tool call.
	Failed, MCP bool
	Ended       extract.CallEnd
	// Records are the spans that recorded the call (a framework's tool
	// span, MCP client and server spans), merged into this one; Failures
	// those that reported it failed.
	Records, Failures Records
}

// Records is a set of the kinds of span that recorded one call.
type Records uint8

// The kinds of span that record a call.
const (
	// RecordTool is a framework's or SDK's tool execution span.
	RecordTool Records = 1 << iota
	// RecordMCPClient is an MCP tools/call client span.
	RecordMCPClient
	// RecordMCPServer is an MCP tools/call server span.
	RecordMCPServer
	// RecordLog is a log record of the call's execution or of a decision
	// on it (see call_records.go).
	RecordLog
)

// newStoredCall keeps what scoring needs of an extracted call.
func newStoredCall(c *extract.SpanCall, span, parent pcommon.SpanID, name string) StoredCall {
	rec := RecordTool
	switch {
	case c.MCP && c.MCPClient:
		rec = RecordMCPClient
	case c.MCP:
		rec = RecordMCPServer
	}
	sc := StoredCall{
		Name: name, Args: c.Args, Result: c.Result, Start: c.Start, End: c.End, Span: span, Parent: parent, ID: c.ID,
		Encoding: c.Encoding, Convention: c.Convention, ResultForm: c.ResultForm, Failed: c.Failed, Ended: c.Ended,
		MCP:     c.MCP || mcpType(c.Type),
		Records: rec,
	}
	if c.Failed {
		sc.Failures = rec
	}
	return sc
}

// mcpType reports a tool type that names an MCP tool, in any case. The
// lengths are compared first: no other rune folds to a letter of these
// names (only k's and s's have other forms), so an equal fold has their
// length.
func mcpType(t string) bool {
	switch len(t) {
	case len("mcp"):
		return strings.EqualFold(t, "mcp")
	case len("McpTool"):
		return strings.EqualFold(t, "McpTool")
	}
	return false
}

// Trajectory is the calls one agent run made.
type Trajectory struct {
	// Calls are in arrival order; see [Order] for scoring order.
	Calls []StoredCall
	// Dropped counts calls not kept because of MaxCallsPerTrajectory.
	// (32 bits, like SubAgents, which share its word; a run has far fewer
	// spans.)
	Dropped int32
	// SubAgents counts the agent runs nested directly under this one. A run
	// with no calls of its own and sub-agents is a wrapper (OpenInference's
	// "Agent workflow"); the processor does not score it.
	SubAgents int32
	// Models lists, for the spans the calls ran under, the start times of
	// the model calls beside them, which mark the model turns (see [Order]).
	Models []ModelStarts
	// Context is the run context captured (nil when none was).
	Context *CapturedContext
	// Turns are the model turns recorded under the run (see
	// [Store.Turn]), by start time: the calls the model requested and the
	// outcomes the app sent back. Empty when turns are not read.
	Turns []*extract.ModelTurn
	// Missing says what the run's trace still showed missing when a run
	// held for it was released at its deadline (MissingNone otherwise).
	Missing Missing
	// ReleasedEarly marks a run released before its deadline because
	// MaxHeldRuns runs were held (see held.go); RootPassed the run of a
	// trace root that passed before its spans (see [Store.RootPassed]).
	ReleasedEarly, RootPassed bool
	// held is how a run held while its trace showed it incomplete was
	// recorded, to look again at what is missing.
	held AgentOptions
}

// ModelStarts are the start times, ascending, of the model calls (inference
// spans) that are children of Parent.
type ModelStarts struct {
	Parent pcommon.SpanID
	Starts []uint64
}

// IsWrapper reports a run that made no calls itself and only ran sub-agents.
func (t *Trajectory) IsWrapper() bool {
	return len(t.Calls) == 0 && t.Dropped == 0 && t.SubAgents > 0 && len(t.Turns) == 0
}

// EvictReason says why open state was dropped.
type EvictReason uint8

// The eviction reasons.
const (
	EvictMaxAge EvictReason = iota
	EvictMaxOpen
	EvictMaxTraces
	EvictShutdown
	numEvictReasons
)

// Stats are the store's counters since the last [Store.TakeStats].
type Stats struct {
	// Evicted counts trajectories dropped before their agent span arrived.
	Evicted [numEvictReasons]int64
	// Late counts tool spans that arrived after their run was scored.
	Late int64
	// Dropped counts calls not kept because a trajectory was full.
	Dropped int64
	// Cyclic counts calls whose span parents loop (A→B→A, a tool span that
	// is its own parent), so no run can be found for them.
	Cyclic int64
	// OverSpans counts calls dropped because their trace was at
	// MaxSpansPerTrace and they needed a new span remembered.
	OverSpans int64
	// Completed and Unfinished count the runs held because their trace
	// showed them incomplete (see [Store.AgentOrHold]), released with
	// nothing missing any more and released with something still missing;
	// OverLimit the runs released early, incomplete, because MaxHeldRuns
	// runs were held so already (see held.go).
	Completed, Unfinished, OverLimit int64
}

type nodeKind uint8

const (
	// nodeGroup is a span not seen yet with calls attached to it.
	nodeGroup nodeKind = iota
	// nodeLink is a seen span that is neither tool nor agent.
	nodeLink
	// nodeTool is a seen tool span: calls under it are other records of
	// its call (MCP client and server spans, a wrapper's inner span), which
	// join its run as a link's would and are merged with it when the run
	// is scored. Like a link's, the node is shared by siblings.
	nodeTool
	// nodeHeld is an agent span held open to collect stragglers.
	nodeHeld
	// nodeClosed is an agent span whose run was scored (or a trace root).
	nodeClosed
)

// node is what the store knows about one span of a tracked trace. Seen tool
// spans and closed runs carry no data of their own and share the sentinel
// nodes below; only groups and held runs carry a trajectory.
type node struct {
	kind nodeKind
	// root marks a held agent span that is its trace's root: it adopts
	// orphaned calls when released.
	root bool
	// incomplete marks a held agent span held because its trace showed the
	// run incomplete (see [Store.AgentOrHold]): it is released as soon as
	// nothing is missing. plain marks a held trace root that is not an
	// agent span (see [Store.RootOrHold]).
	incomplete, plain bool
	parent            pcommon.SpanID
	// opened numbers a group or held agent in the order the store's runs
	// opened (a group moved up keeps its number): the open-runs queue finds
	// a group by it, and a root adopts orphans in its order.
	opened int64
	// traj is the run's trajectory, for groups and held agents only (see
	// newRunNode); nil for the other kinds, which keep 32 bytes.
	traj *Trajectory
}

// runNode is a group's or agent's node, its trajectory and room for the
// run's first calls and turns (see runRoom), allocated as one.
type runNode struct {
	node
	t    Trajectory
	room runRoom
}

// newRunNode returns a node of kind with a trajectory, numbered as the
// next run opened. Only run nodes carry a trajectory, so links, tools and
// closed spans (most of a trace's spans) stay at the plain node's size.
func (s *Store) newRunNode(kind nodeKind) *node {
	s.opened++
	r := &runNode{node: node{kind: kind, opened: s.opened}}
	r.traj = &r.t
	return &r.node
}

var closedNode = &node{kind: nodeClosed}

type traceState struct {
	id    pcommon.TraceID
	nodes spanNodes
	// lastTouch is when a span of the trace was last seen.
	lastTouch int64
	// prev and next link traces from least to most recently touched.
	prev, next *traceState
	// open counts the trace's groups and held agents.
	open int32
	// incomplete counts the trace's agents held as incomplete.
	incomplete int32
	// held counts the trace's held runs: its groups are theirs to adopt
	// or take, and are not evicted while it has any (see enforceOpenLimit).
	held int32
	// keyed marks a trace whose calls reach their runs by run key
	// (run_keys.go): its ordinary spans are not kept as links.
	keyed bool
	// hasExtra marks a trace whose extra is in use (see extras).
	hasExtra bool
	// lastLink is the link node made last (see linkTo), nil once the trace
	// has no open run (see settle).
	lastLink *node
	// extra is the trace's first link nodes, model calls and turns, in use
	// from the first of them (hasExtra). Nearly every trace has one (its
	// tool spans' link, its model calls), so it comes in the trace state's
	// allocation rather than one of its own.
	extra traceExtra
}

// traceExtra is what a trace with links or model calls keeps beyond its
// span nodes, inline in its state: under load every run arrives in a fresh
// trace, and its two or three link nodes, model calls and turns would
// cost an allocation each. A remembered trace's state is scanned by every
// garbage collection, so what it keeps inline holds no pointer to itself
// where a count serves (model calls, turns once taken).
type traceExtra struct {
	// first are the trace's first model calls (nfirst of them); models are
	// all of them (up to maxModelCalls) once there are more, nil before
	// (see modelCalls). 16 bytes each, read once when a run closes.
	first  [inlineModelCalls]modelCall
	nfirst int
	models []modelCall
	// turns are the trace's model turns (up to maxModelCalls), when turns
	// are read: each run takes those recorded under it as it closes. The
	// first are in firstTurns; nil when there are none.
	turns      []turnRecord
	firstTurns [inlineTurns]turnRecord
}

// turnRecord is a model turn and the span it is a child of.
type turnRecord struct {
	parent pcommon.SpanID
	turn   *extract.ModelTurn
}

// Bounds on a trace's extra: the link nodes, model calls and turns held in
// place (demo runs make two model calls under one to three parents).
const (
	inlineLinks      = 2
	inlineModelCalls = 2
	inlineTurns      = 2
)

// extras returns the trace's extra, marked in use.
func (ts *traceState) extras() *traceExtra {
	ts.hasExtra = true
	return &ts.extra
}

// addModelCall records a model call, within maxModelCalls.
func (x *traceExtra) addModelCall(m modelCall) {
	switch {
	case x.models == nil && x.nfirst < inlineModelCalls:
		x.first[x.nfirst] = m
		x.nfirst++
		return
	case x.models == nil:
		x.models = append(make([]modelCall, 0, 2*inlineModelCalls), x.first[:]...)
	}
	x.models = append(x.models, m)
}

// addTurn records a model turn, its first in place.
func (x *traceExtra) addTurn(t turnRecord) {
	if x.turns == nil {
		x.turns = x.firstTurns[:0]
	}
	x.turns = append(x.turns, t)
}

// settle drops what only a trace with open runs needs: the link cache,
// which points into the state, so that a remembered trace's state holds
// fewer pointers for every garbage collection to follow.
func (ts *traceState) settle() {
	if ts.open == 0 {
		ts.lastLink = nil
	}
}

// linkTo returns a link node to parent: link nodes are never changed, so
// sibling spans share one. A sibling's is found as the last one made (a
// step's children arrive together), among the trace's first ones or among
// the inline entries. kind is nodeLink, or nodeTool for a tool span.
func (ts *traceState) linkTo(parent pcommon.SpanID, kind nodeKind) *node {
	if n := ts.lastLink; n != nil && n.parent == parent && n.kind == kind {
		return n
	}
	x := &ts.nodes
	for i := range x.nlinks {
		if n := &x.links[i]; n.parent == parent && n.kind == kind {
			return n
		}
	}
	if n := ts.nodes.inlineLink(parent, kind); n != nil {
		return n
	}
	if x.nlinks < inlineLinks {
		ts.lastLink = &x.links[x.nlinks]
		x.nlinks++
		*ts.lastLink = node{kind: kind, parent: parent}
		return ts.lastLink
	}
	ts.lastLink = &node{kind: kind, parent: parent}
	return ts.lastLink
}

// modelCalls returns the trace's model calls.
func (ts *traceState) modelCalls() []modelCall {
	switch {
	case !ts.hasExtra:
		return nil
	case ts.extra.models != nil:
		return ts.extra.models
	}
	return ts.extra.first[:ts.extra.nfirst]
}

// modelCall is a model call (inference span): its parent and start time.
type modelCall struct {
	parent pcommon.SpanID
	start  uint64
}

// maxModelCalls bounds the model calls remembered per trace; past it, turns
// of later calls are recovered from timing alone.
const maxModelCalls = 1024

// groupRef is an open group in the open-runs queue: its trace's state (a
// pointer, so that the queue is checked without the store's map, whose
// lookups miss the cache once it holds thousands of traces), the trace, span
// and number it was opened with.
type groupRef struct {
	ts     *traceState
	trace  pcommon.TraceID
	span   pcommon.SpanID
	opened int64
}

// open reports whether the group is still open where it was opened. A
// dropped trace's state is emptied (see recycle), and a reused one has
// another trace's id or, for the same trace, other run numbers.
func (g *groupRef) open() bool {
	if g.ts.id != g.trace {
		return false
	}
	n := g.ts.nodes.get(g.span)
	return n != nil && n.kind == nodeGroup && n.opened == g.opened
}

// Store holds open trajectories and the span links needed to assemble them.
type Store struct {
	limits Limits
	// incomplete counts the agents held because their trace showed them
	// incomplete.
	incomplete int
	traces     *idtable.Table[pcommon.TraceID, traceState]
	// filter passes over untracked traces before the map (see Tracks); it
	// is made when filterFrom traces are tracked at once.
	filter     *tracefilter.Filter
	filterFrom int
	// oldest and newest end the list of traces by last touch.
	oldest, newest *traceState
	// groups lists open groups in opening order for MaxOpenTrajectories
	// eviction; entries that are no longer open are skipped lazily.
	groups []groupRef
	open   int
	// opened counts the runs opened, numbering them (see node.opened).
	opened int64
	// held counts the runs held open (wait, or incomplete): they do not
	// count against MaxOpenTrajectories. heldQueue lists the runs held
	// incomplete in the order they were held, early those released early
	// and not taken yet (see held.go).
	held      int
	heldQueue []heldRef
	// heldGroups counts the open groups of traces with a held run: they
	// do not count against MaxOpenTrajectories either.
	heldGroups int
	early      []RunRef
	// last is the trace looked up last (see lookup), nil once dropped.
	last *traceState
	// names interns tool names and types, which repeat across calls;
	// recent are the two interned last, looked at first (a run's calls
	// repeat a few names).
	names  map[string]string
	recent [2]string
	// spare are dropped traces' states and overflows their span nodes'
	// overflows (see spanNodes), for reuse by new traces (see recycle).
	spare     []*traceState
	overflows overflows
	// maxSpare bounds spare (maxSpareTraces; 0 in tests that compare with a
	// store that recycles nothing).
	maxSpare int
	// expect counts the calls still to come from the caller's batch in the
	// trace of the next Tool (see ExpectCalls).
	expect int
	stats  Stats
	// records are the witnesses log records and span events gave (see
	// record_witnesses.go); calls the log records of tool calls waiting
	// for their run (see call_records.go).
	records recordTable
	calls   callRecordTable
	// turns and tally are scratch for reading an open run's turns (see
	// openRunTurns, turnsMissing): one look at a time, the store having
	// one owner.
	turns []*extract.ModelTurn
	tally toolTally
}

// maxInterned bounds the interned names; past it names are kept as they
// come.
const maxInterned = 4096

// NewStore returns an empty store.
func NewStore(limits Limits) *Store {
	return &Store{limits: limits, traces: newTraceTable(), filterFrom: filterFrom, names: make(map[string]string), maxSpare: maxSpareTraces}
}

// Open returns the number of open trajectories (groups and held agents).
func (s *Store) Open() int { return s.open }

// Traces returns the number of tracked traces.
func (s *Store) Traces() int { return s.traces.Len() }

// Tracks reports whether the trace has state in the store, so that a span
// of another trace can be passed over without a Link.
func (s *Store) Tracks(trace pcommon.TraceID) bool {
	if s.filter != nil && !s.filter.MayHave(trace) {
		return false
	}
	return s.traces.Get(trace) != nil
}

// TakeStats returns the counters accumulated since the last call and resets
// them, so a caller can record them once per batch.
func (s *Store) TakeStats() Stats {
	st := s.stats
	s.stats = Stats{}
	return st
}

func (s *Store) intern(name string) string {
	for _, r := range s.recent {
		if r == name {
			return r
		}
	}
	v, ok := s.names[name]
	if !ok {
		if len(s.names) >= maxInterned {
			return name
		}
		v = name
		s.names[name] = name
	}
	s.recent[1], s.recent[0] = s.recent[0], v
	return v
}

func (s *Store) unlink(ts *traceState) {
	if ts.prev != nil {
		ts.prev.next = ts.next
	} else {
		s.oldest = ts.next
	}
	if ts.next != nil {
		ts.next.prev = ts.prev
	} else {
		s.newest = ts.prev
	}
	ts.prev, ts.next = nil, nil
}

func (s *Store) pushNewest(ts *traceState) {
	ts.prev = s.newest
	if s.newest != nil {
		s.newest.next = ts
	} else {
		s.oldest = ts
	}
	s.newest = ts
}

// lookup returns the trace's state, or nil. The processor applies a batch
// trace by trace, so the last trace looked up answers most lookups without
// the map (whose misses cost cache misses once it holds thousands).
func (s *Store) lookup(id pcommon.TraceID) *traceState {
	if s.last != nil && s.last.id == id {
		return s.last
	}
	if s.filter != nil && !s.filter.MayHave(id) {
		return nil // a new trace, passed over without the map
	}
	ts := s.traces.Get(id)
	if ts != nil {
		s.last = ts
	}
	return ts
}

func (s *Store) trace(id pcommon.TraceID, now int64, create bool) *traceState {
	ts := s.lookup(id)
	if ts == nil {
		if !create {
			return nil
		}
		if s.limits.MaxTrackedTraces > 0 && s.traces.Len() >= s.limits.MaxTrackedTraces && s.oldest != nil {
			s.dropTrace(s.oldest, EvictMaxTraces)
		}
		ts = s.newTraceState()
		ts.id = id
		s.traces.Put(id, ts)
		s.track(id)
		s.pushNewest(ts)
		s.last = ts // the trace's next spans follow
	} else if s.newest != ts {
		s.unlink(ts)
		s.pushNewest(ts)
	}
	ts.lastTouch = now
	return ts
}

// resolve walks from span up through links (and tool spans) to the node
// calls attach to. It reports false when the walk loops (or goes deeper
// than maxWalk).
func resolve(ts *traceState, span pcommon.SpanID) (pcommon.SpanID, *node, bool) {
	for i := 0; i < maxWalk; i++ {
		n := ts.nodes.get(span)
		if n == nil || (n.kind != nodeLink && n.kind != nodeTool) || n.parent.IsEmpty() {
			return span, n, true
		}
		span = n.parent
	}
	return span, nil, false
}

// full reports whether the trace remembers as many spans as it may.
func (s *Store) full(ts *traceState) bool {
	return s.limits.MaxSpansPerTrace > 0 && ts.nodes.len() >= s.limits.MaxSpansPerTrace
}

// remember records a span's node unless the trace is full and the span is
// new to it.
func (s *Store) remember(ts *traceState, span pcommon.SpanID, n *node) {
	if s.full(ts) && ts.nodes.get(span) == nil {
		return
	}
	ts.nodes.set(span, n, &s.overflows)
}

// Tool records a tool call made by span (whose parent is parent). The
// call's id and type are not kept. It reports
// whether the call arrived late, after its agent run had been scored.
func (s *Store) Tool(trace pcommon.TraceID, span, parent pcommon.SpanID, c extract.SpanCall, now int64) (late bool) {
	return s.ToolOf(trace, span, parent, &c, now)
}

// ToolOf is [Store.Tool] given the extracted call by reference, which it
// does not keep: a call is large, and the processor's batch holds it.
func (s *Store) ToolOf(trace pcommon.TraceID, span, parent pcommon.SpanID, c *extract.SpanCall, now int64) (late bool) {
	room := s.callRoom()
	ts := s.trace(trace, now, true)
	if parent == span {
		s.stats.Cyclic++ // its own parent: no run to find
		return false
	}
	call := newStoredCall(c, span, parent, s.intern(c.Name))
	if n := ts.nodes.get(span); n != nil {
		switch n.kind {
		case nodeGroup:
			// Children of a tool span are other records of the same call
			// (MCP client and server spans, a wrapper's inner span).
			for i := range n.traj.Calls {
				mergeDuplicate(&call, &n.traj.Calls[i])
			}
			s.closeGroup(ts)
		case nodeTool, nodeClosed, nodeHeld:
			return false // a repeated span id: ignore
		}
	}
	if parent.IsEmpty() {
		s.remember(ts, span, closedNode)
		// A tool span with no parent is its own, one-call run; there is
		// no agent span to score it on.
		return false
	}
	// Remember the tool span: another record of the same call (an MCP
	// client or server span, a wrapper's inner span) may arrive after it,
	// and joins its run to be merged with it (see mergeRecords).
	s.remember(ts, span, ts.linkTo(parent, nodeTool))
	target, n, ok := resolve(ts, parent)
	if !ok {
		s.stats.Cyclic++
		return false
	}
	return s.attach(ts, target, n, []StoredCall{call}, room)
}

// ExpectCalls says that the next n calls of [Store.Tool] are of one trace,
// from one batch: the first call of a run is then given room for the
// others, which may join it, instead of a slice grown call by call.
func (s *Store) ExpectCalls(n int) { s.expect = n }

// maxCallRoom bounds the room ExpectCalls gives a run's first call. Every
// run of a trace gets the room of all the calls still to come in the batch,
// its own or not, so the spare slots an open run may hold are bounded by this
// (three calls' worth, 240 bytes), not by the batch.
const maxCallRoom = 4

// callRoom returns the room for a run's first call that the calls expected
// give (1 when none are), counting this call as come.
func (s *Store) callRoom() int {
	room := min(max(s.expect, 1), maxCallRoom)
	if s.limits.MaxCallsPerTrajectory > 0 {
		room = min(room, s.limits.MaxCallsPerTrajectory)
	}
	s.expect = max(s.expect-1, 0)
	return room
}

// attach adds calls to the node calls resolve to, creating a group there when
// the span has not been seen, a run's first calls with room for room. It
// reports a late arrival.
func (s *Store) attach(ts *traceState, target pcommon.SpanID, n *node, calls []StoredCall, room int) bool {
	n, late := s.runAt(ts, target, n, len(calls), nil)
	if n != nil {
		s.addCalls(n, calls, room)
	}
	return late
}

// runAt returns the run that count calls resolving to target (whose node is
// n) join, creating a group there when the span has not been seen: from's
// node (which keeps its number), when not nil, else a new one. It returns
// nil when the calls join no run, reporting a late arrival (counted) when
// its run was scored.
func (s *Store) runAt(ts *traceState, target pcommon.SpanID, n *node, count int, from *node) (*node, bool) {
	if n == nil {
		if s.full(ts) {
			s.stats.OverSpans += int64(count)
			return nil, false
		}
		n = from
		if n == nil {
			n = s.newRunNode(nodeGroup)
		}
		ts.nodes.set(target, n, &s.overflows)
		ts.open++
		s.open++
		if ts.held > 0 {
			s.heldGroups++
		}
		s.groups = append(s.groups, groupRef{ts: ts, trace: ts.id, span: target, opened: n.opened})
		s.enforceOpenLimit()
	}
	switch n.kind {
	case nodeClosed:
		s.stats.Late += int64(count)
		return nil, true
	case nodeLink, nodeTool:
		return nil, false // resolve never returns a link with a parent
	}
	return n, false
}

// addCalls adds calls to run n, within MaxCallsPerTrajectory; a run's first
// calls get room for room (see appendCall).
func (s *Store) addCalls(n *node, calls []StoredCall, room int) {
	for _, c := range calls {
		if s.limits.MaxCallsPerTrajectory > 0 && len(n.traj.Calls) >= s.limits.MaxCallsPerTrajectory {
			n.traj.Dropped++
			s.stats.Dropped++
			continue
		}
		if cap(n.traj.Calls) == 0 {
			n.traj.Calls = n.room().firstCalls(max(room, 1))
		}
		n.traj.Calls = appendCall(n.traj.Calls, c, room)
	}
}

// moveGroup moves closed group g's calls to the run at target (whose node is
// n), creating a group there when the span has not been seen. g's node
// becomes that group, or its calls those of a run that has none yet, instead
// of being copied (g's calls are within MaxCallsPerTrajectory, as every
// run's are). The run takes g's drops, sub-agents and context.
func (s *Store) moveGroup(ts *traceState, target pcommon.SpanID, n, g *node) {
	calls := g.traj.Calls
	switch n, _ = s.runAt(ts, target, n, len(calls), g); {
	case n == g:
		return // g moved as a whole
	case n != nil && len(n.traj.Calls) == 0:
		n.traj.Calls = calls
	case n != nil:
		s.addCalls(n, calls, 1)
	}
	// The group made at target may have been evicted meanwhile.
	if n := ts.nodes.get(target); n != nil && (n.kind == nodeGroup || n.kind == nodeHeld) {
		n.traj.Dropped += g.traj.Dropped
		n.traj.SubAgents += g.traj.SubAgents
		s.mergeContext(n.traj, g.traj.Context)
	}
}

// appendCall grows a run's calls slowly: a run's calls arrive one at a time
// and its final count is unknown, so doubling would waste up to half. The
// first call gets a slice of room calls: its own size when the caller knows
// of no others to come, since many runs make one call.
func appendCall(calls []StoredCall, c StoredCall, room int) []StoredCall {
	if len(calls) < cap(calls) {
		return append(calls, c)
	}
	grow := max(2, len(calls)/4)
	if len(calls) == 0 {
		grow = max(room, 1)
	}
	grown := make([]StoredCall, len(calls), len(calls)+grow)
	copy(grown, calls)
	return append(grown, c)
}

// Link records a span that is neither tool nor agent: calls attached to it
// move up to its parent, and calls arriving under it later follow. track
// says whether to start tracking the trace for it (GenAI spans); other spans
// are remembered only in traces already tracked. A span with no parent is the
// trace root: calls attached to it form a trajectory with no agent span,
// which Link returns.
func (s *Store) Link(trace pcommon.TraceID, span, parent pcommon.SpanID, track bool, now int64) *Trajectory {
	ts, n, ok := s.arrive(trace, span, track, now)
	if !ok {
		return nil
	}
	if parent.IsEmpty() || parent == span {
		return s.closeRoot(ts, span, n, true)
	}
	s.remember(ts, span, ts.linkTo(parent, nodeLink))
	if n != nil {
		target, tn, ok := resolve(ts, parent)
		if !ok {
			s.stats.Cyclic += int64(len(n.traj.Calls))
			return nil
		}
		s.moveGroup(ts, target, tn, n)
	}
	return nil
}

// RootOrHold is [Store.Link] for a trace root (a span without parent)
// that, with o.HoldIfMissing, is held open like an agent span while its
// trace shows calls or model turns waiting under spans not seen yet: they
// may be the run of an agent span still on its way rather than orphans for
// the root to adopt. It reports what is missing; [Store.Release] closes
// the root, adopting what still waits.
func (s *Store) RootOrHold(trace pcommon.TraceID, span pcommon.SpanID, track bool, o AgentOptions, now int64) (*Trajectory, Missing) {
	ts, n, ok := s.arrive(trace, span, track, now)
	if !ok {
		return nil, MissingNone
	}
	missing := MissingNone
	if o.HoldIfMissing {
		missing = s.rootIncomplete(ts, span, n, &o)
	}
	if missing == MissingNone {
		return s.closeRoot(ts, span, n, true), MissingNone
	}
	s.holdRoot(ts, span, n, o)
	return nil, missing
}

// holdRoot holds trace root span (whose group n, if any, the caller
// closed) open while its trace shows runs below it incomplete.
func (s *Store) holdRoot(ts *traceState, span pcommon.SpanID, n *node, o AgentOptions) {
	s.makeRoomToHold()
	if n == nil {
		n = s.newRunNode(nodeHeld)
	}
	n.kind, n.root, n.plain = nodeHeld, true, true
	ts.nodes.set(span, n, &s.overflows)
	ts.open++
	s.open++
	s.held++
	ts.held++
	s.heldUp(ts)
	s.holdIncomplete(ts, span, n, o)
}

// LocalRoot records a span whose parent lives in another process (its span
// flags mark the parent remote): the root of this process's part of the
// trace, such as a service called by a gateway. Like a trace root it closes
// the calls gathered under it into a run; unlike one it adopts no orphans,
// since the spans of other processes' parts of the trace may still be on
// their way.
func (s *Store) LocalRoot(trace pcommon.TraceID, span pcommon.SpanID, track bool, now int64) *Trajectory {
	ts, n, ok := s.arrive(trace, span, track, now)
	if !ok {
		return nil
	}
	return s.closeRoot(ts, span, n, false)
}

// arrive looks up a span that is neither tool nor agent in its trace,
// starting to track the trace when track. It reports false when the trace
// is not tracked or the span was seen before. Otherwise n is the group of
// calls waiting under the span (nil when none reached it), which arrive
// closes, as the caller replaces its node.
func (s *Store) arrive(trace pcommon.TraceID, span pcommon.SpanID, track bool, now int64) (ts *traceState, n *node, ok bool) {
	if ts = s.trace(trace, now, track); ts == nil {
		return nil, nil, false
	}
	n = ts.nodes.get(span)
	if n != nil && n.kind != nodeGroup {
		return nil, nil, false // seen before
	}
	if n != nil {
		s.closeGroup(ts)
	}
	return ts, n, true
}

// closeRoot closes the root (or local root) span's group n, nil when no call
// reached it, with the trace's orphans when adopt, and returns its run, or
// nil when there is nothing to score. The caller has closed the group.
func (s *Store) closeRoot(ts *traceState, span pcommon.SpanID, n *node, adopt bool) *Trajectory {
	s.remember(ts, span, closedNode)
	traj := &Trajectory{}
	if n != nil {
		traj = n.traj
	}
	if adopt {
		s.adoptOrphans(ts, span, traj)
	}
	runTurns(ts, span, traj, n.room(), adopt)
	ts.settle()
	if len(traj.Calls) == 0 && traj.Dropped == 0 && !requestsAny(traj.Turns) {
		return nil // a root without calls under it: nothing to score
	}
	return s.withModels(ts, traj, n.room())
}

// Agent records an agent span (whose parent is parent) and returns its
// trajectory (empty when it made no calls). With hold, the run stays open:
// calls keep attaching until [Store.Release].
//
// A root agent span adopts the calls of its trace that wait under spans
// never seen: every span of a trace descends from its root, and by the time
// the root ends its descendants have ended, so such calls sit under spans
// that were never exported (OpenLLMetry JS drops the span of a failed
// withTool call).
func (s *Store) Agent(trace pcommon.TraceID, span, parent pcommon.SpanID, hold bool, now int64) *Trajectory {
	traj, _ := s.AgentOrHold(trace, span, parent, AgentOptions{Hold: hold}, now)
	return traj
}

// AgentOptions say how [Store.AgentOrHold] closes an agent span's run.
type AgentOptions struct {
	// Hold keeps the run open until [Store.Release] (wait).
	Hold bool
	// HoldIfMissing keeps the run open, until Release, while its trace
	// shows it incomplete (see [Missing]).
	HoldIfMissing bool
	// Start and End are the agent span's timestamps.
	Start, End uint64
	// Failed marks an agent span with an error status: its run may end
	// on a tool call.
	Failed bool
	// ToolSpans says the run's service leaves tool spans: calls its model
	// requested are awaited even before any tool span of the run arrived.
	ToolSpans bool
	// Requests says the run's service records the calls its model
	// requested: a tool span no turn requested awaits that turn.
	Requests bool
	// Records says the run's service sends log records of its model calls:
	// a model call no record joined yet awaits them (MissingRecords).
	// CallRecords says it sends log records of its tool calls: a call with
	// an id and no record yet awaits one (MissingRecords).
	Records, CallRecords bool
	// EndsOnTools says the run's agent was learned to end runs on a tool
	// call (MissingAnswer is not looked for); Alone that its agent spans
	// may have nothing recorded below them (MissingChildren is not);
	// ParentsDropped that parents its spans name may never come
	// (MissingParent is not).
	EndsOnTools, Alone, ParentsDropped bool
	// ModelCall says the agent span is a model call too: the records that
	// name it join its turn once the run is open (not settled as records
	// of a span that makes no turn, see settleRecordsWithoutTurn).
	ModelCall bool
}

// AgentOrHold is [Store.Agent] that also holds the run open when o asks
// for it: always with Hold, or with HoldIfMissing when the trace shows the
// run incomplete, which it reports. [Store.Incomplete] then says when the
// run is complete.
func (s *Store) AgentOrHold(trace pcommon.TraceID, span, parent pcommon.SpanID, o AgentOptions, now int64) (*Trajectory, Missing) {
	ts := s.trace(trace, now, true)
	if parent == span {
		parent = pcommon.SpanID{} // its own parent: taken as a root
	}
	n := ts.nodes.get(span)
	missing := MissingNone
	if o.HoldIfMissing && !o.Hold && (n == nil || n.kind == nodeGroup) {
		if missing = s.missing(ts, span, n, &o); missing != MissingNone {
			s.makeRoomToHold()
			o.Hold = true
		}
	}
	hold := o.Hold
	switch {
	case n == nil:
		n = s.newRunNode(nodeGroup) // kind set by recordAgent
		s.markSubAgent(ts, span, parent)
		s.recordAgent(ts, span, n, parent.IsEmpty(), hold)
	case n.kind == nodeGroup:
		// The run's group is recorded held or closed before the sub-agent
		// mark, which may open a group and evict the oldest: not this run.
		s.closeGroup(ts)
		s.recordAgent(ts, span, n, parent.IsEmpty(), hold)
		s.markSubAgent(ts, span, parent)
	default:
		return nil, MissingNone // a repeated agent span id
	}
	if hold {
		if missing != MissingNone {
			s.holdIncomplete(ts, span, n, o)
		}
		return nil, missing
	}
	runTurns(ts, span, n.traj, n.room(), parent.IsEmpty())
	ts.settle()
	return s.withModels(ts, n.traj, n.room()), MissingNone
}

// HoldsIncomplete reports whether any agent is held because its trace
// showed the run incomplete.
func (s *Store) HoldsIncomplete() bool { return s.incomplete > 0 }

// Incomplete returns, for each agent of trace held because its trace
// showed the run incomplete (see [Store.AgentOrHold]), whether it still
// is: the caller releases those that are not. It calls f with each such
// agent span and what is missing.
func (s *Store) Incomplete(trace pcommon.TraceID, f func(span pcommon.SpanID, missing Missing)) {
	ts := s.lookup(trace)
	if ts == nil || ts.incomplete == 0 {
		return
	}
	ts.nodes.each(func(id pcommon.SpanID, n *node) bool {
		if n.kind == nodeHeld && n.incomplete {
			f(id, s.missing(ts, id, n, &n.traj.held))
		}
		return true
	})
}

// recordAgent records agent span's run n, whose group (if any) the caller
// closed: held open when hold, else closed, a root's run adopting the
// trace's orphans first.
func (s *Store) recordAgent(ts *traceState, span pcommon.SpanID, n *node, root, hold bool) {
	if hold {
		// Orphans are adopted at release: their parents may still come.
		n.root = root
		n.kind = nodeHeld
		ts.nodes.set(span, n, &s.overflows) // a held run is remembered even in a full trace
		ts.open++
		s.open++
		s.held++
		ts.held++
		s.heldUp(ts)
		return
	}
	if root {
		s.adoptOrphans(ts, span, n.traj)
	}
	s.remember(ts, span, closedNode)
}

// Seen says whether a span id was seen before as an agent span (or another
// span that closed its place in the trace).
type Seen uint8

// What [Store.Seen] reports.
const (
	// SeenNot is a span the store has no closed or held record of.
	SeenNot Seen = iota
	// SeenHeld is an agent span whose run is held open (see [Store.Agent]).
	SeenHeld
	// SeenClosed is a span seen before: a scored agent run, a trace root,
	// a tool or another span.
	SeenClosed
)

// Seen reports whether span arrived before in trace: a retried batch or a
// duplicate span id. Calls waiting under a span not seen yet do not count.
func (s *Store) Seen(trace pcommon.TraceID, span pcommon.SpanID) Seen {
	ts := s.lookup(trace)
	if ts == nil {
		return SeenNot
	}
	switch n := ts.nodes.get(span); {
	case n == nil || n.kind == nodeGroup:
		return SeenNot
	case n.kind == nodeHeld:
		return SeenHeld
	}
	return SeenClosed
}

// ModelCall records a model call (an inference span) under parent that
// started at start, in a trace already tracked. Tool calls beside it under
// the same parent that start after it belong to the turn it began.
func (s *Store) ModelCall(trace pcommon.TraceID, parent pcommon.SpanID, start uint64) {
	ts := s.lookup(trace)
	if ts == nil || parent.IsEmpty() || len(ts.modelCalls()) >= maxModelCalls {
		return
	}
	ts.extras().addModelCall(modelCall{parent: parent, start: start})
}

// Turn records a model turn (what a model-call span records of the run's
// tool calls, see [extract.ModelTurn]) under parent, in a trace already
// tracked. The run it belongs to takes it when it closes.
func (s *Store) Turn(trace pcommon.TraceID, parent pcommon.SpanID, turn *extract.ModelTurn) {
	ts := s.lookup(trace)
	if ts == nil || parent.IsEmpty() {
		return
	}
	x := ts.extras()
	if len(x.turns) >= maxModelCalls || closedRunAt(ts, parent) {
		return
	}
	x.addTurn(turnRecord{parent: parent, turn: turn})
}

// runTurns gives a closing run, whose span is span, the turns recorded
// under it: those whose parent resolves to span, and, for a root run
// (adopt), those whose parent resolves to no span seen or to an open group
// (their spans never came). Turns that resolve to another run's span are
// that run's. The trace keeps only the turns of runs still open (see
// keepOpenTurns). The run's first turns go in room (its node's, nil when
// it has none).
func runTurns(ts *traceState, span pcommon.SpanID, traj *Trajectory, room *runRoom, adopt bool) {
	if !ts.hasExtra || len(ts.extra.turns) == 0 {
		return
	}
	keepOpenTurns(ts, func(t turnRecord) bool {
		target, n, ok := resolve(ts, t.parent)
		if ok && (target == span || (adopt && (n == nil || n.kind == nodeGroup))) {
			if cap(traj.Turns) == 0 {
				traj.Turns = room.firstTurns()
			}
			traj.Turns = append(traj.Turns, t.turn)
			return true
		}
		return false
	})
	slices.SortStableFunc(traj.Turns, func(a, b *extract.ModelTurn) int { return cmp.Compare(a.Start, b.Start) })
}

// requestsAny reports whether a turn requested tool calls.
func requestsAny(turns []*extract.ModelTurn) bool {
	for _, t := range turns {
		if len(t.Requested()) > 0 {
			return true
		}
	}
	return false
}

// withModels merges a closing run's records of one call (see mergeRecords)
// and gives it the model calls beside its tool calls: the
// start times, ascending, of the model calls under each span its calls ran
// under, in the order the calls name those spans. The run has none yet.
// Its starts share one array, sized by a count first; those of one span
// go in room (the run node's, nil when it has none) when they fit.
func (s *Store) withModels(ts *traceState, traj *Trajectory, room *runRoom) *Trajectory {
	traj.Calls = mergeRecords(ts, traj.Calls)
	s.applyCallRecords(ts, traj.Calls)
	models := ts.modelCalls()
	if len(models) == 0 {
		return traj
	}
	var buf [8]pcommon.SpanID
	parents := buf[:0]
	for i := range traj.Calls {
		if p := traj.Calls[i].Parent; !slices.Contains(parents, p) {
			parents = append(parents, p)
		}
	}
	total, kept := 0, 0
	for _, p := range parents {
		if n := countModelCalls(models, p); n > 0 {
			total += n
			kept++
		}
	}
	if kept == 0 {
		return traj
	}
	var starts []uint64
	if kept == 1 && total <= len(oneParent{}.starts) {
		var one *oneParent
		if room != nil {
			one = &room.models
		} else {
			one = new(oneParent)
		}
		starts, traj.Models = one.starts[:0:total], one.models[:0]
	} else {
		starts = make([]uint64, 0, total)
		traj.Models = make([]ModelStarts, 0, kept)
	}
	for _, p := range parents {
		from := len(starts)
		for _, m := range models {
			if m.parent == p {
				starts = append(starts, m.start)
			}
		}
		if len(starts) > from {
			mine := starts[from:len(starts):len(starts)]
			slices.Sort(mine)
			traj.Models = append(traj.Models, ModelStarts{Parent: p, Starts: mine})
		}
	}
	return traj
}

// oneParent is the model calls of a run whose calls ran beside them under
// one span, as most runs' do (their agent's two model calls), in one
// allocation of the size of the two they took.
type oneParent struct {
	models [1]ModelStarts
	starts [2]uint64
}

// countModelCalls counts the model calls under parent.
func countModelCalls(models []modelCall, parent pcommon.SpanID) int {
	n := 0
	for _, m := range models {
		if m.parent == parent {
			n++
		}
	}
	return n
}

// Release closes a held agent run and returns its trajectory (nil when the
// state was evicted meanwhile).
func (s *Store) Release(trace pcommon.TraceID, span pcommon.SpanID) *Trajectory {
	ts := s.lookup(trace)
	if ts == nil {
		return nil
	}
	n := ts.nodes.get(span)
	if n == nil || n.kind != nodeHeld {
		return nil
	}
	if n.incomplete {
		n.traj.Missing = s.missing(ts, span, n, &n.traj.held)
		n.incomplete = false
		ts.incomplete--
		s.incomplete--
		if n.traj.Missing == MissingNone {
			s.stats.Completed++
		} else {
			s.stats.Unfinished++
		}
	}
	if n.root {
		s.adoptOrphans(ts, span, n.traj)
	}
	ts.nodes.set(span, closedNode, &s.overflows)
	ts.open--
	s.open--
	s.held--
	ts.held--
	s.heldDown(ts)
	runTurns(ts, span, n.traj, n.room(), n.root)
	ts.settle()
	if n.plain && len(n.traj.Calls) == 0 && n.traj.Dropped == 0 && !requestsAny(n.traj.Turns) {
		return nil // a root without calls under it: nothing to score
	}
	return s.withModels(ts, n.traj, n.room())
}

// markSubAgent counts agent run span (whose parent is parent) at the run it
// is nested in, creating an (empty) group there when that span has not been
// seen yet. A parent that resolves back to span itself (looping span ids)
// names no other run: span's own run, about to close, is not nested in
// itself, and a group made for it there would stay counted open.
func (s *Store) markSubAgent(ts *traceState, span, parent pcommon.SpanID) {
	if parent.IsEmpty() {
		return // a root
	}
	target, n, ok := resolve(ts, parent)
	if !ok || target == span {
		return
	}
	if n = s.openRunAt(ts, target, n); n != nil {
		n.traj.SubAgents++
	}
}

// openRunOf returns the open run (a group or a held agent) that what span
// carries belongs to, creating an empty group when the span it resolves to
// has not been seen; nil when there is none (a parent cycle, a full trace,
// a closed run).
func (s *Store) openRunOf(ts *traceState, span pcommon.SpanID) *node {
	target, n, ok := resolve(ts, span)
	if !ok {
		return nil
	}
	return s.openRunAt(ts, target, n)
}

// openRunAt returns the open run at target, the span a walk resolved to
// (whose node is n), as openRunOf does.
func (s *Store) openRunAt(ts *traceState, target pcommon.SpanID, n *node) *node {
	if n == nil {
		s.attach(ts, target, nil, nil, 1)
		n = ts.nodes.get(target)
	}
	if n == nil || (n.kind != nodeGroup && n.kind != nodeHeld) {
		return nil
	}
	return n
}

// adoptOrphans moves into traj the calls of every open group of the trace
// other than root (groups under spans never seen), in the order the groups
// opened: the order their calls arrived, as a user reads them. Which calls
// MaxCallsPerTrajectory keeps, and their order, are then the same however
// the trace's spans are stored (a map past inlineNodes has no order).
func (s *Store) adoptOrphans(ts *traceState, root pcommon.SpanID, traj *Trajectory) {
	if ts.open == 0 {
		return
	}
	var buf [inlineNodes]*node
	orphans := buf[:0]
	ts.nodes.removeIf(func(id pcommon.SpanID, g *node) bool {
		if id == root || g.kind != nodeGroup {
			return false
		}
		s.closeGroup(ts)
		orphans = append(orphans, g)
		return true
	})
	slices.SortFunc(orphans, func(a, b *node) int { return cmp.Compare(a.opened, b.opened) })
	for _, g := range orphans {
		s.adopt(traj, g.traj)
	}
}

// adopt moves an orphan group's calls (within MaxCallsPerTrajectory), drops,
// sub-agents and context into traj.
func (s *Store) adopt(traj, orphan *Trajectory) {
	for _, c := range orphan.Calls {
		if s.limits.MaxCallsPerTrajectory > 0 && len(traj.Calls) >= s.limits.MaxCallsPerTrajectory {
			traj.Dropped++
			s.stats.Dropped++
			continue
		}
		traj.Calls = append(traj.Calls, c)
	}
	traj.Dropped += orphan.Dropped
	traj.SubAgents += orphan.SubAgents
	s.mergeContext(traj, orphan.Context)
}

// mergeContext adds a moved group's run context to traj's.
func (s *Store) mergeContext(traj *Trajectory, c *CapturedContext) {
	if c == nil {
		return
	}
	if traj.Context == nil {
		traj.Context = c
		return
	}
	traj.Context.merge(c, s.limits.MaxContextBytes)
}

// closeGroup removes one group from the open counts; the caller replaces or
// deletes its node.
func (s *Store) closeGroup(ts *traceState) {
	ts.open--
	s.open--
	if ts.held > 0 {
		s.heldGroups--
	}
}

// heldUp counts a trace's groups as a held run's once its first run is
// held (after ts.held grew); heldDown no longer once its last is released
// (after ts.held fell).
func (s *Store) heldUp(ts *traceState) {
	if ts.held == 1 {
		s.heldGroups += int(ts.open - ts.held)
	}
}

func (s *Store) heldDown(ts *traceState) {
	if ts.held == 0 {
		s.heldGroups -= int(ts.open)
	}
}

// enforceOpenLimit evicts the oldest open groups above MaxOpenTrajectories.
// Held runs do not count: they have their own bound (see held.go); nor are
// the groups of a trace with a held run evicted (orphans its root adopts,
// calls waiting under a span its held run still expects): they go with
// the held run, released under that bound. Such groups found at the
// queue's head go to its end, once per call.
func (s *Store) enforceOpenLimit() {
	skip := len(s.groups)
	for s.limits.MaxOpenTrajectories > 0 && s.open-s.held-s.heldGroups > s.limits.MaxOpenTrajectories && len(s.groups) > 0 && skip > 0 {
		g := s.groups[0]
		s.groups[0] = groupRef{}
		s.groups = s.groups[1:]
		skip--
		if !g.open() {
			continue // closed or replaced since
		}
		if g.ts.held > 0 {
			s.groups = append(s.groups, g)
			continue
		}
		s.closeGroup(g.ts)
		g.ts.nodes.remove(g.span)
		s.stats.Evicted[EvictMaxOpen]++
	}
	s.compactGroups()
}

// compactGroups drops the queue's closed entries so it does not grow without
// bound when groups close in order.
func (s *Store) compactGroups() {
	if len(s.groups) < 1024 || len(s.groups) < 4*max(s.open, 1) {
		return
	}
	live := s.groups[:0]
	for _, g := range s.groups {
		if g.open() {
			live = append(live, g)
		}
	}
	clear(s.groups[len(live):])
	s.groups = live
}

// dropTrace forgets a trace; its open groups and held agents count as
// evicted for reason.
func (s *Store) dropTrace(ts *traceState, reason EvictReason) {
	// Its groups and held agents are evicted. A held span is still with the
	// processor, which releases it; Release then finds nothing and scores an
	// empty run.
	s.stats.Evicted[reason] += int64(ts.nodes.runs)
	s.held -= int(ts.held)
	if ts.held > 0 {
		s.heldGroups -= int(ts.open - ts.held)
	}
	s.open -= int(ts.open)
	s.incomplete -= int(ts.incomplete)
	s.unlink(ts)
	s.forgetRecords(ts.id)
	s.forgetCallRecords(ts.id)
	s.traces.Delete(ts.id)
	if s.last == ts {
		s.last = nil
	}
	if s.filter != nil {
		s.filter.Remove(ts.id)
	}
	s.recycle(ts)
}

// maxSpareTraces bounds the dropped trace states kept for reuse.
const maxSpareTraces = 64

// recycle empties a dropped trace's state and keeps it for reuse: under
// load each new trace is tracked as the oldest one is dropped
// (MaxTrackedTraces), or after a sweep has dropped many. Only the open-runs
// queue may still refer to a dropped trace's state, which it finds empty.
func (s *Store) recycle(ts *traceState) {
	if len(s.spare) >= s.maxSpare {
		*ts = traceState{}
		return
	}
	ts.nodes.release(&s.overflows)
	*ts = traceState{}
	s.spare = append(s.spare, ts)
}

// newTraceState returns an empty trace state, a recycled one when there is
// one.
func (s *Store) newTraceState() *traceState {
	if len(s.spare) == 0 {
		return new(traceState)
	}
	last := len(s.spare) - 1
	ts := s.spare[last]
	s.spare[last] = nil
	s.spare = s.spare[:last]
	return ts
}

// Sweep drops traces idle for longer than MaxAge and returns how many.
func (s *Store) Sweep(now int64) int {
	if s.limits.MaxAge <= 0 {
		return 0
	}
	cutoff := now - int64(s.limits.MaxAge)
	s.sweepRecords(cutoff)
	dropped := 0
	for ts := s.oldest; ts != nil && ts.lastTouch <= cutoff; {
		next := ts.next
		if ts.open == 0 || !s.hasHeld(ts) {
			s.dropTrace(ts, EvictMaxAge)
			dropped++
		}
		ts = next
	}
	s.compactGroups()
	return dropped
}

func (s *Store) hasHeld(ts *traceState) bool {
	for n := range ts.nodes.all() {
		if n.kind == nodeHeld {
			return true
		}
	}
	return false
}

// Shutdown drops every trace, counting open trajectories as evicted.
func (s *Store) Shutdown() {
	for ts := s.oldest; ts != nil; {
		next := ts.next
		s.dropTrace(ts, EvictShutdown)
		ts = next
	}
	s.groups, s.spare, s.overflows, s.heldQueue = nil, nil, nil, nil
}

// mergeDuplicate fills what the outer record of a call lacks from an inner
// record of the same call.
//
// Arguments come from the inner record when the outer one has none that
// decode (OpenLLMetry's withTool span records an empty wrapper around the
// LangChain span that has them); decoding runs only here, for nested records.
func mergeDuplicate(outer, inner *StoredCall) {
	if !argumentsKnown(outer) && argumentsKnown(inner) {
		outer.Args, outer.Encoding = inner.Args, inner.Encoding
	}
	if outer.Result == "" {
		outer.Result, outer.ResultForm = inner.Result, inner.ResultForm
	}
	outer.MCP = outer.MCP || inner.MCP
	if outer.Name == "" {
		outer.Name = inner.Name
	}
	if outer.ID == "" {
		outer.ID = inner.ID
	}
	outer.Failed = outer.Failed || inner.Failed
	if outer.Ended == extract.EndRan {
		outer.Ended = inner.Ended
	}
	outer.Records |= inner.Records
	outer.Failures |= inner.Failures
}

func argumentsKnown(c *StoredCall) bool {
	_, st := extract.DecodeArguments(c.Args, c.Encoding, extract.DecodeOptions{})
	return st == extract.ArgumentsKnown
}
