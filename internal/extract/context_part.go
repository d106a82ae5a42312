package extract

import (
	"cmp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// ContextPart is what one agent or model-call span records of its run's
// context: the tool definitions the model was offered, the request (input
// messages) and the response (output messages), as recorded text. Strings
// reference the span's attribute values.
type ContextPart struct {
	// Definitions are texts toolcall.ParseToolDefinitions reads: lists,
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

// family is an indexed family of attributes CaptureContext reads.
type family uint8

const (
	famTools     family = iota // llm.tools.N.*
	famFunctions               // llm.request.functions.N.*
	famInputs                  // llm.input_messages.N.*, gen_ai.prompt.N.*
	famOutputs                 // llm.output_messages.N.*, gen_ai.completion.N.*
	numFamilies
)

// mayBeIndexed is indexedFamily's first test, inlined: only keys that
// start with llm., gen_ai.p or gen_ai.c may be in an indexed family. Most
// gen_ai.* keys are not.
func mayBeIndexed(k string) bool {
	switch {
	case len(k) > len("llm.") && k[0] == 'l':
		return k[:len("llm.")] == "llm."
	case len(k) > len("gen_ai.") && k[0] == 'g':
		return (k[7] == 'p' || k[7] == 'c') && k[:len("gen_ai.")] == "gen_ai."
	}
	return false
}

// indexedStart reports, for a key mayBeIndexed lets through, whether it
// starts like an indexed family's prefix, from a few of its bytes: most
// llm.* keys (llm.token_count.*, llm.request.type, llm.model_name) and
// gen_ai.provider.* and gen_ai.conversation.* fail it. Keys indexedFamily
// takes pass.
func indexedStart(k string) bool {
	switch {
	case len(k) >= len("llm.tools.") && k[:len("llm.")] == "llm.":
		switch k[4] {
		case 't':
			return k[5] == 'o' && k[6] == 'o'
		case 'r':
			return len(k) > len("llm.request.") && k[12] == 'f'
		case 'i':
			return k[6] == 'p'
		case 'o':
			return k[5] == 'u'
		}
	case len(k) >= len("gen_ai.prompt.") && k[:len("gen_ai.")] == "gen_ai.":
		return k[7] == 'p' && k[13] == '.' || k[7] == 'c' && len(k) >= len("gen_ai.completion.") && k[17] == '.'
	}
	return false
}

// indexedFamily returns the indexed family whose prefix key k starts with
// (llm.tools., llm.request.functions., llm.input_messages.,
// llm.output_messages., gen_ai.prompt., gen_ai.completion.) and the rest of
// the key. The prefixes are constants, compared without a call: most keys
// of a GenAI span start with gen_ai. or llm. but belong to no family.
func indexedFamily(k string) (family, string, bool) {
	if r, ok := strings.CutPrefix(k, "llm."); ok {
		switch {
		case strings.HasPrefix(r, "tools."):
			return famTools, r[len("tools."):], true
		case strings.HasPrefix(r, "request.functions."):
			return famFunctions, r[len("request.functions."):], true
		case strings.HasPrefix(r, "input_messages."):
			return famInputs, r[len("input_messages."):], true
		case strings.HasPrefix(r, "output_messages."):
			return famOutputs, r[len("output_messages."):], true
		}
		return 0, "", false
	}
	if r, ok := strings.CutPrefix(k, "gen_ai."); ok {
		switch {
		case strings.HasPrefix(r, "prompt."):
			return famInputs, r[len("prompt."):], true
		case strings.HasPrefix(r, "completion."):
			return famOutputs, r[len("completion."):], true
		}
	}
	return 0, "", false
}

// indexedItem is one attribute of an indexed family (llm.tools.N.*,
// llm.input_messages.N.*, gen_ai.prompt.N.*).
type indexedItem struct {
	fam         family
	index       int
	field, text string
}

// CaptureContext reads the run context an agent or model-call span records.
func CaptureContext(span ptrace.Span) ContextPart {
	part := ContextPart{Start: uint64(span.StartTimestamp()), End: uint64(span.EndTimestamp())}
	// The indexed attributes of every family, in one list: they are few,
	// and fit in the frame.
	var buf [16]indexedItem
	indexed := buf[:0]
	var count [numFamilies]int
	for k, v := range span.Attributes().All() {
		if sk, ok := keyTab.lookup(k); ok && sk.role != roleNone {
			addContext(&part, sk, v)
			continue
		}
		if !mayBeIndexed(k) {
			continue // no indexed family's prefix
		}
		if fam, rest, ok := indexedFamily(k); ok {
			indexed = appendIndexed(indexed, &count, fam, rest, v)
		}
	}
	for _, t := range indexed {
		if t.fam == famTools && t.field == "tool.json_schema" {
			part.Definitions = append(part.Definitions, t.text)
		}
	}
	if count[famFunctions] > 0 {
		part.Definitions = append(part.Definitions, functionDefinitions(indexed))
	}
	if part.Request == "" {
		part.Request = renderMessages(indexed, famInputs)
	}
	if part.Response == "" {
		part.Response = renderMessages(indexed, famOutputs)
	}
	return part
}

// addContext adds to part the value of a single context key.
func addContext(part *ContextPart, sk spanKey, v pcommon.Value) {
	text := contextText(v)
	if text == "" || text == "{}" || text == "[]" {
		return
	}
	switch sk.role {
	case roleDefinitions:
		part.Definitions = append(part.Definitions, text)
	case roleRequest:
		if sk.field == fADKLLMRequest && strings.Contains(text, `"tools"`) {
			part.Definitions = append(part.Definitions, text)
		}
		part.Request = preferLonger(part.Request, text)
	case roleResponse:
		part.Response = preferLonger(part.Response, text)
	}
}

// context is the run context of a span from the context values of its
// one pass (see fields.ctx), which hold all of it unless rescan is set.
func (f *fields) context(span ptrace.Span) ContextPart {
	part := ContextPart{Start: uint64(span.StartTimestamp()), End: uint64(span.EndTimestamp())}
	for i := range f.nctx {
		addContext(&part, f.ctxKey[i], f.ctx[i])
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
		return cachedStringListJSON(v.Slice())
	case pcommon.ValueTypeEmpty:
		return ""
	}
	return v.AsString()
}

// stringListJSON writes the string items of list as a JSON list (other
// items are left out), sized first so that the text takes one allocation.
func stringListJSON(list pcommon.Slice) string {
	n, items := 2, 0
	for _, it := range list.All() {
		if it.Type() == pcommon.ValueTypeStr {
			n += jsonStringLen(it.Str())
			items++
		}
	}
	if items > 1 {
		n += items - 1 // commas
	}
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte('[')
	first := true
	for _, it := range list.All() {
		if it.Type() != pcommon.ValueTypeStr {
			continue
		}
		if !first {
			sb.WriteByte(',')
		}
		first = false
		writeJSONString(&sb, it.Str())
	}
	sb.WriteByte(']')
	return sb.String()
}

// appendIndexed adds "N.field" of family fam, at most
// 4*toolcall.MaxToolDefinitions per family; count holds each family's.
func appendIndexed(items []indexedItem, count *[numFamilies]int, fam family, rest string, v pcommon.Value) []indexedItem {
	dot := strings.IndexByte(rest, '.')
	if dot <= 0 || count[fam] >= 4*toolcall.MaxToolDefinitions {
		return items
	}
	n, err := strconv.Atoi(rest[:dot])
	if err != nil || n < 0 {
		return items
	}
	count[fam]++
	return append(items, indexedItem{fam: fam, index: n, field: rest[dot+1:], text: contextText(v)})
}

// functionDefinitions assembles OpenLLMetry's llm.request.functions.N.{name,
// description,parameters} into a definitions list.
func functionDefinitions(all []indexedItem) string {
	byIndex := map[int][]jsonv.Member{}
	var order []int
	for _, it := range all {
		if it.fam != famFunctions {
			continue
		}
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

// message is one flattened message renderMessages writes.
type message struct {
	index         int
	role, content string
}

// messageScanLimit is the message count up to which renderMessages finds a
// message by scanning; past it, a map of the indices keeps the cost linear.
const messageScanLimit = 16

// renderMessages renders the flattened messages of fam (N.message.role/
// content, or N.role/content) as a JSON list of {"role","content"} in
// index order; for a field written twice, its last value.
func renderMessages(all []indexedItem, fam family) string {
	var buf [8]message
	msgs := buf[:0]
	var at map[int]int // index -> position in msgs, past messageScanLimit
	for _, it := range all {
		if it.fam != fam {
			continue
		}
		field := strings.TrimPrefix(it.field, "message.")
		if field != "role" && field != "content" {
			continue
		}
		k := findMessage(msgs, it.index, &at)
		if k < 0 {
			k = len(msgs)
			msgs = append(msgs, message{index: it.index})
		}
		if field == "role" {
			msgs[k].role = it.text
		} else {
			msgs[k].content = it.text
		}
	}
	if len(msgs) == 0 {
		return ""
	}
	slices.SortFunc(msgs, func(a, b message) int { return cmp.Compare(a.index, b.index) })
	return messagesJSON(msgs)
}

// findMessage returns the position in msgs of the message with index i, or
// -1 (and records that i goes next). Past messageScanLimit messages it keeps
// *at, a map of their indices.
func findMessage(msgs []message, i int, at *map[int]int) int {
	if len(msgs) < messageScanLimit {
		for k := len(msgs) - 1; k >= 0; k-- {
			if msgs[k].index == i {
				return k
			}
		}
		return -1
	}
	if *at == nil {
		*at = make(map[int]int, 2*len(msgs))
		for k := range msgs {
			(*at)[msgs[k].index] = k
		}
	}
	if k, ok := (*at)[i]; ok {
		return k
	}
	(*at)[i] = len(msgs)
	return -1
}

// messagesJSON writes msgs as a JSON list of {"role","content"} objects,
// as scoring writes them, in one allocation.
func messagesJSON(msgs []message) string {
	const open, mid, end = `{"role":`, `,"content":`, `}`
	n := 2 + len(msgs) - 1
	for _, m := range msgs {
		n += len(open) + jsonStringLen(m.role) + len(mid) + jsonStringLen(m.content) + len(end)
	}
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte('[')
	for k, m := range msgs {
		if k > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(open)
		writeJSONString(&sb, m.role)
		sb.WriteString(mid)
		writeJSONString(&sb, m.content)
		sb.WriteString(end)
	}
	sb.WriteByte(']')
	return sb.String()
}
