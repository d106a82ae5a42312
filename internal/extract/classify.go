package extract

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// classify applies the convention predicates in order: tool predicates first
// (most specific convention wins), then agent predicates, and writes what
// they find to res (in place: a Result returned by value was copied once
// more on its way up).
func (f *fields) classify(res *Result, span ptrace.Span, scope pcommon.InstrumentationScope) {
	op := f.str(fOpName)
	switch {
	case op == "execute_tool":
		*res = f.genAITool(span, scope)
		return
	case f.str(fMCPMethod) == "tools/call":
		*res = f.mcpTool(span)
		return
	case f.oiKind("TOOL"):
		*res = f.openInferenceTool(span)
		return
	case f.str(fTLSpanKind) == "tool":
		*res = f.traceloopTool(span)
		return
	case f.str(fAIOperationID) == "ai.toolCall" || (span.Name() == "ai.toolCall" && f.has(fAIToolName)):
		*res = f.aiSDKTool()
		return
	case f.str(fSpringKind) == "tool_call":
		*res = f.springTool(span)
		return
	case f.isGenkitTool():
		*res = f.genkitTool()
		return
	case span.Name() == "running tool" && f.has(fToolName):
		*res = f.pydanticV2Tool()
		return
	case op == "tool_call":
		*res = f.geminiTool(span)
		return
	case f.has(fSpanType) && isClaudeCodeRecord(f.str(fSpanType)):
		*res = f.claudeCodeRecord(span)
		return
	case f.str(fCodexToolPhase) == "dispatch":
		*res = f.codexTool(span)
		return
	case f.isGenericTool():
		*res = f.genericTool()
		return
	}
	if c, ok := f.agentConvention(span, scope, op); ok {
		*res = Result{Kind: KindAgent, Convention: c}
		return
	}
	*res = Result{Convention: f.convention(scope), ModelCall: f.isModelCall(span, scope, op), ModelStep: f.str(fMastraSpanType) == "model_step",
		NamesTool: f.namesTool(), Scheduled: op == "schedule_tool_calls"}
}

// oiKind reports whether the span's openinference.span.kind is kind, in
// any case. It is inlined: spans without the attribute make no call.
func (f *fields) oiKind(kind string) bool {
	return f.has(fOISpanKind) && f.oiKindIs(kind)
}

func (f *fields) oiKindIs(kind string) bool {
	return strings.EqualFold(f.str(fOISpanKind), kind)
}

// isModelCall reports an inference span: a GenAI chat or completion call
// (semconv, ADK Go, Strands, Pydantic AI, Mastra, Spring AI, AI SDK v7,
// OpenLLMetry >= 0.53), OpenInference LLM, AI SDK doGenerate/doStream,
// Genkit model action, an OpenLLMetry legacy LLM span, or ADK Python's
// call_llm. TestModelCallSpansInCaptures lists each convention's span.
//
// ADK Python's call_llm has no gen_ai.operation.name; its
// generate_content child, when there is one, is a model call too, but
// under call_llm, while the tool spans of schema v2 are call_llm's
// siblings: only call_llm starts their turn.
func (f *fields) isModelCall(span ptrace.Span, scope pcommon.InstrumentationScope, op string) bool {
	switch op {
	case "chat", "text_completion", "generate_content", "llm_call":
		return true
	case "":
		if span.Name() == "call_llm" && (f.has(fADKLLMRequest) || scope.Name() == "gcp.vertex.agent") {
			return true
		}
	}
	if f.oiKind("LLM") || f.str(fGenkitSubtype) == "model" {
		return true
	}
	if id := f.str(fAIOperationID); strings.HasSuffix(id, ".doGenerate") || strings.HasSuffix(id, ".doStream") {
		return true
	}
	switch f.str(fLLMRequestType) {
	case "chat", "completion":
		return true
	}
	return false
}

// isAgentOperation reports the gen_ai.operation.name values of agent-run
// spans (a switch: a map lookup hashed the value on every GenAI span that
// is not a tool's).
func isAgentOperation(op string) bool {
	switch op {
	case "invoke_agent", "invoke_workflow", "handle_conversation_turn", "user_prompt":
		return true
	}
	return false
}

