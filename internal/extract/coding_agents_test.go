package extract

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// codingCapture is a capture of a coding agent, from the repository's
// testdata (tools/emitters/coding-agents).
func codingCapture(name string) string {
	return filepath.Join("..", "..", "testdata", "traces", "captures", name+".otlp.jsonl")
}

// spanCalls classifies every span of a capture and returns its tool
// calls (records included) keyed by call id, with the unexecuted calls of
// scheduling spans, and the agent and model-call span names.
func spanCalls(t *testing.T, file string) (calls map[string][]SpanCall, agents, models []string) {
	t.Helper()
	opts := &Options{SkipTools: DefaultSkipTools()}
	calls = map[string][]SpanCall{}
	// Records carry no call id of their own: they are their parent
	// tool span's (Claude Code's blocked_on_user).
	idOf := map[string]string{}
	var records []ptrace.Span
	var recordCalls []SpanCall
	defer func() {
		for i, r := range records {
			id := idOf[r.ParentSpanID().String()]
			calls[id] = append(calls[id], recordCalls[i])
		}
	}()
	for _, td := range readTraces(t, codingCapture(file)) {
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, span := range ss.Spans().All() {
					res := Classify(span, ss.Scope(), opts)
					switch {
					case res.Kind == KindTool && res.Record:
						records, recordCalls = append(records, span), append(recordCalls, res.Call)
					case res.Kind == KindTool:
						idOf[span.SpanID().String()] = res.Call.ID
						calls[res.Call.ID] = append(calls[res.Call.ID], res.Call)
					case res.Kind == KindAgent:
						agents = append(agents, span.Name()+" "+res.Convention.String())
					case res.ModelCall:
						models = append(models, span.Name())
					}
					if res.Scheduled {
						for _, c := range UnexecutedCalls(span) {
							calls[c.ID] = append(calls[c.ID], c)
						}
					}
				}
			}
		}
	}
	return calls, agents, models
}

// merged is a call's records merged as the store merges them: the named
// record's name and arguments, failed when any record failed, the first
// end other than EndRan.
func merged(recs []SpanCall) SpanCall {
	var out SpanCall
	for _, r := range recs {
		if out.Name == "" {
			out.Name = r.Name
		}
		if out.Encoding == EncodingAbsent {
			out.Args, out.Encoding = r.Args, r.Encoding
		}
		if out.Result == "" {
			out.Result = r.Result
		}
		out.Failed = out.Failed || r.Failed
		if out.Ended == EndRan {
			out.Ended = r.Ended
		}
		out.Convention = r.Convention
	}
	return out
}

type wantCall struct {
	name, args string
	failed     bool
	ended      CallEnd
}

func assertCalls(t *testing.T, calls map[string][]SpanCall, want map[string]wantCall, conv Convention) {
	t.Helper()
	ids := make([]string, 0, len(calls))
	for id := range calls {
		ids = append(ids, id)
	}
	wantIDs := make([]string, 0, len(want))
	for id := range want {
		wantIDs = append(wantIDs, id)
	}
	assert.ElementsMatch(t, wantIDs, ids, "call ids")
	for id, w := range want {
		c := merged(calls[id])
		assert.Equal(t, w.name, c.Name, id)
		if w.args != "" {
			assert.JSONEq(t, w.args, c.Args, id)
		} else {
			assert.Equal(t, EncodingAbsent, c.Encoding, "%s: no arguments on its spans", id)
		}
		assert.Equal(t, w.failed, c.Failed, "%s failed", id)
		assert.Equal(t, w.ended, c.Ended, "%s ended", id)
		assert.Equal(t, conv, c.Convention, id)
	}
}

