package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.txt")

const (
	demoConfig = "../../testdata/demo/config.yaml"
	demoDir    = "../../testdata/demo/traces"
)

func demoTraces(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(demoDir, "*.otlp.jsonl"))
	require.NoError(t, err)
	require.Len(t, files, 9)
	return files
}

func demoTrace(name string) string { return filepath.Join(demoDir, name+".otlp.jsonl") }

// toolscore runs the command and returns its exit code and output.
func toolscore(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func decodeReport(t *testing.T, out string) *Report {
	t.Helper()
	var rep Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	return &rep
}

// ruleOf returns the result of rule on the run of service.
func ruleOf(t *testing.T, rep *Report, service, rule string) RuleResult {
	t.Helper()
	for _, run := range rep.Runs {
		if run.Service != service {
			continue
		}
		for _, rr := range run.Rules {
			if rr.Rule == rule {
				return rr
			}
		}
	}
	t.Fatalf("no result of rule %s for service %s", rule, service)
	return RuleResult{}
}

func TestScoreDemoTableGolden(t *testing.T) {
	code, out, errOut := toolscore(t, append([]string{"score", "-config", demoConfig}, demoTraces(t)...)...)
	assert.Equal(t, exitFailed, code, "the demo has failing runs")
	assert.Empty(t, errOut)
	golden := filepath.Join("testdata", "score-demo.golden.txt")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(out), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), out, "run go test ./cmd/toolscore -update to accept a change")
}

func TestScoreDemoJSON(t *testing.T) {
	code, out, _ := toolscore(t, append([]string{"score", "-format", "json", "-config", demoConfig}, demoTraces(t)...)...)
	require.Equal(t, exitFailed, code)
	rep := decodeReport(t, out)
	assert.Len(t, rep.Runs, 9)
	assert.Equal(t, Summary{Spans: 59, Runs: 9, Evaluations: 36, Passed: 12, Failed: 20, NotEvaluated: 4, RunsWithoutRule: ptr(int64(0))}, rep.Summary)
	assert.Empty(t, rep.UnmatchedRules)
	for _, run := range rep.Runs {
		assert.NotEmpty(t, run.Source, run.Service)
		assert.Len(t, run.Evaluations, 4, run.Service)
	}

	allok := ruleOf(t, rep, "adk-go-mock-allok", "stock_lookup_succeeds")
	assert.Equal(t, "pass", allok.Outcome)
	assert.InDelta(t, 1, *allok.Score, 1e-9)
	// A report lists a passing run's calls too (output.tool_calls always).
	for _, run := range rep.Runs {
		if run.Service == "adk-go-mock-allok" {
			assert.True(t, run.Passed)
			assert.Equal(t, []string{"lookup_stock", "get_weather"}, run.ToolCalls)
		}
	}

	lc := ruleOf(t, rep, "langchain-openinference-mock", "paris_trip")
	assert.Equal(t, "fail", lc.Outcome)
	assert.False(t, lc.Passed)
	assert.InDelta(t, 0.5, *lc.Score, 1e-9)
	assert.Contains(t, lc.Explanation, `expected an object, got "ZZZZ"`)

	nw := ruleOf(t, rep, "openllmetry-langchain-mock-nowithtool", "paris_trip")
	assert.Equal(t, []string{"lookup_stock"}, nw.MissingTools)
	assert.Equal(t, []string{"DynamicStructuredTool"}, nw.UnexpectedTools)

	// The rule with no expected calls, only the checks, scores every run.
	lcChecks := ruleOf(t, rep, "langchain-openinference-mock", "tool_checks")
	assert.Contains(t, lcChecks.Explanation, "arguments break the schema: /: got string, want object")
	assert.Equal(t, []string{"DynamicStructuredTool"}, ruleOf(t, rep, "openllmetry-langchain-mock-nowithtool", "tool_checks").UnexpectedTools)

	// The judge rule, against the stand-in judge: runs whose calls returned an
	// error are judged wrong; runs with no recorded conversation, or a call
	// to a tool never offered, are not judged (MEAI's validations).
	judged := ruleOf(t, rep, "langchain-openinference-mock", "judged_calls")
	assert.Equal(t, "fail", judged.Outcome)
	assert.Contains(t, judged.Explanation, "Tool Call Accuracy is not True.")
	assert.Equal(t, "pass", ruleOf(t, rep, "genkit-go-mock", "judged_calls").Outcome)
	assert.Equal(t, "not_evaluated", ruleOf(t, rep, "adk-go-mock", "judged_calls").Outcome)

	require.Len(t, rep.Rules, 4)
	assert.Equal(t, RuleSummary{Rule: "paris_trip", Tally: Tally{Runs: 9, Passed: 7, Failed: 2, MeanScore: ptr(8.0 / 9)}}, rep.Rules[0])
	assert.Equal(t, RuleSummary{Rule: "tool_checks", Tally: Tally{Runs: 9, Passed: 2, Failed: 7, MeanScore: ptr(5.5 / 9)}}, rep.Rules[2])
}

