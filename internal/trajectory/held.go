package trajectory

import "go.opentelemetry.io/collector/pdata/pcommon"

// Runs held because their trace showed them incomplete have a bound of
// their own (MaxHeldRuns) and do not count against MaxOpenTrajectories:
// holding never costs an open run its calls. When one more run would be
// held past the bound, the run held longest is released first (its
// explanation says what it lacked; Stats.OverLimit counts it), and the
// caller sends it at once (see [Store.TakeReleasedEarly]).

// heldRef is a run held while incomplete, in the order runs were held.
type heldRef struct {
	ts     *traceState
	trace  pcommon.TraceID
	span   pcommon.SpanID
	opened int64
}

// stillHeld reports whether the run is still held while incomplete where
// it was held (see groupRef.open for how a recycled trace state is told).
func (h *heldRef) stillHeld() *node {
	if h.ts.id != h.trace {
		return nil
	}
	n := h.ts.nodes.get(h.span)
	if n == nil || n.kind != nodeHeld || !n.incomplete || n.opened != h.opened {
		return nil
	}
	return n
}

// RunRef names a held run: its trace and its agent (or root) span.
type RunRef struct {
	Trace pcommon.TraceID
	Span  pcommon.SpanID
}

// holdIncomplete marks held run n at span as held because its trace shows
// it incomplete, with the options it was held with.
func (s *Store) holdIncomplete(ts *traceState, span pcommon.SpanID, n *node, o AgentOptions) {
	n.traj.held = o
	n.incomplete = true
	ts.incomplete++
	s.incomplete++
	s.heldQueue = append(s.heldQueue, heldRef{ts: ts, trace: ts.id, span: span, opened: n.opened})
}

// makeRoomToHold releases the runs held longest while MaxHeldRuns are held
// incomplete, so one more may be.
func (s *Store) makeRoomToHold() {
	for s.limits.MaxHeldRuns > 0 && s.incomplete >= s.limits.MaxHeldRuns && len(s.heldQueue) > 0 {
		h := s.heldQueue[0]
		s.heldQueue[0] = heldRef{}
		s.heldQueue = s.heldQueue[1:]
		if n := h.stillHeld(); n != nil {
			s.releaseEarly(h.ts, h.span, n)
		}
	}
	s.compactHeld()
}

// releaseEarly ends the hold of a run held incomplete: what it lacks now is
// what its explanation will say, and the caller releases it.
func (s *Store) releaseEarly(ts *traceState, span pcommon.SpanID, n *node) {
	n.traj.Missing = s.missing(ts, span, n, &n.traj.held)
	n.traj.ReleasedEarly = true
	n.incomplete = false
	ts.incomplete--
	s.incomplete--
	s.stats.OverLimit++
	s.early = append(s.early, RunRef{Trace: ts.id, Span: span})
}

// TakeReleasedEarly appends to refs the held runs released early since the
// last call (see makeRoomToHold) and forgets them: the caller, which holds
// their spans, sends them now.
func (s *Store) TakeReleasedEarly(refs []RunRef) []RunRef {
	refs = append(refs, s.early...)
	clear(s.early)
	s.early = s.early[:0]
	return refs
}

// compactHeld drops the held queue's entries that are no longer held, so
// it does not grow without bound when held runs are released in order.
func (s *Store) compactHeld() {
	if len(s.heldQueue) < 1024 || len(s.heldQueue) < 4*max(s.incomplete, 1) {
		return
	}
	live := s.heldQueue[:0]
	for _, h := range s.heldQueue {
		if h.stillHeld() != nil {
			live = append(live, h)
		}
	}
	clear(s.heldQueue[len(live):])
	s.heldQueue = live
}

// Relax changes the options of a run held incomplete to those relax gives
// (evidence its agent was learned never to send late) and returns what the
// run lacks now; MissingNone when it is not held incomplete.
func (s *Store) Relax(trace pcommon.TraceID, span pcommon.SpanID, relax func(*AgentOptions)) Missing {
	ts := s.lookup(trace)
	if ts == nil {
		return MissingNone
	}
	n := ts.nodes.get(span)
	if n == nil || n.kind != nodeHeld || !n.incomplete {
		return MissingNone
	}
	relax(&n.traj.held)
	return s.missing(ts, span, n, &n.traj.held)
}

// RootPassed assembles the run of a trace root that passed through before
// the spans of its run (it was not GenAI and its trace was not tracked):
// the spans that arrived since are under it. It reports false when the
// root's place is taken (it was seen, held or scored) or the trace is not
// tracked. Otherwise, with the trace showing the run incomplete (and room
// to hold it) the root is held as [Store.RootOrHold] holds a root, and what
// is missing returned; else the run is closed and returned (nil when it
// has nothing to score).
func (s *Store) RootPassed(trace pcommon.TraceID, root pcommon.SpanID, o AgentOptions, now int64) (*Trajectory, Missing, bool) {
	ts := s.lookup(trace)
	if ts == nil {
		return nil, MissingNone, false
	}
	n := ts.nodes.get(root)
	if n != nil && n.kind != nodeGroup {
		return nil, MissingNone, false
	}
	ts.lastTouch = now
	if n != nil {
		s.closeGroup(ts) // as arrive does: the root's own calls are no run below it
	}
	if missing := s.rootIncomplete(ts, root, n, &o); missing != MissingNone {
		s.holdRoot(ts, root, n, o)
		ts.nodes.get(root).traj.RootPassed = true
		return nil, missing, true
	}
	traj := s.closeRoot(ts, root, n, true)
	if traj != nil {
		traj.RootPassed = true
	}
	return traj, MissingNone, true
}

// Late reports whether a span under parent arrived after its run was
// scored: parent resolves to a closed run (or trace root).
func (s *Store) Late(trace pcommon.TraceID, parent pcommon.SpanID) bool {
	ts := s.lookup(trace)
	return ts != nil && !parent.IsEmpty() && closedRunAt(ts, parent)
}

// Held returns the number of runs held open (wait, or incomplete).
func (s *Store) Held() int { return s.held }
