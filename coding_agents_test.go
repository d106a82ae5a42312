package toolcallaccuracyprocessor

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

var updateCodingAgents = flag.Bool("update-coding-agents", false, "rewrite testdata/golden/coding-agents.txt")

// codingRules is the out-of-the-box rule set for coding agents.
func codingRules(t testing.TB) *Config {
	return loadConfig(t, filepath.Join("testdata", "coding-agents", "rules.yaml"), "coding_agents")
}

func codingCapture(name string) string {
	return filepath.Join("testdata", "traces", "captures", name+".otlp.jsonl")
}

// scoredRuns returns the annotated spans of out (every one: several runs
// may have spans of one name), by span id.
func scoredRuns(out ptrace.Traces) []ptrace.Span {
	var runs []ptrace.Span
	for _, s := range allSpans(out) {
		if _, ok := s.Attributes().Get(attrRules); ok {
			runs = append(runs, s)
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].SpanID().String() < runs[j].SpanID().String() })
	return runs
}

// verdict is what a scored span says, as text: its tool_call_accuracy.*
// attributes, sorted.
func verdict(span ptrace.Span) string {
	var lines []string
	for k, v := range span.Attributes().All() {
		if strings.HasPrefix(k, attrPrefix) {
			lines = append(lines, k+"="+v.AsString())
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// callStatuses returns a rule's call_statuses attribute: status -> tools.
func callStatuses(t *testing.T, span ptrace.Span, rule string) map[string][]string {
	t.Helper()
	v, ok := span.Attributes().Get(attrPrefix + rule + ".call_statuses")
	if !ok {
		return nil
	}
	out := map[string][]string{}
	for k, tools := range v.Map().All() {
		for _, tool := range tools.Slice().All() {
			out[k] = append(out[k], tool.Str())
		}
	}
	return out
}

// codingLogs returns the log records the capture's agent exported beside
// its spans (testdata/logs/captures/NAME.logs.otlp.jsonl).
func codingLogs(t testing.TB, name string) []plog.Logs {
	t.Helper()
	_, logs, err := otlpjson.ReadSignals(filepath.Join("testdata", "logs", "captures", name+".logs.otlp.jsonl"))
	require.NoError(t, err)
	out := make([]plog.Logs, len(logs))
	for i, d := range logs {
		out[i] = d.Logs
	}
	return out
}

// codingCase is a coding agent's capture and what its run must show.
type codingCase struct {
	file   string
	span   string
	checks map[string][]string
	rules  map[string]bool // rule -> passed
}

// codingCases are the three agents' captures: each scripted run reads
// notes.txt, writes summary.txt, runs ls on a missing directory (the
// command exits 2) and retries, reads two files in parallel, runs rm
// (refused by policy), calls a tool the agent does not have (deploy_to_prod)
// and reads a missing file.
func codingCases() []codingCase {
	return []codingCase{
		{
			// ls missing-dir failed (retried: recovered), rm refused by
			// --disallowedTools, missing.txt failed; DeployToProd left no
			// trace in Claude Code's telemetry at all.
			file: "claude-code-mock", span: "claude_code.interaction",
			checks: map[string][]string{"refused": {"Bash"}, "failed": {"Bash", "Read"}, "unrecovered_failure": {"Read"}},
			rules:  map[string]bool{"agent_calls": false, "ci_summarise_notes": true},
		},
		{
			// gemini -p: nine step traces, one run by conversation; ls
			// exited 2 (reported a success with exitCode 2), rm refused by
			// the policy, deploy_to_prod not registered, missing.txt.
			file: "gemini-cli-p-mock", span: "",
			checks: map[string][]string{"refused": {"run_shell_command"}, "unknown_tool": {"deploy_to_prod"}, "failed": {"run_shell_command", "read_file"}, "unrecovered_failure": {"read_file"}},
			rules:  map[string]bool{"agent_calls": false, "ci_summarise_notes_gemini": true},
		},
		{
			// Codex's spans name the calls only: their arguments and
			// outcomes are in codex.tool_result records. ls and cat exited
			// non-zero (success=true, the exit code in the output), rm was
			// rejected by the exec policy, deploy_to_prod is an unsupported
			// call; the CI rule finds the reads by their commands and fails
			// on the forbidden deploy_to_prod.
			file: "codex-exec-mock", span: "session_task.turn",
			checks: map[string][]string{"refused": {"exec_command"}, "unknown_tool": {"deploy_to_prod"}, "failed": {"exec_command", "exec_command"}, "unrecovered_failure": {"exec_command"}},
			rules:  map[string]bool{"agent_calls": false, "ci_summarise_notes_codex": false},
		},
	}
}

// scoreCoding scores a capture through the factory with the out-of-the-box
// rules, its log records sent to the logs pipeline before its spans, as
// the agents export them (records as each call ends, spans as the run
// does), and returns what the traces pipeline sent on.
func scoreCoding(t *testing.T, name string) (in []ptrace.Traces, out ptrace.Traces) {
	t.Helper()
	in = readTraceFile(t, codingCapture(name))
	b := newBothPipelines(t, codingRules(t))
	for _, ld := range codingLogs(t, name) {
		require.NoError(t, b.logs.ConsumeLogs(context.Background(), ld))
	}
	for _, td := range cloneAll(in) {
		require.NoError(t, b.proc.ConsumeTraces(context.Background(), td))
	}
	b.release()
	return in, b.shutdown(t)
}

// TestCodingAgentCaptures scores each coding agent's capture, spans and log
// records together, through the factory with the out-of-the-box rules,
// checks the statuses each agent's own telemetry shows, and compares every
// verdict with testdata/golden/coding-agents.txt.
func TestCodingAgentCaptures(t *testing.T) {
	var golden strings.Builder
	for _, tt := range codingCases() {
		t.Run(tt.file, func(t *testing.T) {
			in, out := scoreCoding(t, tt.file)
			if tt.file == "codex-exec-mock" {
				// Codex writes some keys twice on a span (thread.id, an
				// int and a string), which assertConserved's lookups by key
				// cannot compare: count them.
				assert.Equal(t, totalSpans(in), out.SpanCount(), "spans in must equal spans out")
			} else {
				assertConserved(t, in, out)
			}
			runs := scoredRuns(out)
			require.Len(t, runs, 1, "one run")
			run := runs[0]
			if tt.span != "" {
				assert.Equal(t, tt.span, run.Name())
			}
			assert.Equal(t, tt.checks, callStatuses(t, run, "agent_calls"))
			for rule, passed := range tt.rules {
				v, ok := run.Attributes().Get(attrPrefix + rule + ".passed")
				require.True(t, ok, rule)
				assert.Equal(t, passed, v.Bool(), rule)
			}
			fmt.Fprintf(&golden, "== %s: %s\n%s\n", tt.file, run.Name(), verdict(run))
		})
	}
	requireGoldenText(t, "coding-agents.txt", *updateCodingAgents, golden.String(), "go test -run TestCodingAgentCaptures -update-coding-agents .")
}

// splitByTrace returns one batch per trace of in, in first-seen order.
func splitByTrace(in []ptrace.Traces) []ptrace.Traces {
	var order []pcommon.TraceID
	byTrace := map[pcommon.TraceID]ptrace.Traces{}
	for _, td := range in {
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					out, ok := byTrace[s.TraceID()]
					if !ok {
						out = ptrace.NewTraces()
						byTrace[s.TraceID()] = out
						order = append(order, s.TraceID())
					}
					nrs := out.ResourceSpans().AppendEmpty()
					rs.Resource().CopyTo(nrs.Resource())
					nss := nrs.ScopeSpans().AppendEmpty()
					ss.Scope().CopyTo(nss.Scope())
					s.CopyTo(nss.Spans().AppendEmpty())
				}
			}
		}
	}
	out := make([]ptrace.Traces, len(order))
	for i, id := range order {
		out[i] = byTrace[id]
	}
	return out
}

