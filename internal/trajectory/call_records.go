package trajectory

import (
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// The store's third witness source: log records that report a tool call's
// execution or a decision on it and name the call by its id, within its
// trace (Claude Code's tool_result and tool_decision, Codex's
// codex.tool_result and codex.tool_decision). They carry what the tool
// span does not: Codex's arguments and outcome, Claude Code's whole input.
//
//   - A call record waits in the call table, keyed by trace and call id,
//     until the run holding the call closes: the run then takes the
//     records of its calls (applyCallRecords), whichever of the record and
//     the tool span arrived first.
//   - A record whose span (the span the record was written under) belongs
//     to a run scored already is late, and counted.
//   - The table holds at most MaxPendingRecords call records, past which
//     the oldest is dropped and counted; the records of a trace dropped (or
//     of a call that never came) are counted dropped with it.
//
// A run of a service whose call records reached the processor
// (AgentOptions.CallRecords) waits, under wait_for_missing, for a record
// of each of its calls that has an id (MissingRecords); and any run waits
// for the tool span of a call a record of its trace names, written under
// the run's span or a span not seen yet (MissingExecution).

// CallRecord is what a log record says of one tool call, named by its id.
type CallRecord struct {
	// ID is the call id; Name the tool's name as the record gives it.
	ID, Name string
	// Args is the arguments' JSON text as the agent ran the call ("" when
	// not recorded); Result the result's text ("" when not recorded or
	// not kept).
	Args, Result string
	// Failed reports a call the record says did not succeed; Ended says
	// when it was refused or named no tool.
	Failed bool
	Ended  extract.CallEnd
}

// callRecordKey names a call in a trace.
type callRecordKey struct {
	trace pcommon.TraceID
	id    string
}

// callRecordTable is the call records waiting for their run to close.
type callRecordTable struct {
	entries map[callRecordKey]*callEntry
	// order lists keys by first arrival, for eviction; keys no longer
	// waiting are skipped lazily.
	order []callRecordKey
	// byTrace lists each trace's waiting call ids, so that a closing run
	// of a trace with none pays one map lookup and a dropped trace forgets
	// its own.
	byTrace map[pcommon.TraceID][]string
}

// callEntry is a call's record and the span it was written under.
type callEntry struct {
	CallRecord
	span pcommon.SpanID
}

// CallRecord adds what a log record, written under span in trace, says of
// one of the trace's tool calls. It reports whether the record was kept
// for its run; a record that was not was late or dropped (counted).
// Strings are copied: the record is not kept.
func (s *Store) CallRecord(trace pcommon.TraceID, span pcommon.SpanID, r *CallRecord, now int64) bool {
	t, c := &s.records, &s.calls
	if r.ID == "" {
		return false
	}
	if ts := s.lookup(trace); ts != nil && !span.IsEmpty() && closedRunAt(ts, span) {
		t.stats.Late++
		return false
	}
	key := callRecordKey{trace, r.ID}
	if have, ok := c.entries[key]; ok {
		mergeCallRecord(&have.CallRecord, r)
		t.stats.Pending++
		return true
	}
	if t.max <= 0 {
		t.stats.DroppedOverLimit++
		return false
	}
	for len(c.entries) >= t.max && c.evictOldest() {
		t.stats.DroppedOverLimit++
	}
	s.trace(trace, now, true) // its spans are read as a GenAI trace's
	if c.entries == nil {
		c.entries = map[callRecordKey]*callEntry{}
		c.byTrace = map[pcommon.TraceID][]string{}
	}
	kept := &callEntry{span: span, CallRecord: CallRecord{ID: strings.Clone(r.ID), Name: strings.Clone(r.Name), Args: strings.Clone(r.Args),
		Result: strings.Clone(r.Result), Failed: r.Failed, Ended: r.Ended}}
	key.id = kept.ID
	c.entries[key] = kept
	c.order = append(c.order, key)
	c.byTrace[trace] = append(c.byTrace[trace], kept.ID)
	c.compact()
	t.stats.Pending++
	return true
}

// PendingCallRecords returns the number of call records waiting for their
// run.
func (s *Store) PendingCallRecords() int { return len(s.calls.entries) }

// mergeCallRecord adds to a call's record what another record of it says
// (a decision and a result of one call).
func mergeCallRecord(have, r *CallRecord) {
	if have.Args == "" {
		have.Args = strings.Clone(r.Args)
	}
	if have.Result == "" {
		have.Result = strings.Clone(r.Result)
	}
	have.Failed = have.Failed || r.Failed
	if have.Ended == extract.EndRan {
		have.Ended = r.Ended
	}
}

// applyCallRecords gives a closing run's calls the records that name them,
// and takes those records out of the table.
func (s *Store) applyCallRecords(ts *traceState, calls []StoredCall) {
	c := &s.calls
	if len(c.byTrace[ts.id]) == 0 {
		return
	}
	for i := range calls {
		call := &calls[i]
		if call.ID == "" {
			continue
		}
		key := callRecordKey{ts.id, call.ID}
		r, ok := c.entries[key]
		if !ok {
			continue
		}
		fillFromRecord(call, &r.CallRecord)
		c.remove(key)
		s.records.stats.Joined++
	}
}

// fillFromRecord completes a call with what its log record says. The
// record's arguments are the whole input the agent ran the call with: they
// replace the span's (Claude Code's span keeps only the file path or the
// command) when they decode. A failure, refusal or unknown tool the record
// reports is the call's too: the agents' tool spans say OK for a command
// that exited non-zero or a call their policy rejected.
func fillFromRecord(call *StoredCall, r *CallRecord) {
	if r.Args != "" {
		if _, st := extract.DecodeArguments(r.Args, extract.EncodingJSON, extract.DecodeOptions{}); st == extract.ArgumentsKnown {
			call.Args, call.Encoding = r.Args, extract.EncodingJSON
		}
	}
	if call.Result == "" && r.Result != "" {
		call.Result, call.ResultForm = r.Result, extract.ResultPlain
	}
	if call.Name == "" {
		call.Name = r.Name
	}
	call.Records |= RecordLog
	if r.Failed {
		call.Failed = true
		call.Failures |= RecordLog
	}
	if call.Ended == extract.EndRan {
		call.Ended = r.Ended
	}
}

// callsAwaitRecords reports a call of the run's (its open node's) that has
// an id and no record yet.
func (s *Store) callsAwaitRecords(ts *traceState, n *node) bool {
	if n == nil || n.traj == nil {
		return false
	}
	for i := range n.traj.Calls {
		id := n.traj.Calls[i].ID
		if id == "" {
			continue
		}
		if _, ok := s.calls.entries[callRecordKey{ts.id, id}]; !ok {
			return true
		}
	}
	return false
}

// recordsAwaitCalls reports a record of the trace whose call the run at
// span (its open node n) does not hold, written under the run's span or
// under a span whose way up to a run has not arrived: the call's tool span
// is still to come, and may be the run's.
func (s *Store) recordsAwaitCalls(ts *traceState, span pcommon.SpanID, n *node) bool {
	c := &s.calls
	for _, id := range c.byTrace[ts.id] {
		e := c.entries[callRecordKey{ts.id, id}]
		if e == nil || runHolds(n, id) {
			continue
		}
		target, at, ok := resolve(ts, e.span)
		if ok && (target == span || at == nil || at.kind == nodeGroup) {
			return true
		}
	}
	return false
}

// runHolds reports whether an open run's node holds the call with id.
func runHolds(n *node, id string) bool {
	if n == nil || n.traj == nil {
		return false
	}
	for i := range n.traj.Calls {
		if n.traj.Calls[i].ID == id {
			return true
		}
	}
	return false
}

// forgetCallRecords drops the records of a dropped trace, counted: their
// calls never came, or came to no run that took them.
func (s *Store) forgetCallRecords(trace pcommon.TraceID) {
	c := &s.calls
	ids, ok := c.byTrace[trace]
	if !ok {
		return
	}
	s.records.stats.DroppedMaxAge += int64(len(ids))
	for _, id := range ids {
		delete(c.entries, callRecordKey{trace, id})
	}
	delete(c.byTrace, trace)
	if len(c.entries) == 0 {
		c.order = nil
	}
}

// remove takes a key's record out of the table.
func (c *callRecordTable) remove(key callRecordKey) {
	delete(c.entries, key)
	ids := c.byTrace[key.trace]
	if i := slices.Index(ids, key.id); i >= 0 {
		ids = slices.Delete(ids, i, i+1)
	}
	if len(ids) == 0 {
		delete(c.byTrace, key.trace)
	} else {
		c.byTrace[key.trace] = ids
	}
	if len(c.entries) == 0 {
		c.order = nil
	}
}

// compact drops from order the keys no longer waiting once they are most
// of it, so that order stays within twice the records waiting.
func (c *callRecordTable) compact() {
	if len(c.order) < 64 || len(c.order) < 2*len(c.entries) {
		return
	}
	c.order = slices.DeleteFunc(c.order, func(k callRecordKey) bool {
		_, ok := c.entries[k]
		return !ok
	})
}

// evictOldest drops the oldest waiting record; it reports false when none
// waits.
func (c *callRecordTable) evictOldest() bool {
	for len(c.order) > 0 {
		key := c.order[0]
		c.order = c.order[1:]
		if _, ok := c.entries[key]; ok {
			c.remove(key)
			return true
		}
	}
	return false
}
