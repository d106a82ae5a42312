package extract

import (
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// The coding agents export telemetry of their own, read here as its
// releases record it (testdata/traces/captures/{claude-code,gemini-cli,
// codex}-*.otlp.jsonl; docs/conventions.md):
//
//   - Claude Code (enhanced telemetry beta): claude_code.interaction
//     (invoke_agent) is the run, claude_code.tool (execute_tool, read by
//     genAITool) the call; its children claude_code.tool.execution (the
//     failure) and claude_code.tool.blocked_on_user (the permission
//     decision) are other records of the same call.
//   - Gemini CLI: gen_ai.operation.name user_prompt is the run, tool_call
//     the call, with its request and outcome as JSON in
//     gen_ai.input.messages / gen_ai.output.messages; calls refused or
//     naming no tool never reach a tool_call span and are read from their
//     schedule_tool_calls span's output (UnexecutedCalls); llm_call is the
//     model call.
//   - Codex: Rust tracing spans; session_task.turn is the run, the span
//     named after the tool with codex.tool.phase=dispatch, tool_name and
//     call_id is the call (no arguments, no outcome: those are in the
//     codex.tool_result log record).

// isClaudeCodeRecord reports the span.type of Claude Code's records of a
// tool call below its claude_code.tool span.
func isClaudeCodeRecord(spanType string) bool {
	return spanType == "tool.execution" || spanType == "tool.blocked_on_user"
}

// claudeCodeRecord reads claude_code.tool.execution (its status and
// error.type say whether the tool failed; complete reads them) or
// claude_code.tool.blocked_on_user (decision reject: the call was refused,
// by the user or by the configured permissions).
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (f *fields) claudeCodeRecord(span ptrace.Span) Result {
	c := SpanCall{ID: f.str(fToolCallID), Convention: ConventionClaudeCode}
	if f.str(fSpanType) == "tool.blocked_on_user" && isRefusal(attrText(span.Attributes(), "decision")) {
		c.Ended = EndRefused
	}
	return Result{Kind: KindTool, Convention: ConventionClaudeCode, Call: c, Record: true}
}

// isRefusal reports a permission decision that kept a call from running,
// as Claude Code (reject), Codex (denied, abort) and Gemini CLI (cancel,
// reject) write it.
func isRefusal(decision string) bool {
	switch strings.ToLower(decision) {
	case "reject", "rejected", "deny", "denied", "abort", "aborted", "cancel", "cancelled", "canceled", "forbidden":
		return true
	}
	return false
}

// claudeCodeArguments gives a claude_code.tool span without recorded
// arguments the ones Claude Code puts on the span itself: file_path, and
// the shell command (full_command) as "command". They are what the span
// knows of the arguments (a Write's content is only in the tool_result
// log record), so a rule on other arguments finds them missing.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func claudeCodeArguments(attrs pcommon.Map, c *SpanCall) {
	var sb strings.Builder
	add := func(key, attr string) {
		v, ok := attrs.Get(attr)
		if !ok || v.Type() != pcommon.ValueTypeStr {
			return
		}
		if sb.Len() == 0 {
			sb.WriteByte('{')
		} else {
			sb.WriteByte(',')
		}
		writeJSONString(&sb, key)
		sb.WriteByte(':')
		writeJSONString(&sb, v.Str())
	}
	add("file_path", "file_path")
	add("command", "full_command")
	add("pattern", "pattern")
	add("url", "url")
	if sb.Len() > 0 {
		sb.WriteByte('}')
		c.Args, c.Encoding = sb.String(), EncodingJSON
	}
}

// geminiTool reads a Gemini CLI tool_call span: its name and id are
// attributes, its arguments the "args" of the request in
// gen_ai.input.messages, its outcome the "status" of
// gen_ai.output.messages ("success", "error", "cancelled"), with the
// error's errorType, and a shell command's exit code in data.exitCode /
// data.isError (Gemini CLI reports a command that exits non-zero as a
// success).
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (f *fields) geminiTool(span ptrace.Span) Result {
	c := SpanCall{Name: f.str(fToolName), ID: attrText(span.Attributes(), "gen_ai.tool.call_id"), Convention: ConventionGeminiCLI}
	if c.ID == "" {
		c.ID = f.str(fToolCallID)
	}
	geminiCall(span.Attributes(), &c)
	return Result{Kind: KindTool, Convention: ConventionGeminiCLI, Call: c}
}

// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func geminiCall(attrs pcommon.Map, c *SpanCall) {
	var dp jsonv.DocumentParser
	if v, ok := attrs.Get("gen_ai.input.messages"); ok && v.Type() == pcommon.ValueTypeStr {
		if d, err := dp.Parse(v.Str()); err == nil {
			req := rootNode(&d)
			if a, ok := req.get("args"); ok {
				c.Args, c.Encoding = a.raw(), EncodingJSON
			}
			if c.Name == "" {
				c.Name = req.str("name")
			}
		}
	}
	if v, ok := attrs.Get("gen_ai.output.messages"); ok && v.Type() == pcommon.ValueTypeStr {
		if d, err := dp.Parse(v.Str()); err == nil {
			geminiOutcome(rootNode(&d), c)
		}
	}
}

// geminiOutcome reads one scheduled call's record ({"status", "response":
// {"errorType", "data", "responseParts"}}) into c: its result and outcome.
func geminiOutcome(rec jnode, c *SpanCall) {
	resp, _ := rec.get("response")
	if parts := resp.items("responseParts"); len(parts) > 0 {
		if fr, ok := parts[0].get("functionResponse"); ok {
			if r, ok := fr.get("response"); ok {
				c.Result = r.raw()
			}
		}
	}
	switch rec.str("status") {
	case "error":
		c.Failed = true
	case "cancelled":
		c.Failed, c.Ended = true, EndRefused
	}
	switch resp.str("errorType") {
	case "tool_not_registered":
		c.Failed, c.Ended = true, EndUnknownTool
	case "policy_violation":
		c.Failed, c.Ended = true, EndRefused
	}
	if data, ok := resp.get("data"); ok {
		if data.boolean("isError") {
			c.Failed = true
		}
		if code := data.str("exitCode"); code != "" && code != "0" {
			c.Failed = true
		}
	}
}

// UnexecutedCalls returns the calls a Gemini CLI schedule_tool_calls span
// (Result.Scheduled) lists that never ran: refused by the policy or the
// user, or naming a tool the agent does not have. They have no tool_call
// span; the calls that ran do, and are left out here. Strings reference
// nothing of the span: the span's JSON is parsed, so they are copies.
// A call that never ran has an errorType (policy, unknown tool) or the
// status "cancelled" with none (the user refused it in the interactive
// approval dialog); an output with neither is not parsed.
func UnexecutedCalls(span ptrace.Span) []SpanCall {
	v, ok := span.Attributes().Get("gen_ai.output.messages")
	if !ok || v.Type() != pcommon.ValueTypeStr || !strings.Contains(v.Str(), `"errorType"`) && !strings.Contains(v.Str(), `"cancelled"`) {
		return nil
	}
	var dp jsonv.DocumentParser
	d, err := dp.Parse(v.Str())
	if err != nil {
		return nil
	}
	var out []SpanCall
	for _, rec := range rootNode(&d).elems() {
		req, _ := rec.get("request")
		c := SpanCall{Name: req.str("name"), ID: req.str("callId"), Convention: ConventionGeminiCLI,
			Start: uint64(span.StartTimestamp()), End: uint64(span.EndTimestamp())}
		if a, ok := req.get("args"); ok {
			c.Args, c.Encoding = a.raw(), EncodingJSON
		}
		geminiOutcome(rec, &c)
		if c.Ended == EndRan || c.Name == "" {
			continue // it ran (or will): its tool_call span records it
		}
		out = append(out, c)
	}
	return out
}

// UnexecutedCallSpanID is the span id a call UnexecutedCalls returned is
// kept under: the schedule span's, with its first byte inverted and its
// last mixed with the call's position, so that it is stable across
// retries of the same span and distinct from the span's own id.
func UnexecutedCallSpanID(schedule pcommon.SpanID, i int) pcommon.SpanID {
	id := schedule
	id[0] ^= 0xff
	id[7] ^= byte(i + 1)
	return id
}