// TestGeminiConversationAnyOrder sends the steps of a gemini -p run (a
// trace each, no root span) in many orders: each time one run is scored,
// with the same verdict, on a span of the run.
func TestGeminiConversationAnyOrder(t *testing.T) {
	steps := splitByTrace(readTraceFile(t, codingCapture("gemini-cli-p-mock")))
	require.Len(t, steps, 17, "nine model calls and eight batches of tool calls")
	var want string
	orders := [][]int{}
	identity := make([]int, len(steps))
	for i := range identity {
		identity[i] = i
	}
	orders = append(orders, identity, reversed(identity))
	rng := rand.New(rand.NewPCG(39, 39))
	for range 8 {
		p := slices.Clone(identity)
		rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		orders = append(orders, p)
	}
	for _, order := range orders {
		batches := make([]ptrace.Traces, len(order))
		for i, k := range order {
			batches[i] = cloneAll(steps[k : k+1])[0]
		}
		in := cloneAll(batches)
		out := newHarness(t, codingRules(t)).run(t, batches)
		assertConserved(t, in, out)
		runs := scoredRuns(out)
		require.Len(t, runs, 1, "order %v", order)
		v := verdictWithoutSpan(runs[0])
		if want == "" {
			want = v
		}
		assert.Equal(t, want, v, "order %v", order)
		conv, _ := runs[0].Attributes().Get("gen_ai.conversation.id")
		assert.NotEmpty(t, conv.Str(), "the verdict is on a span of the conversation")
	}
}

