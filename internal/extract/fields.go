package extract

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// fieldID names an attribute the classifier reads.
type fieldID uint8

const (
	fOpName fieldID = iota
	fToolName
	fToolCallID
	fToolArgs
	fToolResult
	fToolType
	fToolStatus
	fErrorType
	fADKArgs
	fADKResponse
	fMCPMethod
	fOISpanKind
	fOIToolName
	fOIToolID
	fInputValue
	fInputMime
	fOutputValue
	fTLSpanKind
	fTLEntityName
	fTLEntityInput
	fTLEntityOutput
	fTLEntityPath
	fAIOperationID
	fAIToolName
	fAIToolID
	fAIToolArgs
	fAIToolResult
	fSpringKind
	fSpringToolName
	fSpringToolID
	fSpringToolArgs
	fSpringToolResult
	fGenkitType
	fGenkitSubtype
	fGenkitName
	fGenkitInput
	fGenkitOutput
	fGenkitState
	fMastraSpanType
	fPydanticArgs
	fPydanticResponse
	fMetadata
	fLLMRequestType
	numFields
)

// fieldIDs maps attribute keys to the fields the classifier reads.
var fieldIDs = map[string]fieldID{
	"gen_ai.operation.name":           fOpName,
	"gen_ai.tool.name":                fToolName,
	"gen_ai.tool.call.id":             fToolCallID,
	"gen_ai.tool.call.arguments":      fToolArgs,
	"gen_ai.tool.call.result":         fToolResult,
	"gen_ai.tool.type":                fToolType,
	"gen_ai.tool.status":              fToolStatus,
	"error.type":                      fErrorType,
	"gcp.vertex.agent.tool_call_args": fADKArgs,
	"gcp.vertex.agent.tool_response":  fADKResponse,
	"mcp.method.name":                 fMCPMethod,
	"openinference.span.kind":         fOISpanKind,
	"tool.name":                       fOIToolName,
	"tool.id":                         fOIToolID,
	"input.value":                     fInputValue,
	"input.mime_type":                 fInputMime,
	"output.value":                    fOutputValue,
	"traceloop.span.kind":             fTLSpanKind,
	"traceloop.entity.name":           fTLEntityName,
	"traceloop.entity.input":          fTLEntityInput,
	"traceloop.entity.output":         fTLEntityOutput,
	"traceloop.entity.path":           fTLEntityPath,
	"ai.operationId":                  fAIOperationID,
	"ai.toolCall.name":                fAIToolName,
	"ai.toolCall.id":                  fAIToolID,
	"ai.toolCall.args":                fAIToolArgs,
	"ai.toolCall.result":              fAIToolResult,
	"spring.ai.kind":                  fSpringKind,
	"spring.ai.tool.definition.name":  fSpringToolName,
	"spring.ai.tool.call.id":          fSpringToolID,
	"spring.ai.tool.call.arguments":   fSpringToolArgs,
	"spring.ai.tool.call.result":      fSpringToolResult,
	"genkit:type":                     fGenkitType,
	"genkit:metadata:subtype":         fGenkitSubtype,
	"genkit:name":                     fGenkitName,
	"genkit:input":                    fGenkitInput,
	"genkit:output":                   fGenkitOutput,
	"genkit:state":                    fGenkitState,
	"mastra.span.type":                fMastraSpanType,
	"tool_arguments":                  fPydanticArgs,
	"tool_response":                   fPydanticResponse,
	"metadata":                        fMetadata,
	"llm.request.type":                fLLMRequestType,
}

// fields holds the attribute values one span carries for the classifier.
type fields struct {
	v   [numFields]pcommon.Value
	set uint64
}

// scan reads the attributes the classifier uses from attrs, in one pass. A
// key is looked up only when its prefix belongs to a GenAI convention, so
// ordinary keys (http.*, db.*, server.*) cost a byte comparison or two.
func (f *fields) scan(attrs pcommon.Map) {
	for k, v := range attrs.All() {
		if _, candidate := classifyKey(k); !candidate {
			continue
		}
		if id, ok := fieldIDs[k]; ok {
			f.v[id] = v
			f.set |= 1 << id
		}
	}
}

