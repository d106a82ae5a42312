package toolcallaccuracyprocessor

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

var updateGeminiInteractive = flag.Bool("update-gemini-interactive", false, "rewrite testdata/golden/gemini-interactive.txt")

// geminiInteractive is the capture of one interactive Gemini CLI session
// (tools/emitters/coding-agents/run-gemini-cli-interactive.sh): three typed
// prompts and /quit, each a trace of its own under a user_prompt span, all
// of one gen_ai.conversation.id (the session's), later model turns nested
// one level deeper each.
const geminiInteractive = "gemini-cli-interactive-mock"

// geminiPrompt is what the run of one prompt of the session must show.
type geminiPrompt struct {
	span   string // the user_prompt span, the run's
	calls  []string
	checks map[string][]string // agent_calls' call_statuses
	ci     bool                // ci_summarise_notes_gemini passed
}

func geminiInteractivePrompts() []geminiPrompt {
	return []geminiPrompt{
		{
			// Read notes.txt, write summary.txt (approved in the dialog),
			// ls missing-dir (exits 2: failed, not retried in this
			// prompt), rm -rf build refused by the user (Esc): its only
			// record is the cancelled call in schedule_tool_calls.
			span:   "624105df79226835",
			calls:  []string{"read_file", "write_file", "run_shell_command", "run_shell_command"},
			checks: map[string][]string{"failed": {"run_shell_command"}, "refused": {"run_shell_command"}, "unrecovered_failure": {"run_shell_command"}},
			ci:     true,
		},
		{
			// a.txt and b.txt in one response, the unknown deploy_to_prod,
			// missing.txt: nested two levels below the prompt, and not the
			// first prompt's although the conversation id is the same.
			span:   "ded5da239c8d609d",
			calls:  []string{"read_file", "read_file", "deploy_to_prod", "read_file"},
			checks: map[string][]string{"failed": {"read_file"}, "unknown_tool": {"deploy_to_prod"}, "unrecovered_failure": {"read_file"}},
		},
		{
			span:  "d255406fd2825d1b",
			calls: []string{"run_shell_command"},
		},
	}
}

// geminiQuit is the user_prompt span Gemini CLI writes for /quit: a run
// with nothing below it.
const geminiQuit = "598093a21de95681"

// TestGeminiInteractivePrompts scores the interactive session, spans and
// log records, through the factory with the out-of-the-box rules: each
// prompt is a run of its own, scored once on its user_prompt span, with
// its own calls and their statuses (refused by the user, failed by exit
// code, unknown tool); none is folded into another by the conversation id
// they share. Every verdict is compared with
// testdata/golden/gemini-interactive.txt.
func TestGeminiInteractivePrompts(t *testing.T) {
	in, out := scoreCoding(t, geminiInteractive)
	assertConserved(t, in, out)
	runs := geminiRunsBySpan(t, out)
	var golden strings.Builder
	for _, p := range geminiInteractivePrompts() {
		run, ok := runs[p.span]
		if !assert.True(t, ok, "prompt %s scored", p.span) {
			continue
		}
		assert.Equal(t, "user_prompt", run.Name())
		assert.Equal(t, p.calls, toolCalls(run), "prompt %s: its own calls, in order", p.span)
		assert.Equal(t, p.checks, callStatuses(t, run, "agent_calls"), p.span)
		ci, ok := run.Attributes().Get(attrPrefix + "ci_summarise_notes_gemini.passed")
		require.True(t, ok)
		assert.Equal(t, p.ci, ci.Bool(), p.span)
		for rule := range strings.SplitSeq("agent_calls ci_summarise_notes_gemini", " ") {
			explanation, _ := run.Attributes().Get(attrPrefix + rule + ".explanation")
			assert.NotContains(t, explanation.Str(), "incomplete", "prompt %s %s: everything of the run arrived", p.span, rule)
		}
		fmt.Fprintf(&golden, "== %s %s\n%s\n", p.span, run.Name(), verdict(run))
	}
	// /quit is a user_prompt with nothing below it: scored, with no calls.
	quit, ok := runs[geminiQuit]
	require.True(t, ok, "/quit")
	assert.Empty(t, toolCalls(quit))
	fmt.Fprintf(&golden, "== %s %s (/quit)\n%s\n", geminiQuit, quit.Name(), verdict(quit))
	assert.Len(t, runs, len(geminiInteractivePrompts())+1, "one run per prompt, no other")

	requireGoldenText(t, "gemini-interactive.txt", *updateGeminiInteractive, golden.String(), "go test -run TestGeminiInteractivePrompts -update-gemini-interactive .")
}

// TestGeminiInteractiveSpansFirst sends the session's spans before its
// log records, one trace at a time: the verdicts are those of the records
// first.
func TestGeminiInteractiveSpansFirst(t *testing.T) {
	_, want := scoreCoding(t, geminiInteractive)
	b := newBothPipelines(t, codingRules(t))
	for _, td := range splitByTrace(cloneAll(readTraceFile(t, codingCapture(geminiInteractive)))) {
		require.NoError(t, b.proc.ConsumeTraces(context.Background(), td))
	}
	for _, ld := range codingLogs(t, geminiInteractive) {
		require.NoError(t, b.logs.ConsumeLogs(context.Background(), ld))
	}
	b.release()
	got := geminiRunsBySpan(t, b.shutdown(t))
	for span, run := range geminiRunsBySpan(t, want) {
		other, ok := got[span]
		if assert.True(t, ok, span) {
			assert.Equal(t, verdict(run), verdict(other), span)
		}
	}
	assert.Len(t, got, len(geminiInteractivePrompts())+1)
}