func ptr[T any](v T) *T { return &v }

func TestExitCodes(t *testing.T) {
	allok := demoTrace("adk-go-mock-allok")
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string // substring of stdout
		stderr     string // substring of stderr
		stderrNone bool
	}{
		{name: "all runs pass", args: []string{"score", "-config", "testdata/pass.yaml", allok}, code: exitOK, stdout: "1 agent run, 1 evaluation: 1 passed, 0 failed."},
		{name: "flags after files", args: []string{"score", allok, "-config", "testdata/pass.yaml"}, code: exitOK},
		{name: "a failing run", args: []string{"score", "-config", demoConfig, demoTrace("adk-go-mock")}, code: exitFailed, stdout: "lookup_stock failed"},
		{name: "a rule matching no run", args: []string{"score", "-config", "testdata/unmatched.yaml", allok}, code: exitFailed, stdout: "Rule billing_agent scored no run."},
		{name: "no agent run at all", args: []string{"report", demoTrace("adk-go-mock")}, code: exitFailed, stdout: "No scored agent runs in 6 spans."},
		{name: "bad rule names the rule and the field", args: []string{"score", "-config", "testdata/bad-rule.yaml", allok}, code: exitFailure,
			stderr: `processors::tool_call_accuracy: invalid configuration:` + "\n" + `  rules[0]: rule "weather_in_paris": expect.calls[0].match["city"]: regex: invalid regex "(Paris"`},
		{name: "misspelt key", args: []string{"score", "-config", "testdata/unknown-key.yaml", allok}, code: exitFailure, stderr: "has invalid keys: must_succed"},
		{name: "missing config", args: []string{"score", "-config", "testdata/nope.yaml", allok}, code: exitFailure, stderr: "testdata/nope.yaml: no such file or directory"},
		{name: "missing trace file", args: []string{"score", "-config", "testdata/pass.yaml", "testdata/nope.jsonl"}, code: exitFailure, stderr: "open testdata/nope.jsonl: no such file or directory"},
		{name: "not OTLP JSON", args: []string{"score", "-config", "testdata/pass.yaml", "testdata/not-otlp.jsonl"}, code: exitFailure, stderr: "testdata/not-otlp.jsonl:1: not OTLP JSON"},
		{name: "no spans", args: []string{"score", "-config", "testdata/pass.yaml", "testdata/empty.jsonl"}, code: exitFailure, stderr: "no spans in"},
		{name: "several processors", args: []string{"score", "-config", "testdata/two-processors.yaml", allok}, code: exitFailure,
			stderr: "several tool_call_accuracy processors (tool_call_accuracy/lenient, tool_call_accuracy/strict); pick one with -processor"},
		{name: "unknown processor id", args: []string{"score", "-config", "testdata/two-processors.yaml", "-processor", "tool_call_accuracy/other", allok}, code: exitFailure,
			stderr: `no processor "tool_call_accuracy/other"; found tool_call_accuracy/lenient, tool_call_accuracy/strict`},
		{name: "score without config", args: []string{"score", allok}, code: exitFailure, stderr: "-config and at least one trace file are required"},
		{name: "bad format", args: []string{"score", "-format", "xml", "-config", "testdata/pass.yaml", allok}, code: exitFailure, stderr: `-format "xml"`},
		{name: "unknown flag", args: []string{"score", "-treshold", "1"}, code: exitFailure, stderr: "flag provided but not defined: -treshold"},
		{name: "no command", args: nil, code: exitFailure, stderr: "Usage:"},
		{name: "unknown command", args: []string{"grade"}, code: exitFailure, stderr: `unknown command "grade"`},
		{name: "help", args: []string{"help"}, code: exitOK, stdout: "Exit codes", stderrNone: true},
		{name: "flag help", args: []string{"report", "-h"}, code: exitOK, stderr: "-wait-spans n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := toolscore(t, tt.args...)
			assert.Equal(t, tt.code, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
			assert.Contains(t, out, tt.stdout)
			assert.Contains(t, errOut, tt.stderr)
			if tt.stderrNone {
				assert.Empty(t, errOut)
			}
		})
	}
}