// agentConvention reports whether the span is an agent run (the boundary of
// a trajectory) and in which convention.
func (f *fields) agentConvention(span ptrace.Span, scope pcommon.InstrumentationScope, op string) (Convention, bool) {
	if isAgentOperation(op) {
		return f.convention(scope), true
	}
	switch {
	case f.oiKind("AGENT"):
		if isLangGraphModelNode(span.Name(), f.str(fMetadata)) {
			return 0, false
		}
		return ConventionOpenInference, true
	case f.str(fTLSpanKind) == "agent":
		return ConventionOpenLLMetry, true
	case f.str(fMastraSpanType) == "agent_run":
		return ConventionMastra, true
	}
	switch f.str(fAIOperationID) {
	case "ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject":
		return ConventionAISDK, true
	}
	if f.str(fGenkitSubtype) == "flow" || f.str(fGenkitType) == "flow" {
		return ConventionGenkit, true
	}
	if f.str(fSpringKind) == "chat_client" {
		return ConventionSpringAI, true
	}
	if span.Name() == "session_task.turn" {
		return ConventionCodex, true // a marked span: it carries codex.turn.*
	}
	if f.isGenericAgent() {
		return ConventionGeneric, true
	}
	if isAgentSpanName(span.Name()) {
		return f.convention(scope), true
	}
	return 0, false
}

// isAgentSpanName reports whether a span is an agent run by its name alone:
// Pydantic AI format v2 ("agent run"), Google ADK before 2026 ("agent_run
// [name]", a span without attributes) and the GenAI convention's
// "invoke_agent {name}" when the operation attribute is missing.
func isAgentSpanName(name string) bool {
	if len(name) < len("agent run") || (name[0] != 'a' && name[0] != 'i') {
		return false // every ordinary span's name, at the cost of a byte test
	}
	return name == "agent run" || strings.HasPrefix(name, "agent_run [") || strings.HasPrefix(name, "invoke_agent ")
}

// isLangGraphModelNode reports whether an OpenInference AGENT span is the
// "agent" node of a LangGraph ReAct graph. OpenInference marks every run
// whose name contains "agent" as AGENT, but that node only calls the model:
// the graph's tools run in its sibling "tools" node, so the node is not the
// boundary of the calls (genai-conventions §3.3). A graph used as a named
// sub-agent ("weather_agent") still is.
func isLangGraphModelNode(name, metadata string) bool {
	return name == "agent" && strings.Contains(metadata, `"langgraph_node"`)
}

// convention names the convention of a GenAI span that carries the common
// gen_ai.* attributes, using framework-specific keys and the scope name.
func (f *fields) convention(scope pcommon.InstrumentationScope) Convention {
	if f.set&conventionFields == 0 {
		return scopeConvention(scope) // a span of the GenAI keys alone
	}
	return f.fieldConvention(scope)
}

// fieldConvention is convention read from each of conventionFields in turn.
func (f *fields) fieldConvention(scope pcommon.InstrumentationScope) Convention {
	switch {
	case f.has(fADKArgs) || f.has(fADKResponse):
		return ConventionADK
	case f.has(fMastraSpanType):
		return ConventionMastra
	case f.has(fTLSpanKind) || f.has(fTLEntityName):
		return ConventionOpenLLMetry
	case f.has(fOISpanKind):
		return ConventionOpenInference
	case f.has(fGenkitType):
		return ConventionGenkit
	case f.has(fSpringKind):
		return ConventionSpringAI
	case f.has(fAIOperationID):
		return ConventionAISDK
	}
	return scopeConvention(scope)
}

// conventionFields are the fields (fields.set bits) convention reads.
const conventionFields = 1<<fADKArgs | 1<<fADKResponse | 1<<fMastraSpanType | 1<<fTLSpanKind | 1<<fTLEntityName |
	1<<fOISpanKind | 1<<fGenkitType | 1<<fSpringKind | 1<<fAIOperationID

