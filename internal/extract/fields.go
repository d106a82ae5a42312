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
	numFields
)

// fieldIDs maps attribute keys to the fields the classifier reads. Keys
// marked as markers make a span a GenAI span on their own.
var fieldIDs = map[string]struct {
	id     fieldID
	marker bool
}{
	"gen_ai.operation.name":           {fOpName, true},
	"gen_ai.tool.name":                {fToolName, true},
	"gen_ai.tool.call.id":             {fToolCallID, true},
	"gen_ai.tool.call.arguments":      {fToolArgs, true},
	"gen_ai.tool.call.result":         {fToolResult, true},
	"gen_ai.tool.type":                {fToolType, true},
	"gen_ai.tool.status":              {fToolStatus, true},
	"error.type":                      {fErrorType, false},
	"gcp.vertex.agent.tool_call_args": {fADKArgs, true},
	"gcp.vertex.agent.tool_response":  {fADKResponse, true},
	"mcp.method.name":                 {fMCPMethod, true},
	"openinference.span.kind":         {fOISpanKind, true},
	"tool.name":                       {fOIToolName, false},
	"tool.id":                         {fOIToolID, false},
	"input.value":                     {fInputValue, false},
	"input.mime_type":                 {fInputMime, false},
	"output.value":                    {fOutputValue, false},
	"traceloop.span.kind":             {fTLSpanKind, true},
	"traceloop.entity.name":           {fTLEntityName, true},
	"traceloop.entity.input":          {fTLEntityInput, true},
	"traceloop.entity.output":         {fTLEntityOutput, true},
	"traceloop.entity.path":           {fTLEntityPath, true},
	"ai.operationId":                  {fAIOperationID, true},
	"ai.toolCall.name":                {fAIToolName, true},
	"ai.toolCall.id":                  {fAIToolID, true},
	"ai.toolCall.args":                {fAIToolArgs, true},
	"ai.toolCall.result":              {fAIToolResult, true},
	"spring.ai.kind":                  {fSpringKind, true},
	"spring.ai.tool.definition.name":  {fSpringToolName, true},
	"spring.ai.tool.call.id":          {fSpringToolID, true},
	"spring.ai.tool.call.arguments":   {fSpringToolArgs, true},
	"spring.ai.tool.call.result":      {fSpringToolResult, true},
	"genkit:type":                     {fGenkitType, true},
	"genkit:metadata:subtype":         {fGenkitSubtype, true},
	"genkit:name":                     {fGenkitName, true},
	"genkit:input":                    {fGenkitInput, true},
	"genkit:output":                   {fGenkitOutput, true},
	"genkit:state":                    {fGenkitState, true},
	"mastra.span.type":                {fMastraSpanType, true},
	"tool_arguments":                  {fPydanticArgs, false},
	"tool_response":                   {fPydanticResponse, false},
}

// markerPrefixes make a span a GenAI span even when none of its keys is read.
var markerPrefixes = []string{"gen_ai.", "llm.", "ai.", "gcp.vertex.agent.", "genkit:", "mastra.", "traceloop.", "openinference.", "mcp.", "spring.ai."}

// fields holds the attribute values one span carries for the classifier.
type fields struct {
	v     [numFields]pcommon.Value
	set   uint64
	genai bool
}

// scan reads attrs once and reports whether any GenAI attribute is present.
func (f *fields) scan(attrs pcommon.Map) bool {
	for k, v := range attrs.All() {
		if len(k) < 3 {
			continue
		}
		switch k[0] {
		case 'g', 'o', 't', 'a', 'm', 's', 'i', 'e', 'l':
		default:
			continue
		}
		if e, ok := fieldIDs[k]; ok {
			f.v[e.id] = v
			f.set |= 1 << e.id
			f.genai = f.genai || e.marker
			continue
		}
		if !f.genai {
			for _, p := range markerPrefixes {
				if strings.HasPrefix(k, p) {
					f.genai = true
					break
				}
			}
		}
	}
	return f.genai
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