func TestProcessorSelection(t *testing.T) {
	trace := demoTrace("adk-go-mock")
	for id, want := range map[string]string{"tool_call_accuracy/lenient": "pass", "tool_call_accuracy/strict": "fail"} {
		_, out, errOut := toolscore(t, "score", "-format", "json", "-config", "testdata/two-processors.yaml", "-processor", id, trace)
		require.Empty(t, errOut)
		assert.Equal(t, want, ruleOf(t, decodeReport(t, out), "adk-go-mock", "stock_lookup").Outcome, id)
	}
}

// The processor sections of the golden tests, keyed by id at the top level.
func TestSectionsFile(t *testing.T) {
	code, out, errOut := toolscore(t, "score", "-format", "json", "-config", "../../testdata/golden/config.yaml",
		"-processor", "tool_call_accuracy/paris", "../../testdata/traces/emitters/vercel-ai-v6-mock.otlp.jsonl")
	require.Empty(t, errOut)
	assert.Equal(t, exitFailed, code)
	rep := decodeReport(t, out)
	assert.Equal(t, "pass", ruleOf(t, rep, "vercel-ai-mock", "paris_trip").Outcome)
	assert.Equal(t, "fail", ruleOf(t, rep, "vercel-ai-mock", "stock_must_succeed").Outcome)
}

func TestEnvReferences(t *testing.T) {
	trace := demoTrace("adk-go-mock")
	_, out, _ := toolscore(t, "score", "-format", "json", "-config", "testdata/env.yaml", trace)
	assert.Equal(t, "fail", ruleOf(t, decodeReport(t, out), "adk-go-mock", "stock_lookup").Outcome, "default threshold 1")
	t.Setenv("TOOLSCORE_TEST_THRESHOLD", "0.5")
	code, out, _ := toolscore(t, "score", "-format", "json", "-config", "testdata/env.yaml", trace)
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "pass", ruleOf(t, decodeReport(t, out), "adk-go-mock", "stock_lookup").Outcome, "threshold 0.5 from the environment")
}

func TestRunsWithoutRule(t *testing.T) {
	code, out, _ := toolscore(t, append([]string{"score", "-config", "testdata/one-agent.yaml"}, demoTraces(t)...)...)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "8 agent runs with tool calls matched no rule.")
	_, out, _ = toolscore(t, append([]string{"score", "-format", "json", "-config", "testdata/one-agent.yaml"}, demoTraces(t)...)...)
	rep := decodeReport(t, out)
	assert.Equal(t, int64(8), *rep.Summary.RunsWithoutRule)
	assert.Len(t, rep.Runs, 1)
}

// stripSources drops the input file names, which only score knows.
func stripSources(rep *Report) *Report {
	for i := range rep.Runs {
		rep.Runs[i].Source = ""
		for k := range rep.Runs[i].Calls {
			rep.Runs[i].Calls[k].Records = nil // file positions
		}
	}
	rep.Summary.RunsWithoutRule = nil
	return rep
}

// A single indented ExportTraceServiceRequest reads like its one-line form.
func TestPrettyDocument(t *testing.T) {
	_, lines, _ := toolscore(t, "score", "-format", "json", "-config", demoConfig, demoTrace("adk-go-mock-allok"))
	_, pretty, errOut := toolscore(t, "score", "-format", "json", "-config", demoConfig, "testdata/adk-go-mock-allok.pretty.json")
	require.Empty(t, errOut)
	assert.Equal(t, stripSources(decodeReport(t, lines)), stripSources(decodeReport(t, pretty)))
}