// scopeConvention names the convention of a span from its instrumentation
// scope, for spans whose attributes do not say. The names it knows start
// with different bytes, so that other scopes are told apart by the first.
func scopeConvention(scope pcommon.InstrumentationScope) Convention {
	s := scope.Name()
	if s == "" {
		return ConventionGenAI
	}
	switch s[0] {
	case 'g':
		switch s {
		case "gcp.vertex.agent":
			return ConventionADK
		case "gemini-cli":
			return ConventionGeminiCLI
		}
	case 's':
		if strings.HasPrefix(s, "strands") {
			return ConventionStrands
		}
	case 'p':
		if s == "pydantic-ai" || strings.HasPrefix(s, "pydantic_ai") {
			return ConventionPydanticAI
		}
	case '@':
		if strings.HasPrefix(s, "@mastra") {
			return ConventionMastra
		}
	case 'c':
		if strings.HasPrefix(s, "com.anthropic.claude_code") {
			return ConventionClaudeCode
		}
	}
	return ConventionGenAI
}

// genAITool reads an OTel GenAI execute_tool span. The same shape is used by
// Google ADK, Strands, Pydantic AI, Mastra, Semantic Kernel, AI SDK v7,
// OpenLLMetry >= 0.53, newer Spring AI, and MCP-enriched spans.
func (f *fields) genAITool(span ptrace.Span, scope pcommon.InstrumentationScope) Result {
	c := SpanCall{
		Name: f.first(fToolName, fSpringToolName, fAIToolName, fOIToolName),
		ID:   f.first(fToolCallID, fOIToolID, fAIToolID, fSpringToolID),
		Type: f.str(fToolType),
	}
	if c.Name == "" {
		c.Name = nameFromSpanName(span.Name())
	}
	conv := f.convention(scope)
	// Arguments and results: the semconv keys first, then each
	// convention's own keys (recovery recipe, genai-conventions §8). A
	// placeholder ("{}", "<not specified>") gives way to a later key that
	// holds real arguments.
	toolArgs := EncodingJSON
	if conv == ConventionOpenLLMetry {
		toolArgs = EncodingLangChainWrapper
	}
	if f.set&argumentFields != 0 {
		for i, src := range argumentSources {
			if !f.has(src.id) {
				continue
			}
			enc := src.enc
			if i == 0 {
				enc = toolArgs
			}
			args, enc := f.raw(src.id, enc)
			known := ArgumentsLikelyKnown(args, enc, DecodeOptions{})
			if known || c.Encoding == EncodingAbsent {
				c.Args, c.Encoding = args, enc
			}
			if known {
				break
			}
		}
	}
	if f.set&resultFields != 0 {
		for _, id := range resultSources {
			if f.has(id) {
				c.Result, _ = f.raw(id, EncodingJSON)
				break
			}
		}
	}
	if f.str(fToolStatus) == "error" {
		c.Failed = true
	}
	if conv == ConventionOpenLLMetry && (c.Name == "" || isLangChainToolClass(c.Name)) {
		f.langChainToolName(&c)
	}
	if conv == ConventionClaudeCode && c.Encoding == EncodingAbsent {
		claudeCodeArguments(span.Attributes(), &c)
	}
	if f.str(fMCPMethod) == "tools/call" {
		c.MCP, c.MCPClient = true, span.Kind() == ptrace.SpanKindClient
		if c.Type == "" {
			c.Type = "mcp"
		}
	}
	c.Convention = conv
	return Result{Kind: KindTool, Convention: conv, Call: c}
}

// argumentSources are the keys an execute_tool span may carry its arguments
// in, in the order they are tried, with their encodings. The first,
// gen_ai.tool.call.arguments, is decoded per convention (see genAITool).
var argumentSources = [...]struct {
	id  fieldID
	enc Encoding
}{
	{fToolArgs, EncodingJSON},
	{fADKArgs, EncodingJSON},
	{fInputValue, EncodingJSONOrPython},
	{fTLEntityInput, EncodingTraceloop},
	{fAIToolArgs, EncodingJSON},
	{fSpringToolArgs, EncodingJSON},
	// Pydantic AI's format 2 names its tool span "running tool" but
	// also marks it execute_tool.
	{fPydanticArgs, EncodingJSON},
}

