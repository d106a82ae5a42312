package extract

import (
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// parse reads the recorded texts once, with p. They are indexed as
// documents (one loop over the text, whatever its depth: a model's request
// may nest its history many levels deep, and this runs on the receiver's
// goroutine) and read through jnode; a GenAI text that names nothing a turn
// reads is not read (see genaiNamesTools).
func (t *ModelTurn) parse(p *TurnParser) {
	switch t.form {
	case formFlat:
		t.parseFlat()
		return
	case formStrands:
		t.parseStrands()
		return
	case formRecords:
		return // read as the records arrived (AddWitness)
	}
	if t.output != "" && t.mayName(t.output) {
		if root, ok := p.doc(0, t.output); ok {
			if t.form == formGenAI && root.d != nil {
				t.requested = appendIndexedGenAICalls(t.requested, root)
			} else {
				t.requested = appendCalls(t.requested, t.form, root, false)
			}
		}
	}
	if t.input != "" && t.form == formGenAI && t.readRequestTail(p) {
		// A request that begins with one read before names what it
		// named (the names hold no bracket): mayName takes it.
		return
	}
	if t.input != "" && t.mayName(t.input) {
		if root, ok := p.doc(1, t.input); ok {
			switch {
			case t.form == formGenAI && root.d != nil:
				t.readIndexedGenAIRequest(root)
				p.rememberRequest(t, root)
				return
			case t.form == formGenAI:
				t.readGenAIRequest(root)
				return
			}
			t.history = appendCalls(t.history, t.form, root, true)
			t.outcomes = appendOutcomes(t.outcomes, t.form, root)
			t.followsTools = endsWithResults(t.form, root)
		}
	}
}

// readGenAIRequest reads a GenAI request as appendCalls (history),
// appendOutcomes and endsWithResults read formGenAI, in one pass over its
// messages that reads each message's role and each part's type once: the
// request is the largest text of a model call, and its parts are most of
// what a turn's parse looks up.
func (t *ModelTurn) readGenAIRequest(root jnode) {
	msgs := messages(root)
	follows := false
	for i, m := range msgs {
		role, last := m.str("role"), i == len(msgs)-1
		follows = follows || last && role == "tool"
		for _, p := range m.items("parts") {
			typ := p.str("type")
			if role == "assistant" {
				t.history = appendPartCalls(t.history, p, typ)
			}
			if typ != "tool_call_response" {
				t.outcomes = appendPartOutcomes(t.outcomes, p, typ)
				continue
			}
			r, _ := p.get("response")
			t.outcomes = append(t.outcomes, Outcome{ID: partCallID(p), Result: p.text("response"), Failed: r.failed()})
			follows = follows || last
		}
	}
	t.followsTools = follows
}

// appendPartCalls appends the tool calls a GenAI message part of type typ
// records: a tool_call part, or Anthropic tool_use blocks.
func appendPartCalls(out []RequestedCall, p jnode, typ string) []RequestedCall {
	if typ == "tool_call" {
		return append(out, RequestedCall{ID: partCallID(p), Name: p.str("name"), Args: p.jsonText("arguments")})
	}
	return appendAnthropicUses(out, p, typ)
}

// endsWithResults reports whether a parsed request's last message holds
// tool results, in form.
func endsWithResults(form turnForm, v jnode) bool {
	var last jnode
	switch form {
	case formGenAI:
		msgs := messages(v)
		if len(msgs) == 0 {
			return false
		}
		last = msgs[len(msgs)-1]
		if last.str("role") == "tool" {
			return true
		}
		for _, p := range last.items("parts") {
			if p.str("type") == "tool_call_response" {
				return true
			}
		}
	case formAISDK, formMastra:
		msgs := v.elems()
		return len(msgs) > 0 && msgs[len(msgs)-1].str("role") == "tool"
	case formADK:
		contents := v.items("contents")
		if len(contents) == 0 {
			return false
		}
		for _, p := range contents[len(contents)-1].items("parts") {
			if _, ok := p.get("functionResponse"); ok {
				return true
			}
		}
	case formGenkit:
		msgs := v.items("messages")
		if len(msgs) == 0 {
			return false
		}
		for _, p := range msgs[len(msgs)-1].items("content") {
			if _, ok := p.get("toolResponse"); ok {
				return true
			}
		}
	}
	return false
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
	lastMsg := -1
	for _, m := range t.flatMessages {
		if m.role != "" && m.msg > lastMsg {
			lastMsg, t.followsTools = m.msg, m.role == "tool" || m.id != ""
		}
	}
	for _, m := range t.flatMessages {
		if m.role != "tool" && m.id == "" {
			continue
		}
		t.outcomes = append(t.outcomes, Outcome{ID: m.id, Name: m.name, Result: m.content, Failed: failedText(m.content)})
	}
	if t.rawInput != "" {
		t.outcomes = rawRequestOutcomes(t.outcomes, t.rawInput)
	}
}

func (t *ModelTurn) parseStrands() {
	var dp jsonv.DocumentParser
	for _, e := range t.events {
		if e.name != "gen_ai.choice" {
			t.followsTools = e.name == "gen_ai.tool.message"
		}
		switch e.name {
		case "gen_ai.choice":
			if e.id != "" {
				continue // a tool's result, recorded on the tool's span too
			}
			if d, err := dp.Parse(e.message); err == nil {
				t.requested = appendStrandsUses(t.requested, rootNode(&d))
			}
		case "gen_ai.assistant.message":
			if d, err := dp.Parse(e.content); err == nil {
				t.history = appendStrandsUses(t.history, rootNode(&d))
			}
		case "gen_ai.tool.message":
			if d, err := dp.Parse(e.content); err == nil {
				for _, part := range rootNode(&d).elems() {
					if r, ok := part.get("toolResult"); ok {
						o := Outcome{ID: r.str("toolUseId"), Result: r.text("content")}
						o.Failed = r.str("status") == "error" || failedText(o.Result)
						t.outcomes = append(t.outcomes, o)
					}
				}
			}
		}
	}
}

// appendStrandsUses appends the toolUse parts of a Strands message.
func appendStrandsUses(out []RequestedCall, v jnode) []RequestedCall {
	for _, part := range v.elems() {
		use := part
		if u, ok := part.get("toolUse"); ok {
			use = u
		} else if part.str("type") != "toolUse" {
			continue
		}
		out = append(out, RequestedCall{ID: use.str("toolUseId"), Name: use.str("name"), Args: use.jsonText("input")})
	}
	return out
}

// appendCalls appends the tool calls a parsed response (or, with history,
// the assistant messages of a request) records in form.
func appendCalls(out []RequestedCall, form turnForm, v jnode, history bool) []RequestedCall {
	switch form {
	case formGenAI:
		for _, m := range messages(v) {
			if history && m.str("role") != "assistant" {
				continue
			}
			for _, p := range m.items("parts") {
				typ := p.str("type")
				if typ != "tool_call" && !history {
					if fc, ok := p.get("functionCall"); ok {
						// Gemini API contents: Gemini CLI's llm_call
						// response. Its ids are of two kinds (the CLI's
						// call id here, the model's in the requests that
						// follow), so the call is known by name, as an
						// ADK request's is.
						out = append(out, RequestedCall{Name: fc.str("name"), Args: fc.jsonText("args")})
						continue
					}
				}
				out = appendPartCalls(out, p, typ)
			}
		}
	case formAISDK:
		if !history {
			for _, c := range v.elems() {
				out = append(out, RequestedCall{ID: c.str("toolCallId"), Name: c.str("toolName"), Args: c.firstJSON("input", "args")})
			}
			return out
		}
		for _, m := range v.elems() {
			if m.str("role") != "assistant" {
				continue
			}
			for _, p := range m.items("content") {
				if p.str("type") == "tool-call" {
					out = append(out, RequestedCall{ID: p.str("toolCallId"), Name: p.str("toolName"), Args: p.firstJSON("input", "args")})
				}
			}
		}
	case formADK:
		contents := v.items("contents")
		if !history {
			if c, ok := v.get("content"); ok {
				contents = []jnode{c}
			}
		}
		for _, c := range contents {
			for _, p := range c.items("parts") {
				if fc, ok := p.get("functionCall"); ok {
					out = append(out, RequestedCall{ID: fc.str("id"), Name: fc.str("name"), Args: fc.jsonText("args")})
				}
			}
		}
	case formGenkit:
		msgs := v.items("messages")
		if !history {
			if m, ok := v.get("message"); ok {
				msgs = []jnode{m}
			}
		}
		for _, m := range msgs {
			for _, p := range m.items("content") {
				if tr, ok := p.get("toolRequest"); ok {
					out = append(out, RequestedCall{ID: tr.str("ref"), Name: tr.str("name"), Args: tr.jsonText("input")})
				}
			}
		}
	case formMastra:
		if history {
			// Mastra's step input summarises earlier calls by name:
			// "[tool: get_weather][tool: lookup_stock]".
			for _, m := range v.elems() {
				if m.str("role") == "assistant" {
					out = appendToolMarkers(out, m.str("content"))
				}
			}
			return out
		}
		for _, c := range v.items("toolCalls") {
			out = append(out, RequestedCall{ID: c.str("toolCallId"), Name: c.str("toolName"), Args: c.firstJSON("args", "input")})
		}
	}
	return out
}

// appendToolMarkers appends a call, by name only, for each "[tool: name]"
// in a Mastra step's summary of an assistant message.
func appendToolMarkers(out []RequestedCall, content string) []RequestedCall {
	const marker = "[tool: "
	for {
		i := strings.Index(content, marker)
		if i < 0 {
			return out
		}
		content = content[i+len(marker):]
		j := strings.IndexByte(content, ']')
		if j < 0 {
			return out
		}
		if name := strings.TrimSpace(content[:j]); name != "" {
			out = append(out, RequestedCall{Name: name})
		}
		content = content[j+1:]
	}
}

// appendOutcomes appends the tool results a parsed request records in form.
func appendOutcomes(out []Outcome, form turnForm, v jnode) []Outcome {
	switch form {
	case formGenAI:
		for _, m := range messages(v) {
			for _, p := range m.items("parts") {
				if typ := p.str("type"); typ != "tool_call_response" {
					out = appendPartOutcomes(out, p, typ)
					continue
				}
				r, _ := p.get("response")
				out = append(out, Outcome{ID: partCallID(p), Result: p.text("response"), Failed: r.failed()})
			}
		}
	case formAISDK:
		for _, m := range v.elems() {
			if m.str("role") != "tool" {
				continue
			}
			for _, p := range m.items("content") {
				if p.str("type") != "tool-result" {
					continue
				}
				o := Outcome{ID: p.str("toolCallId"), Name: p.str("toolName"), Result: p.firstText("output", "result")}
				outType := ""
				if r, ok := p.get("output"); ok {
					outType = r.str("type")
				}
				o.Failed = strings.HasPrefix(outType, "error") || p.boolean("isError")
				out = append(out, o)
			}
		}
	case formADK:
		for _, c := range v.items("contents") {
			for _, p := range c.items("parts") {
				if fr, ok := p.get("functionResponse"); ok {
					r, _ := fr.get("response")
					out = append(out, Outcome{ID: fr.str("id"), Name: fr.str("name"), Result: fr.text("response"), Failed: r.failed()})
				}
			}
		}
	case formGenkit:
		for _, m := range v.items("messages") {
			for _, p := range m.items("content") {
				if tr, ok := p.get("toolResponse"); ok {
					r, _ := tr.get("output")
					out = append(out, Outcome{ID: tr.str("ref"), Name: tr.str("name"), Result: tr.text("output"), Failed: r.failed()})
				}
			}
		}
	}
	return out
}

// messages returns the messages of a GenAI messages value: a list, or an
// object holding one under "messages".
func messages(v jnode) []jnode {
	if v.kind() == jsonv.KindObject {
		return v.items("messages")
	}
	return v.elems()
}

// toolErrorTexts are results frameworks send back in place of a failed
// tool's: the OpenAI Agents SDK's default tool error.
var toolErrorTexts = []string{"An error occurred while running the tool"}

// failedText reports a tool result text that reports a failure: it starts
// with "error" (any case) followed by a separator, it is a framework's
// tool-error message, or it is a JSON object with an "error" member that is
// not null or false.
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
		var dp jsonv.DocumentParser
		if d, err := dp.Parse(t); err == nil {
			return rootNode(&d).failed()
		}
	}
	return false
}

// partCallID is a GenAI tool_call or tool_call_response part's call id:
// its call_id when it has one, else its id. The OTel contrib OpenAI
// instrumentation (JS 0.22.0) writes a Responses API call's item id as id
// and the call id the app answers by as call_id, and only call_id on the
// parts of the request.
func partCallID(p jnode) string {
	if id := p.str("call_id"); id != "" {
		return id
	}
	return p.str("id")
}
