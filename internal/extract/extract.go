// Package extract recognises GenAI tool-call and agent spans in every common
// instrumentation convention and turns tool spans into compact call records.
//
// [Classify] reads a span's attributes in one pass. Spans without any GenAI
// attribute are rejected after a first-byte check of each key, which keeps the
// cost for ordinary spans to a few nanoseconds per attribute. Argument and
// result text is kept raw and decoded only when a run is scored
// ([DecodeArguments]), so holding a call costs little memory.
package extract // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"

import (
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Kind says what role a span plays in an agent run.
type Kind uint8

// The span kinds.
const (
	// KindOther is any span that is neither a tool call nor an agent run.
	KindOther Kind = iota
	// KindTool is a tool execution.
	KindTool
	// KindAgent is an agent run (or workflow, or AI SDK generate call): the
	// boundary of a trajectory.
	KindAgent
)

// Convention names the instrumentation convention a span follows. It is one
// byte, since every held call carries it.
type Convention uint8

// The conventions.
const (
	ConventionGenAI Convention = iota
	ConventionMCP
	ConventionOpenInference
	ConventionOpenLLMetry
	ConventionAISDK
	ConventionGenkit
	ConventionSpringAI
	ConventionPydanticAI
	ConventionADK
	ConventionStrands
	ConventionMastra
	// ConventionGeneric is a span no convention claims whose attributes name
	// a tool and carry its input or output (generic_tool.go).
	ConventionGeneric
	// The coding agents, which export their own telemetry
	// (coding_agents.go).
	ConventionClaudeCode
	ConventionGeminiCLI
	ConventionCodex
	// NumConventions is how many conventions there are.
	NumConventions
)

var conventionNames = [NumConventions]string{
	"gen_ai", "mcp", "openinference", "openllmetry", "vercel_ai", "genkit",
	"spring_ai", "pydantic_ai", "google_adk", "strands", "mastra", "generic",
	"claude_code", "gemini_cli", "codex",
}

// String returns the convention's name, the metric attribute value.
func (c Convention) String() string {
	if c < NumConventions {
		return conventionNames[c]
	}
	return "unknown"
}

// Conventions lists every convention.
func Conventions() []Convention {
	out := make([]Convention, NumConventions)
	for i := range out {
		out[i] = Convention(i)
	}
	return out
}

// Encoding says how a call's raw argument text must be decoded.
type Encoding uint8

// The argument encodings.
const (
	// EncodingAbsent means no arguments were recorded.
	EncodingAbsent Encoding = iota
	// EncodingJSON is JSON text, possibly double-encoded.
	EncodingJSON
	// EncodingJSONOrPython is JSON, or a Python literal (LangChain under
	// OpenInference writes str(dict)), or plain text.
	EncodingJSONOrPython
	// EncodingTraceloop is OpenLLMetry's {"args": [...], "kwargs": {...}}
	// wrapper, or its LangChain {"inputs": {...}, "input_str": ...} wrapper.
	EncodingTraceloop
	// EncodingText is plain text that is the argument itself.
	EncodingText
	// EncodingLangChainWrapper is gen_ai.tool.call.arguments on an
	// OpenLLMetry span: OpenLLMetry's LangChain instrumentation (Python,
	// >= 0.53) writes its {"input_str", "tags", "metadata", "inputs",
	// "kwargs"} wrapper there, its other instrumentations the raw arguments.
	// The wrapper is removed only when the text has that shape.
	EncodingLangChainWrapper
)

// ResultForm says which wrapper, if any, the framework put around a tool's
// return value when it recorded the result; [DecodeResult] removes it. Only
// wrappers the framework itself adds are named, each where that framework
// records results, so that a tool's own object of the same shape elsewhere
// is kept.
type ResultForm uint8

// The result forms.
const (
	// ResultPlain is the return value as the tool gave it (JSON text, a
	// JSON-quoted string, or plain text).
	ResultPlain ResultForm = iota
	// ResultADK is Google ADK's: a return value that is not a dict (Python)
	// or map (Go) is recorded as {"result": x}.
	ResultADK
	// ResultGenkitV2 is a Genkit tool.v2 action's {"output": x} (its
	// multipart response, whose "content" parts are left out when empty).
	// Plain "tool" actions record the bare output.
	ResultGenkitV2
	// ResultStrands is Strands Agents' tool result content blocks,
	// [{"text": x}] or [{"json": x}].
	ResultStrands
	// ResultOpenLLMetry is OpenLLMetry's LangChain wrapper {"output": x,
	// "kwargs": {...}} (Python) or the LangChain ToolMessage a JS tool
	// returned, serialized.
	ResultOpenLLMetry
	// ResultOpenInference is the LangChain run output OpenInference
	// records for LangChain JS tools: {"output": <serialized ToolMessage>}.
	ResultOpenInference
)

// resultForm is the form a convention records results in, for the calls
// whose reader does not say otherwise.
func resultForm(c Convention) ResultForm {
	switch c {
	case ConventionADK:
		return ResultADK
	case ConventionStrands:
		return ResultStrands
	case ConventionOpenLLMetry:
		return ResultOpenLLMetry
	case ConventionOpenInference:
		return ResultOpenInference
	}
	return ResultPlain
}

// SpanCall is one tool execution as its span records it, kept in compact
// form until its agent run is scored. Strings reference the span's
// attribute values; nothing is parsed yet.
type SpanCall struct {
	// Name is the tool name.
	Name string
	// ID is the call id the model assigned, or "".
	ID string
	// Args is the raw argument text; Encoding says how to decode it.
	Args     string
	Encoding Encoding
	// Result is the raw result text ("" when not recorded); ResultForm
	// says which wrapper the framework put around it.
	Result     string
	ResultForm ResultForm
	// Type is the tool type ("function", "mcp", a framework class name).
	Type string
	// Failed reports a call that did not succeed (status ERROR or
	// error.type); Ended says when it was refused or named no tool.
	Failed bool
	Ended  CallEnd
	// MCP marks an MCP tools/call span (a duplicate of an enclosing tool
	// span when one exists); MCPClient an MCP span of the client's side
	// (span kind CLIENT), the others being the server's.
	MCP, MCPClient bool
	// Convention is where the call was read from.
	Convention Convention
	// Start and End are the span's timestamps (Unix nanoseconds).
	Start, End uint64
}

// CallEnd says why a call did not succeed when that is more than a
// failure: it was refused (by the user or a policy) before it ran, or it
// named a tool the agent does not have. A call Ended other than EndRan is also
// Failed, so that everything that asks whether a call succeeded says no.
type CallEnd uint8

// The call ends.
const (
	// EndRan is a call that ran: it succeeded unless Failed.
	EndRan CallEnd = iota
	// EndRefused is a call refused by the user or a policy.
	EndRefused
	// EndUnknownTool is a call to a tool the agent does not have.
	EndUnknownTool
)

// Result is what [Classify] found.
type Result struct {
	Kind       Kind
	Convention Convention
	// GenAI reports that the span carries GenAI attributes of any
	// convention, even when it is neither tool nor agent (model calls, agent
	// steps). Such spans are remembered as links in tracked traces.
	GenAI bool
	// ModelCall marks an inference span (KindOther): a model call whose
	// response may have requested the tool calls that follow it.
	ModelCall bool
	// ModelStep marks Mastra's agent_step span (KindOther), which records
	// the tool calls of its step that its chat child leaves out.
	ModelStep bool
	// NamesTool marks a GenAI span (KindOther) whose attributes name a tool
	// (tool.name, gen_ai.tool.name, ai.toolCall.name) but that no rule read
	// as a call: a framework's record of a call this package does not
	// understand (the processor's unrecognized_spans; toolscore inspect).
	NamesTool bool
	// Record marks a KindTool span that is another record of its parent
	// tool span's call (Claude Code's tool.execution and
	// tool.blocked_on_user): its Call has no name of its own and is merged
	// into the parent's.
	Record bool
	// Scheduled marks a span whose output lists calls that never ran
	// (Gemini CLI's schedule_tool_calls): [UnexecutedCalls] reads them.
	Scheduled bool
	// Call is the tool call, for KindTool.
	Call SpanCall
}

// Options tune extraction.
type Options struct {
	// SkipTools lists framework-internal tool names that are not tool calls
	// (ADK's "(merged tools)" wrapper, Pydantic AI's "final_result" output
	// tool). An entry ending in "*" names every tool whose name starts with
	// what comes before it. Such spans are treated as plain GenAI spans.
	// The list is short and read for every tool span, so it is scanned
	// rather than hashed.
	SkipTools []string
}

// DefaultSkipTools are the framework-internal tool names skipped by default:
// ADK's merged-tools wrapper, Pydantic AI's and smolagents' tools that end
// a run with its answer, and the handoff
// spans OpenInference records as TOOL spans for the OpenAI Agents SDK
// ("handoff to <agent>"; the other conventions give handoffs no tool span).
func DefaultSkipTools() []string {
	return []string{"(merged tools)", "final_result", "final_answer", "handoff to *"}
}

// SkipsTool reports whether calls to the tool named name are not calls
// (see SkipTools).
func (o *Options) SkipsTool(name string) bool { return o.skips(name) }

// skips reports whether a tool span named name is not a tool call: it has no
// name, or SkipTools names it. Pydantic AI names the output tool of each of
// several output types final_result_<Type>, so when "final_result" is
// skipped those are too.
func (o *Options) skips(name string) bool {
	if name == "" {
		return true
	}
	for _, e := range o.SkipTools {
		n := len(e)
		if n > 1 && e[0] != name[0] {
			continue // neither e nor, with a "*", its prefix can match name
		}
		if n > 0 && e[n-1] == '*' {
			if strings.HasPrefix(name, e[:n-1]) {
				return true
			}
		} else if e == name {
			return true
		}
	}
	if len(name) > len("final_result_") && strings.HasPrefix(name, "final_result_") {
		return slices.Contains(o.SkipTools, "final_result")
	}
	return false
}

// bareToolSpanName returns the tool of a span named as the GenAI
// conventions name tool executions, "execute_tool {tool}".
func bareToolSpanName(name string) (string, bool) {
	if len(name) <= len("execute_tool ") || name[0] != 'e' {
		return "", false // every ordinary span's name, at the cost of a byte test
	}
	return strings.CutPrefix(name, "execute_tool ")
}

// bareToolCall is the call of a tool span known by its name alone: Google
// ADK (2025) sets a tool span's attributes after the tool returns, so a
// tool that raised leaves only the name and an error status. Its arguments
// are unknown.
func bareToolCall(span ptrace.Span, scope pcommon.InstrumentationScope, name string, opts *Options) Result {
	conv := scopeConvention(scope)
	if opts.skips(name) {
		return Result{GenAI: true, Convention: conv}
	}
	c := SpanCall{
		Name: name, Convention: conv,
		Start: uint64(span.StartTimestamp()), End: uint64(span.EndTimestamp()),
		Failed: span.Status().Code() == ptrace.StatusCodeError,
	}
	return Result{Kind: KindTool, GenAI: true, Convention: conv, Call: c}
}

// Ordinary reports whether span is certainly not a GenAI span: no key of
// its attributes marks one and its name is no agent or tool span's. Classify returns
// the zero Result for exactly these spans; a caller that passes over most
// spans checks this first and builds no Result for them.
func Ordinary(span ptrace.Span) bool {
	if hasGenAIKey(span.Attributes()) {
		return false
	}
	name := span.Name()
	if isAgentSpanName(name) {
		return false
	}
	_, tool := bareToolSpanName(name)
	return !tool
}

// Classify reports what role span plays and, for a tool span, extracts the
// call. scope is the span's instrumentation scope.
func Classify(span ptrace.Span, scope pcommon.InstrumentationScope, opts *Options) Result {
	if !hasGenAIKey(span.Attributes()) {
		return classifyByName(span, scope, opts)
	}
	return ClassifyWithContext(span, scope, opts, false, nil)
}

// classifyByName classifies a span without GenAI attributes: only spans
// known by their name alone can match (Google ADK's 2025 agent_run spans
// carry no attributes, nor its execute_tool spans of tools that raised).
func classifyByName(span ptrace.Span, scope pcommon.InstrumentationScope, opts *Options) Result {
	if isAgentSpanName(span.Name()) {
		return Result{Kind: KindAgent, GenAI: true, Convention: scopeConvention(scope)}
	}
	if name, ok := bareToolSpanName(span.Name()); ok {
		return bareToolCall(span, scope, name, opts)
	}
	return Result{}
}

// ClassifyWithContext is Classify, for spans that are not Ordinary, that
// also reads, when part is not nil, the run context of a span that records
// its run's: a model call, an agent run, or (root set) any GenAI span that
// is its trace's root. *part is set to what CaptureContext returns for such
// a span, and left as it is for others. It reads the attributes in one pass
// where Ordinary, Classify and CaptureContext make three (a span with
// attributes of an indexed family, or with more than a few context values,
// is read again by CaptureContext).
func ClassifyWithContext(span ptrace.Span, scope pcommon.InstrumentationScope, opts *Options, root bool, part *ContextPart) (res Result) {
	ClassifyInto(span, scope, opts, root, part, &res)
	return res
}

// ClassifyInto is ClassifyWithContext writing its result to res, for a
// caller that keeps it in place (the processor: the OTLP receivers call it
// on goroutines whose stack is copied when a call needs more than is left,
// so the frames on its way down are kept small).
func ClassifyInto(span ptrace.Span, scope pcommon.InstrumentationScope, opts *Options, root bool, part *ContextPart, res *Result) {
	var f fields
	capture := part != nil
	// The scan is written out here rather than in a method, so that the
	// compiler sees f on the stack and stores the values without GC write
	// barriers.
	for k, v := range span.Attributes().All() {
		if sk, ok := keyTab.lookup(k); ok {
			f.seen |= sk.flags
			if sk.field != noField {
				f.v[sk.field] = v
				f.set |= 1 << sk.field
			}
			if capture && sk.role != roleNone {
				if f.nctx < maxContextValues {
					f.ctx[f.nctx], f.ctxKey[f.nctx] = v, sk
					f.nctx++
				} else {
					f.rescan = true
				}
			}
			continue
		}
		if f.seen&keyMarker == 0 && len(k) >= 3 && mayStartMarker(k) && isMarkerKey(k) {
			f.seen |= keyMarker
		}
		if capture && mayBeIndexed(k) && indexedStart(k) {
			f.rescan = true // CaptureContext reads the family
		}
	}
	if f.seen&keyMarker != 0 {
		f.classifyInto(res, span, scope)
		f.complete(res, span, opts)
	} else {
		*res = classifyByName(span, scope, opts)
	}
	if !capture || !(res.ModelCall || res.Kind == KindAgent || (res.GenAI && root)) {
		return
	}
	if f.rescan {
		captureInto(part, span)
	} else {
		f.contextInto(part, span)
	}
}

// classifyInto, captureInto and contextInto write what classify,
// CaptureContext and context return in place, from frames of their own
// (ClassifyInto's holds the span's fields: 928 bytes).
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (f *fields) classifyInto(res *Result, span ptrace.Span, scope pcommon.InstrumentationScope) {
	f.classify(res, span, scope)
}

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func captureInto(part *ContextPart, span ptrace.Span) { *part = CaptureContext(span) }

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (f *fields) contextInto(part *ContextPart, span ptrace.Span) { *part = f.context(span) }

// complete completes what classify found in a span with GenAI
// attributes: a tool span's call, or the span as a plain GenAI span when
// its tool is one opts skips.
func (f *fields) complete(res *Result, span ptrace.Span, opts *Options) {
	if res.Kind == KindTool {
		if !res.Record && opts.skips(res.Call.Name) {
			*res = Result{GenAI: true, Convention: res.Convention}
			return
		}
		res.Call.Start = uint64(span.StartTimestamp())
		res.Call.End = uint64(span.EndTimestamp())
		if span.Status().Code() == ptrace.StatusCodeError || f.has(fErrorType) || res.Call.Ended != EndRan {
			res.Call.Failed = true
		}
		if !ArgumentsLikelyKnown(res.Call.Args, res.Call.Encoding, DecodeOptions{}) {
			// Arguments recorded outside the tool attributes (Strands).
			if span.Events().Len() > 0 {
				eventArguments(span, &res.Call)
			}
			if f.seen&keyMessages != 0 && !ArgumentsLikelyKnown(res.Call.Args, res.Call.Encoding, DecodeOptions{}) {
				messageArguments(span.Attributes(), &res.Call, true)
			}
		}
		if res.Call.ResultForm == ResultPlain {
			res.Call.ResultForm = resultForm(res.Call.Convention)
		}
	}
	res.GenAI = true
}