// resultSources are the keys an execute_tool span may carry its result in,
// in the order they are tried.
var resultSources = [...]fieldID{fToolResult, fADKResponse, fOutputValue, fTLEntityOutput, fAIToolResult, fSpringToolResult, fPydanticResponse}

// argumentFields and resultFields are the sets (fields.set bits) of
// argumentSources and resultSources: a span that has none of a set's
// fields is not read for it.
var argumentFields, resultFields = func() (args, results uint64) {
	for _, src := range argumentSources {
		args |= 1 << src.id
	}
	for _, id := range resultSources {
		results |= 1 << id
	}
	return args, results
}()

// mcpTool reads an MCP tools/call client or server span (semconv >= 1.39).
func (f *fields) mcpTool(span ptrace.Span) Result {
	c := SpanCall{Name: f.str(fToolName), Type: "mcp", MCP: true, MCPClient: span.Kind() == ptrace.SpanKindClient, Convention: ConventionMCP}
	if c.Name == "" {
		c.Name = nameAfterPrefix(span.Name(), "tools/call ")
	}
	c.Args, c.Encoding = f.raw(fToolArgs, EncodingJSON)
	c.Result, _ = f.raw(fToolResult, EncodingJSON)
	return Result{Kind: KindTool, Convention: ConventionMCP, Call: c}
}

// openInferenceTool reads an OpenInference TOOL span. Arguments are in
// input.value; there is usually no call id.
func (f *fields) openInferenceTool(span ptrace.Span) Result {
	c := SpanCall{Name: f.str(fOIToolName), ID: f.str(fOIToolID), Convention: ConventionOpenInference}
	if c.Name == "" {
		c.Name = span.Name()
	}
	enc := EncodingJSONOrPython
	if mime := f.str(fInputMime); mime == "text/plain" {
		enc = EncodingText
	}
	c.Args, c.Encoding = f.raw(fInputValue, enc)
	c.Result, _ = f.raw(fOutputValue, EncodingJSON)
	return Result{Kind: KindTool, Convention: ConventionOpenInference, Call: c}
}

// traceloopTool reads an OpenLLMetry decorator tool span ({name}.tool).
func (f *fields) traceloopTool(span ptrace.Span) Result {
	c := SpanCall{Name: f.str(fToolName), Convention: ConventionOpenLLMetry}
	if c.Name == "" {
		c.Name = f.str(fTLEntityName)
	}
	if c.Name == "" {
		c.Name = strings.TrimSuffix(span.Name(), ".tool")
	}
	if f.has(fToolArgs) {
		c.Args, c.Encoding = f.raw(fToolArgs, EncodingLangChainWrapper)
	} else {
		c.Args, c.Encoding = f.raw(fTLEntityInput, EncodingTraceloop)
	}
	if f.has(fToolResult) {
		c.Result, _ = f.raw(fToolResult, EncodingJSON)
	} else {
		c.Result, _ = f.raw(fTLEntityOutput, EncodingJSON)
	}
	return Result{Kind: KindTool, Convention: ConventionOpenLLMetry, Call: c}
}

// aiSDKTool reads a Vercel AI SDK (v4-v6, v7 legacy) ai.toolCall span.
func (f *fields) aiSDKTool() Result {
	c := SpanCall{Name: f.str(fAIToolName), ID: f.str(fAIToolID), Convention: ConventionAISDK}
	c.Args, c.Encoding = f.raw(fAIToolArgs, EncodingJSON)
	c.Result, _ = f.raw(fAIToolResult, EncodingJSON)
	return Result{Kind: KindTool, Convention: ConventionAISDK, Call: c}
}

// springTool reads a Spring AI tool_call observation span.
func (f *fields) springTool(span ptrace.Span) Result {
	c := SpanCall{Name: f.str(fSpringToolName), ID: f.str(fSpringToolID), Convention: ConventionSpringAI}
	if c.Name == "" {
		c.Name = nameAfterPrefix(span.Name(), "tool_call ")
	}
	c.Args, c.Encoding = f.raw(fSpringToolArgs, EncodingJSON)
	c.Result, _ = f.raw(fSpringToolResult, EncodingJSON)
	return Result{Kind: KindTool, Convention: ConventionSpringAI, Call: c}
}