// TestGeminiInteractiveRecordsSettle: Gemini CLI writes each model call's
// response event under the call's parent (the user_prompt or system_prompt
// span), which makes no turn. With the records first, as the agent sends
// them, the request events join their llm_call's turn and the response
// events are counted late once their span has come: none waits until
// limits.max_age, and every prompt is scored before shutdown.
func TestGeminiInteractiveRecordsSettle(t *testing.T) {
	b := newBothPipelines(t, codingRules(t))
	for _, ld := range codingLogs(t, geminiInteractive) {
		require.NoError(t, b.logs.ConsumeLogs(context.Background(), ld))
	}
	for _, td := range cloneAll(readTraceFile(t, codingCapture(geminiInteractive))) {
		require.NoError(t, b.proc.ConsumeTraces(context.Background(), td))
	}
	b.release()
	before := map[string]bool{}
	for _, run := range scoredRuns(mergeTraces(b.sink.AllTraces())) {
		before[run.SpanID().String()] = true
	}
	for _, p := range geminiInteractivePrompts() {
		assert.True(t, before[p.span], "prompt %s scored before shutdown", p.span)
	}
	b.shutdown(t)
	assert.Equal(t, map[string]int64{"joined": 10, "late": 10}, logRecordOutcomes(t, b.harness))
}

// logRecordOutcomes is the log_records counter by outcome.
func logRecordOutcomes(t *testing.T, h *harness) map[string]int64 {
	t.Helper()
	m, err := h.tel.GetMetric("otelcol_processor_tool_call_accuracy_log_records")
	require.NoError(t, err)
	out := map[string]int64{}
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		o, _ := dp.Attributes.Value("outcome")
		out[o.AsString()] += dp.Value
	}
	return out
}

// geminiRunsBySpan returns the scored spans of out by span id, failing on
// a span scored twice.
func geminiRunsBySpan(t *testing.T, out ptrace.Traces) map[string]ptrace.Span {
	t.Helper()
	runs := map[string]ptrace.Span{}
	for _, run := range scoredRuns(out) {
		id := run.SpanID().String()
		_, twice := runs[id]
		require.False(t, twice, "span %s scored twice", id)
		runs[id] = run
	}
	return runs
}

// toolCalls returns the tool_call_accuracy.tool_calls a scored span lists.
func toolCalls(run ptrace.Span) []string {
	v, ok := run.Attributes().Get(attrPrefix + "tool_calls")
	if !ok {
		return nil
	}
	var out []string
	for _, c := range v.Slice().All() {
		out = append(out, c.Str())
	}
	return out
}

// TestGeminiInteractiveSpansOnly scores the session from its spans alone,
// request by request as Gemini CLI exported them, the due runs released
// after each. The first prompt's user_prompt span ends as its first model
// response does, so it arrives in the first request with the turns up to
// ls; the turn that asked for rm (refused by the user) comes in the next
// one. The prompt's run must wait for it: its last turn asked for tools
// (read from the llm_call's Gemini API contents). It need not wait for
// more: Gemini CLI asks the model nothing after the user refused.
func TestGeminiInteractiveSpansOnly(t *testing.T) {
	b := newBothPipelines(t, codingRules(t))
	for _, td := range cloneAll(readTraceFile(t, codingCapture(geminiInteractive))) {
		require.NoError(t, b.proc.ConsumeTraces(context.Background(), td))
		b.release()
	}
	runs := geminiRunsBySpan(t, b.shutdown(t))
	for _, p := range geminiInteractivePrompts() {
		if run, ok := runs[p.span]; assert.True(t, ok, p.span) {
			assert.Equal(t, p.calls, toolCalls(run), "prompt %s", p.span)
			assert.Equal(t, p.checks, callStatuses(t, run, "agent_calls"), p.span)
			explanation, _ := run.Attributes().Get(attrPrefix + "agent_calls.explanation")
			assert.NotContains(t, explanation.Str(), "incomplete", "prompt %s: scored when its spans were all there", p.span)
		}
	}
}

// TestGeminiInteractiveEveryOrder feeds the session's export requests (5 of
// spans, 6 of log records) after one earlier session of the same service
// (from which the processor learns that Gemini CLI sends log records),
// releasing after each request the runs it completed: every interleaving
// of the log requests (in a seeded order of their own) with the span
// requests in the order Gemini CLI exported them gives every span the
// annotations of the in-order delivery.
func TestGeminiInteractiveEveryOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("many orders")
	}
	tds, lds := readTraceFile(t, codingCapture(geminiInteractive)), codingLogs(t, geminiInteractive)
	l := newLearnedDelivery(t, codingRules(t), tds, lds)
	runs := geminiRunsBySpan(t, l.want)
	require.Len(t, runs, len(geminiInteractivePrompts())+1)
	for _, p := range geminiInteractivePrompts() {
		require.Contains(t, runs, p.span)
		require.Equal(t, p.checks, callStatuses(t, runs[p.span], "agent_calls"), "in order: prompt %s", p.span)
	}
	orders := interleavings(len(tds), len(lds), rand.New(rand.NewPCG(39, 11)))
	for _, order := range orders {
		l.requireInOrderVerdicts(t, order)
	}
	t.Logf("FIGURES %d orders of the interactive Gemini CLI session's spans and log records gave the in-order verdicts", len(orders))
}
