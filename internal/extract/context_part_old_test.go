package extract

import (
	"sort"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// This file keeps CaptureContext as it was before it was made to allocate
// less: the reference the differential tests compare it with.

type oldIndexedItem struct {
	index       int
	field, text string
}

// CaptureContext reads the run context an agent or model-call span records.
func oldCaptureContext(span ptrace.Span) ContextPart {
	part := ContextPart{Start: uint64(span.StartTimestamp()), End: uint64(span.EndTimestamp())}
	var tools, functions, inputs, outputs []oldIndexedItem
	for k, v := range span.Attributes().All() {
		if role, ok := contextKeys[k]; ok {
			text := oldContextText(v)
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
				part.Request = oldPreferLonger(part.Request, text)
			case roleResponse:
				part.Response = oldPreferLonger(part.Response, text)
			}
			continue
		}
		switch {
		case strings.HasPrefix(k, "llm.tools."):
			tools = oldAppendIndexed(tools, k[len("llm.tools."):], v)
		case strings.HasPrefix(k, "llm.request.functions."):
			functions = oldAppendIndexed(functions, k[len("llm.request.functions."):], v)
		case strings.HasPrefix(k, "llm.input_messages."):
			inputs = oldAppendIndexed(inputs, k[len("llm.input_messages."):], v)
		case strings.HasPrefix(k, "llm.output_messages."):
			outputs = oldAppendIndexed(outputs, k[len("llm.output_messages."):], v)
		case strings.HasPrefix(k, "gen_ai.prompt."):
			inputs = oldAppendIndexed(inputs, k[len("gen_ai.prompt."):], v)
		case strings.HasPrefix(k, "gen_ai.completion."):
			outputs = oldAppendIndexed(outputs, k[len("gen_ai.completion."):], v)
		}
	}
	for _, t := range tools {
		if t.field == "tool.json_schema" {
			part.Definitions = append(part.Definitions, t.text)
		}
	}
	if defs := oldFunctionDefinitions(functions); defs != "" {
		part.Definitions = append(part.Definitions, defs)
	}
	if part.Request == "" {
		part.Request = oldRenderMessages(inputs)
	}
	if part.Response == "" {
		part.Response = oldRenderMessages(outputs)
	}
	return part
}

// preferLonger keeps the fuller of two texts for one role (OpenInference
// records input.value beside the flattened messages).
func oldPreferLonger(have, text string) string {
	if len(text) > len(have) {
		return text
	}
	return have
}

// contextText is an attribute as text: strings as they are, string lists as a
// JSON list of their items (AI SDK's ai.prompt.tools), other values as JSON.
func oldContextText(v pcommon.Value) string {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return v.Str()
	case pcommon.ValueTypeSlice:
		items := make([]jsonv.Value, 0, v.Slice().Len())
		for _, it := range v.Slice().All() {
			if it.Type() == pcommon.ValueTypeStr {
				items = append(items, jsonv.String(it.Str()))
			}
		}
		return jsonv.Array(items...).JSON()
	case pcommon.ValueTypeEmpty:
		return ""
	}
	return v.AsString()
}

// appendIndexed adds "N.field" of an indexed family.
func oldAppendIndexed(items []oldIndexedItem, rest string, v pcommon.Value) []oldIndexedItem {
	dot := strings.IndexByte(rest, '.')
	if dot <= 0 || len(items) >= 4*toolcall.MaxToolDefinitions {
		return items
	}
	n, err := strconv.Atoi(rest[:dot])
	if err != nil || n < 0 {
		return items
	}
	return append(items, oldIndexedItem{index: n, field: rest[dot+1:], text: oldContextText(v)})
}

// functionDefinitions assembles OpenLLMetry's llm.request.functions.N.{name,
// description,parameters} into a definitions list.
func oldFunctionDefinitions(items []oldIndexedItem) string {
	if len(items) == 0 {
		return ""
	}
	byIndex := map[int][]jsonv.Member{}
	var order []int
	for _, it := range items {
		members, seen := byIndex[it.index]
		if !seen {
			order = append(order, it.index)
		}
		switch it.field {
		case "name", "description", "parameters":
			members = append(members, jsonv.Member{Key: it.field, Value: jsonv.String(it.text)})
		}
		byIndex[it.index] = members // an index with no known field is still an (empty) item
	}
	sort.Ints(order)
	list := make([]jsonv.Value, 0, len(order))
	for _, i := range order {
		list = append(list, jsonv.Object(byIndex[i]...))
	}
	return jsonv.Array(list...).JSON()
}

// renderMessages renders flattened messages (N.message.role/content, or
// N.role/content) as a JSON list of {"role","content"} in index order.
func oldRenderMessages(items []oldIndexedItem) string {
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
	list := make([]jsonv.Value, 0, len(order))
	for _, i := range order {
		m := byIndex[i]
		list = append(list, jsonv.Object(jsonv.Member{Key: "role", Value: jsonv.String(m.role)}, jsonv.Member{Key: "content", Value: jsonv.String(m.content)}))
	}
	return jsonv.Array(list...).JSON()
}