func (f *fields) isGenkitTool() bool {
	switch f.str(fGenkitSubtype) {
	case "tool", "tool.v2":
		return true
	}
	return false
}

// genkitTool reads a Genkit tool action span.
func (f *fields) genkitTool() Result {
	c := SpanCall{Name: f.str(fGenkitName), Convention: ConventionGenkit}
	c.Args, c.Encoding = f.raw(fGenkitInput, EncodingJSON)
	c.Result, _ = f.raw(fGenkitOutput, EncodingJSON)
	if f.str(fGenkitSubtype) == "tool.v2" {
		c.ResultForm = ResultGenkitV2
	}
	if f.str(fGenkitState) == "error" {
		c.Failed = true
	}
	return Result{Kind: KindTool, Convention: ConventionGenkit, Call: c}
}

// pydanticV2Tool reads a Pydantic AI format-2 "running tool" span.
func (f *fields) pydanticV2Tool() Result {
	c := SpanCall{Name: f.str(fToolName), ID: f.str(fToolCallID), Convention: ConventionPydanticAI}
	c.Args, c.Encoding = f.raw(fPydanticArgs, EncodingJSON)
	c.Result, _ = f.raw(fPydanticResponse, EncodingJSON)
	return Result{Kind: KindTool, Convention: ConventionPydanticAI, Call: c}
}

// nameFromSpanName recovers a tool name from the span name conventions use:
// "execute_tool {tool}", "tool_call {tool}", "tools/call {tool}" and
// OpenLLMetry's "{tool}.tool".
func nameFromSpanName(name string) string {
	for _, prefix := range []string{"execute_tool ", "tool_call ", "tools/call "} {
		if n := nameAfterPrefix(name, prefix); n != "" {
			return n
		}
	}
	if n, ok := strings.CutSuffix(name, ".tool"); ok {
		return n
	}
	return ""
}

// nameAfterPrefix returns the part of a span name after prefix, or "".
func nameAfterPrefix(name, prefix string) string {
	if strings.HasPrefix(name, prefix) {
		return strings.TrimSpace(name[len(prefix):])
	}
	return ""
}

// lastPathElement returns the last non-empty element of a dotted or slashed
// entity path ("weather_agent.get_weather" -> "get_weather").
func lastPathElement(p string) string {
	p = strings.TrimRight(p, "./")
	if i := strings.LastIndexAny(p, "./"); i >= 0 {
		return p[i+1:]
	}
	return p
}

// IsWrapperToolName reports whether a tool span's name is that of a class
// that wraps tools rather than a tool's (LangChain's DynamicStructuredTool,
// DynamicTool, StructuredTool, Tool): the trajectory store takes the name
// from the request the call answers.
func IsWrapperToolName(name string) bool { return isLangChainToolClass(name) }

// isLangChainToolClass reports whether name is one of the LangChain tool
// classes OpenLLMetry JS records instead of the tool's name.
func isLangChainToolClass(name string) bool {
	switch name {
	case "DynamicStructuredTool", "DynamicTool", "StructuredTool", "Tool":
		return true
	}
	return false
}

// langChainToolName recovers the tool name OpenLLMetry JS hides behind the
// LangChain class name (execute_tool DynamicStructuredTool): from the last
// element of traceloop.entity.path, else from the serialized ToolMessage in
// traceloop.entity.output (kwargs.name and kwargs.tool_call_id). A failed call
// has no output, so its name stays the class name.
func (f *fields) langChainToolName(c *SpanCall) {
	if n := lastPathElement(f.str(fTLEntityPath)); n != "" {
		c.Name = n
		return
	}
	if out := f.str(fTLEntityOutput); strings.Contains(out, "ToolMessage") {
		if name, id, ok := langChainToolMessage(out); ok {
			if name != "" {
				c.Name = name
			}
			if c.ID == "" {
				c.ID = id
			}
			return
		}
	}
	if c.Name == "" {
		c.Name = f.str(fTLEntityName)
	}
}
