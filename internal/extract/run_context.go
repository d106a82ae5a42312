package extract

import (
	"sort"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"
)

// ContextPart is what one agent or model-call span records of its run's
// context: the tool definitions the model was offered, the request (input
// messages) and the response (output messages), as recorded text. Strings
// reference the span's attribute values.
type ContextPart struct {
	// Definitions are texts scoring.ParseToolDefinitions reads: lists,
	// single items, or an ADK llm_request (its config.tools).
	Definitions []string
	// Request and Response are the recorded input and output.
	Request, Response string
	// Start and End are the span's timestamps: a run's request is its
	// first model call's, its response its last's.
	Start, End uint64
}

// Empty reports a part with nothing recorded.
func (c *ContextPart) Empty() bool {
	return len(c.Definitions) == 0 && c.Request == "" && c.Response == ""
}

// contextRole says what an attribute of an agent or model-call span holds.
type contextRole uint8

const (
	roleNone contextRole = iota
	roleDefinitions
	roleRequest
	roleResponse
)

// contextKeys are the single attributes that hold context, per convention:
// OTel GenAI (gen_ai.tool.definitions, gen_ai.input/output.messages),
// OpenInference (input.value, output.value on AGENT/CHAIN/LLM spans),
// OpenLLMetry (traceloop.entity.input/output), AI SDK (ai.prompt.tools,
// ai.prompt, ai.prompt.messages, ai.response.text), Genkit (genkit:input,
// genkit:output), ADK Python (gcp.vertex.agent.llm_request/llm_response),
// and the 1.26-style gen_ai.prompt / gen_ai.completion.
var contextKeys = map[string]contextRole{
	"gen_ai.tool.definitions":       roleDefinitions,
	"ai.prompt.tools":               roleDefinitions,
	"gen_ai.input.messages":         roleRequest,
	"gen_ai.output.messages":        roleResponse,
	"input.value":                   roleRequest,
	"output.value":                  roleResponse,
	"traceloop.entity.input":        roleRequest,
	"traceloop.entity.output":       roleResponse,
	"ai.prompt":                     roleRequest,
	"ai.prompt.messages":            roleRequest,
	"ai.response.text":              roleResponse,
	"genkit:input":                  roleRequest,
	"genkit:output":                 roleResponse,
	"gcp.vertex.agent.llm_request":  roleRequest, // and definitions (config.tools)
	"gcp.vertex.agent.llm_response": roleResponse,
	"gen_ai.prompt":                 roleRequest,
	"gen_ai.completion":             roleResponse,
}

// indexedItem is one attribute of an indexed family (llm.tools.N.*,
// llm.input_messages.N.*, gen_ai.prompt.N.*).
type indexedItem struct {
	index       int
	field, text string
}

// CaptureContext reads the run context an agent or model-call span records.
func CaptureContext(span ptrace.Span) ContextPart {
	part := ContextPart{Start: uint64(span.StartTimestamp()), End: uint64(span.EndTimestamp())}
	var tools, functions, inputs, outputs []indexedItem
	for k, v := range span.Attributes().All() {
		if role, ok := contextKeys[k]; ok {
			text := contextText(v)
			if text == "" || text == "{}" || text == "[]" {
				continue
			}
			switch role {
			case roleDefinitions:
				part.Definitions = append(part.Definitions, text)
			case roleRequest:
				if k == "gcp.vertex.agent.llm_request" && strings.Contains(text, `"tools"`) {
					part.Definitions = append(part.Definitions, text)
				}
				part.Request = preferLonger(part.Request, text)
			case roleResponse:
				part.Response = preferLonger(part.Response, text)
			}
			continue
		}
		switch {
		case strings.HasPrefix(k, "llm.tools."):
			tools = appendIndexed(tools, k[len("llm.tools."):], v)
		case strings.HasPrefix(k, "llm.request.functions."):
			functions = appendIndexed(functions, k[len("llm.request.functions."):], v)
		case strings.HasPrefix(k, "llm.input_messages."):
			inputs = appendIndexed(inputs, k[len("llm.input_messages."):], v)
		case strings.HasPrefix(k, "llm.output_messages."):
			outputs = appendIndexed(outputs, k[len("llm.output_messages."):], v)
		case strings.HasPrefix(k, "gen_ai.prompt."):
			inputs = appendIndexed(inputs, k[len("gen_ai.prompt."):], v)
		case strings.HasPrefix(k, "gen_ai.completion."):
			outputs = appendIndexed(outputs, k[len("gen_ai.completion."):], v)
		}
	}
	for _, t := range tools {
		if t.field == "tool.json_schema" {
			part.Definitions = append(part.Definitions, t.text)
		}
	}
	if defs := functionDefinitions(functions); defs != "" {
		part.Definitions = append(part.Definitions, defs)
	}
	if part.Request == "" {
		part.Request = renderMessages(inputs)
	}
	if part.Response == "" {
		part.Response = renderMessages(outputs)
	}
	return part
}

