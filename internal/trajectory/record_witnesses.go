package trajectory

import (
	"cmp"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// A run is the witnesses of its calls from any signal under one run key:
// the spans of its trace under its agent span (or trace root), and the log
// records and span events that name one of those spans by trace and span
// id. This file is the store's second witness source, log records (and
// span events read the same way): what a record witnessed of a model call
// joins that call's turn, whichever of the record and the span arrives
// first.
//
//   - A record whose span is known (its model-call span arrived and the
//     run is open) joins the span's turn at once.
//   - A record whose span has not arrived waits in the pending table, keyed
//     by trace and span id, until the span arrives (it then joins the turn
//     the span makes) or MaxAge passes (dropped, counted); the table holds
//     at most MaxPendingRecords witnesses, past which the oldest is dropped
//     and counted.
//   - A record whose run was scored already is late, and counted.
//
// A model-call span of a service known to send records (AgentOptions.
// Records) makes a turn even when the span records none, and the run that
// holds such a turn, or whose trace has records waiting for their span,
// waits for them under wait_for_missing (MissingRecords).

// recordKey is a record's run key in a trace: the span it names.
type recordKey struct {
	trace pcommon.TraceID
	span  pcommon.SpanID
}

// pendingRecord is what a record witnessed, waiting for its span.
type pendingRecord struct {
	turn    extract.TurnWitness
	context extract.ContextPart
	time    uint64
	arrived int64
}

// RecordStats are the record witnesses' counters since the last
// [Store.TakeRecordStats].
type RecordStats struct {
	// Joined counts records that joined a turn (at once or from the
	// pending table); Pending those that waited for their span.
	Joined, Pending int64
	// Late counts records whose run was scored before they arrived.
	Late int64
	// DroppedOverLimit and DroppedMaxAge count pending records dropped
	// because the table was full or their span never came.
	DroppedOverLimit, DroppedMaxAge int64
}

// recordTable is the store's record witnesses: those waiting for their
// span, and the turns of spans seen that later records may join.
type recordTable struct {
	max     int
	pending map[recordKey][]pendingRecord
	// order lists pending keys by first arrival, for eviction; keys no
	// longer pending are skipped lazily.
	order []recordKey
	count int
	// turns are the turns of model-call spans of services that send
	// records, while their trace is tracked; awaiting holds those no
	// record has joined yet.
	turns    map[recordKey]turnRef
	awaiting map[*extract.ModelTurn]struct{}
	// byTrace counts each trace's pending records and turns, so a dropped
	// trace forgets its own.
	byTrace map[pcommon.TraceID][]pcommon.SpanID
	stats   RecordStats
}

// turnRef is a turn and the span it is recorded under.
type turnRef struct {
	turn   *extract.ModelTurn
	parent pcommon.SpanID
}

// SetMaxPendingRecords bounds the records waiting for their span (0: none
// are kept waiting: a record whose span has not arrived is dropped).
func (s *Store) SetMaxPendingRecords(n int) { s.records.max = n }

// TakeRecordStats returns the record counters since the last call and
// resets them.
func (s *Store) TakeRecordStats() RecordStats {
	st := s.records.stats
	s.records.stats = RecordStats{}
	return st
}

// PendingRecords returns the number of records waiting for their span.
func (s *Store) PendingRecords() int { return s.records.count }

// Record adds what a log record (or span event) witnessed of the model
// call at span in trace, with its part of the run context (nil when not
// captured). It reports whether the record joined its turn now; a record
// that did not waits for its span, or was late or dropped (counted).
// Strings are copied: the record is not kept.
func (s *Store) Record(trace pcommon.TraceID, span pcommon.SpanID, w *extract.TurnWitness, part *extract.ContextPart, at uint64, now int64) bool {
	t := &s.records
	key := recordKey{trace, span}
	if ref, ok := t.turns[key]; ok {
		ts := s.lookup(trace)
		if ts == nil || s.runClosed(ts, ref.parent) {
			t.stats.Late++
			return false
		}
		ref.turn.AddWitness(cloneTurnWitness(w))
		delete(t.awaiting, ref.turn)
		if part != nil && !part.Empty() {
			s.AttachContext(trace, ref.parent, cloneContext(part), false, now)
		}
		t.stats.Joined++
		return true
	}
	if s.Seen(trace, span) == SeenClosed {
		t.stats.Late++ // the span came, made no turn, and its run may be scored
		return false
	}
	if t.max <= 0 {
		t.stats.DroppedOverLimit++
		return false
	}
	for t.count >= t.max && t.evictOldest() {
		t.stats.DroppedOverLimit++
	}
	// The trace is tracked from its first record, so that its spans, even
	// a plain root that arrives first, are read as a GenAI trace's.
	s.trace(trace, now, true)
	if t.pending == nil {
		t.pending = map[recordKey][]pendingRecord{}
		t.byTrace = map[pcommon.TraceID][]pcommon.SpanID{}
	}
	p := pendingRecord{turn: *cloneTurnWitness(w), time: at, arrived: now}
	if part != nil {
		p.context = *cloneContext(part)
	}
	if _, ok := t.pending[key]; !ok {
		t.order = append(t.order, key)
		t.byTrace[trace] = append(t.byTrace[trace], span)
	}
	t.pending[key] = append(t.pending[key], p)
	t.count++
	t.stats.Pending++
	return false
}

// ModelSpanRecords is called for each model-call span of a tracked trace
// as it arrives, with the turn its span recorded (nil for none): it
// returns the turn with the records that waited for the span joined to it
// (a new turn when the span recorded none), or nil when there is none.
// When records is set (the span's service sends records) the turn is made
// even without records, and awaits them. The caller records the returned
// turn with [Store.Turn] under parent.
func (s *Store) ModelSpanRecords(trace pcommon.TraceID, span, parent pcommon.SpanID, turn *extract.ModelTurn, start, end uint64, records bool, now int64) *extract.ModelTurn {
	t := &s.records
	key := recordKey{trace, span}
	waiting, ok := t.pending[key]
	if !ok && !records {
		return turn
	}
	if turn == nil {
		turn = extract.TurnFromRecords(start, end)
	}
	for i := range waiting {
		turn.AddWitness(&waiting[i].turn)
		if !waiting[i].context.Empty() {
			s.AttachContext(trace, parent, &waiting[i].context, false, now)
		}
		t.stats.Joined++
	}
	if ok {
		t.count -= len(waiting)
		delete(t.pending, key)
	}
	if parent.IsEmpty() {
		return turn
	}
	if t.turns == nil {
		t.turns = map[recordKey]turnRef{}
		t.awaiting = map[*extract.ModelTurn]struct{}{}
		if t.byTrace == nil {
			t.byTrace = map[pcommon.TraceID][]pcommon.SpanID{}
		}
	}
	if _, seen := t.turns[key]; !seen {
		t.byTrace[trace] = append(t.byTrace[trace], span)
	}
	t.turns[key] = turnRef{turn: turn, parent: parent}
	if !ok {
		t.awaiting[turn] = struct{}{}
	}
	return turn
}

// runClosed reports whether the run a span under parent belongs to was
// scored.
func (s *Store) runClosed(ts *traceState, parent pcommon.SpanID) bool {
	_, n, ok := resolve(ts, parent)
	return ok && n != nil && n.kind == nodeClosed
}

// recordsMissing returns MissingRecords when the run at span awaits
// records: a turn of its made by a span of a service that sends records
// that no record joined yet, or records of the trace waiting for a span
// that has not arrived (it may be one of the run's model calls).
func (s *Store) recordsMissing(ts *traceState, span pcommon.SpanID, n *node, o *AgentOptions) Missing {
	t := &s.records
	if s.recordsAwaitCalls(ts, span, n) {
		return MissingExecution
	}
	if o.CallRecords && s.callsAwaitRecords(ts, n) {
		return MissingRecords
	}
	if !o.Records {
		return MissingNone
	}
	s.settleRecordsWithoutTurn(ts, span, o.ModelCall)
	for _, id := range t.byTrace[ts.id] {
		if _, ok := t.pending[recordKey{ts.id, id}]; ok {
			return MissingRecords
		}
	}
	turns := s.openRunTurns(ts, span)
	slices.SortStableFunc(turns, func(a, b *extract.ModelTurn) int { return cmp.Compare(a.Start, b.Start) })
	for i, turn := range turns {
		if _, ok := t.awaiting[turn]; ok {
			return MissingRecords // no record of it yet
		}
		var prev *extract.ModelTurn
		if i > 0 {
			prev = turns[i-1]
		}
		if turn.AwaitsRecords(prev) {
			return MissingRecords // its response, or a result it carries
		}
	}
	if len(turns) > 1 && historyUnrequested(turns) {
		return MissingTurn
	}
	return MissingNone
}

// settleRecordsWithoutTurn ends the wait of ts's pending records whose span
// has arrived and made no turn (an agent, tool or other span: a model-call
// span takes its records as it arrives; the run's own span, being opened,
// unless it is a model call too): no turn will take them. They are
// counted late, as [Store.Record] counts a record whose span came first,
// and no run waits for them. Gemini CLI in interactive mode writes a model
// call's response event under the call's parent (the user_prompt or
// system_prompt span) once the llm_call span has ended; the llm_call span
// records the response itself.
func (s *Store) settleRecordsWithoutTurn(ts *traceState, span pcommon.SpanID, spanIsModelCall bool) {
	t := &s.records
	var settled []recordKey
	for _, id := range t.byTrace[ts.id] {
		key := recordKey{ts.id, id}
		if _, ok := t.pending[key]; ok && (id == span && !spanIsModelCall || id != span && s.Seen(ts.id, id) != SeenNot) {
			settled = append(settled, key)
		}
	}
	for _, key := range settled { // apart: dropSpan edits t.byTrace[ts.id]
		w := t.pending[key]
		t.count -= len(w)
		t.stats.Late += int64(len(w))
		delete(t.pending, key)
		t.dropSpan(key)
	}
}

// historyUnrequested reports a call (by id) the latest turn's request
// lists as history that no turn of the run requested: the turn that
// requested it has not arrived. Calls the earliest turn's request lists
// already are an earlier run's (a conversation's history), not awaited.
func historyUnrequested(turns []*extract.ModelTurn) bool {
	last := turns[len(turns)-1]
	before := turns[0].History()
	for _, h := range last.History() {
		if h.ID == "" || slices.ContainsFunc(before, func(c extract.RequestedCall) bool { return c.ID == h.ID }) {
			continue
		}
		found := false
		for _, t := range turns[:len(turns)-1] {
			if slices.ContainsFunc(t.Requested(), func(c extract.RequestedCall) bool { return c.ID == h.ID }) {
				found = true
				break
			}
		}
		if !found {
			return true
		}
	}
	return false
}

// forgetRecords drops what the table keeps of a dropped trace: its pending
// records (counted) and its turns.
func (s *Store) forgetRecords(trace pcommon.TraceID) {
	t := &s.records
	spans, ok := t.byTrace[trace]
	if !ok {
		return
	}
	for _, id := range spans {
		key := recordKey{trace, id}
		if w, ok := t.pending[key]; ok {
			t.count -= len(w)
			t.stats.DroppedMaxAge += int64(len(w))
			delete(t.pending, key)
		}
		if ref, ok := t.turns[key]; ok {
			delete(t.awaiting, ref.turn)
			delete(t.turns, key)
		}
	}
	delete(t.byTrace, trace)
}

// sweepRecords drops pending records that arrived at or before cutoff:
// their span never came.
func (s *Store) sweepRecords(cutoff int64) {
	t := &s.records
	for len(t.order) > 0 {
		key := t.order[0]
		w, ok := t.pending[key]
		if ok && w[0].arrived > cutoff {
			break
		}
		t.order = t.order[1:]
		if ok {
			t.count -= len(w)
			t.stats.DroppedMaxAge += int64(len(w))
			delete(t.pending, key)
			t.dropSpan(key)
		}
	}
	if len(t.order) == 0 {
		t.order = nil
	}
}

// evictOldest drops the oldest pending key's records; it reports false
// when none is pending.
func (t *recordTable) evictOldest() bool {
	for len(t.order) > 0 {
		key := t.order[0]
		t.order = t.order[1:]
		if w, ok := t.pending[key]; ok {
			t.count -= len(w)
			t.stats.DroppedOverLimit += int64(len(w)) - 1 // the caller counts one
			delete(t.pending, key)
			t.dropSpan(key)
			return true
		}
	}
	return false
}

// dropSpan forgets key's span in its trace's list when nothing else of it
// is kept.
func (t *recordTable) dropSpan(key recordKey) {
	if _, ok := t.turns[key]; ok {
		return
	}
	spans := t.byTrace[key.trace]
	for i, id := range spans {
		if id == key.span {
			spans = append(spans[:i], spans[i+1:]...)
			break
		}
	}
	if len(spans) == 0 {
		delete(t.byTrace, key.trace)
		return
	}
	t.byTrace[key.trace] = spans
}

// cloneTurnWitness copies w's strings, which reference the record.
func cloneTurnWitness(w *extract.TurnWitness) *extract.TurnWitness {
	c := *w
	c.Input, c.Output = strings.Clone(w.Input), strings.Clone(w.Output)
	c.Requested = cloneCalls(w.Requested)
	c.History = cloneCalls(w.History)
	if len(w.Outcomes) > 0 {
		c.Outcomes = make([]extract.Outcome, len(w.Outcomes))
		for i, o := range w.Outcomes {
			c.Outcomes[i] = extract.Outcome{ID: strings.Clone(o.ID), Name: strings.Clone(o.Name), Result: strings.Clone(o.Result), Failed: o.Failed}
		}
	}
	return &c
}

func cloneCalls(in []extract.RequestedCall) []extract.RequestedCall {
	if len(in) == 0 {
		return nil
	}
	out := make([]extract.RequestedCall, len(in))
	for i, c := range in {
		out[i] = extract.RequestedCall{ID: strings.Clone(c.ID), Name: strings.Clone(c.Name), Args: strings.Clone(c.Args)}
	}
	return out
}

// cloneContext copies a context part's strings.
func cloneContext(p *extract.ContextPart) *extract.ContextPart {
	c := extract.ContextPart{Request: strings.Clone(p.Request), Response: strings.Clone(p.Response), Start: p.Start, End: p.End}
	for _, d := range p.Definitions {
		c.Definitions = append(c.Definitions, strings.Clone(d))
	}
	return &c
}
