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
	fADKLLMRequest
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
	fGenericCallID
	fGenericInput
	fGenericOutput
	fEntityType
	fSpanType
	fCodexToolPhase
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
	"gcp.vertex.agent.llm_request":    fADKLLMRequest,
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
	// The generic tool span (generic_tool.go).
	"tool.call.id": fGenericCallID,
	"input":        fGenericInput,
	"output":       fGenericOutput,
	"entity.type":  fEntityType,
	"span.type":    fSpanType,
	// The coding agents' own keys (coding_agents.go).
	"codex.tool.phase": fCodexToolPhase,
}

// noField is the field of a key the classifier does not read.
const noField = numFields

// spanKey is what an attribute key stands for: the field the classifier
// reads it as (noField for none), the role CaptureContext reads it in
// (roleNone for none), and its keyFlags. One table holds the keys of both,
// so that one lookup per attribute serves both (see ClassifyWithContext).
type spanKey struct {
	field fieldID
	role  contextRole
	flags keyFlags
}

// keyFlags say what else a key tells the classifier; the scan gathers them
// with one OR per key it finds.
type keyFlags uint8

const (
	// keyMarker marks a GenAI span (isMarkerKey).
	keyMarker keyFlags = 1 << iota
	// keyMessages is a key messageArguments reads (gen_ai.input.messages,
	// gen_ai.output.messages): a tool span with neither makes no call.
	keyMessages
)

// flagsOf returns the keyFlags of key k.
func flagsOf(k string) keyFlags {
	var fl keyFlags
	if len(k) >= 3 && isMarkerKey(k) {
		fl |= keyMarker
	}
	if k == inputMessagesKey || k == outputMessagesKey {
		fl |= keyMessages
	}
	return fl
}

// spanKeys are fieldIDs and contextKeys in one map.
var spanKeys = func() map[string]spanKey {
	m := make(map[string]spanKey, len(fieldIDs)+len(contextKeys))
	for k, id := range fieldIDs {
		m[k] = spanKey{field: id, role: roleNone}
	}
	for k, role := range contextKeys {
		sk, ok := m[k]
		if !ok {
			sk.field = noField
		}
		sk.role = role
		m[k] = sk
	}
	for k, sk := range m {
		sk.flags = flagsOf(k)
		m[k] = sk
	}
	return m
}()

// maxContextValues is how many context values fields keeps for
// CaptureContext; a span with more is read again.
const maxContextValues = 6

// fields holds the attribute values one span carries for the classifier,
// read in one pass over its attributes (see Classify). Each key costs one
// keyTab lookup: a slot picked from its length and three bytes, and one
// comparison.
type fields struct {
	v   [numFields]pcommon.Value
	set uint64
	// ctx are the values of context keys in attribute order, with their
	// keys' spanKey, when the pass also reads the run context
	// (ClassifyWithContext); rescan is set when they do not say it all (an
	// indexed family's key, or more than maxContextValues values).
	ctx    [maxContextValues]pcommon.Value
	ctxKey [maxContextValues]spanKey
	nctx   uint8
	rescan bool
	// seen gathers the keyFlags of the span's keys.
	seen keyFlags
}

// hasGenAIKey reports whether any key of attrs marks a GenAI span. It is
// the whole cost of an ordinary span: a two-byte table lookup per key, in a
// pass that neither calls nor leaves the loop early, which the compiler
// keeps in registers (a call or an early return in the body of a loop over
// Map.All costs half as much again per key: 296 against 178 instructions
// for an HTTP span's ten keys). A gen_ai.* key settles it in that pass;
// other keys that pass the table are read whole in a second pass.
func hasGenAIKey(attrs pcommon.Map) bool {
	may, genAI := false, false
	for k := range attrs.All() {
		if len(k) >= 3 && mayStartMarker(k) {
			may = true
			if len(k) >= len("gen_ai.") && k[:len("gen_ai.")] == "gen_ai." {
				genAI = true
			}
		}
	}
	return genAI || may && hasMarkerKey(attrs)
}

// hasMarkerKey reports whether a key of attrs is a marker key.
func hasMarkerKey(attrs pcommon.Map) bool {
	for k := range attrs.All() {
		if len(k) >= 3 && mayStartMarker(k) {
			if isMarkerKey(k) {
				return true
			}
		}
	}
	return false
}

// markerPrefixes are the key prefixes that mark a GenAI span (isMarkerKey's
// cases).
var markerPrefixes = []string{"gen_ai.", "gcp.vertex.agent.", "genkit:", "openinference.", "traceloop.", "ai.", "mcp.", "mastra.", "spring.ai.", "llm.", "codex.tool.", "codex.turn."}

// markerStarts holds, for each first byte of markerPrefixes (and of the
// one whole marker key, tool.name), the second
// bytes that follow it, one bit per byte value modulo 64. Most keys of
// ordinary spans (http.*, url.*, db.*, and server.* beside spring.ai.) fail
// it and are passed over without a call.
var markerStarts = func() (t [256]uint64) {
	for _, p := range append(markerPrefixes, genericToolNameKey) {
		t[p[0]] |= 1 << (p[1] & 63)
	}
	return t
}()

// mayStartMarker reports whether the first two bytes of k (at least two
// long) begin a marker prefix; a false positive only costs an isMarkerKey
// call.
func mayStartMarker(k string) bool { return markerStarts[k[0]]>>(k[1]&63)&1 != 0 }

// isMarkerKey reports whether a key marks a GenAI span: it starts with one
// of markerPrefixes, or it is tool.name (a tool span of any framework may be
// one, see generic_tool.go).
func isMarkerKey(k string) bool {
	if len(k) < 3 {
		return false
	}
	switch k[0] {
	case 'g':
		return strings.HasPrefix(k, "gen_ai.") || strings.HasPrefix(k, "gcp.vertex.agent.") || strings.HasPrefix(k, "genkit:")
	case 'o':
		return strings.HasPrefix(k, "openinference.")
	case 't':
		return strings.HasPrefix(k, "traceloop.") || k == genericToolNameKey
	case 'a':
		return strings.HasPrefix(k, "ai.")
	case 'm':
		return strings.HasPrefix(k, "mcp.") || strings.HasPrefix(k, "mastra.")
	case 's':
		return strings.HasPrefix(k, "spring.ai.")
	case 'l':
		return strings.HasPrefix(k, "llm.")
	case 'c':
		// Codex's tool dispatch and turn spans; its other codex.* keys
		// (sampling, requests) mark spans no run needs.
		return strings.HasPrefix(k, "codex.tool.") || strings.HasPrefix(k, "codex.turn.")
	}
	return false
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
