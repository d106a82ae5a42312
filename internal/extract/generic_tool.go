package extract

// The generic reader: spans of a framework no convention here names, read
// from what any tool span records. A span whose attributes name a tool
// (tool.name) and carry its call id, input or output is a tool call, even
// with no GenAI key at all (VoltAgent's tool.execution:<tool> spans:
// tool.name, tool.call.id, input, output, an error status). Conventions
// that also write tool.name (OpenInference's TOOL spans) are claimed by
// their own predicates first.

// genericToolNameKey is the attribute that names a tool on a generic tool
// span. It is a marker key, so such a span is not passed over as ordinary.
const genericToolNameKey = "tool.name"

// isGenericTool reports a span that names a tool and carries its call id,
// input or output.
func (f *fields) isGenericTool() bool {
	if !f.has(fOIToolName) {
		return false
	}
	for _, id := range genericEvidence {
		if f.has(id) {
			return true
		}
	}
	return false
}

// genericEvidence are the keys of which a tool-naming span must carry one to
// be a tool call: a call id, or the call's input or output.
var genericEvidence = [...]fieldID{fGenericCallID, fGenericInput, fGenericOutput, fInputValue, fOutputValue}

// genericTool reads a generic tool span: name tool.name; id tool.call.id,
// else tool.id; arguments input, else input.value (JSON, a Python literal, or the bare value of a one-key
// argument object, see trajectory's bare-value pairing); result output, else
// output.value. Failure is the span's
// status or error.type, as for every tool span.
func (f *fields) genericTool() Result {
	c := SpanCall{Name: f.str(fOIToolName), ID: f.first(fGenericCallID, fOIToolID), Convention: ConventionGeneric}
	for _, id := range [...]fieldID{fGenericInput, fInputValue} {
		if f.has(id) {
			c.Args, c.Encoding = f.raw(id, EncodingJSONOrPython)
			break
		}
	}
	for _, id := range [...]fieldID{fGenericOutput, fOutputValue} {
		if f.has(id) {
			c.Result, _ = f.raw(id, EncodingJSON)
			break
		}
	}
	return Result{Kind: KindTool, Convention: ConventionGeneric, Call: c}
}

// isGenericAgent reports an agent span of a framework's own naming: its
// span.type is "agent", or it has no span.type and its entity.type is
// "agent" (VoltAgent's agent span; its tool and model spans carry the
// agent's entity.type too, with span.type tool or llm). Such a span is
// reached only when a marker key made it a GenAI span.
func (f *fields) isGenericAgent() bool {
	if f.has(fSpanType) {
		return f.str(fSpanType) == "agent"
	}
	return f.str(fEntityType) == "agent"
}

// namesTool reports a span whose attributes name a tool; for a span that
// is neither tool nor agent, a call no rule read.
func (f *fields) namesTool() bool {
	return f.set&(1<<fOIToolName|1<<fToolName|1<<fAIToolName) != 0
}
