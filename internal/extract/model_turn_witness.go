package extract

import (
	"slices"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// formRecords is a turn read from per-message events (log records or span
// events): its requested calls, history and outcomes are read as the
// records arrive, not parsed from one text.
const formRecords = formStrands + 1

// TurnFromRecords returns a model turn made of what records witnessed of a
// model call whose span recorded none, started and ended at the span's
// timestamps (0 when the span is not known).
func TurnFromRecords(start, end uint64) *ModelTurn {
	return &ModelTurn{Start: start, End: end}
}

// AddWitness adds to t what a record witnessed of its model call, and
// reports whether t took it. A turn its span recorded in another form
// keeps that form (a record repeats what the span says); the inference
// event's request and response are taken as gen_ai.*.messages would be;
// per-message events add one message each. A record of a tool message
// that is the latest request message recorded makes the turn follow tools.
func (t *ModelTurn) AddWitness(w *TurnWitness) bool {
	t.finishTools = t.finishTools || w.FinishTools
	t.fromRecords = true
	t.responded = t.responded || w.Response
	if w.Input != "" || w.Output != "" {
		if t.form != formNone && t.form != formGenAI {
			return w.FinishTools
		}
		if w.Output != "" {
			t.form, t.output = formGenAI, w.Output
		}
		if w.Input != "" {
			t.form, t.input = formGenAI, w.Input
		}
		t.reparse()
		return true
	}
	if len(w.Requested) == 0 && len(w.History) == 0 && len(w.Outcomes) == 0 && !w.InputMessage {
		return w.FinishTools
	}
	if t.form != formNone && t.form != formRecords {
		return false
	}
	t.form, t.parsed = formRecords, true
	t.requested = appendNewCalls(t.requested, w.Requested)
	t.history = appendNewCalls(t.history, w.History)
	t.outcomes = appendNewOutcomes(t.outcomes, w.Outcomes)
	// Per-message records of one request carry one timestamp and arrive
	// in any order: a request with tool results is taken to end with them
	// (a manual loop's request after its tools ran).
	t.followsTools = t.followsTools || w.ToolMessage
	return true
}

// FromRecords reports whether log records (or span events read as
// records) witnessed the turn.
func (t *ModelTurn) FromRecords() bool { return t.fromRecords }

// AwaitsRecords reports a turn records witnessed whose response no record
// gave yet, or one whose request does not answer every call (by id) the
// turn before it (prev, nil for none) requested: records of it are still
// on their way.
func (t *ModelTurn) AwaitsRecords(prev *ModelTurn) bool {
	if !t.fromRecords {
		return false
	}
	if !t.responded {
		return true
	}
	if prev == nil {
		return false
	}
	outcomes := t.Outcomes()
	for _, c := range prev.Requested() {
		if c.ID != "" && !slices.ContainsFunc(outcomes, func(o Outcome) bool { return o.ID == c.ID }) {
			return true
		}
	}
	return false
}

// reparse makes the next read parse the recorded texts again.
func (t *ModelTurn) reparse() {
	t.parsed = false
	t.requested, t.history, t.outcomes, t.followsTools = t.requested[:0], t.history[:0], t.outcomes[:0], false
}

// appendNewCalls appends the calls of add whose id is not in out already
// (a record delivered twice).
func appendNewCalls(out, add []RequestedCall) []RequestedCall {
	return appendNew(out, add, func(c RequestedCall) string { return c.ID })
}

// appendNewOutcomes appends the outcomes of add whose id is not in out
// already.
func appendNewOutcomes(out, add []Outcome) []Outcome {
	return appendNew(out, add, func(o Outcome) string { return o.ID })
}

// appendNew appends the items of add whose id is "" or not in out.
func appendNew[T any](out, add []T, id func(T) string) []T {
	for _, a := range add {
		if k := id(a); k == "" || !slices.ContainsFunc(out, func(o T) bool { return id(o) == k }) {
			out = append(out, a)
		}
	}
	return out
}

// readInferenceEvent reads a gen_ai.client.inference.operation.details span
// event into t, as ReadTurn reads the span attributes of the same name.
func (t *ModelTurn) readInferenceEvent(ev ptrace.SpanEvent) {
	if t.form != formNone && t.form != formGenAI {
		return
	}
	for k, v := range ev.Attributes().All() {
		switch k {
		case "gen_ai.output.messages":
			t.setOutput(formGenAI, valueText(v))
		case "gen_ai.input.messages":
			t.setInput(formGenAI, valueText(v))
		case "gen_ai.response.finish_reasons":
			t.finishTools = t.finishTools || finishAsksTools(v)
		}
	}
}
