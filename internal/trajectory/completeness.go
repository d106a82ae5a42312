package trajectory

import (
	"math"
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// Missing says why a run whose agent span arrived is known to be
// incomplete: what its trace shows of spans still on their way. Children
// end before their parents, but an exporter that sends each span on its
// own (or several exporting goroutines, a load-balancing tier) may deliver
// them after it.
type Missing uint8

// The evidence that a run is incomplete.
const (
	// MissingNone: nothing shows the run incomplete.
	MissingNone Missing = iota
	// MissingChildren: nothing below the agent span arrived yet (no call,
	// no model call, no step).
	MissingChildren
	// MissingAnswer: the run's last model turn asked for tools and no
	// model call followed it, so the turn that answers with their results
	// has not arrived. Not looked for in a failed run (its agent span has
	// an error status) or one that delegated to a sub-agent, which may end
	// on a tool call.
	MissingAnswer
	// MissingTurn: the run's earliest model turn answers tool results, so
	// the turn that asked for those tools has not arrived.
	MissingTurn
	// MissingExecution: a call the model requested has no tool span yet, in
	// a run whose calls leave tool spans.
	MissingExecution
	// MissingParent: the trace holds calls or model turns inside the agent
	// span's time whose parent span has not arrived: they may be the
	// run's.
	MissingParent
	// MissingRun: a trace root waits for the runs below it, held open,
	// to close first: what they leave is the root's.
	MissingRun
	// MissingRecords: a model call of a service that sends log records of
	// its model calls has none yet, or records of the trace wait for a
	// span not seen (see record_witnesses.go); or a tool call of a service
	// that sends log records of its tool calls has none yet (see
	// call_records.go).
	MissingRecords
)

var missingNames = [...]string{"", "any span below the agent span", "the answer to the last model turn", "an earlier model turn", "a tool span of a requested call", "the parent of a call or model turn", "a run below the root", "the log records of a model or tool call"}

// String says what is missing, for explanations.
func (m Missing) String() string { return missingNames[m] }

// missing returns the evidence that the run at span (whose node is n, an
// open group or held agent; nil when nothing reached the span) is
// incomplete, for an agent span that ran from start to end. Called while
// the run is open, before its turns are taken.
func (s *Store) missing(ts *traceState, span pcommon.SpanID, n *node, o *AgentOptions) Missing {
	if n != nil && n.plain {
		return s.rootIncomplete(ts, span, n, o)
	}
	turns := s.openRunTurns(ts, span)
	calls := 0
	if n != nil && n.traj != nil {
		calls = len(n.traj.Calls)
	}
	if calls == 0 && len(turns) == 0 && !o.Alone && (n == nil || n.traj == nil || n.traj.SubAgents == 0) && !hasModelCall(ts, span) {
		return MissingChildren
	}
	if m := s.turnsMissing(ts, span, turns, n, o); m != MissingNone {
		return m
	}
	if !o.ParentsDropped && strayInside(ts, span, n, o.Start, o.End) {
		return MissingParent
	}
	return s.recordsMissing(ts, span, n, o)
}

// rootIncomplete returns what a trace root (held, arriving or passed; n is
// its node, its group or nil) still waits for: rootMissing's evidence, else
// its run's log records.
func (s *Store) rootIncomplete(ts *traceState, span pcommon.SpanID, n *node, o *AgentOptions) Missing {
	if m := s.rootMissing(ts, span, n, o); m != MissingNone {
		return m
	}
	return s.recordsMissing(ts, span, n, o)
}

// rootMissing returns the evidence that a trace root, held or arriving
// (n is its held node, its group or nil), should wait: calls or turns
// waiting under spans not seen yet, runs below it still open, or the model
// turns of its own run (an app instrumented only at its model client)
// showing turns or calls still on their way, as an agent's would.
func (s *Store) rootMissing(ts *traceState, span pcommon.SpanID, n *node, o *AgentOptions) Missing {
	if !o.ParentsDropped && strayInside(ts, span, n, 0, 0) {
		return MissingParent
	}
	if turns := s.openRunTurns(ts, span); len(turns) > 0 {
		if m := s.turnsMissing(ts, span, turns, n, o); m != MissingNone {
			return m
		}
	}
	open := ts.open
	if n != nil && n.kind == nodeHeld {
		open-- // the root itself
	}
	if open > 0 {
		return MissingRun
	}
	return MissingNone
}

// openRunTurns returns the turns recorded under the open run at span, in
// the store's scratch (see scratchTurns): valid until its next call.
func (s *Store) openRunTurns(ts *traceState, span pcommon.SpanID) []*extract.ModelTurn {
	if !ts.hasExtra {
		return nil
	}
	out := s.scratchTurns()
	for _, t := range ts.extra.turns {
		if target, _, ok := resolve(ts, t.parent); ok && target == span {
			out = append(out, t.turn)
		}
	}
	s.turns = out
	return out
}

// scratchTurns returns the store's turn scratch emptied (its old entries
// cleared, so it keeps no closed run's turns alive longer than one look),
// or a fresh one when it grew past maxScratchTurns.
func (s *Store) scratchTurns() []*extract.ModelTurn {
	clear(s.turns)
	if cap(s.turns) > maxScratchTurns {
		s.turns = nil
	}
	return s.turns[:0]
}

// maxScratchTurns bounds the turns the store's scratch keeps room for.
const maxScratchTurns = 64

// hasModelCall reports a model call recorded under the run at span.
func hasModelCall(ts *traceState, span pcommon.SpanID) bool {
	return modelCallBefore(ts, span, math.MaxUint64)
}

// turnsMissing reads the turns of the run at span: its last turn asked for
// tools (the answer has not arrived; unless the run failed or delegated),
// its earliest answers tool results (the turn that asked has not), or a
// call the turns requested (or the last turn's request repeats from
// earlier turns) has no tool span, when the run's calls leave tool spans
// (it has one already, or its service does).
func (s *Store) turnsMissing(ts *traceState, span pcommon.SpanID, turns []*extract.ModelTurn, n *node, o *AgentOptions) Missing {
	if len(turns) == 0 {
		if o.Requests && n != nil && n.traj != nil && len(n.traj.Calls) > 0 {
			return MissingTurn // calls, and no turn that requested them
		}
		return MissingNone
	}
	last := turns[0]
	for _, t := range turns[1:] {
		if t.Start > last.Start || (t.Start == last.Start && t.End > last.End) {
			last = t
		}
	}
	delegated := n != nil && n.traj != nil && n.traj.SubAgents > 0
	if last.RequestsTools() && !o.Failed && !o.EndsOnTools && !delegated && !answeredLater(ts, span, turns, last) && !refusedAll(n, last) {
		return MissingAnswer
	}
	first := earliest(turns)
	if first.FollowsTools() && !modelCallBefore(ts, span, first.Start) {
		return MissingTurn
	}
	var executed []StoredCall
	if n != nil && n.traj != nil {
		executed = n.traj.Calls
	}
	if len(executed) == 0 && !o.ToolSpans {
		return MissingNone // no tool spans: an app that runs its tools by hand
	}
	t := s.scratchTally()
	t.count(turns, first, executed)
	if t.short() {
		return MissingExecution
	}
	if o.Requests && t.unrequested() {
		return MissingTurn
	}
	return MissingNone
}

// refusedAll reports a last turn every requested call of which the run
// holds as refused: an agent may stop there without asking the model again
// (Gemini CLI ends the prompt when the user refuses a call in its approval
// dialog), so no answer is awaited.
func refusedAll(n *node, last *extract.ModelTurn) bool {
	requested := last.Requested()
	if n == nil || n.traj == nil || len(requested) == 0 {
		return false
	}
	for _, r := range requested {
		if !slices.ContainsFunc(n.traj.Calls, func(c StoredCall) bool {
			return c.Name == r.Name && c.Ended == extract.EndRefused && c.Start >= last.Start
		}) {
			return false
		}
	}
	return true
}

// answeredLater reports a turn that started after last ended and asked for
// no tools, or a model call of the run at span (one that records no
// response) that started after last ended: the answer. (Two records of one
// turn, Mastra's chat span and its agent_step, overlap.)
func answeredLater(ts *traceState, span pcommon.SpanID, turns []*extract.ModelTurn, last *extract.ModelTurn) bool {
	for _, t := range turns {
		if t != last && t.Start >= last.End && !t.RequestsTools() {
			return true
		}
	}
	for _, m := range ts.modelCalls() {
		if m.start >= last.End {
			if target, _, ok := resolve(ts, m.parent); ok && target == span && !startsTurn(turns, m.start) {
				return true
			}
		}
	}
	return false
}

// startsTurn reports a turn that started at start: a model call that is
// one of turns, whose request for tools answers nothing.
func startsTurn(turns []*extract.ModelTurn, start uint64) bool {
	for _, t := range turns {
		if t.Start == start {
			return true
		}
	}
	return false
}

// earliest returns the turn that started first.
func earliest(turns []*extract.ModelTurn) *extract.ModelTurn {
	first := turns[0]
	for _, t := range turns[1:] {
		if t.Start < first.Start {
			first = t
		}
	}
	return first
}

// modelCallBefore reports a model call of the run at span that started
// before start: a turn that records no request or response.
func modelCallBefore(ts *traceState, span pcommon.SpanID, start uint64) bool {
	for _, m := range ts.modelCalls() {
		if m.start < start {
			if target, _, ok := resolve(ts, m.parent); ok && target == span {
				return true
			}
		}
	}
	return false
}

// count tallies a run's requested and executed calls by tool: a tool is
// needed as often as the larger of what the turns requested (a call id
// recorded twice, by two records of one turn, counts once) and what a
// turn's request lists as history beyond what the earliest turn's lists
// (each request repeats every earlier call, so a turn not arrived yet
// shows in a later one's; what the earliest lists may be earlier runs'
// calls, a chat app's conversation).
func (t *toolTally) count(turns []*extract.ModelTurn, first *extract.ModelTurn, executed []StoredCall) {
	for _, r := range first.History() {
		t.tool(r.Name).before++
	}
	for _, turn := range turns {
		for _, r := range turn.Requested() {
			if r.ID != "" {
				if slices.Contains(t.ids, r.ID) {
					continue
				}
				t.ids = append(t.ids, r.ID)
			}
			t.tool(r.Name).requested++
		}
	}
	for _, turn := range turns {
		if turn == first {
			continue
		}
		for _, r := range turn.History() {
			t.tool(r.Name).history++
		}
		for i := range t.tools {
			c := &t.tools[i]
			c.recalled, c.history = max(c.recalled, c.history), 0
		}
	}
	for i := range executed {
		switch {
		case recordOfAnother(executed, &executed[i]):
		case wrapperName(executed[i].Name):
			t.wrapped++ // its tool is any of those short (bare_values.go)
		default:
			t.tool(executed[i].Name).executed++
		}
	}
}

// toolTally counts a run's requested and executed calls by tool. Runs have
// few tools: slices, kept off the stack frame that the store's deepest
// path sits under, in the store's scratch (see scratchTally).
type toolTally struct {
	ids   []string
	tools []toolCount
	// wrapped counts executed calls named after a wrapper class, whose
	// tool the span does not name.
	wrapped int
}

type toolCount struct {
	name string
	// requested counts the turns' requests; history the calls one turn's
	// request lists, recalled the most any turn's request listed; before
	// the calls the earliest turn's request lists.
	requested, history, recalled, before, executed int
}

// need is how often a tool ran, by its turns.
func (c *toolCount) need() int { return max(c.requested, c.recalled-c.before) }

// recordOfAnother reports a call recorded under another call's span (an
// MCP server span under its client's, a wrapper's inner span): one more
// record of that call, merged with it when the run is scored.
func recordOfAnother(calls []StoredCall, c *StoredCall) bool {
	for i := range calls {
		if calls[i].Span == c.Parent && &calls[i] != c {
			return true
		}
	}
	return false
}

// short reports a tool requested more often than it ran.
func (t *toolTally) short() bool {
	missing := 0
	for i := range t.tools {
		missing += max(t.tools[i].need()-t.tools[i].executed, 0)
	}
	return missing > t.wrapped
}

// unrequested reports a tool that ran more often than the turns requested
// it: the turn that did has not arrived.
func (t *toolTally) unrequested() bool {
	for i := range t.tools {
		if t.tools[i].executed > t.tools[i].need() {
			return true
		}
	}
	return false
}

// scratchTally returns the store's tally emptied, keeping its room (one
// tally is in use at a time: the store has one owner), so that counting a
// run's calls allocates nothing once the store has counted a few runs; room
// past maxScratchTools is not kept.
func (s *Store) scratchTally() *toolTally {
	t := &s.tally
	clear(t.ids)
	clear(t.tools)
	if cap(t.ids) > maxScratchTools {
		t.ids = nil
	}
	if cap(t.tools) > maxScratchTools {
		t.tools = nil
	}
	t.ids, t.tools, t.wrapped = t.ids[:0], t.tools[:0], 0
	return t
}

// maxScratchTools bounds the tools and call ids the store's tally keeps
// room for.
const maxScratchTools = 32

func (t *toolTally) tool(name string) *toolCount {
	for i := range t.tools {
		if t.tools[i].name == name {
			return &t.tools[i]
		}
	}
	t.tools = append(t.tools, toolCount{name: name})
	return &t.tools[len(t.tools)-1]
}

// strayInside reports a call or model turn of the trace, inside the agent
// span's time (any time when start and end are 0), that waits under a span
// not seen yet (an open group other
// than the run's, or a turn whose parent resolves to no span seen): its
// parent may be one of the run's spans, still on its way.
//
// n is the node the span table holds at span, or nil (every caller passes
// ts.nodes.get(span), before it replaces it). The groups are looked
// through only when the table holds runs besides n: ts.nodes.runs counts
// the spans whose node is a group or a held run, n among them when it is
// one, so when it counts no more than n no other group is there. (Not
// ts.open: a root's caller closes its group before asking.)
func strayInside(ts *traceState, span pcommon.SpanID, n *node, start, end uint64) bool {
	if ts.nodes.runs > isRun(n) && strayGroup(ts, span, n, start, end) {
		return true
	}
	if ts.hasExtra {
		for _, t := range ts.extra.turns {
			target, tn, ok := resolve(ts, t.parent)
			if ok && target != span && (tn == nil || tn.kind == nodeGroup) && within(t.turn.Start, start, end) {
				return true
			}
		}
	}
	return false
}

// strayGroup reports a call of an open group of the trace, other than the
// run's (at span, node n), inside the agent span's time (see strayInside).
func strayGroup(ts *traceState, span pcommon.SpanID, n *node, start, end uint64) bool {
	stray := false
	ts.nodes.each(func(id pcommon.SpanID, g *node) bool {
		if id == span || g == n || g.kind != nodeGroup || g.traj == nil {
			return true
		}
		for i := range g.traj.Calls {
			if within(g.traj.Calls[i].Start, start, end) {
				stray = true
				return false
			}
		}
		return true
	})
	return stray
}

// within reports whether t falls in the agent span's time, start to end
// (no end when end is 0).
func within(t, start, end uint64) bool { return t >= start && (end == 0 || t <= end) }