// report on the spans score wrote gives the runs score printed.
func TestScoreOutThenReport(t *testing.T) {
	annotated := filepath.Join(t.TempDir(), "annotated.jsonl")
	_, scored, _ := toolscore(t, append([]string{"score", "-format", "json", "-config", demoConfig, "-out", annotated}, demoTraces(t)...)...)
	code, reported, errOut := toolscore(t, "report", "-format", "json", "-config", demoConfig, annotated)
	require.Empty(t, errOut)
	assert.Equal(t, exitFailed, code)
	// score lists the calls the scorers received (witnesses, requested
	// calls, scoring order); report, from the annotated spans alone, the
	// tool spans' calls: the same tools.
	want, got := stripSources(decodeReport(t, scored)), stripSources(decodeReport(t, reported))
	for i := range want.Runs {
		require.ElementsMatch(t, callTools(want.Runs[i].Calls), callTools(got.Runs[i].Calls), want.Runs[i].Service)
		want.Runs[i].Calls, got.Runs[i].Calls = nil, nil
	}
	assert.Equal(t, want, got)
}

func callTools(calls []CallDetail) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Tool)
	}
	return out
}

func TestReportWaitSpans(t *testing.T) {
	annotated := filepath.Join(t.TempDir(), "annotated.jsonl")
	toolscore(t, "score", "-config", demoConfig, "-out", annotated, demoTrace("mastra-otel-mock"))
	data, err := os.ReadFile(annotated)
	require.NoError(t, err)

	// The exporter creates the file late and writes it in two pieces.
	path := filepath.Join(t.TempDir(), "spans.jsonl")
	go func() {
		time.Sleep(300 * time.Millisecond)
		_ = os.WriteFile(path, data[:len(data)/2], 0o644)
		time.Sleep(300 * time.Millisecond)
		_ = os.WriteFile(path, data, 0o644)
	}()
	code, out, errOut := toolscore(t, "report", "-wait-spans", "12", "-timeout", "10s", path)
	require.Empty(t, errOut)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, out, "mastra-mock")

	code, _, errOut = toolscore(t, "report", "-wait-spans", "13", "-timeout", "300ms", path)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errOut, "waited 300ms for 13 spans")
	assert.Contains(t, errOut, "found 12")
}

// otlpSink counts the spans it receives over OTLP/HTTP and OTLP/gRPC.
type otlpSink struct {
	ptraceotlp.UnimplementedGRPCServer
	spans, requests atomic.Int64
	reject          int64
}

func (s *otlpSink) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	s.spans.Add(int64(req.Traces().SpanCount()))
	s.requests.Add(1)
	resp := ptraceotlp.NewExportResponse()
	if s.reject > 0 {
		resp.PartialSuccess().SetRejectedSpans(s.reject)
		resp.PartialSuccess().SetErrorMessage("queue full")
	}
	return resp, nil
}

func (s *otlpSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	body, _ := io.ReadAll(r.Body)
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalProto(body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp, _ := s.Export(r.Context(), req)
	data, _ := resp.MarshalProto()
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(data)
}

func TestSendHTTP(t *testing.T) {
	sink := &otlpSink{}
	srv := httptest.NewServer(sink)
	defer srv.Close()
	code, out, errOut := toolscore(t, append([]string{"send", "-endpoint", srv.URL}, demoTraces(t)...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "59\n", out)
	assert.Contains(t, errOut, "sent 59 spans in 9 requests to "+srv.URL+"/v1/traces")
	assert.Equal(t, int64(59), sink.spans.Load())
	assert.Equal(t, int64(9), sink.requests.Load())

	code, _, errOut = toolscore(t, "send", "-endpoint", srv.URL+"/wrong", demoTrace("adk-go-mock"))
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errOut, "400 Bad Request")

	rejecting := httptest.NewServer(&otlpSink{reject: 2})
	defer rejecting.Close()
	code, _, errOut = toolscore(t, "send", "-endpoint", rejecting.URL, demoTrace("adk-go-mock"))
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errOut, "the collector rejected 2 spans: queue full")
}

func TestSendGRPC(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	sink := &otlpSink{}
	srv := grpc.NewServer()
	ptraceotlp.RegisterGRPCServer(srv, sink)
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	code, out, errOut := toolscore(t, append([]string{"send", "-protocol", "grpc", "-endpoint", lis.Addr().String()}, demoTraces(t)...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "59\n", out)
	assert.Equal(t, int64(59), sink.spans.Load())

	code, _, errOut = toolscore(t, "send", "-protocol", "grpc", "-timeout", "500ms", "-endpoint", "127.0.0.1:1", demoTrace("adk-go-mock"))
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errOut, "gRPC export to 127.0.0.1:1")

	code, _, errOut = toolscore(t, "send", "-protocol", "udp", demoTrace("adk-go-mock"))
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errOut, `-protocol "udp"`)
}

