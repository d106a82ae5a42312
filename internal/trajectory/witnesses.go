package trajectory

import (
	"slices"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// maxNote bounds the text of a call's Note.
const maxNote = 200

// requested is a call a model turn of the run requested.
type requested struct {
	c extract.RequestedCall
	// turn is the index of the turn that requested it in the run's turns.
	turn int
	// exec is the index of the executed call paired with it, -1 for none.
	exec int
}

// withWitnesses pairs a run's executed calls (calls, in scoring order, one
// per tool span merged with its MCP records) with the calls its model turns
// requested, and returns every call a witness saw: each executed call with
// the witnesses that agree on it, and after them, in the place of their
// turn, the requested calls no tool span executed. A call is paired by its
// id, else by name and arguments, else by name, in order. An outcome a later
// request carried (a tool result the app sent back) is its call's outcome:
// a failure there fails the call.
//
// A run without turns (turns not read, or a convention that records none)
// keeps its calls as they are.
func withWitnesses(traj *Trajectory, calls []toolcall.Call, stored []StoredCall, opts *ScoringOptions) []toolcall.Call {
	for i := range calls {
		calls[i].Witnesses, calls[i].FailedWitnesses = executedWitnesses(&stored[i])
		if calls[i].ID == "" {
			calls[i].ID = stored[i].ID
		}
	}
	if len(traj.Turns) == 0 {
		return calls
	}
	return pairWitnesses(traj.Turns, calls, stored, opts)
}

// pairWitnesses is withWitnesses for a run with turns, whose turns are
// parsed (see parseTurns); stored, when not nil, are the calls' stored
// forms. It keeps no Call in its frame: this is on the
// way down from the processor's batch (docs/architecture.md, "A batch").
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func pairWitnesses(turns []*extract.ModelTurn, calls []toolcall.Call, stored []StoredCall, opts *ScoringOptions) []toolcall.Call {
	ws := new(witnessScratch)
	if opts.Scratch != nil {
		ws = &opts.Scratch.witnesses
	}
	reqs := requestedCalls(turns, ws.reqs[:0])
	ws.reqs = reqs
	ws.taken = pair(reqs, calls, ws.taken)
	outcomes := &ws.outcomes
	outcomes.collect(turns)
	if len(reqs) == 0 && outcomes.empty() {
		return calls // turns that recorded no call and no outcome (no content)
	}
	for k := range reqs {
		if r := &reqs[k]; r.exec >= 0 {
			var raw *StoredCall
			if stored != nil {
				raw = &stored[r.exec]
			}
			agreeRequest(&calls[r.exec], raw, &r.c, opts)
		}
	}
	for i := range calls {
		if o := outcomes.take(calls[i].ID, calls[i].Name); o != nil {
			addOutcome(&calls[i], o)
		}
	}
	only := 0
	for k := range reqs {
		if reqs[k].exec < 0 {
			only++
		}
	}
	if only == 0 {
		return calls
	}
	// The requested calls no tool span executed go after the executed calls
	// of their turn.
	merged := make([]toolcall.Call, len(calls), len(calls)+only)
	copy(merged, calls)
	for k := range reqs {
		r := &reqs[k]
		if r.exec >= 0 {
			continue
		}
		turn := turnNumber(reqs, calls, r.turn)
		at := len(merged)
		for i := range merged {
			if merged[i].Turn > turn {
				at = i
				break
			}
		}
		merged = slices.Insert(merged, at, toolcall.Call{})
		c := &merged[at]
		requestedOnly(c, &r.c, opts)
		c.Turn = turn
		if o := outcomes.take(c.ID, c.Name); o != nil {
			addOutcome(c, o)
		}
	}
	for i := range merged {
		merged[i].Position = i
	}
	return merged
}

// parseTurns reads the recorded texts of a run's turns, from a frame above
// the calls' decoding rather than below it (the JSON parser's frames add up
// per nesting level).
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func parseTurns(turns []*extract.ModelTurn) {
	for _, t := range turns {
		t.Outcomes()
	}
}

// agreeRequest records on an executed call that its request witnessed it,
// with the call id when the tool span recorded none, and the arguments as
// agreeArguments says. raw is the call's stored form (nil: not known).
func agreeRequest(c *toolcall.Call, raw *StoredCall, r *extract.RequestedCall, opts *ScoringOptions) {
	c.Witnesses |= toolcall.WitnessRequested
	if c.ID == "" {
		c.ID = r.ID
	}
	if wrapperName(c.Name) && r.Name != "" {
		c.Name = r.Name
	}
	agreeArguments(c, raw, r, opts)
}

// executedWitnesses are the witnesses of an executed call: its tool span's
// records, and those of them that reported a failure.
func executedWitnesses(c *StoredCall) (seen, failed toolcall.Witnesses) {
	if c.Records&RecordTool != 0 || c.Records == 0 {
		seen = toolcall.WitnessExecuted
	}
	if c.Records&RecordMCPClient != 0 {
		seen |= toolcall.WitnessMCPClient
	}
	if c.Records&RecordMCPServer != 0 {
		seen |= toolcall.WitnessMCPServer
	}
	if c.Failures&RecordTool != 0 {
		failed |= toolcall.WitnessExecuted
	}
	if c.Failures&RecordMCPClient != 0 {
		failed |= toolcall.WitnessMCPClient
	}
	if c.Failures&RecordMCPServer != 0 {
		failed |= toolcall.WitnessMCPServer
	}
	if c.Records&RecordLog != 0 {
		seen |= toolcall.WitnessLogRecord
	}
	if c.Failures&RecordLog != 0 {
		failed |= toolcall.WitnessLogRecord
	}
	return seen, failed
}

// requestedCalls appends to out the calls the run's turns requested, in
// turn order. A call two turns record (Mastra's chat span and its
// agent_step) is listed once, by id.
func requestedCalls(turns []*extract.ModelTurn, out []requested) []requested {
	for ti, t := range turns {
		for _, c := range t.Requested() {
			if c.Name == "" || (c.ID != "" && slices.ContainsFunc(out, func(r requested) bool { return r.c.ID == c.ID })) {
				continue
			}
			out = append(out, requested{c: c, turn: ti, exec: -1})
		}
	}
	return appendHistoryRequests(out, turns)
}

// appendHistoryRequests adds the calls a later request's history records
// (with their ids) that no turn's response recorded, as the requests of the
// turn before the one whose request first lists them: an instrumentation
// that drops the response's tool calls (OpenLLMetry's LangChain spans with
// ChatAnthropic) still records them when it sends them back.
func appendHistoryRequests(out []requested, turns []*extract.ModelTurn) []requested {
	for ti, t := range turns {
		for _, c := range t.History() {
			if c.Name == "" || c.ID == "" || slices.ContainsFunc(out, func(r requested) bool { return r.c.ID == c.ID }) {
				continue
			}
			out = append(out, requested{c: c, turn: max(ti-1, 0), exec: -1})
		}
	}
	return out
}

// pair pairs requested calls with executed ones: by id; then by name and
// equal arguments; then by name; each executed call with the first unpaired
// request that fits, in order. taken is memory for the executed calls'
// marks, returned for the next run.
func pair(reqs []requested, calls []toolcall.Call, taken []bool) []bool {
	if len(reqs) == 0 {
		return taken // nothing to pair (turns without content)
	}
	taken = toolcall.GrowBools(taken, len(calls))
	for k := range reqs {
		if id := reqs[k].c.ID; id != "" {
			for i := range calls {
				if !taken[i] && calls[i].ID == id {
					reqs[k].exec, taken[i] = i, true
					break
				}
			}
		}
	}
	for _, sameArgs := range []bool{true, false} {
		for i := range calls {
			if taken[i] || (calls[i].ID != "" && hasID(reqs, calls[i].ID)) {
				continue
			}
			for k := range reqs {
				r := &reqs[k]
				if r.exec >= 0 || !namesAgree(calls[i].Name, r.c.Name, sameArgs) || (r.c.ID != "" && calls[i].ID != "" && r.c.ID != calls[i].ID) {
					continue
				}
				if sameArgs && !sameArguments(&calls[i], r.c.Args) {
					continue
				}
				r.exec, taken[i] = i, true
				break
			}
		}
	}
	return taken
}

func hasID(reqs []requested, id string) bool {
	return slices.ContainsFunc(reqs, func(r requested) bool { return r.c.ID == id })
}

// sameArguments reports whether a call's decoded arguments equal the
// requested ones; unknown arguments on either side agree with anything.
func sameArguments(c *toolcall.Call, text string) bool {
	got, ok := callArgs(c)
	if !ok || text == "" {
		return true
	}
	want, err := jsonv.Parse(text)
	if err != nil {
		return true
	}
	return jsonv.Equal(got, want) || bareValueOf(got, want)
}

// callArgs returns a call's arguments as a tree, when known.
func callArgs(c *toolcall.Call) (jsonv.Value, bool) {
	switch {
	case c.ArgsUnknown:
		return jsonv.Value{}, false
	case c.ArgsDoc != nil:
		return c.ArgsDoc.Value(), true
	}
	return c.Args, true
}

// agreeArguments completes an executed call with what its request
// recorded: the arguments when the tool span recorded none (a tool that
// raised before its span's attributes were set), or, when both recorded
// arguments that differ, the requested ones in RequestedArgs.
func agreeArguments(c *toolcall.Call, raw *StoredCall, r *extract.RequestedCall, opts *ScoringOptions) {
	if r.Args == "" || opts.SkipArguments {
		return
	}
	if c.ArgsUnknown && c.ArgsNote == "" {
		if v, err := jsonv.Parse(r.Args); err == nil {
			c.Args, c.ArgsDoc, c.ArgsUnknown = v, nil, false
		}
		return
	}
	if sameObjectText(c, raw, r.Args) {
		return // equal, and an object is no bare value: nothing to change
	}
	// The requested text is parsed once: the call takes the requested
	// object its arguments are the bare value of (bare_values.go), or
	// keeps requested arguments that differ from its own.
	got, ok := callArgs(c)
	if !ok {
		return
	}
	want, err := jsonv.Parse(r.Args)
	switch {
	case err != nil:
	case bareValueOf(got, want):
		c.Args, c.ArgsDoc = want, nil
	case !jsonv.Equal(got, want):
		c.RequestedArgs = r.Args
	}
}

// sameObjectText reports whether a call's arguments were decoded from the
// very text the request recorded, an object's JSON (not a string that
// holds it): they are then the object the text parses to, so the request
// agrees with them without parsing it (most conventions record a call's
// arguments alike on its tool span and in the model's response).
func sameObjectText(c *toolcall.Call, raw *StoredCall, text string) bool {
	if raw == nil || raw.Encoding != extract.EncodingJSON || raw.Args != text || text[0] != '{' || c.ArgsUnknown {
		return false
	}
	if c.ArgsDoc != nil {
		return !c.ArgsDoc.IsDeferred() && c.ArgsDoc.Kind() == jsonv.KindObject
	}
	return c.Args.Kind() == jsonv.KindObject
}

// requestedOnly makes c the call a model requested and no tool span
// executed.
func requestedOnly(c *toolcall.Call, r *extract.RequestedCall, opts *ScoringOptions) {
	c.Name, c.ID, c.Type, c.StepType = r.Name, r.ID, "function", toolcall.StepToolCall
	c.Witnesses, c.ArgsUnknown = toolcall.WitnessRequested, true
	if r.Args != "" && !opts.SkipArguments {
		if v, err := jsonv.Parse(r.Args); err == nil {
			c.Args, c.ArgsUnknown = v, false
		}
	}
}

// turnNumber is the Turn of the calls model turn ti requested: that of an
// executed call paired with one of them, else a number after every
// executed call's turn, in turn order.
func turnNumber(reqs []requested, calls []toolcall.Call, ti int) int {
	last := 0
	for i := range calls {
		last = max(last, calls[i].Turn)
	}
	for k := range reqs {
		if reqs[k].turn == ti && reqs[k].exec >= 0 && calls[reqs[k].exec].Turn > 0 {
			return calls[reqs[k].exec].Turn
		}
	}
	// Turns with no executed call, numbered after the executed calls'.
	n := last
	seen := map[int]bool{}
	for k := range reqs {
		t := reqs[k].turn
		if seen[t] || t > ti {
			continue
		}
		seen[t] = true
		if !turnExecuted(reqs, t) {
			n++
		}
	}
	return n
}

func turnExecuted(reqs []requested, ti int) bool {
	for k := range reqs {
		if reqs[k].turn == ti && reqs[k].exec >= 0 {
			return true
		}
	}
	return false
}

// witnessScratch is pairWitnesses' memory, reused from run to run: the
// requested calls, the executed calls' marks and the outcomes.
type witnessScratch struct {
	reqs     []requested
	taken    []bool
	outcomes outcomeSet
}

// clear drops the references the last run left (texts of its turns).
func (w *witnessScratch) clear() {
	clear(w.reqs[:cap(w.reqs)])
	w.reqs = w.reqs[:0]
	w.outcomes.reset()
}

// outcomeSet holds the outcomes a run's requests carried, taken once each:
// by call id, or, for conventions that record none (Google ADK), by tool
// name in order. Each id has one outcome, the last recorded: in byID,
// scanned, while the run has at most maxScannedOutcomes of them, else in
// index.
type outcomeSet struct {
	byID   []*extract.Outcome
	index  map[string]*extract.Outcome
	byName []*extract.Outcome
}

// maxScannedOutcomes is the number of call ids up to which an outcomeSet
// finds them by scanning rather than in a map.
const maxScannedOutcomes = 16

// reset empties the set, keeping its memory.
func (s *outcomeSet) reset() {
	clear(s.byID[:cap(s.byID)])
	clear(s.byName[:cap(s.byName)])
	s.byID, s.byName, s.index = s.byID[:0], s.byName[:0], nil
}

// empty reports whether the set holds no outcome.
func (s *outcomeSet) empty() bool {
	return len(s.byID) == 0 && len(s.index) == 0 && len(s.byName) == 0
}

// collect fills the set, emptied first, with the outcomes the run's turns
// carry; a later turn's record of an outcome replaces an earlier one's
// (each request repeats the history).
func (s *outcomeSet) collect(turns []*extract.ModelTurn) {
	s.reset()
	var last []extract.Outcome
	for _, t := range turns {
		if o := t.Outcomes(); len(o) >= len(last) {
			last = o
		}
	}
	for i := range last {
		o := &last[i]
		if o.ID != "" {
			s.putID(o)
			continue
		}
		s.byName = append(s.byName, o)
	}
}

// putID adds an outcome with a call id, replacing the one of the same id.
func (s *outcomeSet) putID(o *extract.Outcome) {
	if s.index != nil {
		s.index[o.ID] = o
		return
	}
	for k, held := range s.byID {
		if held.ID == o.ID {
			s.byID[k] = o
			return
		}
	}
	if len(s.byID) < maxScannedOutcomes {
		s.byID = append(s.byID, o)
		return
	}
	s.index = make(map[string]*extract.Outcome, 2*maxScannedOutcomes)
	for _, held := range s.byID {
		s.index[held.ID] = held
	}
	s.index[o.ID] = o
	clear(s.byID)
	s.byID = s.byID[:0]
}

// take returns the outcome of the call id (or, without an id, the next one
// of tool name), once.
func (s *outcomeSet) take(id, name string) *extract.Outcome {
	if id != "" {
		if o := s.takeID(id); o != nil {
			return o
		}
	}
	for i, o := range s.byName {
		if o != nil && (o.Name == name || o.Name == "") {
			s.byName[i] = nil
			return o
		}
	}
	return nil
}

// takeID returns the outcome of the call id and forgets it, nil when
// there is none.
func (s *outcomeSet) takeID(id string) *extract.Outcome {
	if s.index != nil {
		o, ok := s.index[id]
		if ok {
			delete(s.index, id)
		}
		return o
	}
	for k, o := range s.byID {
		if o.ID == id {
			s.byID = slices.Delete(s.byID, k, k+1)
			return o
		}
	}
	return nil
}

// addOutcome gives a call the outcome a later request carried: a failure
// there fails the call, and a requested call's note says what the app sent
// back.
func addOutcome(c *toolcall.Call, o *extract.Outcome) {
	c.Witnesses |= toolcall.WitnessOutcome
	switch {
	case o.Failed:
		c.FailedWitnesses |= toolcall.WitnessOutcome
		c.Status = toolcall.StatusError
	case c.Status == toolcall.StatusUnset:
		c.Status = toolcall.StatusOK
	}
	if c.Witnesses&toolcall.WitnessExecuted == 0 && o.Result != "" {
		c.Note = toolcall.TruncateText(o.Result, maxNote)
	}
}