// TestClaudeCodeSpans reads Claude Code 2.1.332's spans: the interaction is
// the run; each claude_code.tool span is a call with its id and the
// arguments the span records; a failure is on its tool.execution child
// (the missing file; ls exiting 2), a refusal on its blocked_on_user child
// (rm, denied by --disallowedTools). The unknown tool (DeployToProd) left
// no span at all: Claude Code records none.
func TestClaudeCodeSpans(t *testing.T) {
	calls, agents, models := spanCalls(t, "claude-code-mock")
	assert.Equal(t, []string{"claude_code.interaction claude_code"}, agents)
	assert.Len(t, models, 9, "claude_code.llm_request spans")
	w := "/tmp/coding-agent-work/"
	assertCalls(t, calls, map[string]wantCall{
		"toolu_read_notes":    {name: "Read", args: `{"file_path":"` + w + `notes.txt"}`},
		"toolu_write_summary": {name: "Write", args: `{"file_path":"` + w + `summary.txt"}`},
		"toolu_ls_missing":    {name: "Bash", args: `{"command":"ls missing-dir"}`, failed: true},
		"toolu_ls_retry":      {name: "Bash", args: `{"command":"ls ."}`},
		"toolu_read_a":        {name: "Read", args: `{"file_path":"` + w + `a.txt"}`},
		"toolu_read_b":        {name: "Read", args: `{"file_path":"` + w + `b.txt"}`},
		"toolu_rm_build":      {name: "Bash", args: `{"command":"rm -rf build"}`, failed: true, ended: EndRefused},
		"toolu_read_missing":  {name: "Read", args: `{"file_path":"` + w + `missing.txt"}`, failed: true},
	}, ConventionClaudeCode)
	// Records of a call are named by nothing but their parent: only the
	// claude_code.tool span names the tool.
	for id, recs := range calls {
		named := 0
		for _, r := range recs {
			if r.Name != "" {
				named++
			}
		}
		assert.Equal(t, 1, named, id)
	}
}

// TestGeminiCLISpans reads Gemini CLI 0.61.0's spans (-p): tool_call spans
// with the request's arguments and the outcome (ls exiting 2 is a
// "success" with exitCode 2: failed; the missing file: error), and the
// calls that never ran, only in their schedule_tool_calls output: rm
// refused by the policy, deploy_to_prod not registered.
func TestGeminiCLISpans(t *testing.T) {
	calls, agents, models := spanCalls(t, "gemini-cli-p-mock")
	assert.Empty(t, agents, "gemini -p records no user_prompt span")
	assert.Len(t, models, 9, "llm_call spans")
	assertCalls(t, calls, map[string]wantCall{
		"read_file__read_notes":         {name: "read_file", args: `{"file_path":"notes.txt"}`},
		"write_file__write_summary":     {name: "write_file", args: `{"file_path":"/tmp/coding-agent-work/summary.txt","content":"notes read\n"}`},
		"run_shell_command__ls_missing": {name: "run_shell_command", args: `{"command":"ls missing-dir","description":"List missing-dir"}`, failed: true},
		"run_shell_command__ls_retry":   {name: "run_shell_command", args: `{"command":"ls .","description":"List the work dir"}`},
		"read_file__read_a":             {name: "read_file", args: `{"file_path":"a.txt"}`},
		"read_file__read_b":             {name: "read_file", args: `{"file_path":"b.txt"}`},
		"run_shell_command__rm_build":   {name: "run_shell_command", args: `{"command":"rm -rf build","description":"Remove build"}`, failed: true, ended: EndRefused},
		"deploy_to_prod__deploy":        {name: "deploy_to_prod", args: `{"env":"prod"}`, failed: true, ended: EndUnknownTool},
		"read_file__read_missing":       {name: "read_file", args: `{"file_path":"missing.txt"}`, failed: true},
	}, ConventionGeminiCLI)
	assert.Contains(t, merged(calls["read_file__read_missing"]).Result, "File not found")
	assert.Contains(t, merged(calls["run_shell_command__ls_missing"]).Result, "Exit Code: 2")
}

// TestCodexSpans reads Codex 0.171.0's tracing spans: of 1,300 spans, the
// run (session_task.turn) and one dispatch span per call, named after the
// tool, with no arguments and no outcome (those are in codex.tool_result
// records: TestCodingAgentRecords).
func TestCodexSpans(t *testing.T) {
	calls, agents, _ := spanCalls(t, "codex-exec-mock")
	assert.Equal(t, []string{"session_task.turn codex"}, agents)
	want := map[string]wantCall{}
	for _, id := range []string{"call_read_notes", "call_write_summary", "call_ls_missing", "call_ls_retry", "call_read_a", "call_read_b", "call_rm_build", "call_read_missing"} {
		want[id] = wantCall{name: "exec_command"}
	}
	want["call_deploy"] = wantCall{name: "deploy_to_prod"}
	assertCalls(t, calls, want, ConventionCodex)
}