// codexTool reads a Codex tool dispatch span: the span is named after the
// tool; tool_name and call_id say which call it ran. Codex records no
// arguments and no outcome on it (aborted=true is the one failure it
// shows): those are in the codex.tool_result log record.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (f *fields) codexTool(span ptrace.Span) Result {
	attrs := span.Attributes()
	c := SpanCall{Name: attrText(attrs, "tool_name"), ID: attrText(attrs, "call_id"), Convention: ConventionCodex}
	return Result{Kind: KindTool, Convention: ConventionCodex, Call: c}
}

// RunKey returns the key a tool or agent span of res names its run by,
// "" when it reaches its run through its parents: a Codex span's turn,
// turn.id (turn_id on some spans). The turn (session_task.turn) and its
// tool dispatch spans carry it, so a call reaches its turn by it without
// the dozen tracing spans between them.
func RunKey(span ptrace.Span, res *Result) string {
	if res.Convention != ConventionCodex || res.Kind == KindOther {
		return ""
	}
	return codexTurn(span.Attributes())
}

func codexTurn(attrs pcommon.Map) string {
	if t := attrText(attrs, "turn.id"); t != "" {
		return "codex.turn:" + t
	}
	if t := attrText(attrs, "turn_id"); t != "" {
		return "codex.turn:" + t
	}
	return ""
}

// ExitCodeInOutput returns the exit code a coding agent's shell tool
// output states ("Process exited with code 2", "Exit Code: 2",
// "exit_code": 2), and whether it states one. Codex reports a command that
// exits non-zero as success=true, with the code only in the output text.
func ExitCodeInOutput(out string) (int, bool) {
	for _, marker := range [...]string{"Process exited with code ", "Exit Code: ", "exit code ", `"exit_code":`, `"exitCode":`} {
		i := strings.Index(out, marker)
		if i < 0 {
			continue
		}
		rest := strings.TrimLeft(out[i+len(marker):], " ")
		n := 0
		for n < len(rest) && (rest[n] == '-' && n == 0 || rest[n] >= '0' && rest[n] <= '9') {
			n++
		}
		if code, err := strconv.Atoi(rest[:n]); err == nil {
			return code, true
		}
	}
	return 0, false
}

// attrText returns a string attribute, "" when absent or not a string.
func attrText(attrs pcommon.Map, key string) string {
	if v, ok := attrs.Get(key); ok && v.Type() == pcommon.ValueTypeStr {
		return v.Str()
	}
	return ""
}

// ConversationID returns the gen_ai.conversation.id a span carries ("" for
// none).
func ConversationID(span ptrace.Span) string {
	return attrText(span.Attributes(), "gen_ai.conversation.id")
}

// FinalAnswer reads a model-call span's recorded messages (Gemini API
// contents, or the semantic conventions' message parts): final is set when
// its response asks for no tool, and answered counts the tool results its
// request carries, which are the calls the conversation made before it.
// ok is false when the span records no response.
func FinalAnswer(span ptrace.Span) (final bool, answered int, ok bool) {
	attrs := span.Attributes()
	out := attrText(attrs, "gen_ai.output.messages")
	if out == "" {
		return false, 0, false
	}
	var dp jsonv.DocumentParser
	d, err := dp.Parse(out)
	if err != nil {
		return false, 0, false
	}
	if countParts(rootNode(&d), "functionCall", "tool_call") > 0 {
		return false, 0, true
	}
	if in := attrText(attrs, "gen_ai.input.messages"); in != "" {
		if d, err := dp.Parse(in); err == nil {
			answered = countParts(rootNode(&d), "functionResponse", "tool_call_response")
		}
	}
	return true, answered, true
}

// countParts counts the parts of a list of messages that are a Gemini part
// with member key, or a semantic-conventions part of type typ.
func countParts(msgs jnode, key, typ string) int {
	n := 0
	for _, m := range msgs.elems() {
		for _, p := range m.items("parts") {
			if _, ok := p.get(key); ok || p.str("type") == typ {
				n++
			}
		}
	}
	return n
}