// preferLonger keeps the fuller of two texts for one role (OpenInference
// records input.value beside the flattened messages).
func preferLonger(have, text string) string {
	if len(text) > len(have) {
		return text
	}
	return have
}

// contextText is an attribute as text: strings as they are, string lists as a
// JSON list of their items (AI SDK's ai.prompt.tools), other values as JSON.
func contextText(v pcommon.Value) string {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return v.Str()
	case pcommon.ValueTypeSlice:
		items := make([]scoring.Value, 0, v.Slice().Len())
		for _, it := range v.Slice().All() {
			if it.Type() == pcommon.ValueTypeStr {
				items = append(items, scoring.String(it.Str()))
			}
		}
		return scoring.Array(items...).JSON()
	case pcommon.ValueTypeEmpty:
		return ""
	}
	return v.AsString()
}

// appendIndexed adds "N.field" of an indexed family.
func appendIndexed(items []indexedItem, rest string, v pcommon.Value) []indexedItem {
	dot := strings.IndexByte(rest, '.')
	if dot <= 0 || len(items) >= 4*scoring.MaxToolDefinitions {
		return items
	}
	n, err := strconv.Atoi(rest[:dot])
	if err != nil || n < 0 {
		return items
	}
	return append(items, indexedItem{index: n, field: rest[dot+1:], text: contextText(v)})
}

// functionDefinitions assembles OpenLLMetry's llm.request.functions.N.{name,
// description,parameters} into a definitions list.
func functionDefinitions(items []indexedItem) string {
	if len(items) == 0 {
		return ""
	}
	byIndex := map[int][]scoring.Member{}
	var order []int
	for _, it := range items {
		members, seen := byIndex[it.index]
		if !seen {
			order = append(order, it.index)
		}
		switch it.field {
		case "name", "description", "parameters":
			members = append(members, scoring.Member{Key: it.field, Value: scoring.String(it.text)})
		}
		byIndex[it.index] = members // an index with no known field is still an (empty) item
	}
	sort.Ints(order)
	list := make([]scoring.Value, 0, len(order))
	for _, i := range order {
		list = append(list, scoring.Object(byIndex[i]...))
	}
	return scoring.Array(list...).JSON()
}

// renderMessages renders flattened messages (N.message.role/content, or
// N.role/content) as a JSON list of {"role","content"} in index order.
func renderMessages(items []indexedItem) string {
	type msg struct{ role, content string }
	byIndex := map[int]*msg{}
	var order []int
	for _, it := range items {
		field := strings.TrimPrefix(it.field, "message.")
		if field != "role" && field != "content" {
			continue
		}
		m := byIndex[it.index]
		if m == nil {
			m = &msg{}
			byIndex[it.index] = m
			order = append(order, it.index)
		}
		if field == "role" {
			m.role = it.text
		} else {
			m.content = it.text
		}
	}
	if len(order) == 0 {
		return ""
	}
	sort.Ints(order)
	list := make([]scoring.Value, 0, len(order))
	for _, i := range order {
		m := byIndex[i]
		list = append(list, scoring.Object(scoring.Member{Key: "role", Value: scoring.String(m.role)}, scoring.Member{Key: "content", Value: scoring.String(m.content)}))
	}
	return scoring.Array(list...).JSON()
}