// TestScoreListsCalls: the JSON report lists each run's calls with their
// arguments, result and failure; -calls prints them after the table.
func TestScoreListsCalls(t *testing.T) {
	_, out, _ := toolscore(t, "score", "-format", "json", "-config", demoConfig, demoTrace("adk-go-mock"), demoTrace("langchain-openinference-mock"))
	rep := decodeReport(t, out)
	calls := map[string][]CallDetail{}
	for _, run := range rep.Runs {
		calls[run.Service] = run.Calls
	}
	require.Len(t, calls["adk-go-mock"], 2, "ADK's (merged tools) wrapper is not a call; the calls under it are")
	stock := calls["langchain-openinference-mock"][1]
	assert.Equal(t, "lookup_stock", stock.Tool)
	assert.Equal(t, `"ZZZZ"`, stock.Arguments)
	assert.True(t, stock.Failed)
	assert.Equal(t, "openinference", stock.Convention)
	weather := calls["adk-go-mock"][1]
	assert.Equal(t, CallDetail{Tool: "get_weather", ID: "call_1", Witnesses: []string{"executed"}, Arguments: `{"city":"Paris","unit":"celsius"}`, ArgumentsState: "known",
		Result: `{"city":"Paris","temperature":21,"unit":"celsius"}`, SpanID: weather.SpanID, Convention: "google_adk"}, weather)

	_, table, _ := toolscore(t, "score", "-calls", "-config", demoConfig, demoTrace("langchain-openinference-mock"))
	assert.Contains(t, table, "Calls of each run:\n  langchain-openinference-mock / weather-agent")
	assert.Contains(t, table, `2. lookup_stock "ZZZZ" -> - [FAILED]`)
	_, plain, _ := toolscore(t, "score", "-config", demoConfig, demoTrace("langchain-openinference-mock"))
	assert.NotContains(t, plain, "Calls of each run")
}

// TestStandinJudge: the stand-in answers chat completions in the tag and
// JSON forms, judging a run wrong when its request mentions an error.
func TestStandinJudge(t *testing.T) {
	srv := httptest.NewServer(&standin{})
	defer srv.Close()
	ask := func(content string, jsonObject bool) string {
		body := `{"model":"m","messages":[{"role":"user","content":` + strconv.Quote(content) + `}]`
		if jsonObject {
			body += `,"response_format":{"type":"json_object"}`
		}
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body+"}"))
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var out struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		return out.Choices[0].Message.Content
	}
	assert.Contains(t, ask(`result: {"temperature":21}`, false), "<S2>true</S2>")
	assert.Contains(t, ask(`result: {"error":"unknown symbol"}`, false), "<S2>false</S2>")
	assert.Contains(t, ask(`result: {"error":"unknown symbol"}`, true), `"tool_calls_success_level":2`)
	resp, err := http.Get(srv.URL + "/v1/models")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// TestMain serves the stand-in judge for the demo configuration's judge
// rule, as make run does.
func TestMain(m *testing.M) {
	srv := httptest.NewServer(&standin{})
	os.Setenv("TCA_JUDGE_ENDPOINT", srv.URL+"/v1")
	code := m.Run()
	srv.Close()
	os.Exit(code)
}

// TestScoreJudgeFlags: -no-judges runs no judge (its rules need not score
// a run); -judge-endpoint sends the requests elsewhere.
func TestScoreJudgeFlags(t *testing.T) {
	code, out, _ := toolscore(t, "score", "-no-judges", "-config", demoConfig, demoTrace("genkit-go-mock"))
	assert.Equal(t, exitOK, code, out)
	assert.NotContains(t, out, "judged_calls")

	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		(&standin{}).ServeHTTP(w, r)
	}))
	defer srv.Close()
	code, out, _ = toolscore(t, "score", "-judge-endpoint", srv.URL+"/v1", "-config", demoConfig, demoTrace("genkit-go-mock"))
	assert.Equal(t, exitOK, code, out)
	assert.Contains(t, out, "judged_calls")
	assert.Equal(t, int64(1), asked.Load())
}
