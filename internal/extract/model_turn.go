package extract

import (
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// ModelTurn is what one model-call span records of its run's tool calls: the
// calls the model requested in its response (this turn's new calls), and in
// its request the calls of earlier turns and the outcomes the app sent back
// for them. A model call whose response requested tools is followed by
// another, which answers with their results: a run whose last turn requested
// tools is not over.
//
// The recorded texts are kept as they are (strings reference the span's
// attribute values) and parsed when a run's calls are assembled, so a turn
// costs one pass over the span's attributes until it is read.
type ModelTurn struct {
	// Start and End are the span's timestamps (Unix nanoseconds).
	Start, End uint64
	// output and input are the recorded response and request, in form.
	output, input string
	form          turnForm
	// events are a Strands chat span's message events, in order: the
	// response (gen_ai.choice) and the request's messages.
	events []turnEvent
	// flatCalls and flatMessages are what flattened attributes
	// (OpenInference llm.*_messages.N.*, OpenLLMetry gen_ai.prompt/
	// completion.N.*) record; requested calls among flatCalls have output
	// set.
	flatCalls    []flatCall
	flatMessages []flatMessage
	// finishTools is set when the recorded finish reason asks for tools.
	finishTools bool
	parsed      bool
	requested   []RequestedCall
	history     []RequestedCall
	outcomes    []Outcome
}

// RequestedCall is a tool call a model asked for, as a model-call span
// records it.
type RequestedCall struct {
	// ID is the call id the model assigned ("" when the convention records
	// none: Google ADK, Genkit's ref is kept as the id).
	ID   string
	Name string
	// Args is the arguments' JSON text ("" when none were recorded).
	Args string
}

// Outcome is what a later request records of a call's execution: the tool
// result the app sent back to the model, and whether it reports a failure.
type Outcome struct {
	ID, Name string
	// Result is the result's text.
	Result string
	// Failed reports a result that is an error: a structured error
	// (functionResponse {"error": …}, an AI SDK error output, a Strands
	// toolResult with status error, an object with an "error" member) or a
	// text that starts with "error" or is a framework's tool-error message.
	Failed bool
}

type turnForm uint8

const (
	formNone turnForm = iota
	// formGenAI is gen_ai.output.messages / gen_ai.input.messages (OTel
	// GenAI semantic conventions 1.37+, OpenLLMetry >= 0.27, AI SDK v7).
	formGenAI
	// formAISDK is ai.response.toolCalls / ai.prompt.messages (AI SDK v4-v6).
	formAISDK
	// formADK is gcp.vertex.agent.llm_response / llm_request (Google ADK).
	formADK
	// formGenkit is genkit:output / genkit:input of a model action.
	formGenkit
	// formMastra is mastra.model_step.output / input (Mastra's agent_step).
	formMastra
	// formFlat is OpenInference's or OpenLLMetry's flattened messages.
	formFlat
	// formStrands is a Strands chat span's message events.
	formStrands
)

// turnEvent is one message event of a Strands chat span.
type turnEvent struct {
	name, message, content, id, finish string
}

// flatCall is a tool call read from flattened attributes: index of its
// message and of the call in it, and whether it is in the response.
type flatCall struct {
	msg, call int
	output    bool
	c         RequestedCall
}

// flatMessage is an input message read from flattened attributes: a tool
// message is an outcome.
type flatMessage struct {
	msg                     int
	role, id, name, content string
}

// IsTurn reports whether a span may record a model turn: a model call, or
// Mastra's agent_step, which records the step's tool calls its chat child
// leaves out.
func IsTurn(res *Result, span ptrace.Span) bool {
	if res.ModelCall {
		return true
	}
	v, ok := span.Attributes().Get("mastra.span.type")
	return ok && v.Str() == "model_step"
}

// ReadTurn reads what a model-call span records of its run's tool calls into
// t, and reports whether it records any (a response or request it can read,
// or a finish reason).
func ReadTurn(span ptrace.Span, t *ModelTurn) bool {
	*t = ModelTurn{Start: uint64(span.StartTimestamp()), End: uint64(span.EndTimestamp())}
	for k, v := range span.Attributes().All() {
		switch k {
		case "gen_ai.output.messages":
			t.setOutput(formGenAI, valueText(v))
		case "gen_ai.input.messages":
			t.setInput(formGenAI, valueText(v))
		case "ai.response.toolCalls":
			t.setOutput(formAISDK, valueText(v))
		case "ai.prompt.messages":
			t.setInput(formAISDK, valueText(v))
		case "gcp.vertex.agent.llm_response":
			t.setOutput(formADK, valueText(v))
		case "gcp.vertex.agent.llm_request":
			t.setInput(formADK, valueText(v))
		case "genkit:output":
			t.setOutput(formGenkit, valueText(v))
		case "genkit:input":
			t.setInput(formGenkit, valueText(v))
		case "mastra.model_step.output":
			t.setOutput(formMastra, valueText(v))
		case "mastra.model_step.input":
			t.setInput(formMastra, valueText(v))
		case "gen_ai.response.finish_reasons", "ai.response.finishReason", "llm.finish_reason":
			t.finishTools = t.finishTools || finishAsksTools(v)
		default:
			if mayBeIndexed(k) {
				t.readFlat(k, v)
			}
		}
	}
	if t.form == formNone && span.Events().Len() > 0 {
		t.readEvents(span.Events())
	}
	return t.form != formNone || t.finishTools
}

func (t *ModelTurn) setOutput(form turnForm, text string) {
	if text == "" {
		return
	}
	if t.form == formNone || t.form == form {
		t.form, t.output = form, text
	}
}

func (t *ModelTurn) setInput(form turnForm, text string) {
	if text == "" {
		return
	}
	if t.form == formNone || t.form == form {
		t.form, t.input = form, text
	}
}

// finishAsksTools reports a finish reason (or a list of them) that asks for
// tool calls: "tool_calls", "tool_call", "tool-calls", "toolUse",
// "tool_use", "function_call".
func finishAsksTools(v pcommon.Value) bool {
	switch v.Type() {
	case pcommon.ValueTypeSlice:
		for _, it := range v.Slice().All() {
			if asksTools(it.AsString()) {
				return true
			}
		}
		return false
	case pcommon.ValueTypeStr:
		s := v.Str()
		if strings.HasPrefix(s, "[") {
			return strings.Contains(strings.ToLower(s), "tool") || strings.Contains(s, "function_call")
		}
		return asksTools(s)
	}
	return false
}

func asksTools(s string) bool {
	s = strings.ToLower(s)
	return strings.HasPrefix(s, "tool") || s == "function_call"
}

// readFlat reads one flattened message attribute: llm.output_messages.N.
// message.tool_calls.M.tool_call.{id,function.name,function.arguments},
// llm.input_messages.N.message.{role,content,tool_call_id} and their
// OpenLLMetry forms gen_ai.completion.N.tool_calls.M.{id,name,arguments},
// gen_ai.prompt.N.{role,content,tool_call_id}.
func (t *ModelTurn) readFlat(k string, v pcommon.Value) {
	fam, rest, ok := indexedFamily(k)
	if !ok || (fam != famInputs && fam != famOutputs) {
		return
	}
	dot := strings.IndexByte(rest, '.')
	if dot <= 0 {
		return
	}
	msg, err := strconv.Atoi(rest[:dot])
	if err != nil || msg < 0 || msg > maxFlatIndex {
		return
	}
	field := strings.TrimPrefix(rest[dot+1:], "message.")
	output := fam == famOutputs
	if tc, ok := strings.CutPrefix(field, "tool_calls."); ok {
		dot := strings.IndexByte(tc, '.')
		if dot <= 0 {
			return
		}
		call, err := strconv.Atoi(tc[:dot])
		if err != nil || call < 0 || call > maxFlatIndex {
			return
		}
		c := t.flatCall(msg, call, output)
		switch strings.TrimPrefix(tc[dot+1:], "tool_call.") {
		case "id":
			c.ID = v.AsString()
		case "function.name", "name":
			c.Name = v.AsString()
		case "function.arguments", "arguments":
			c.Args = valueText(v)
		}
		if t.form == formNone {
			t.form = formFlat
		}
		return
	}
	if output {
		return
	}
	m := t.flatMessage(msg)
	switch field {
	case "role":
		m.role = v.AsString()
	case "tool_call_id":
		m.id = v.AsString()
	case "content":
		m.content = valueText(v)
	case "name":
		m.name = v.AsString()
	default:
		return
	}
	if t.form == formNone {
		t.form = formFlat
	}
}

// maxFlatIndex bounds the message and call indexes read from flattened
// attributes, so that hostile keys cannot make a turn allocate much.
const maxFlatIndex = 1 << 10

func (t *ModelTurn) flatCall(msg, call int, output bool) *RequestedCall {
	for i := range t.flatCalls {
		if f := &t.flatCalls[i]; f.msg == msg && f.call == call && f.output == output {
			return &f.c
		}
	}
	t.flatCalls = append(t.flatCalls, flatCall{msg: msg, call: call, output: output})
	return &t.flatCalls[len(t.flatCalls)-1].c
}

func (t *ModelTurn) flatMessage(msg int) *flatMessage {
	for i := range t.flatMessages {
		if m := &t.flatMessages[i]; m.msg == msg {
			return m
		}
	}
	t.flatMessages = append(t.flatMessages, flatMessage{msg: msg})
	return &t.flatMessages[len(t.flatMessages)-1]
}

// readEvents reads a Strands chat span's message events.
func (t *ModelTurn) readEvents(events ptrace.SpanEventSlice) {
	for _, ev := range events.All() {
		switch ev.Name() {
		case "gen_ai.choice", "gen_ai.assistant.message", "gen_ai.tool.message":
		default:
			continue
		}
		e := turnEvent{name: ev.Name()}
		for k, v := range ev.Attributes().All() {
			switch k {
			case "message":
				e.message = valueText(v)
			case "content":
				e.content = valueText(v)
			case "id":
				e.id = v.AsString()
			case "finish_reason":
				e.finish = v.AsString()
			}
		}
		if e.finish != "" && asksTools(e.finish) {
			t.finishTools = true
		}
		t.events = append(t.events, e)
		t.form = formStrands
	}
}

// RequestsTools reports whether the model's response asked for tool calls.
func (t *ModelTurn) RequestsTools() bool {
	return t.finishTools || len(t.Requested()) > 0
}

// Requested returns the tool calls the model requested in this turn's
// response.
func (t *ModelTurn) Requested() []RequestedCall {
	t.parse()
	return t.requested
}

// History returns the calls of earlier turns that this turn's request
// lists (the assistant messages the app sent back as history).
func (t *ModelTurn) History() []RequestedCall {
	t.parse()
	return t.history
}

// Outcomes returns the tool results this turn's request carries for calls
// of earlier turns.
func (t *ModelTurn) Outcomes() []Outcome {
	t.parse()
	return t.outcomes
}

// parse reads the recorded texts once.
func (t *ModelTurn) parse() {
	if t.parsed {
		return
	}
	t.parsed = true
	switch t.form {
	case formFlat:
		t.parseFlat()
		return
	case formStrands:
		t.parseStrands()
		return
	}
	if t.output != "" {
		if v, err := jsonv.Parse(t.output); err == nil {
			t.requested = appendCalls(t.requested, t.form, &v, false)
		}
	}
	if t.input != "" {
		if v, err := jsonv.Parse(t.input); err == nil {
			t.history = appendCalls(t.history, t.form, &v, true)
			t.outcomes = appendOutcomes(t.outcomes, t.form, &v)
		}
	}
}

func (t *ModelTurn) parseFlat() {
	for _, f := range t.flatCalls {
		if f.c.Name == "" {
			continue
		}
		if f.output {
			t.requested = append(t.requested, f.c)
		} else {
			t.history = append(t.history, f.c)
		}
	}
	for _, m := range t.flatMessages {
		if m.role != "tool" {
			continue
		}
		t.outcomes = append(t.outcomes, Outcome{ID: m.id, Name: m.name, Result: m.content, Failed: failedText(m.content)})
	}
}

func (t *ModelTurn) parseStrands() {
	for _, e := range t.events {
		switch e.name {
		case "gen_ai.choice":
			if e.id != "" {
				continue // a tool's result, recorded on the tool's span too
			}
			if v, err := jsonv.Parse(e.message); err == nil {
				t.requested = appendStrandsUses(t.requested, &v)
			}
		case "gen_ai.assistant.message":
			if v, err := jsonv.Parse(e.content); err == nil {
				t.history = appendStrandsUses(t.history, &v)
			}
		case "gen_ai.tool.message":
			if v, err := jsonv.Parse(e.content); err == nil && v.Kind() == jsonv.KindArray {
				for _, part := range v.Items() {
					if r, ok := member(&part, "toolResult"); ok {
						o := Outcome{ID: str(r, "toolUseId"), Result: text(r, "content")}
						o.Failed = str(r, "status") == "error" || failedText(o.Result)
						t.outcomes = append(t.outcomes, o)
					}
				}
			}
		}
	}
}

// appendStrandsUses appends the toolUse parts of a Strands message.
func appendStrandsUses(out []RequestedCall, v *jsonv.Value) []RequestedCall {
	if v.Kind() != jsonv.KindArray {
		return out
	}
	for _, part := range v.Items() {
		use := &part
		if u, ok := member(&part, "toolUse"); ok {
			use = u
		} else if str(&part, "type") != "toolUse" {
			continue
		}
		out = append(out, RequestedCall{ID: str(use, "toolUseId"), Name: str(use, "name"), Args: jsonText(use, "input")})
	}
	return out
}

// appendCalls appends the tool calls a parsed response (or, with history,
// the assistant messages of a request) records in form.
func appendCalls(out []RequestedCall, form turnForm, v *jsonv.Value, history bool) []RequestedCall {
	switch form {
	case formGenAI:
		for _, m := range messages(v) {
			if history && str(m, "role") != "assistant" {
				continue
			}
			for _, p := range items(m, "parts") {
				if str(p, "type") == "tool_call" {
					out = append(out, RequestedCall{ID: str(p, "id"), Name: str(p, "name"), Args: jsonText(p, "arguments")})
				}
			}
		}
	case formAISDK:
		if !history {
			for _, c := range list(v) {
				out = append(out, RequestedCall{ID: str(c, "toolCallId"), Name: str(c, "toolName"), Args: firstJSON(c, "input", "args")})
			}
			return out
		}
		for _, m := range list(v) {
			if str(m, "role") != "assistant" {
				continue
			}
			for _, p := range items(m, "content") {
				if str(p, "type") == "tool-call" {
					out = append(out, RequestedCall{ID: str(p, "toolCallId"), Name: str(p, "toolName"), Args: firstJSON(p, "input", "args")})
				}
			}
		}
	case formADK:
		contents := items(v, "contents")
		if !history {
			if c, ok := member(v, "content"); ok {
				contents = []*jsonv.Value{c}
			}
		}
		for _, c := range contents {
			for _, p := range items(c, "parts") {
				if fc, ok := member(p, "functionCall"); ok {
					out = append(out, RequestedCall{ID: str(fc, "id"), Name: str(fc, "name"), Args: jsonText(fc, "args")})
				}
			}
		}
	case formGenkit:
		msgs := items(v, "messages")
		if !history {
			if m, ok := member(v, "message"); ok {
				msgs = []*jsonv.Value{m}
			}
		}
		for _, m := range msgs {
			for _, p := range items(m, "content") {
				if tr, ok := member(p, "toolRequest"); ok {
					out = append(out, RequestedCall{ID: str(tr, "ref"), Name: str(tr, "name"), Args: jsonText(tr, "input")})
				}
			}
		}
	case formMastra:
		if history {
			return out // Mastra's step input summarises earlier calls by name
		}
		for _, c := range items(v, "toolCalls") {
			out = append(out, RequestedCall{ID: str(c, "toolCallId"), Name: str(c, "toolName"), Args: firstJSON(c, "args", "input")})
		}
	}
	return out
}

// appendOutcomes appends the tool results a parsed request records in form.
func appendOutcomes(out []Outcome, form turnForm, v *jsonv.Value) []Outcome {
	switch form {
	case formGenAI:
		for _, m := range messages(v) {
			for _, p := range items(m, "parts") {
				if str(p, "type") == "tool_call_response" {
					o := Outcome{ID: str(p, "id"), Result: text(p, "response")}
					r, _ := member(p, "response")
					o.Failed = failedValue(r)
					out = append(out, o)
				}
			}
		}
	case formAISDK:
		for _, m := range list(v) {
			if str(m, "role") != "tool" {
				continue
			}
			for _, p := range items(m, "content") {
				if str(p, "type") != "tool-result" {
					continue
				}
				o := Outcome{ID: str(p, "toolCallId"), Name: str(p, "toolName"), Result: firstText(p, "output", "result")}
				outType := ""
				if r, ok := member(p, "output"); ok {
					outType = str(r, "type")
				}
				o.Failed = strings.HasPrefix(outType, "error") || boolMember(p, "isError")
				out = append(out, o)
			}
		}
	case formADK:
		for _, c := range items(v, "contents") {
			for _, p := range items(c, "parts") {
				if fr, ok := member(p, "functionResponse"); ok {
					r, _ := member(fr, "response")
					out = append(out, Outcome{ID: str(fr, "id"), Name: str(fr, "name"), Result: text(fr, "response"), Failed: failedValue(r)})
				}
			}
		}
	case formGenkit:
		for _, m := range items(v, "messages") {
			for _, p := range items(m, "content") {
				if tr, ok := member(p, "toolResponse"); ok {
					r, _ := member(tr, "output")
					out = append(out, Outcome{ID: str(tr, "ref"), Name: str(tr, "name"), Result: text(tr, "output"), Failed: failedValue(r)})
				}
			}
		}
	}
	return out
}

// toolErrorTexts are results frameworks send back in place of a failed
// tool's: the OpenAI Agents SDK's default tool error.
var toolErrorTexts = []string{"An error occurred while running the tool"}

// failedText reports a tool result text that reports a failure: it starts
// with "error" (any case) followed by a separator, it is a framework's
// tool-error message, or it is a JSON object with an "error" member.
func failedText(s string) bool {
	t := strings.TrimSpace(s)
	if len(t) > 5 && strings.EqualFold(t[:5], "error") {
		switch t[5] {
		case ':', ' ', '(', '[', '-', '.':
			return true
		}
	}
	for _, e := range toolErrorTexts {
		if strings.HasPrefix(t, e) {
			return true
		}
	}
	if strings.HasPrefix(t, "{") && strings.Contains(t, `"error"`) {
		if v, err := jsonv.Parse(t); err == nil {
			return failedValue(&v)
		}
	}
	return false
}

// failedValue reports a result value that reports a failure: an object with
// an "error" member that is not null or false, or a text failedText takes.
func failedValue(v *jsonv.Value) bool {
	if v == nil {
		return false
	}
	switch v.Kind() {
	case jsonv.KindString:
		return failedText(v.Literal())
	case jsonv.KindObject:
		e, ok := v.Get("error")
		return ok && e.Kind() != jsonv.KindNull && !(e.Kind() == jsonv.KindBool && !e.BoolValue())
	}
	return false
}

// messages returns the messages of a GenAI messages value: a list, or an
// object holding one under "messages".
func messages(v *jsonv.Value) []*jsonv.Value {
	if v.Kind() == jsonv.KindObject {
		return items(v, "messages")
	}
	return list(v)
}

// list returns the elements of an array value.
func list(v *jsonv.Value) []*jsonv.Value {
	if v == nil || v.Kind() != jsonv.KindArray {
		return nil
	}
	all := v.Items()
	out := make([]*jsonv.Value, len(all))
	for i := range all {
		out[i] = &all[i]
	}
	return out
}

// items returns the elements of the array member key of an object.
func items(v *jsonv.Value, key string) []*jsonv.Value {
	m, ok := member(v, key)
	if !ok {
		return nil
	}
	return list(m)
}

// member returns the member key of an object.
func member(v *jsonv.Value, key string) (*jsonv.Value, bool) {
	if v == nil || v.Kind() != jsonv.KindObject {
		return nil, false
	}
	m := v.GetPtr(key)
	return m, m != nil
}

// str returns the string member key ("" when absent or not a string; a
// number's literal).
func str(v *jsonv.Value, key string) string {
	m, ok := member(v, key)
	if !ok {
		return ""
	}
	switch m.Kind() {
	case jsonv.KindString:
		return m.Literal()
	case jsonv.KindNumber:
		return m.JSON()
	}
	return ""
}

// text returns member key as text: a string as it is, other values as JSON.
func text(v *jsonv.Value, key string) string {
	m, ok := member(v, key)
	if !ok {
		return ""
	}
	if m.Kind() == jsonv.KindString {
		return m.Literal()
	}
	return m.JSON()
}

// jsonText returns member key as JSON text: a string is taken to hold JSON
// already (arguments recorded as a JSON string), other values are written
// as JSON.
func jsonText(v *jsonv.Value, key string) string {
	m, ok := member(v, key)
	if !ok || m.Kind() == jsonv.KindUndefined || m.Kind() == jsonv.KindNull {
		return ""
	}
	if m.Kind() == jsonv.KindString {
		return m.Literal()
	}
	return m.JSON()
}

func firstJSON(v *jsonv.Value, keys ...string) string {
	for _, k := range keys {
		if s := jsonText(v, k); s != "" {
			return s
		}
	}
	return ""
}

func firstText(v *jsonv.Value, keys ...string) string {
	for _, k := range keys {
		if s := text(v, k); s != "" {
			return s
		}
	}
	return ""
}

func boolMember(v *jsonv.Value, key string) bool {
	m, ok := member(v, key)
	return ok && m.Kind() == jsonv.KindBool && m.BoolValue()
}
