package extract

import (
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// The coding agents' log records (the captures in testdata/logs/captures):
// where their arguments and outcomes are. Claude Code's tool_result and
// tool_decision, Codex's codex.tool_result and codex.tool_decision, and
// Gemini CLI's gemini_cli.tool_call, read into the Witness of the
// record-reader contract (log_record.go). None of them carries the span id
// of the tool span: Claude Code's and Codex's records name the call by id
// (tool_use_id, call_id), Gemini CLI's by name and arguments only, within
// the step's trace (its records carry the trace id).

func init() {
	RegisterRecordReader("tool_result", readClaudeCodeToolResult)
	RegisterRecordReader("tool_decision", readClaudeCodeToolDecision)
	RegisterRecordReader("codex.tool_result", readCodexToolResult)
	RegisterRecordReader("codex.tool_decision", readCodexToolDecision)
	RegisterRecordReader("gemini_cli.tool_call", readGeminiToolCall)
}

// recordText returns a record attribute as text: a string as it is, a
// number or bool as its literal ("" when absent).
func recordText(attrs pcommon.Map, key string) string {
	v, ok := attrs.Get(key)
	if !ok {
		return ""
	}
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return v.Str()
	case pcommon.ValueTypeEmpty:
		return ""
	}
	return v.AsString()
}

// recordBool reads a record's boolean attribute, written as a bool or as
// the text "true"/"false" (Codex writes success as text); ok is false when
// it is neither.
func recordBool(attrs pcommon.Map, key string) (b, ok bool) {
	v, found := attrs.Get(key)
	if !found {
		return false, false
	}
	switch v.Type() {
	case pcommon.ValueTypeBool:
		return v.Bool(), true
	case pcommon.ValueTypeStr:
		b, err := strconv.ParseBool(v.Str())
		return b, err == nil
	}
	return false, false
}

// recordDuration reads duration_ms as nanoseconds (0 when absent or not a
// number).
func recordDuration(attrs pcommon.Map) uint64 {
	ms, err := strconv.ParseFloat(recordText(attrs, "duration_ms"), 64)
	if err != nil || ms < 0 || ms > 1e12 {
		return 0
	}
	return uint64(ms * 1e6)
}

// isClaudeCodeLogRecord reports whether a tool_result or tool_decision record
// is Claude Code's: its body names it claude_code.*, or its attributes
// carry tool_use_id (another source's tool_result is not read).
func isClaudeCodeLogRecord(r *Record) bool {
	if r.Body.Type() == pcommon.ValueTypeStr && strings.HasPrefix(r.Body.Str(), "claude_code.") {
		return true
	}
	_, ok := r.Attributes.Get("tool_use_id")
	return ok
}

// claudeCodeRunIDs are the ids Claude Code writes on its records.
func claudeCodeRunIDs(attrs pcommon.Map) RunIDs {
	return RunIDs{Session: recordText(attrs, "session.id"), Prompt: recordText(attrs, "prompt.id")}
}

// readClaudeCodeToolResult reads Claude Code's tool_result: the call
// (tool_use_id, tool_name), its arguments (tool_input, written with
// OTEL_LOG_TOOL_DETAILS=1), success, error and error_type.
func readClaudeCodeToolResult(r *Record, w *Witness) bool {
	if !isClaudeCodeLogRecord(r) {
		return false
	}
	a := r.Attributes
	tr := ToolResult{ID: recordText(a, "tool_use_id"), Name: recordText(a, "tool_name"), Args: recordText(a, "tool_input"),
		ErrorType: recordText(a, "error_type"), Duration: recordDuration(a)}
	if tr.Name == "" {
		return false
	}
	if ok, known := recordBool(a, "success"); known && !ok {
		tr.Failed = true
	}
	if e := recordText(a, "error"); e != "" {
		tr.Failed, tr.Result = true, e
	}
	w.Source, w.RunIDs = "claude_code", claudeCodeRunIDs(a)
	w.Results = append(w.Results, tr)
	return true
}

// readClaudeCodeToolDecision reads Claude Code's tool_decision: accept or
// reject, and source (config, user, hook).
func readClaudeCodeToolDecision(r *Record, w *Witness) bool {
	if !isClaudeCodeLogRecord(r) {
		return false
	}
	a := r.Attributes
	d := ToolDecision{ID: recordText(a, "tool_use_id"), Name: recordText(a, "tool_name"), Verdict: verdict(recordText(a, "decision")), By: recordText(a, "source")}
	if d.Name == "" && d.ID == "" {
		return false
	}
	w.Source, w.RunIDs = "claude_code", claudeCodeRunIDs(a)
	w.Decisions = append(w.Decisions, d)
	return true
}