func reversed(s []int) []int {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// verdictWithoutSpan is the verdict less what depends on which span
// carries it.
func verdictWithoutSpan(span ptrace.Span) string {
	return verdict(span)
}

// renamed returns a copy of batches whose trace and span ids and
// conversation id differ: another conversation of the same shape.
func renamed(batches []ptrace.Traces, conv string, salt byte) []ptrace.Traces {
	out := cloneAll(batches)
	for _, td := range out {
		for _, s := range allSpans(td) {
			tid := s.TraceID()
			tid[0] ^= salt
			s.SetTraceID(tid)
			sid := s.SpanID()
			sid[1] ^= salt
			s.SetSpanID(sid)
			if p := s.ParentSpanID(); !p.IsEmpty() {
				p[1] ^= salt
				s.SetParentSpanID(p)
			}
			if _, ok := s.Attributes().Get("gen_ai.conversation.id"); ok {
				s.Attributes().PutStr("gen_ai.conversation.id", conv)
			}
		}
	}
	return out
}

// TestGeminiConversationsInterleaved sends two gemini -p conversations'
// steps interleaved: each is scored once, on a span of its own, with the
// verdict it has alone.
func TestGeminiConversationsInterleaved(t *testing.T) {
	steps := splitByTrace(readTraceFile(t, codingCapture("gemini-cli-p-mock")))
	a, b := renamed(steps, "conversation-a", 0x11), renamed(steps, "conversation-b", 0x22)
	var batches []ptrace.Traces
	for i := range steps {
		batches = append(batches, a[i], b[len(b)-1-i])
	}
	in := cloneAll(batches)
	out := newHarness(t, codingRules(t)).run(t, batches)
	assertConserved(t, in, out)
	runs := scoredRuns(out)
	require.Len(t, runs, 2)
	var convs []string
	for _, r := range runs {
		c, _ := r.Attributes().Get("gen_ai.conversation.id")
		convs = append(convs, c.Str())
	}
	assert.ElementsMatch(t, []string{"conversation-a", "conversation-b"}, convs)
	assert.Equal(t, verdict(runs[0]), verdict(runs[1]))
	alone := scoredRuns(newHarness(t, codingRules(t)).run(t, cloneAll(steps)))
	require.Len(t, alone, 1)
	assert.Equal(t, verdict(alone[0]), verdict(runs[0]))
}

// TestConversationsBounded: past max_open the oldest conversation is
// dropped, unscored and counted; the spans all go on.
func TestConversationsBounded(t *testing.T) {
	steps := splitByTrace(readTraceFile(t, codingCapture("gemini-cli-p-mock")))
	a, b := renamed(steps, "conversation-a", 0x11), renamed(steps, "conversation-b", 0x22)
	cfg := codingRules(t)
	cfg.Conversations.MaxOpen = 1
	var batches []ptrace.Traces
	for i := range steps {
		batches = append(batches, a[i], b[i])
	}
	in := cloneAll(batches)
	h := newHarness(t, cfg)
	out := h.run(t, batches)
	assertConserved(t, in, out)
	assert.Empty(t, scoredRuns(out), "each conversation evicts the other before it ends")
	assert.Positive(t, evictedCount(t, h, "max_open_trajectories"))
}

// TestConversationsOffByDefault: without conversations, each gemini -p step
// is a run of its own, as before.
func TestConversationsOffByDefault(t *testing.T) {
	cfg := codingRules(t)
	cfg.Conversations.Enabled = false
	in := readTraceFile(t, codingCapture("gemini-cli-p-mock"))
	out := newHarness(t, cfg).run(t, cloneAll(in))
	assert.Len(t, scoredRuns(out), 8)
	assert.ErrorContains(t, (&ConversationsConfig{MaxOpen: -1}).validate(), "conversations.max_open")
	assert.ErrorContains(t, (&ConversationsConfig{Timeout: -1}).validate(), "conversations.timeout")
}

// evictedCount is the evicted_trajectories counter for reason.
func evictedCount(t *testing.T, h *harness, reason string) int64 {
	t.Helper()
	m, err := h.tel.GetMetric("otelcol_processor_tool_call_accuracy_evicted_trajectories")
	require.NoError(t, err)
	var n int64
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		if r, _ := dp.Attributes.Value("reason"); r.AsString() == reason {
			n += dp.Value
		}
	}
	return n
}

