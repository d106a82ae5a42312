package extract

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// ModelTurn is what one model-call span records of its run's tool calls: the
// calls the model requested in its response (this turn's new calls), and in
// its request the calls of earlier turns and the outcomes the app sent back
// for them. A model call whose response requested tools is followed by
// another, which answers with their results: a run whose last turn requested
// tools is not over.
//
// The recorded texts are referenced (strings of the span's attribute
// values) until the turn is parsed, once (see [ModelTurn.Parse]); from
// then on the turn keeps what rules and holding read in memory of its own
// and no text of the span.
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
	// rawInput is the raw request JSON an instrumentation that flattens
	// messages also records (input.value), read for what flattening drops
	// (anthropic_blocks.go).
	rawInput string
	// finishTools is set when the recorded finish reason asks for tools.
	finishTools bool
	parsed      bool
	// followsTools is set when the request ends with tool results.
	followsTools bool
	requested    []RequestedCall
	history      []RequestedCall
	outcomes     []Outcome
	// fromRecords is set when records witnessed the turn; responded when
	// one of them was its response.
	fromRecords, responded bool
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
func IsTurn(res *Result) bool {
	return res.ModelCall || res.ModelStep
}

// ReadTurn reads what a model-call span records of its run's tool calls into
// t, and reports whether it records any (a response or request it can read,
// or a finish reason).
func ReadTurn(span ptrace.Span, t *ModelTurn) bool {
	*t = ModelTurn{Start: uint64(span.StartTimestamp()), End: uint64(span.EndTimestamp())}
	for k, v := range span.Attributes().All() {
		tk, ok := turnKeyTab.lookup(k)
		if !ok {
			if mayBeIndexed(k) {
				t.readFlat(k, v)
			}
			continue
		}
		switch tk.side {
		case sideOutput:
			t.setOutput(tk.form, valueText(v))
		case sideInput:
			t.setInput(tk.form, valueText(v))
		case sideRawInput:
			t.rawInput = valueText(v)
		case sideFinish:
			t.finishTools = t.finishTools || finishAsksTools(v)
		}
	}
	if t.form == formNone && span.Events().Len() > 0 {
		t.readEvents(span.Events())
	}
	return t.form != formNone || t.finishTools
}

// turnKey is what an attribute key of a model turn records: a side of the
// turn (its response or request in form, the raw request, a finish
// reason).
type turnKey struct {
	side turnSide
	form turnForm
}

type turnSide uint8

const (
	sideOutput turnSide = iota
	sideInput
	sideRawInput
	sideFinish
)

// turnKeyTab finds what an attribute key records of a model turn, one
// slot lookup and one comparison per key (see keyTable).
var turnKeyTab = newKeyTable(map[string]turnKey{
	"gen_ai.output.messages":         {sideOutput, formGenAI},
	"gen_ai.input.messages":          {sideInput, formGenAI},
	"ai.response.toolCalls":          {sideOutput, formAISDK},
	"ai.prompt.messages":             {sideInput, formAISDK},
	"gcp.vertex.agent.llm_response":  {sideOutput, formADK},
	"gcp.vertex.agent.llm_request":   {sideInput, formADK},
	"genkit:output":                  {sideOutput, formGenkit},
	"genkit:input":                   {sideInput, formGenkit},
	"mastra.model_step.output":       {sideOutput, formMastra},
	"mastra.model_step.input":        {sideInput, formMastra},
	"input.value":                    {sideRawInput, formNone},
	"gen_ai.response.finish_reasons": {sideFinish, formNone},
	"ai.response.finishReason":       {sideFinish, formNone},
	"llm.finish_reason":              {sideFinish, formNone},
})

func (t *ModelTurn) setOutput(form turnForm, text string) {
	if text == "" {
		return
	}
	if t.form == formNone || t.form == form {
		// The span recorded the response: no record of it is awaited
		// (Gemini CLI writes its response event under the call's parent).
		t.form, t.output, t.responded = form, text, true
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
			if asksTools(asString(it)) {
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

// asString is v.AsString, without its call for a string value.
func asString(v pcommon.Value) string {
	if v.Type() == pcommon.ValueTypeStr {
		return v.Str()
	}
	return v.AsString()
}

// asksTools reports whether a finish reason asks for tool calls: lower-cased,
// it starts with "tool" or is "function_call".
//
// The finish reasons the conventions record are answered at once; other
// ASCII text is read in place (lower-casing it with strings.ToLower cost
// more than the rest of reading a model call's turn), and text with other
// bytes is lower-cased as Unicode (U+0130 lowers to an ASCII 'i').
func asksTools(s string) bool {
	switch s {
	case "tool_calls", "tool_call", "tool_use", "toolUse", "tool-calls", "function_call":
		return true
	case "stop", "STOP", "end_turn", "length", "max_tokens", "MAX_TOKENS", "content_filter", "other", "error":
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			s = strings.ToLower(s)
			return strings.HasPrefix(s, "tool") || s == "function_call"
		}
	}
	return len(s) >= len("tool") && equalLowerASCII(s[:len("tool")], "tool") ||
		len(s) == len("function_call") && equalLowerASCII(s, "function_call")
}

// equalLowerASCII reports whether the ASCII text s, lower-cased, is lower
// (lower-case ASCII of the same length).
func equalLowerASCII(s, lower string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
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
		case eventInferenceDetails:
			// The conventions' latest mode (Strands gen_ai_latest_experimental):
			// the request and response whole, as the span attributes would be.
			t.readInferenceEvent(ev)
			continue
		case "gen_ai.choice", "gen_ai.assistant.message", "gen_ai.tool.message":
		case "gen_ai.user.message", "gen_ai.system.message":
			// Kept by name: where the request's tool results stand.
			t.events = append(t.events, turnEvent{name: ev.Name()})
			continue
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
	t.Parse(nil)
	return t.requested
}

// History returns the calls of earlier turns that this turn's request
// lists (the assistant messages the app sent back as history).
func (t *ModelTurn) History() []RequestedCall {
	t.Parse(nil)
	return t.history
}

// FollowsTools reports whether the turn's request ends with tool results:
// the turn answers an earlier turn of its run that asked for those tools.
// (A run's first turn ends with the user's message, whatever conversation
// comes before it.)
func (t *ModelTurn) FollowsTools() bool {
	t.Parse(nil)
	return t.followsTools
}

// Outcomes returns the tool results this turn's request carries for calls
// of earlier turns.
func (t *ModelTurn) Outcomes() []Outcome {
	t.Parse(nil)
	return t.outcomes
}