// verdict reads a permission decision as the agents write it.
func verdict(decision string) DecisionVerdict {
	switch strings.ToLower(decision) {
	case "accept", "accepted", "approved", "approve", "allow", "allowed", "auto_accept", "proceed_once", "proceed_always":
		return DecisionAccepted
	}
	if isRefusal(decision) {
		return DecisionRejected
	}
	return DecisionUnknown
}

// readCodexToolResult reads Codex's codex.tool_result: call_id,
// tool_name, arguments, output and success. A shell command that exits
// non-zero is success=true with "Process exited with code N" in its
// output: it is Failed here, as the contract says a non-zero exit is.
func readCodexToolResult(r *Record, w *Witness) bool {
	a := r.Attributes
	tr := ToolResult{ID: recordText(a, "call_id"), Name: recordText(a, "tool_name"), Args: recordText(a, "arguments"),
		Result: recordText(a, "output"), Duration: recordDuration(a)}
	if tr.Name == "" {
		return false
	}
	if ok, known := recordBool(a, "success"); known && !ok {
		tr.Failed = true
	}
	if code, ok := ExitCodeInOutput(tr.Result); ok && code != 0 {
		tr.Failed, tr.ErrorType = true, "exit_code_"+strconv.Itoa(code)
	}
	w.Source, w.RunIDs = "codex", RunIDs{Conversation: recordText(a, "conversation.id")}
	w.Results = append(w.Results, tr)
	return true
}

// readCodexToolDecision reads Codex's codex.tool_decision: approved,
// denied or abort, and its source (Config, User).
func readCodexToolDecision(r *Record, w *Witness) bool {
	a := r.Attributes
	d := ToolDecision{ID: recordText(a, "call_id"), Name: recordText(a, "tool_name"), Verdict: verdict(recordText(a, "decision")), By: strings.ToLower(recordText(a, "source"))}
	if d.Name == "" && d.ID == "" {
		return false
	}
	w.Source, w.RunIDs = "codex", RunIDs{Conversation: recordText(a, "conversation.id")}
	w.Decisions = append(w.Decisions, d)
	return true
}

// readGeminiToolCall reads Gemini CLI's gemini_cli.tool_call: the call
// (function_name, function_args; no call id), success, error_type, the
// decision when one was asked (accept, reject, modify, auto_accept; "{}"
// when none was), and a shell command's exit code in metadata.
func readGeminiToolCall(r *Record, w *Witness) bool {
	a := r.Attributes
	tr := ToolResult{Name: recordText(a, "function_name"), Args: recordText(a, "function_args"),
		ErrorType: recordText(a, "error_type"), Result: recordText(a, "error"), Duration: recordDuration(a)}
	if tr.Name == "" {
		return false
	}
	if ok, known := recordBool(a, "success"); known && !ok {
		tr.Failed = true
	}
	if code, ok := ExitCodeInOutput(recordText(a, "metadata")); ok && code != 0 {
		tr.Failed = true
	}
	w.Source = "gemini_cli"
	w.RunIDs = RunIDs{Session: recordText(a, "session.id"), Prompt: recordText(a, "prompt_id")}
	w.Results = append(w.Results, tr)
	if v := verdict(recordText(a, "decision")); v != DecisionUnknown {
		w.Decisions = append(w.Decisions, ToolDecision{Name: tr.Name, Verdict: v})
	}
	return true
}

// ResultEnd says how a call that a record reports ended beyond failing:
// refused (Gemini CLI's policy_violation, Codex's exec-policy rejection)
// or naming no tool (Gemini CLI's tool_not_registered, Codex's
// "unsupported call"). A refusal recorded as a decision is in
// Witness.Decisions instead.
func ResultEnd(tr *ToolResult) CallEnd {
	switch tr.ErrorType {
	case "tool_not_registered":
		return EndUnknownTool
	case "policy_violation":
		return EndRefused
	}
	if !tr.Failed {
		return EndRan
	}
	switch {
	case strings.HasPrefix(tr.Result, "unsupported call: "):
		return EndUnknownTool
	case strings.Contains(tr.Result, "Rejected(") && strings.Contains(tr.Result, "rejected"):
		return EndRefused
	}
	return EndRan
}