// TestCodingAgentRecordsEveryOrder feeds Codex's and Claude Code's export
// requests (spans and log records, one request each), after one run of the
// same service (from which the processor learns that the service sends log
// records of its calls), releasing after each request the runs it
// completed, and asserts every span gets the annotations of the in-order
// delivery: every interleaving of the log requests (in a seeded order of
// their own) with the span requests in the order the agent exported them,
// and every log request first with the span requests in reverse (the run's
// span before its tool spans: the records name the calls still to come).
func TestCodingAgentRecordsEveryOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("many orders")
	}
	total := 0
	for _, name := range []string{"codex-exec-mock", "claude-code-mock"} {
		t.Run(name, func(t *testing.T) {
			tds, lds := readTraceFile(t, codingCapture(name)), codingLogs(t, name)
			l := newLearnedDelivery(t, codingRules(t), tds, lds)
			runs := scoredRuns(l.want)
			require.Len(t, runs, 1)
			require.Contains(t, verdict(runs[0]), `"refused":[`, "the in-order run has the records' statuses")
			orders := interleavings(len(tds), len(lds), rand.New(rand.NewPCG(39, uint64(len(name)))))
			reverse := make([]int, 0, len(l.in))
			for k := len(tds); k < len(l.in); k++ {
				reverse = append(reverse, k)
			}
			for k := len(tds) - 1; k >= 0; k-- {
				reverse = append(reverse, k)
			}
			for _, order := range append(orders, reverse) {
				l.requireInOrderVerdicts(t, order)
				total++
			}
		})
	}
	t.Logf("FIGURES %d orders of Codex's and Claude Code's spans and log records gave the in-order verdicts", total)
}

// learnedDelivery is a capture's requests (spans and log records, one
// request each) fed to a processor serving both pipelines after one earlier
// delivery of the same requests under other trace ids, from which the
// processor learns that the service sends log records; want is what the
// in-order delivery sends on.
type learnedDelivery struct {
	cfg        *Config
	in, before []unit
	want       ptrace.Traces
}

func newLearnedDelivery(t *testing.T, cfg *Config, tds []ptrace.Traces, lds []plog.Logs) *learnedDelivery {
	t.Helper()
	l := &learnedDelivery{cfg: cfg, in: units(tds, lds), before: units(tds, lds)}
	for _, u := range l.before {
		flipTraceIDs(u)
	}
	l.want = feedUnits(t, cfg, units(pickTraces(l.before), pickLogs(l.before)), units(pickTraces(l.in), pickLogs(l.in)))
	return l
}

// requireInOrderVerdicts feeds the requests in order (indexes into l.in)
// and requires every span to get the in-order delivery's annotations.
func (l *learnedDelivery) requireInOrderVerdicts(t *testing.T, order []int) {
	t.Helper()
	batch := make([]unit, len(order))
	for i, k := range order {
		batch[i] = units(oneTraces(l.in[k]), oneLogs(l.in[k]))[0]
	}
	got := feedUnits(t, l.cfg, units(pickTraces(l.before), pickLogs(l.before)), batch)
	require.Equal(t, l.want.SpanCount(), got.SpanCount(), "order %v", order)
	if diff := annotationDiffMovedRoots(l.want, got); diff != "" {
		t.Fatalf("requests in order %v: %s", order, diff)
	}
}

// interleavings returns every interleaving of span requests 0..spans-1 (in
// that order) with log requests spans..spans+logs-1, the log requests in
// an order r draws for each.
func interleavings(spans, logs int, r *rand.Rand) [][]int {
	var out [][]int
	var walk func(prefix []int, nextSpan, placedLogs int)
	walk = func(prefix []int, nextSpan, placedLogs int) {
		if nextSpan == spans && placedLogs == logs {
			out = append(out, slices.Clone(prefix))
			return
		}
		if nextSpan < spans {
			walk(append(prefix, nextSpan), nextSpan+1, placedLogs)
		}
		if placedLogs < logs {
			walk(append(prefix, -1), nextSpan, placedLogs+1)
		}
	}
	walk(nil, 0, 0)
	for _, o := range out {
		perm := r.Perm(logs)
		k := 0
		for i, v := range o {
			if v < 0 {
				o[i] = spans + perm[k]
				k++
			}
		}
	}
	return out
}