// TestCodexSpansOrdinary checks that Codex's other spans stay ordinary:
// only its dispatch and turn spans, and the few that carry codex.* keys,
// are read past the first bytes of their keys.
func TestCodexSpansOrdinary(t *testing.T) {
	total, read := 0, 0
	for _, td := range readTraces(t, codingCapture("codex-exec-mock")) {
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, span := range ss.Spans().All() {
					total++
					if !Ordinary(span) {
						read++
					}
				}
			}
		}
	}
	assert.Greater(t, total, 1000)
	assert.Less(t, read*10, total, "%d of %d Codex spans are read", read, total)
}

// TestShellExitCodes covers each way the agents write a command's exit.
func TestShellExitCodes(t *testing.T) {
	for in, want := range map[string]int{
		"Chunk ID: 62ab2e\nWall time: 0.0775 seconds\nProcess exited with code 2\nOutput:\n": 2,
		"Output: ls: cannot access\nExit Code: 2\nProcess Group PGID: 8720":                  2,
		"{\n  \"exitCode\": 2,\n  \"isError\": true\n}":                                      2,
		"Process exited with code 0\n":                                                       0,
		`{"exit_code": -1}`:                                                                  -1,
	} {
		code, ok := ExitCodeInOutput(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, code, in)
	}
	for _, in := range []string{"", "meeting at 10", "Exit Code: ", "Process exited with code x"} {
		_, ok := ExitCodeInOutput(in)
		assert.False(t, ok, in)
	}
}

// TestCodingAgentRecords reads every log record of the three captures with
// the registered readers and compares what they witness with
// testdata/coding_agent_records.golden.txt (-update-turns rewrites it).
func TestCodingAgentRecords(t *testing.T) {
	var b strings.Builder
	for _, name := range []string{"claude-code-mock", "gemini-cli-p-mock", "codex-exec-mock"} {
		fmt.Fprintf(&b, "== %s\n", name)
		for _, ld := range readLogs(t, filepath.Join("..", "..", "testdata", "logs", "captures", name+".logs.otlp.jsonl")) {
			for _, rl := range ld.ResourceLogs().All() {
				for _, sl := range rl.ScopeLogs().All() {
					for _, lr := range sl.LogRecords().All() {
						var r Record
						var w Witness
						if !LogRecordOf(lr, rl.Resource().Attributes(), &r) || !ReadRecord(&r, &w) {
							continue
						}
						for _, tr := range w.Results {
							fmt.Fprintf(&b, "%s result %s %s args=%s failed=%v error_type=%q end=%d\n", w.Source, orQ(tr.ID), tr.Name, compactJSON(tr.Args), tr.Failed, tr.ErrorType, ResultEnd(&tr))
						}
						for _, d := range w.Decisions {
							fmt.Fprintf(&b, "%s decision %s %s verdict=%d by=%s\n", w.Source, orQ(d.ID), d.Name, d.Verdict, d.By)
						}
					}
				}
			}
		}
	}
	path := filepath.Join("testdata", "coding_agent_records.golden.txt")
	if *updateTurns {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), b.String())
}

func orQ(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

func compactJSON(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// readLogs reads an OTLP/JSON logs file, one request per line.
func readLogs(t *testing.T, path string) []plog.Logs {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []plog.Logs
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	u := &plog.JSONUnmarshaler{}
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		ld, err := u.UnmarshalLogs(sc.Bytes())
		require.NoError(t, err)
		out = append(out, ld)
	}
	require.NoError(t, sc.Err())
	return out
}

// TestRefusalWords pins the decisions read as refusals.
func TestRefusalWords(t *testing.T) {
	var refused []string
	for _, d := range []string{"accept", "reject", "approved", "denied", "abort", "cancelled", "proceed_once", "{}", ""} {
		if isRefusal(d) {
			refused = append(refused, d)
		}
	}
	sort.Strings(refused)
	assert.Equal(t, []string{"abort", "cancelled", "denied", "reject"}, refused)
}
