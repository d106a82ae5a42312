package extract

import "go.opentelemetry.io/collector/pdata/ptrace"

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
func (t *ModelTurn) AddWitness(w *TurnWitness, at uint64) bool {
	t.finishTools = t.finishTools || w.FinishTools
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
	t.outcomes = append(t.outcomes, w.Outcomes...)
	if w.InputMessage && at >= t.lastInput {
		t.lastInput = at
		t.followsTools = w.ToolMessage
	}
	return true
}

// reparse makes the next read parse the recorded texts again.
func (t *ModelTurn) reparse() {
	t.parsed = false
	t.requested, t.history, t.outcomes, t.followsTools = t.requested[:0], t.history[:0], t.outcomes[:0], false
}

// appendNewCalls appends the calls of add whose id is not in out already
// (a record delivered twice).
func appendNewCalls(out, add []RequestedCall) []RequestedCall {
next:
	for _, c := range add {
		if c.ID != "" {
			for _, o := range out {
				if o.ID == c.ID {
					continue next
				}
			}
		}
		out = append(out, c)
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
