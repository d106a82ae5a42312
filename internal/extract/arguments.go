package extract

import (
	"encoding/base64"
	"errors"
	"math"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// valueText renders an attribute value as text: strings as they are,
// everything else as JSON.
func valueText(v pcommon.Value) string {
	if v.Type() == pcommon.ValueTypeStr {
		return v.Str()
	}
	var sb strings.Builder
	appendValueJSON(&sb, v, 0)
	return sb.String()
}

// appendValueJSON writes v, at depth, as JSON. A value nested deeper than
// jsonv.MaxDepth is written as null: the parse reads whatever is there
// as unknown, so the text parses as the whole value would, and a value
// nested however deep is written in bounded stack and space.
func appendValueJSON(sb *strings.Builder, v pcommon.Value, depth int) {
	if depth > jsonv.MaxDepth {
		sb.WriteString("null")
		return
	}
	switch v.Type() {
	case pcommon.ValueTypeStr:
		sb.WriteString(jsonv.String(v.Str()).JSON())
	case pcommon.ValueTypeInt:
		sb.WriteString(strconv.FormatInt(v.Int(), 10))
	case pcommon.ValueTypeDouble:
		d := v.Double()
		if math.IsNaN(d) || math.IsInf(d, 0) {
			sb.WriteString("null")
		} else {
			sb.WriteString(jsonv.Number(d).JSON())
		}
	case pcommon.ValueTypeBool:
		sb.WriteString(strconv.FormatBool(v.Bool()))
	case pcommon.ValueTypeMap:
		sb.WriteByte('{')
		first := true
		for k, e := range v.Map().All() {
			if !first {
				sb.WriteByte(',')
			}
			first = false
			sb.WriteString(jsonv.String(k).JSON())
			sb.WriteByte(':')
			appendValueJSON(sb, e, depth+1)
		}
		sb.WriteByte('}')
	case pcommon.ValueTypeSlice:
		sb.WriteByte('[')
		for i, e := range v.Slice().All() {
			if i > 0 {
				sb.WriteByte(',')
			}
			appendValueJSON(sb, e, depth+1)
		}
		sb.WriteByte(']')
	case pcommon.ValueTypeBytes:
		sb.WriteString(jsonv.String(base64.StdEncoding.EncodeToString(v.Bytes().AsRaw())).JSON())
	default:
		sb.WriteString("null")
	}
}

// eventArguments fills arguments and result from span events, where Strands
// Agents records them: gen_ai.tool.message (content) and gen_ai.choice
// (message) in its default mode, or the tool_call part of
// gen_ai.client.inference.operation.details in its latest-semconv mode.
// Classify calls it only when the tool attributes gave no arguments.
func eventArguments(span ptrace.Span, c *SpanCall) {
	need := true
	for _, ev := range span.Events().All() {
		attrs := ev.Attributes()
		switch ev.Name() {
		case "gen_ai.tool.message":
			if v, ok := attrs.Get("content"); ok && need {
				c.Args, c.Encoding, need = valueText(v), EncodingJSON, false
				if c.Convention == ConventionGenAI {
					c.Convention = ConventionStrands
				}
			}
		case "gen_ai.choice":
			if v, ok := attrs.Get("message"); ok && c.Result == "" {
				c.Result = valueText(v)
			}
		case "gen_ai.client.inference.operation.details":
			need = messageArguments(attrs, c, need)
		}
	}
}

// messageArguments fills c's arguments from the tool_call part of the GenAI
// input messages in attrs (when need is set) and its result from the output
// messages, as Strands Agents records them in its latest-semconv mode: on
// an event, or, in its Langfuse mode, on the span itself. It returns
// whether arguments are still needed.
func messageArguments(attrs pcommon.Map, c *SpanCall, need bool) bool {
	if v, ok := attrs.Get(inputMessagesKey); ok && need {
		if args, found := toolCallPartArguments(valueText(v), c.Name); found {
			c.Args, c.Encoding, need = args, EncodingJSON, false
		}
	}
	if v, ok := attrs.Get(outputMessagesKey); ok && c.Result == "" {
		c.Result = valueText(v)
	}
	return need
}

// The keys of the GenAI messages messageArguments reads.
const (
	inputMessagesKey  = "gen_ai.input.messages"
	outputMessagesKey = "gen_ai.output.messages"
)

// toolCallPartArguments finds the arguments of the tool_call part named name
// in a GenAI messages JSON document.
func toolCallPartArguments(messages, name string) (string, bool) {
	doc, err := jsonv.Parse(messages)
	if err != nil || doc.Kind() != jsonv.KindArray {
		return "", false
	}
	for i := 0; i < doc.Len(); i++ {
		parts, _ := doc.Index(i).Get("parts")
		for k := 0; k < parts.Len(); k++ {
			p := parts.Index(k)
			if t, _ := p.Get("type"); t.StringValue() != "tool_call" {
				continue
			}
			if n, _ := p.Get("name"); name != "" && n.StringValue() != name {
				continue
			}
			if args, ok := p.Get("arguments"); ok {
				if args.Kind() == jsonv.KindString {
					return args.StringValue(), true
				}
				return args.JSON(), true
			}
		}
	}
	return "", false
}

// isPlaceholder reports whether trimmed argument text is a placeholder that
// stands in for arguments not recorded: ADK's "<not specified>", "N/A",
// null, Python's None, or OpenInference's "__REDACTED__" (what
// OPENINFERENCE_HIDE_INPUTS writes in input.value).
func isPlaceholder(s string) bool {
	switch s {
	case "", "N/A", "<not specified>", "null", "None", "__REDACTED__":
		return true
	}
	return false
}

// ArgumentState says what decoding arguments found.
type ArgumentState uint8

// The argument states.
const (
	// ArgumentsKnown means the arguments were decoded.
	ArgumentsKnown ArgumentState = iota
	// ArgumentsAbsent means no arguments were recorded (content capture off).
	ArgumentsAbsent
	// ArgumentsPlaceholder means a placeholder such as "N/A",
	// "<not specified>" or "__REDACTED__" stood in for them ("{}" is
	// ArgumentsEmpty).
	ArgumentsPlaceholder
	// ArgumentsTruncated means the text ended inside a JSON value.
	ArgumentsTruncated
	// ArgumentsPositional means they were recorded by position, without
	// the parameters' names (a Python call record from an OpenLLMetry
	// decorator or OpenInference's smolagents instrumentation), so they
	// cannot be checked by name.
	ArgumentsPositional
	// ArgumentsTooLarge means the text is longer than the size limit
	// (DecodeOptions.MaxArgumentBytes), so it was not parsed: parsing
	// takes memory in proportion to it, many times its size.
	ArgumentsTooLarge
	// ArgumentsEmpty means an empty object, "{}", which EmptyIsKnown does
	// not make known: the tool was called without arguments, or "{}"
	// stands for arguments not captured. Conventions that never write "{}"
	// for arguments they did not capture make it known
	// ([WritesEmptyPlaceholder]); so does a rule that expects "{}" or
	// defines the tool without required parameters
	// (toolcall.EmptyArguments).
	ArgumentsEmpty
)

// WritesEmptyPlaceholder reports whether a convention writes "{}" for
// arguments it did not capture: Google ADK does
// (gcp.vertex.agent.tool_call_args with ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS
// off; older versions an empty map). The others leave arguments they do not
// capture out (OTel GenAI, OpenInference, OpenLLMetry, the AI SDK, Spring
// AI, Pydantic AI) or always capture them (Strands, Mastra, Genkit, MCP),
// so "{}" there is a call made without arguments.
func WritesEmptyPlaceholder(c Convention) bool { return c == ConventionADK }

// ScopeWritesEmptyPlaceholder reports whether spans of an instrumentation
// scope are in a convention that writes "{}" placeholders (see
// WritesEmptyPlaceholder), before they are classified.
func ScopeWritesEmptyPlaceholder(scope pcommon.InstrumentationScope) bool {
	return WritesEmptyPlaceholder(scopeConvention(scope))
}

// String says what the state means, for explanations of unknown
// arguments; [DecodeOptions.Reason] gives the size limit as well.
func (s ArgumentState) String() string {
	switch s {
	case ArgumentsKnown:
		return "arguments known"
	case ArgumentsAbsent:
		return "arguments not recorded"
	case ArgumentsPlaceholder:
		return "arguments replaced by a placeholder"
	case ArgumentsTruncated:
		return "arguments truncated or malformed"
	case ArgumentsPositional:
		return "arguments recorded by position, without names"
	case ArgumentsTooLarge:
		return "arguments larger than the size limit"
	case ArgumentsEmpty:
		return `arguments recorded as "{}", maybe a placeholder`
	}
	return "argument state " + strconv.Itoa(int(s))
}

// DefaultMaxArgumentBytes is the size limit of argument text when
// DecodeOptions.MaxArgumentBytes is 0: 1 MiB.
const DefaultMaxArgumentBytes = 1 << 20

// DecodeOptions tune argument decoding.
type DecodeOptions struct {
	// EmptyIsKnown makes "{}" mean "called without arguments" in every
	// convention, instead of ArgumentsEmpty. Turn it on when content
	// capture is known to be on.
	EmptyIsKnown bool
	// MaxArgumentBytes is the size limit of argument text: longer text is
	// not parsed, and the arguments are unknown (ArgumentsTooLarge). 0
	// means DefaultMaxArgumentBytes.
	MaxArgumentBytes int
}

// maxArgumentBytes returns the size limit in effect.
func (o *DecodeOptions) maxArgumentBytes() int {
	if o.MaxArgumentBytes > 0 {
		return o.MaxArgumentBytes
	}
	return DefaultMaxArgumentBytes
}

// tooLarge reports whether raw argument text is past the size limit.
func (o *DecodeOptions) tooLarge(raw string) bool { return len(raw) > o.maxArgumentBytes() }

// Reason says why arguments in state s are unknown ("" for known ones):
// [ArgumentState.String], with the size limit for ArgumentsTooLarge
// ("arguments larger than the 1 MiB limit").
func (o DecodeOptions) Reason(s ArgumentState) string {
	switch s {
	case ArgumentsKnown:
		return ""
	case ArgumentsTooLarge:
		return "arguments larger than the " + formatBytes(o.maxArgumentBytes()) + " limit"
	}
	return s.String()
}

// formatBytes writes a size in MiB or KiB when it is a whole number of
// them, else in bytes.
func formatBytes(n int) string {
	switch {
	case n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
}

// DecodeArguments parses raw argument text. Arguments that are absent, a
// placeholder or truncated are reported as such and are not an error: the
// call is then judged by name and position only.
//
// Text longer than opts.MaxArgumentBytes is not parsed: the arguments are
// unknown, ArgumentsTooLarge.
func DecodeArguments(raw string, enc Encoding, opts DecodeOptions) (jsonv.Value, ArgumentState) {
	return DecodeArgumentsIn(raw, enc, opts, nil)
}

// DecodeArgumentsIn is [DecodeArguments] taking the arguments' elements
// from sl when it is not nil: they are then valid until sl is reset.
func DecodeArgumentsIn(raw string, enc Encoding, opts DecodeOptions, sl *jsonv.Slab) (jsonv.Value, ArgumentState) {
	if enc == EncodingAbsent {
		return jsonv.Value{}, ArgumentsAbsent
	}
	if opts.tooLarge(raw) {
		return jsonv.Value{}, ArgumentsTooLarge
	}
	s := strings.TrimSpace(raw)
	if isPlaceholder(s) {
		return jsonv.Value{}, ArgumentsPlaceholder
	}
	var v jsonv.Value
	switch enc {
	case EncodingText:
		return jsonv.String(raw), ArgumentsKnown
	case EncodingTraceloop:
		var state ArgumentState
		if v, state = decodeTraceloop(s, sl); state != ArgumentsKnown {
			return v, state
		}
	case EncodingLangChainWrapper:
		w, state := decodeJSON(s, false, sl)
		if state != ArgumentsKnown {
			return w, state
		}
		v = w
		if isLangChainWrapper(w) {
			v = unwrapLangChain(w)
		}
	case EncodingJSONOrPython:
		var state ArgumentState
		v, state = decodeJSON(s, true, sl)
		if state != ArgumentsKnown {
			return v, state
		}
		if isCallWrapper(v) {
			if v, state = unwrapTraceloop(v); state != ArgumentsKnown {
				return jsonv.Value{}, state
			}
		}
	default:
		var state ArgumentState
		v, state = decodeJSON(s, false, sl)
		if state != ArgumentsKnown {
			return v, state
		}
	}
	if !opts.EmptyIsKnown && v.Kind() == jsonv.KindObject && v.Len() == 0 {
		return jsonv.Value{}, ArgumentsEmpty
	}
	return v, ArgumentsKnown
}

// DeferredArgumentsDocument is [DecodeArguments] for runs whose scorers read
// documents (the native scorer): arguments that may be a JSON object, the
// usual case, are given as a deferred document (jsonv.DeferredDocument),
// which the scorer reads once, checking them as it reads. ok is false in
// every other case, which DecodeArguments decodes, for an empty object
// that opts does not count as known arguments and for text past the size
// limit.
//
// The text is not parsed here. A native scorer that finds it is not JSON
// after all returns jsonv.ErrInvalidDocument, and the run is then scored
// from DecodeArguments' trees; those agree with the documents on every text
// that is JSON.
func DeferredArgumentsDocument(raw string, enc Encoding, opts DecodeOptions) (doc jsonv.Document, ok bool) {
	if opts.tooLarge(raw) {
		return jsonv.Document{}, false
	}
	s, ok := documentText(raw, enc)
	if !ok {
		return jsonv.Document{}, false
	}
	if !opts.EmptyIsKnown && isEmptyObject(s) {
		return jsonv.Document{}, false
	}
	return jsonv.DeferredDocument(s), true
}

// isEmptyObject reports whether s, which opens an object, is an empty
// one: only JSON white space between its braces.
func isEmptyObject(s string) bool {
	return len(s) >= 2 && s[len(s)-1] == '}' && trimJSONSpaceLeft(s[1:len(s)-1]) == ""
}

// documentText returns raw without surrounding space when it may be
// arguments written as a JSON object that a document covers: JSON text
// opening an object, and not maybe a call record.
func documentText(raw string, enc Encoding) (string, bool) {
	if enc != EncodingJSON && enc != EncodingJSONOrPython {
		return "", false
	}
	s := strings.TrimSpace(raw)
	if len(s) < 2 || s[0] != '{' {
		return "", false
	}
	if enc == EncodingJSONOrPython && strings.Contains(s, `"kwargs"`) {
		return "", false // maybe a call record (isCallWrapper)
	}
	return s, true
}

// decodeJSON parses JSON, unwrapping one level of double encoding. Text that
// is not JSON is tried as a Python literal when python is set, and otherwise
// kept as a plain string argument. The values are taken from sl when it is
// not nil.
func decodeJSON(s string, python bool, sl *jsonv.Slab) (jsonv.Value, ArgumentState) {
	v, err := sl.Parse(s)
	if errors.Is(err, jsonv.ErrTruncated) {
		return jsonv.Value{}, ArgumentsTruncated
	}
	if err != nil {
		if python {
			if pv, perr := ParsePythonLiteral(s); perr == nil {
				return pv, ArgumentsKnown
			}
		}
		if looksLikeJSON(s) {
			// An object or array that does not parse was cut somewhere
			// (length limits) or mangled; it is not the arguments.
			return jsonv.Value{}, ArgumentsTruncated
		}
		return jsonv.String(s), ArgumentsKnown
	}
	if v.Kind() == jsonv.KindString {
		inner := strings.TrimSpace(v.StringValue())
		if looksLikeJSON(inner) {
			iv, ierr := sl.Parse(inner)
			if ierr == nil {
				return iv, ArgumentsKnown
			}
			if errors.Is(ierr, jsonv.ErrTruncated) {
				// Double-encoded JSON cut at a length limit.
				return jsonv.Value{}, ArgumentsTruncated
			}
		}
	}
	return v, ArgumentsKnown
}

// decodeTraceloop decodes an OpenLLMetry record of arguments (see
// unwrapTraceloop). The record OpenLLMetry JS writes for a tool called with
// one argument, {"args":["<JSON text>"]}, is read without building it.
func decodeTraceloop(s string, sl *jsonv.Slab) (jsonv.Value, ArgumentState) {
	if elem, ok := soleTraceloopElement(s); ok {
		arg, ok := jsonv.UnquoteString(elem)
		if !ok {
			return decodeTraceloopTree(s)
		}
		// What unwrapTraceloop makes of the record: the argument's JSON
		// text when it holds an object, else a positional argument.
		if v, _ := decodeJSON(arg, false, sl); v.Kind() == jsonv.KindObject {
			return v, ArgumentsKnown
		}
		return jsonv.Value{}, ArgumentsPositional
	}
	return decodeTraceloopTree(s)
}

// decodeTraceloopTree decodes an OpenLLMetry record of arguments by
// parsing it and unwrapping the tree.
func decodeTraceloopTree(s string) (jsonv.Value, ArgumentState) {
	w, state := decodeJSON(s, false, nil)
	if state != ArgumentsKnown {
		return w, state
	}
	v, state := unwrapTraceloop(w)
	if state != ArgumentsKnown {
		return jsonv.Value{}, state
	}
	return v, ArgumentsKnown
}

// soleTraceloopElement returns the text of the string s holds when s is
// exactly {"args":["..."]}, with JSON white space anywhere between the
// tokens and the key written without escapes; ok is false for any other
// text. The caller decodes it (jsonv.UnquoteString) beside this frame
// rather than below it: decoding it is the deepest call of a tool span's
// scoring (see the processor's scoreClosed).
func soleTraceloopElement(s string) (elem string, ok bool) {
	rest, ok := strings.CutPrefix(s, "{")
	if !ok {
		return "", false
	}
	for _, tok := range [...]string{`"args"`, ":", "["} {
		if rest, ok = strings.CutPrefix(trimJSONSpaceLeft(rest), tok); !ok {
			return "", false
		}
	}
	for _, tok := range [...]string{"}", "]"} {
		if rest, ok = strings.CutSuffix(trimJSONSpaceRight(rest), tok); !ok {
			return "", false
		}
	}
	// What is left is the array's only element when it parses as one
	// string (jsonv.UnquoteString), and nothing else parses as one.
	elem = trimJSONSpace(rest)
	return elem, strings.HasPrefix(elem, `"`)
}

// isJSONSpace reports whether c is white space JSON allows between tokens.
func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// trimJSONSpaceLeft returns s without the JSON white space it starts with.
func trimJSONSpaceLeft(s string) string {
	for len(s) > 0 && isJSONSpace(s[0]) {
		s = s[1:]
	}
	return s
}

// trimJSONSpaceRight returns s without the JSON white space it ends with.
func trimJSONSpaceRight(s string) string {
	for len(s) > 0 && isJSONSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func trimJSONSpace(s string) string { return trimJSONSpaceLeft(trimJSONSpaceRight(s)) }

// isLangChainWrapper reports whether v is the run-inputs wrapper OpenLLMetry's
// LangChain instrumentation records: an object with input_str beside inputs
// or kwargs.
func isLangChainWrapper(v jsonv.Value) bool {
	if v.Kind() != jsonv.KindObject {
		return false
	}
	if _, ok := v.Get("input_str"); !ok {
		return false
	}
	_, inputs := v.Get("inputs")
	_, kwargs := v.Get("kwargs")
	return inputs || kwargs
}

// unwrapLangChain returns the tool input inside OpenLLMetry's LangChain
// wrapper: inputs when LangChain recorded a dict, else input_str, which is
// str(tool_input): a Python repr of a dict, or the string the tool got.
func unwrapLangChain(w jsonv.Value) jsonv.Value {
	if in, ok := w.Get("inputs"); ok && in.Kind() == jsonv.KindObject {
		return in
	}
	in, _ := w.Get("input_str")
	if in.Kind() != jsonv.KindString {
		return in
	}
	v, state := decodeJSON(in.StringValue(), true, nil)
	if state != ArgumentsKnown {
		return in
	}
	return v
}

func looksLikeJSON(s string) bool {
	return strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")
}

// isCallWrapper reports the {"args": [...], "kwargs": {...}} record of a
// Python call that OpenInference's smolagents instrumentation writes in
// input.value (with smolagents' own sanitize_inputs_outputs flag beside
// them), rather than the tool's arguments.
func isCallWrapper(v jsonv.Value) bool {
	if v.Kind() != jsonv.KindObject {
		return false
	}
	args, hasArgs := v.Get("args")
	kwargs, hasKW := v.Get("kwargs")
	if !hasArgs || !hasKW || args.Kind() != jsonv.KindArray || kwargs.Kind() != jsonv.KindObject {
		return false
	}
	_, sanitize := v.Get("sanitize_inputs_outputs")
	n := 2
	if sanitize {
		n++
	}
	return v.Len() == n
}

// unwrapTraceloop extracts the real arguments from OpenLLMetry wrappers:
// {"args": [...], "kwargs": {...}} from decorators,
// {"input_str": ..., "inputs": {...}} from the LangChain instrumentation and
// {"tool_name": ..., "arguments": {...}} from the MCP instrumentation.
// A decorator's keyword arguments are the arguments; positional ones carry
// no parameter names (ArgumentsPositional), except a JavaScript tool's
// single argument, which is the arguments object (or its JSON text).
func unwrapTraceloop(w jsonv.Value) (jsonv.Value, ArgumentState) {
	if w.Kind() != jsonv.KindObject {
		return w, ArgumentsKnown
	}
	if isLangChainWrapper(w) {
		return unwrapLangChain(w), ArgumentsKnown
	}
	if in, ok := w.Get("inputs"); ok && in.Kind() == jsonv.KindObject {
		return in, ArgumentsKnown
	}
	if _, ok := w.Get("tool_name"); ok && w.Len() == 2 {
		// The MCP instrumentation's {"tool_name", "arguments"} record.
		if a, ok := w.Get("arguments"); ok {
			if a.Kind() == jsonv.KindString {
				a, _ = decodeJSON(a.StringValue(), false, nil)
			}
			return a, ArgumentsKnown
		}
	}
	kwargs, hasKW := w.Get("kwargs")
	args, hasArgs := w.Get("args")
	if !hasKW && !hasArgs {
		if in, ok := w.Get("input_str"); ok {
			v, _ := decodeJSON(in.StringValue(), true, nil)
			return v, ArgumentsKnown
		}
		return w, ArgumentsKnown
	}
	if args.Kind() == jsonv.KindArray && args.Len() > 0 {
		if args.Len() == 1 && kwargs.Len() == 0 {
			a := args.Index(0)
			if a.Kind() == jsonv.KindString {
				a, _ = decodeJSON(a.StringValue(), false, nil)
			}
			if a.Kind() == jsonv.KindObject {
				return a, ArgumentsKnown
			}
		}
		return jsonv.Value{}, ArgumentsPositional
	}
	if hasKW {
		return kwargs, ArgumentsKnown
	}
	if args.Kind() == jsonv.KindArray {
		// No positional and no keyword arguments: called without any.
		return jsonv.Object(), ArgumentsKnown
	}
	return w, ArgumentsKnown
}

// DecodeResult parses a raw tool result: JSON when it parses (one level of
// double encoding removed, as AI SDK and OpenLLMetry quote string results),
// else the text itself. The wrapper form says the framework put around the
// tool's return value is removed (see [ResultForm]): Google ADK's
// {"result": x} and Genkit tool.v2's {"output": x} when they are the only
// member, Strands' single content block, OpenLLMetry's LangChain
// {"output": x, "kwargs": {...}} and a serialized LangChain ToolMessage
// (its content), alone under OpenLLMetry or as {"output": message} under
// OpenInference. Text inside a wrapper is decoded as a raw result is. A
// result longer than DefaultMaxArgumentBytes is not parsed: it is the text
// itself.
func DecodeResult(raw string, form ResultForm) (jsonv.Value, bool) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return jsonv.Value{}, false
	}
	if len(raw) > DefaultMaxArgumentBytes {
		return jsonv.String(raw), true
	}
	v, state := decodeJSON(s, false, nil)
	if state != ArgumentsKnown {
		return jsonv.String(raw), true
	}
	if form != ResultPlain {
		// Text taken out of a wrapper is decoded here rather than under
		// unwrapResult's frames: the processor decodes results on the
		// OTLP receiver's stack, and the parser's frames add up (see its
		// scoreClosed).
		var text bool
		if v, text = unwrapResult(v, form); text {
			v = unwrapped(v)
		}
	}
	return v, true
}

// unwrapResult removes the wrapper form names from a decoded result; a
// value of another shape is returned as it is. text reports a value taken
// out of a wrapper that is to be decoded as a raw result is (see unwrapped),
// when it is text.
func unwrapResult(v jsonv.Value, form ResultForm) (_ jsonv.Value, text bool) {
	switch form {
	case ResultADK:
		if x, ok := soleMember(v, "result"); ok {
			return x, true
		}
	case ResultGenkitV2:
		if x, ok := soleMember(v, "output"); ok {
			return x, true
		}
	case ResultStrands:
		if v.Kind() == jsonv.KindArray && v.Len() == 1 {
			block := v.Index(0)
			if x, ok := soleMember(block, "text"); ok && x.Kind() == jsonv.KindString {
				return x, true
			}
			if x, ok := soleMember(block, "json"); ok {
				return x, false
			}
		}
	case ResultOpenLLMetry:
		if v.Kind() == jsonv.KindObject && v.Len() == 2 {
			out, hasOut := v.Get("output")
			if _, hasKW := v.Get("kwargs"); hasOut && hasKW {
				if c, ok := toolMessageContent(out); ok {
					return c, true
				}
				return out, true
			}
		}
		if c, ok := toolMessageContent(v); ok {
			return c, true
		}
	case ResultOpenInference:
		if x, ok := soleMember(v, "output"); ok {
			if c, ok := toolMessageContent(x); ok {
				return c, true
			}
		}
	}
	return v, false
}

// soleMember returns the member key of v when v is an object with no other
// member.
func soleMember(v jsonv.Value, key string) (jsonv.Value, bool) {
	if v.Kind() != jsonv.KindObject || v.Len() != 1 {
		return jsonv.Value{}, false
	}
	return v.Get(key)
}

// toolMessageContent returns the content of a serialized LangChain
// ToolMessage: its constructor form ({"lc":1,"type":"constructor",
// "id":[…,"ToolMessage"],"kwargs":{"content":…}}) or the instance
// JSON.stringify writes ({"lc_serializable":true,"type":"tool",
// "content":…}), as it is (text content is for the caller to decode, as
// unwrapResult's is).
func toolMessageContent(v jsonv.Value) (jsonv.Value, bool) {
	if v.Kind() != jsonv.KindObject {
		return jsonv.Value{}, false
	}
	var content jsonv.Value
	var ok bool
	if typ, _ := v.Get("type"); typ.StringValue() == "constructor" {
		id, _ := v.Get("id")
		if id.Kind() != jsonv.KindArray || id.Len() == 0 || id.Index(id.Len()-1).StringValue() != "ToolMessage" {
			return jsonv.Value{}, false
		}
		kw, _ := v.Get("kwargs")
		content, ok = kw.Get("content")
	} else if typ.StringValue() == "tool" && v.Has("lc_serializable") {
		content, ok = v.Get("content")
	}
	if !ok {
		return jsonv.Value{}, false
	}
	return content, true
}

// unwrapped returns a value taken out of a wrapper: text is decoded as
// DecodeResult decodes a raw result, so that a tool's text reads the same
// whether its framework quoted it (AI SDK), wrote it as it is (Pydantic AI)
// or wrapped it.
func unwrapped(x jsonv.Value) jsonv.Value {
	if x.Kind() != jsonv.KindString {
		return x
	}
	if v, ok := DecodeResult(x.StringValue(), ResultPlain); ok {
		return v
	}
	return x
}

// ArgumentsLikelyKnown tells, without parsing, whether DecodeArguments will
// probably find arguments: they are present, not a placeholder, and JSON
// objects and arrays are closed. It feeds the extracted-calls metric, which
// is recorded for every tool span; scoring decodes for real (and finds,
// for one, that a call record holds positional arguments).
func ArgumentsLikelyKnown(raw string, enc Encoding, opts DecodeOptions) bool {
	if enc == EncodingAbsent || opts.tooLarge(raw) {
		return false
	}
	s := strings.TrimSpace(raw)
	if isPlaceholder(s) {
		return false
	}
	if s == "{}" {
		return opts.EmptyIsKnown
	}
	if enc == EncodingText {
		return true
	}
	switch s[0] {
	case '{':
		return s[len(s)-1] == '}'
	case '[':
		return s[len(s)-1] == ']'
	}
	return true
}
