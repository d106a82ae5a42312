package extract

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGeminiCLIInteractiveSpans reads the spans of an interactive Gemini CLI
// session (three prompts, each a trace under a user_prompt span). The rm the
// user refused in the approval dialog never ran: no tool_call span, only its
// schedule_tool_calls record, with status "cancelled" and no errorType.
func TestGeminiCLIInteractiveSpans(t *testing.T) {
	calls, agents, models := spanCalls(t, "gemini-cli-interactive-mock")
	assert.Len(t, agents, 4, "a user_prompt span per prompt, /quit's too")
	assert.Len(t, models, 10, "llm_call spans")
	assertCalls(t, calls, map[string]wantCall{
		"read_file__read_notes":         {name: "read_file", args: `{"file_path":"notes.txt"}`},
		"write_file__write_summary":     {name: "write_file", args: `{"file_path":"/tmp/coding-agent-work/summary.txt","content":"notes read\n"}`},
		"run_shell_command__ls_missing": {name: "run_shell_command", args: `{"command":"ls missing-dir","description":"List missing-dir"}`, failed: true},
		"run_shell_command__rm_build":   {name: "run_shell_command", args: `{"command":"rm -rf build","description":"Remove build"}`, failed: true, ended: EndRefused},
		"read_file__read_a":             {name: "read_file", args: `{"file_path":"a.txt"}`},
		"read_file__read_b":             {name: "read_file", args: `{"file_path":"b.txt"}`},
		"deploy_to_prod__deploy":        {name: "deploy_to_prod", args: `{"env":"prod"}`, failed: true, ended: EndUnknownTool},
		"read_file__read_missing":       {name: "read_file", args: `{"file_path":"missing.txt"}`, failed: true},
		"run_shell_command__ls_retry":   {name: "run_shell_command", args: `{"command":"ls .","description":"List the work dir"}`},
	}, ConventionGeminiCLI)
}
