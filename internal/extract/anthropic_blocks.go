package extract

import (
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// Anthropic's Messages format answers a tool_use block with a tool_result
// content block in the next user message:
// {"type":"tool_result","tool_use_id":…,"content":…,"is_error":true}. The
// failure flag is recorded nowhere else, so these blocks are read wherever
// a model-call span records its request: in the semconv messages (a part of
// that type), in the raw request JSON an instrumentation keeps
// (OpenInference's input.value), and in flattened messages (a message with a
// tool_call_id is a tool result whatever its role: Anthropic's is "user").

// anthropicOutcome reads a tool_result content block.
func anthropicOutcome(p jnode) (Outcome, bool) {
	return anthropicOutcomeOf(p, p.str("type"))
}

// anthropicOutcomeOf is anthropicOutcome for a block whose type was read.
func anthropicOutcomeOf(p jnode, typ string) (Outcome, bool) {
	if typ != "tool_result" {
		return Outcome{}, false
	}
	o := Outcome{ID: p.str("tool_use_id"), Result: p.text("content")}
	o.Failed = p.boolean("is_error") || failedText(o.Result)
	return o, true
}

// appendAnthropicOutcomes appends the tool_result blocks of a request's
// messages (a list, or an object holding one under "messages"), each
// message's content being a list of blocks.
func appendAnthropicOutcomes(out []Outcome, v jnode) []Outcome {
	for _, m := range messages(v) {
		for _, p := range m.items("content") {
			if o, ok := anthropicOutcome(p); ok {
				out = append(out, o)
			}
		}
	}
	return out
}

// rawRequestOutcomes reads the tool_result blocks of a raw request (JSON
// text), and merges them into outcomes: a block's outcome replaces the one
// flattened attributes gave the same call id (flattening drops is_error), or
// is added. The text is parsed only when it holds a tool_result block.
func rawRequestOutcomes(outcomes []Outcome, raw string) []Outcome {
	if !strings.Contains(raw, `"tool_result"`) {
		return outcomes
	}
	var dp jsonv.DocumentParser
	d, err := dp.Parse(raw)
	if err != nil {
		return outcomes
	}
	for _, o := range appendAnthropicOutcomes(nil, rootNode(&d)) {
		replaced := false
		for i := range outcomes {
			if o.ID != "" && outcomes[i].ID == o.ID {
				o.Name = outcomes[i].Name
				outcomes[i], replaced = o, true
				break
			}
		}
		if !replaced {
			outcomes = append(outcomes, o)
		}
	}
	return outcomes
}

// Some instrumentations flatten a message's Anthropic content blocks into
// one text part holding their JSON (OpenLLMetry's LangChain instrumentation
// with ChatAnthropic writes the assistant's tool_use blocks so:
// {"type":"text","content":"[{\"type\":\"tool_use\",\"id\":…,\"name\":…,\"input\":…}]"}).
// Such a text is read as the blocks it holds.

// blockText returns the JSON text of content blocks a text part holds, ""
// when its text is not a list of blocks of type typ. partType is the
// part's type, read by the caller. A text that, as written, starts with
// another character than '[' is not decoded (a user's message, often
// kilobytes of escaped text).
func blockText(p jnode, partType, typ string) string {
	if partType != "text" {
		return ""
	}
	c, ok := p.get("content")
	if !ok || c.kind() != jsonv.KindString || !c.mayStartWith('[') {
		return ""
	}
	s := c.asText()
	if !strings.HasPrefix(s, `[{"type":"`+typ+`"`) {
		return ""
	}
	return s
}

// appendAnthropicUses appends the tool_use blocks of a part of type typ:
// the part itself, or the blocks a text part holds.
func appendAnthropicUses(out []RequestedCall, p jnode, typ string) []RequestedCall {
	use := func(b jnode) {
		out = append(out, RequestedCall{ID: b.str("id"), Name: b.str("name"), Args: b.jsonText("input")})
	}
	if s := blockText(p, typ, "tool_use"); s != "" {
		var dp jsonv.DocumentParser
		if d, err := dp.Parse(s); err == nil {
			for _, b := range rootNode(&d).elems() {
				if b.str("type") == "tool_use" {
					use(b)
				}
			}
		}
		return out
	}
	if typ == "tool_use" {
		use(p)
	}
	return out
}

// appendPartOutcomes appends the tool_result blocks of a part of type typ:
// the part itself, or the blocks a text part holds.
func appendPartOutcomes(out []Outcome, p jnode, typ string) []Outcome {
	if s := blockText(p, typ, "tool_result"); s != "" {
		var dp jsonv.DocumentParser
		if d, err := dp.Parse(s); err == nil {
			for _, b := range rootNode(&d).elems() {
				if o, ok := anthropicOutcome(b); ok {
					out = append(out, o)
				}
			}
		}
		return out
	}
	if o, ok := anthropicOutcomeOf(p, typ); ok {
		out = append(out, o)
	}
	return out
}
