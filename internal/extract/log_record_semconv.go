package extract

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// The GenAI semantic conventions' events (genai-conventions §12), as log
// records (the OTel Logs API: payload in the body for the per-message
// events, in attributes for the inference event) and as span events
// (payload in attributes).
const (
	eventInferenceDetails = "gen_ai.client.inference.operation.details"
	eventSystemMessage    = "gen_ai.system.message"
	eventUserMessage      = "gen_ai.user.message"
	eventAssistantMessage = "gen_ai.assistant.message"
	eventToolMessage      = "gen_ai.tool.message"
	eventChoice           = "gen_ai.choice"
)

func init() {
	RegisterRecordReader(eventInferenceDetails, readInferenceDetails)
	RegisterRecordReader(eventSystemMessage, readRequestMessage)
	RegisterRecordReader(eventUserMessage, readRequestMessage)
	RegisterRecordReader(eventAssistantMessage, readAssistantMessage)
	RegisterRecordReader(eventToolMessage, readToolMessage)
	RegisterRecordReader(eventChoice, readChoice)
}

// payload returns where a record's fields are: a log record's body when it
// is a map, else the attributes (a span event, or an SDK that writes the
// payload as attributes).
func payload(r *Record) pcommon.Map {
	if r.Body.Type() == pcommon.ValueTypeMap {
		return r.Body.Map()
	}
	return r.Attributes
}

// field returns the value of key in the record's attributes, else in its
// body map.
func field(r *Record, key string) (pcommon.Value, bool) {
	if v, ok := r.Attributes.Get(key); ok {
		return v, true
	}
	if r.Body.Type() == pcommon.ValueTypeMap {
		return r.Body.Map().Get(key)
	}
	return pcommon.Value{}, false
}

// fieldText is field as text ("" when absent).
func fieldText(r *Record, key string) string {
	if v, ok := field(r, key); ok {
		return valueText(v)
	}
	return ""
}

// readConversation sets the conversation id the record carries.
func readConversation(r *Record, w *Witness) {
	if v, ok := r.Attributes.Get("gen_ai.conversation.id"); ok {
		w.RunIDs.Conversation = v.AsString()
	}
}

// readInferenceDetails reads gen_ai.client.inference.operation.details:
// the request and response messages whole, the system instructions and
// the tool definitions, and the finish reasons.
func readInferenceDetails(r *Record, w *Witness) bool {
	w.Source = eventInferenceDetails
	readConversation(r, w)
	w.Turn.Input = fieldText(r, "gen_ai.input.messages")
	w.Turn.Output = fieldText(r, "gen_ai.output.messages")
	if v, ok := field(r, "gen_ai.response.finish_reasons"); ok {
		w.Turn.FinishTools = finishAsksTools(v)
	}
	w.System = fieldText(r, "gen_ai.system_instructions")
	w.Definitions = fieldText(r, "gen_ai.tool.definitions")
	w.Request, w.Response = w.Turn.Input, w.Turn.Output
	w.Turn.Response = w.Turn.Output != ""
	return w.Turn.Input != "" || w.Turn.Output != "" || w.Turn.FinishTools || w.Definitions != "" || w.System != ""
}

// readRequestMessage reads gen_ai.system.message and gen_ai.user.message:
// one message of the request, which is not a tool result.
func readRequestMessage(r *Record, w *Witness) bool {
	w.Source = r.Name
	readConversation(r, w)
	w.Turn.InputMessage = true
	text := messageContent(payload(r))
	if r.Name == eventSystemMessage {
		w.System = text
	} else {
		w.Request = text
	}
	return true
}

// readAssistantMessage reads gen_ai.assistant.message: an earlier turn's
// response the request repeats, with the calls it requested.
func readAssistantMessage(r *Record, w *Witness) bool {
	w.Source = eventAssistantMessage
	readConversation(r, w)
	w.Turn.InputMessage = true
	p := payload(r)
	w.Turn.History = appendRecordCalls(w.Turn.History, p)
	w.Request = messageContent(p)
	return true
}

// readToolMessage reads gen_ai.tool.message: a tool result the request
// carries ({id, content}).
func readToolMessage(r *Record, w *Witness) bool {
	w.Source = eventToolMessage
	readConversation(r, w)
	w.Turn.InputMessage, w.Turn.ToolMessage = true, true
	p := payload(r)
	o := Outcome{Result: messageContent(p)}
	if v, ok := p.Get("id"); ok {
		o.ID = v.AsString()
	} else if v, ok := p.Get("tool_call_id"); ok {
		o.ID = v.AsString()
	}
	if v, ok := p.Get("name"); ok {
		o.Name = v.AsString()
	}
	o.Failed = failedText(o.Result)
	w.Turn.Outcomes = append(w.Turn.Outcomes, o)
	w.Request = o.Result
	return true
}

// readChoice reads gen_ai.choice: the response ({index, finish_reason,
// message: {content, tool_calls}}), with the calls it requested.
func readChoice(r *Record, w *Witness) bool {
	w.Source = eventChoice
	readConversation(r, w)
	p := payload(r)
	if v, ok := p.Get("finish_reason"); ok && asksTools(v.AsString()) {
		w.Turn.FinishTools = true
	}
	msg := p
	if v, ok := p.Get("message"); ok && v.Type() == pcommon.ValueTypeMap {
		msg = v.Map()
	}
	w.Turn.Requested = appendRecordCalls(w.Turn.Requested, msg)
	w.Response = messageContent(msg)
	w.Turn.Response = true
	return true
}

// maxRecordCalls bounds the calls read from one message, so that a
// hostile record cannot make a witness allocate much.
const maxRecordCalls = 128

// appendRecordCalls appends a message's tool_calls ([{id, type, function:
// {name, arguments}}], or {id, name, arguments} items).
func appendRecordCalls(out []RequestedCall, msg pcommon.Map) []RequestedCall {
	v, ok := msg.Get("tool_calls")
	if !ok || v.Type() != pcommon.ValueTypeSlice {
		return out
	}
	for i, it := range v.Slice().All() {
		if i >= maxRecordCalls {
			break
		}
		if it.Type() != pcommon.ValueTypeMap {
			continue
		}
		m := it.Map()
		c := RequestedCall{}
		if id, ok := m.Get("id"); ok {
			c.ID = id.AsString()
		}
		fn := m
		if f, ok := m.Get("function"); ok && f.Type() == pcommon.ValueTypeMap {
			fn = f.Map()
		}
		if n, ok := fn.Get("name"); ok {
			c.Name = n.AsString()
		}
		if a, ok := fn.Get("arguments"); ok {
			c.Args = valueText(a)
		}
		if c.Name != "" {
			out = append(out, c)
		}
	}
	return out
}

// messageContent is a message's content as text ("" when none).
func messageContent(m pcommon.Map) string {
	if v, ok := m.Get("content"); ok {
		return valueText(v)
	}
	return ""
}