// hasGenAIKey reports whether any key of attrs marks a GenAI span. It is
// the whole cost of an ordinary span: a two-byte table lookup per key.
func hasGenAIKey(attrs pcommon.Map) bool {
	for k := range attrs.All() {
		if len(k) >= 3 && mayStartMarker(k) {
			if marker, _ := classifyKey(k); marker {
				return true
			}
		}
	}
	return false
}

// markerPrefixes are the key prefixes that mark a GenAI span (classifyKey's
// marker cases).
var markerPrefixes = []string{"gen_ai.", "gcp.vertex.agent.", "genkit:", "openinference.", "traceloop.", "ai.", "mcp.", "mastra.", "spring.ai.", "llm."}

// markerStarts holds, for each first byte of markerPrefixes, the second
// bytes that follow it, one bit per byte value modulo 64. Most keys of
// ordinary spans (http.*, url.*, db.*, and server.* beside spring.ai.) fail
// it and are passed over without a call.
var markerStarts = func() (t [256]uint64) {
	for _, p := range markerPrefixes {
		t[p[0]] |= 1 << (p[1] & 63)
	}
	return t
}()

// mayStartMarker reports whether the first two bytes of k (at least two
// long) begin a marker prefix; a false positive only costs a classifyKey
// call.
func mayStartMarker(k string) bool { return markerStarts[k[0]]>>(k[1]&63)&1 != 0 }

// classifyKey says whether a key marks a GenAI span and whether it may be
// one of the keys the classifier reads.
func classifyKey(k string) (marker, candidate bool) {
	if len(k) < 3 {
		return false, false
	}
	switch k[0] {
	case 'g':
		m := strings.HasPrefix(k, "gen_ai.") || strings.HasPrefix(k, "gcp.vertex.agent.") || strings.HasPrefix(k, "genkit:")
		return m, m
	case 'o':
		if strings.HasPrefix(k, "openinference.") {
			return true, true
		}
		return false, strings.HasPrefix(k, "output.")
	case 't':
		if strings.HasPrefix(k, "traceloop.") {
			return true, true
		}
		return false, strings.HasPrefix(k, "tool")
	case 'i':
		return false, strings.HasPrefix(k, "input.")
	case 'a':
		m := strings.HasPrefix(k, "ai.")
		return m, m
	case 'm':
		m := strings.HasPrefix(k, "mcp.") || strings.HasPrefix(k, "mastra.")
		return m, m || k == "metadata"
	case 's':
		m := strings.HasPrefix(k, "spring.ai.")
		return m, m
	case 'l':
		m := strings.HasPrefix(k, "llm.")
		return m, m && k == "llm.request.type"
	case 'e':
		return false, k == "error.type"
	}
	return false, false
}

func (f *fields) has(id fieldID) bool { return f.set&(1<<id) != 0 }

// str returns the field as a string: the string value, or the JSON form of a
// structured value ("" when absent).
func (f *fields) str(id fieldID) string {
	if !f.has(id) {
		return ""
	}
	return valueText(f.v[id])
}

// first returns the first of ids that is present, as a string.
func (f *fields) first(ids ...fieldID) string {
	for _, id := range ids {
		if f.has(id) {
			if s := f.str(id); s != "" {
				return s
			}
		}
	}
	return ""
}

// raw returns the field's text and how to decode it, for argument fields.
func (f *fields) raw(id fieldID, enc Encoding) (string, Encoding) {
	if !f.has(id) {
		return "", EncodingAbsent
	}
	v := f.v[id]
	if v.Type() == pcommon.ValueTypeEmpty {
		return "", EncodingAbsent
	}
	if v.Type() != pcommon.ValueTypeStr {
		// Structured values (kvlist, arrays) become JSON text.
		return valueText(v), EncodingJSON
	}
	return v.Str(), enc
}
