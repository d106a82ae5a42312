//go:build e2e || scaleout || prometheus

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

var (
	collectorBin   = flag.String("collector", "../_build/otelcol-toolcallaccuracy", "the collector binary built by ocb (make build)")
	toolscoreGiven = flag.String("toolscore", "", "a toolscore binary (make passes bin/toolscore); empty: TestMain builds one from ../cmd/toolscore")
)

const (
	demoConfig = "../testdata/demo/config.yaml"
	overrides  = "testdata/overrides.yaml"
	processor  = "tool_call_accuracy"
	ourPrefix  = "otelcol_processor_tool_call_accuracy_"
)

// toolscoreBin is -toolscore, or built once by TestMain.
var toolscoreBin string

func TestMain(m *testing.M) {
	flag.Parse()
	if _, err := os.Stat(*collectorBin); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: collector binary %s: %v (run make build, or pass -collector)\n", *collectorBin, err)
		os.Exit(1)
	}
	if *toolscoreGiven != "" {
		if _, err := os.Stat(*toolscoreGiven); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: toolscore binary %s: %v (run make toolscore, or leave -toolscore out)\n", *toolscoreGiven, err)
			os.Exit(1)
		}
		toolscoreBin = *toolscoreGiven
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "toolscore-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	toolscoreBin = filepath.Join(dir, "toolscore")
	if out, err := exec.Command("go", "build", "-o", toolscoreBin, "../cmd/toolscore").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: building toolscore: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// request is one ExportTraceServiceRequest to send.
type request struct {
	name string
	td   ptrace.Traces
}

// readRequests reads file-exporter framing or a single document.
func readRequests(t *testing.T, path string) []request {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []request
	var u ptrace.JSONUnmarshaler
	for i := 1; ; i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return out
		} else {
			require.NoError(t, err, path)
		}
		td, err := u.UnmarshalTraces(raw)
		require.NoError(t, err, path)
		out = append(out, request{name: fmt.Sprintf("%s#%d", filepath.Base(path), i), td: td})
	}
}

// readExported reads the file exporter's output; complete is false while a
// line is half written.
func readExported(t *testing.T, path string) (td ptrace.Traces, complete bool) {
	t.Helper()
	td = ptrace.NewTraces()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return td, false
	}
	require.NoError(t, err)
	docs, err := otlpjson.Parse(path, data, true)
	if errors.Is(err, otlpjson.ErrIncomplete) {
		complete = false // the last line is still being written
	} else {
		require.NoError(t, err)
		complete = len(data) == 0 || data[len(data)-1] == '\n'
	}
	for _, d := range docs {
		d.Traces.ResourceSpans().MoveAndAppendTo(td.ResourceSpans())
	}
	return td, complete
}

func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// collector is a running collector process.
type collector struct {
	cmd                          *exec.Cmd
	log, out                     string
	grpcPort, httpPort, promPort int
	exited                       chan error
}

func startCollector(t *testing.T) *collector {
	t.Helper()
	return launchCollector(t, *collectorBin, []string{demoConfig, overrides}, freePorts(t, 3))
}

// launchCollector starts bin with the configs on ports (OTLP/gRPC,
// OTLP/HTTP, Prometheus), given to it as TCA_GRPC_PORT, TCA_HTTP_PORT and
// TCA_METRICS_PORT, with a new TCA_OUT_DIR, and waits until it listens.
// env is added to the environment.
func launchCollector(t *testing.T, bin string, configs []string, ports []int, env ...string) *collector {
	t.Helper()
	dir := t.TempDir()
	c := &collector{
		log: filepath.Join(dir, "collector.log"), out: filepath.Join(dir, "spans.jsonl"),
		grpcPort: ports[0], httpPort: ports[1], promPort: ports[2], exited: make(chan error, 1),
	}
	logFile, err := os.Create(c.log)
	require.NoError(t, err)
	var args []string
	for _, cfg := range configs {
		args = append(args, "--config", cfg)
	}
	c.cmd = exec.Command(bin, args...)
	c.cmd.Env = append(os.Environ(),
		fmt.Sprintf("TCA_GRPC_PORT=%d", c.grpcPort), fmt.Sprintf("TCA_HTTP_PORT=%d", c.httpPort),
		fmt.Sprintf("TCA_METRICS_PORT=%d", c.promPort), "TCA_OUT_DIR="+dir,
		// The evaluations connector's Prometheus exporter (demo config).
		fmt.Sprintf("TCA_PROMETHEUS_PORT=%d", freePorts(t, 1)[0]))
	c.cmd.Env = append(c.cmd.Env, env...)
	c.cmd.Stdout, c.cmd.Stderr = logFile, logFile
	require.NoError(t, c.cmd.Start())
	go func() { c.exited <- c.cmd.Wait(); logFile.Close() }()
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
		if t.Failed() {
			data, _ := os.ReadFile(c.log)
			t.Logf("collector log:\n%s", data)
		}
	})
	c.waitListening(t)
	return c
}

// waitListening waits until the collector has opened its three ports.
func (c *collector) waitListening(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-c.exited:
			data, _ := os.ReadFile(c.log)
			t.Fatalf("the collector exited during start-up: %v\n%s", err, data)
		default:
		}
		if c.listening(c.grpcPort) && c.listening(c.httpPort) && c.listening(c.promPort) {
			return
		}
		require.True(t, time.Now().Before(deadline), "the collector did not open its ports within 60s")
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *collector) listening(port int) bool {
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

func (c *collector) sendHTTP(t *testing.T, td ptrace.Traces) {
	t.Helper()
	body, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	require.NoError(t, err)
	resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/v1/traces", c.httpPort), "application/x-protobuf", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	out := ptraceotlp.NewExportResponse()
	require.NoError(t, out.UnmarshalProto(data))
	require.Zero(t, out.PartialSuccess().RejectedSpans(), out.PartialSuccess().ErrorMessage())
}

// scrape reads the Prometheus endpoint: samples and # TYPE lines.
func (c *collector) scrape(t *testing.T) (samples []sample, types map[string]string) {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", c.promPort))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	types = map[string]string{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			types[f[2]] = f[3]
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseSample(line)
		require.NoError(t, err, line)
		samples = append(samples, s)
	}
	require.NoError(t, sc.Err())
	return samples, types
}

type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// parseSample parses one line of the Prometheus text format.
func parseSample(line string) (sample, error) {
	s := sample{labels: map[string]string{}}
	i := strings.IndexAny(line, "{ ")
	if i < 0 {
		return s, errors.New("no value")
	}
	s.name, line = line[:i], line[i:]
	if line[0] == '{' {
		line = line[1:]
		for !strings.HasPrefix(line, "}") {
			eq := strings.Index(line, "=\"")
			if eq < 0 {
				return s, errors.New("bad label")
			}
			key := strings.TrimLeft(line[:eq], ",")
			line = line[eq+2:]
			var val strings.Builder
			for j := 0; ; j++ {
				if j >= len(line) {
					return s, errors.New("unterminated label value")
				}
				if line[j] == '\\' && j+1 < len(line) {
					j++
					if line[j] == 'n' {
						val.WriteByte('\n')
					} else {
						val.WriteByte(line[j])
					}
					continue
				}
				if line[j] == '"' {
					line = line[j+1:]
					break
				}
				val.WriteByte(line[j])
			}
			s.labels[key] = val.String()
			line = strings.TrimPrefix(line, ",")
		}
		line = line[1:]
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return s, errors.New("no value")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	s.value = v
	return s, err
}

// value sums the samples of name whose labels include want.
func value(samples []sample, name string, want map[string]string) (float64, bool) {
	total, found := 0.0, false
	for _, s := range samples {
		if s.name != name {
			continue
		}
		match := true
		for k, v := range want {
			if s.labels[k] != v {
				match = false
				break
			}
		}
		if match {
			total += s.value
			found = true
		}
	}
	return total, found
}

// report is the part of toolscore's JSON report the test compares.
type report struct {
	Runs    []reportRun `json:"runs"`
	Summary struct {
		Runs        int `json:"runs"`
		Evaluations int `json:"evaluations"`
	} `json:"summary"`
}

// reportRun is one scored run of a report.
type reportRun struct {
	TraceID   string `json:"trace_id"`
	SpanID    string `json:"span_id"`
	Service   string `json:"service"`
	AgentSpan string `json:"agent_span"`
	Source    string `json:"source"`
	Rules     []struct {
		Rule            string   `json:"rule"`
		Outcome         string   `json:"outcome"`
		Score           *float64 `json:"score"`
		MissingTools    []string `json:"missing_tools"`
		UnexpectedTools []string `json:"unexpected_tools"`
	} `json:"rules"`
}

func toolscore(t *testing.T, args ...string) (*report, []byte) {
	t.Helper()
	cmd := exec.Command(toolscoreBin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		err = nil // failing runs: expected with the demo rules
	}
	require.NoError(t, err, "toolscore %v: %s", args, stderr.String())
	var rep report
	require.NoError(t, json.Unmarshal(out, &rep), string(out))
	for i := range rep.Runs {
		rep.Runs[i].Source = ""
	}
	return &rep, out
}

// spanIDs lists every span id of td.
func spanIDs(td ptrace.Traces) []string {
	var ids []string
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				ids = append(ids, s.TraceID().String()+"/"+s.SpanID().String())
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// toolSpan returns a copy of the named span of td in a new Traces, with new
// ids.
func toolSpan(t *testing.T, td ptrace.Traces, name string, trace pcommon.TraceID, span pcommon.SpanID) ptrace.Traces {
	t.Helper()
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				if s.Name() != name {
					continue
				}
				out := ptrace.NewTraces()
				ors := out.ResourceSpans().AppendEmpty()
				rs.Resource().CopyTo(ors.Resource())
				oss := ors.ScopeSpans().AppendEmpty()
				ss.Scope().CopyTo(oss.Scope())
				sp := oss.Spans().AppendEmpty()
				s.CopyTo(sp)
				if !trace.IsEmpty() {
					sp.SetTraceID(trace)
				}
				sp.SetSpanID(span)
				return out
			}
		}
	}
	t.Fatalf("no span %q", name)
	return ptrace.Traces{}
}

// TestEndToEnd runs the demo configuration on the real binary.
func TestEndToEnd(t *testing.T) {
	files, err := filepath.Glob("../testdata/traces/*/*.json*")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 20)

	// What is sent, in order: every captured and convention trace, a late
	// copy of one tool span right after its run was scored, and a tool span
	// whose agent never comes (evicted after max_age).
	var reqs []request
	for _, f := range files {
		rs := readRequests(t, f)
		reqs = append(reqs, rs...)
		if filepath.Base(f) == "adk-go-mock.otlp.jsonl" {
			late := toolSpan(t, rs[0].td, "execute_tool get_weather", pcommon.TraceID{}, pcommon.SpanID{0xfe, 1, 2, 3, 4, 5, 6, 7})
			reqs = append(reqs, request{name: "late tool span", td: late})
		}
	}
	adk := readRequests(t, "../testdata/traces/captures/adk-go-mock.otlp.jsonl")
	orphan := toolSpan(t, adk[0].td, "execute_tool lookup_stock", pcommon.TraceID{0xab, 0xab, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, pcommon.SpanID{0xfe, 9, 9, 9, 9, 9, 9, 9})
	reqs = append(reqs, request{name: "orphan tool span", td: orphan})

	// The same sequence in one file, for toolscore.
	sent := filepath.Join(t.TempDir(), "sent.jsonl")
	var buf bytes.Buffer
	var m ptrace.JSONMarshaler
	sentSpans := ptrace.NewTraces()
	for _, r := range reqs {
		data, err := m.MarshalTraces(r.td)
		require.NoError(t, err)
		buf.Write(append(data, '\n'))
		cp := ptrace.NewTraces()
		r.td.CopyTo(cp)
		cp.ResourceSpans().MoveAndAppendTo(sentSpans.ResourceSpans())
	}
	require.NoError(t, os.WriteFile(sent, buf.Bytes(), 0o644))
	total := sentSpans.SpanCount()

	// The stand-in judge of the demo's judged_calls rule, for the collector
	// and for toolscore.
	judge := startStandin(t)
	t.Setenv("TCA_JUDGE_ENDPOINT", judge.endpoint)

	c := startCollector(t)

	// Alternate OTLP/gRPC and OTLP/HTTP.
	conn, err := grpc.NewClient(fmt.Sprintf("127.0.0.1:%d", c.grpcPort), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	client := ptraceotlp.NewGRPCClient(conn)
	grpcSpans, httpSpans := 0, 0
	for i, r := range reqs {
		if i%2 == 0 {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			resp, err := client.Export(ctx, ptraceotlp.NewExportRequestFromTraces(r.td))
			cancel()
			require.NoError(t, err, r.name)
			require.Zero(t, resp.PartialSuccess().RejectedSpans(), r.name)
			grpcSpans += r.td.SpanCount()
		} else {
			c.sendHTTP(t, r.td)
			httpSpans += r.td.SpanCount()
		}
	}

	// Wait until the file exporter has written every span.
	var exported ptrace.Traces
	deadline := time.Now().Add(30 * time.Second)
	for {
		td, complete := readExported(t, c.out)
		if complete && td.SpanCount() >= total {
			exported = td
			break
		}
		require.True(t, time.Now().Before(deadline), "the file exporter wrote %d of %d spans within 30s", td.SpanCount(), total)
		time.Sleep(100 * time.Millisecond)
	}
	require.Equal(t, spanIDs(sentSpans), spanIDs(exported), "every span comes out once")

	t.Run("scores on the agent spans", func(t *testing.T) {
		rep, _ := toolscore(t, "report", "-format", "json", c.out)
		byRun := map[string]map[string]float64{}
		outcome := map[string]string{}
		for _, run := range rep.Runs {
			byRun[run.Service+" "+run.AgentSpan] = map[string]float64{}
			for _, rr := range run.Rules {
				if rr.Score != nil {
					byRun[run.Service+" "+run.AgentSpan][rr.Rule] = *rr.Score
				}
				outcome[run.Service+" "+run.AgentSpan+" "+rr.Rule] = rr.Outcome
			}
		}
		want := map[string]map[string]float64{
			"adk-go-mock-allok invoke_agent weather_agent":              {"paris_trip": 1, "stock_lookup_succeeds": 1, "tool_checks": 1},
			"adk-go-mock invoke_agent weather_agent":                    {"paris_trip": 1, "stock_lookup_succeeds": 0.5, "tool_checks": 0.5},
			"genkit-go-mock weatherAgentFlow":                           {"paris_trip": 1, "stock_lookup_succeeds": 1, "tool_checks": 1, "judged_calls": 1},
			"langchain-openinference-mock weather-agent":                {"paris_trip": 1, "stock_lookup_succeeds": 0.5, "tool_checks": 0.5, "judged_calls": 0},
			"vercel-ai-mock ai.generateText":                            {"paris_trip": 1, "stock_lookup_succeeds": 0.5, "tool_checks": 0.5, "judged_calls": 0},
			"vercel-ai-v7-otel-mock invoke_agent mock-model-1":          {"paris_trip": 1, "stock_lookup_succeeds": 0.5, "tool_checks": 0.5, "judged_calls": 0},
			"mastra-mock invoke_agent weather-agent":                    {"paris_trip": 1, "stock_lookup_succeeds": 0.5, "tool_checks": 0.5},
			"openllmetry-langchain-mock weather_agent.agent":            {"paris_trip": 1, "stock_lookup_succeeds": 0.5, "tool_checks": 0.5, "judged_calls": 0},
			"openllmetry-langchain-mock-nowithtool weather_agent.agent": {"paris_trip": 0.5, "stock_lookup_succeeds": 0.5, "tool_checks": 0.5},
		}
		for run, rules := range want {
			for rule, score := range rules {
				got, ok := byRun[run][rule]
				if assert.True(t, ok, "%s %s not scored", run, rule) {
					assert.InDelta(t, score, got, 1e-9, "%s %s", run, rule)
				}
			}
		}
		assert.Equal(t, "pass", outcome["adk-go-mock-allok invoke_agent weather_agent stock_lookup_succeeds"])
		// Its bare "ZZZZ" takes the request's {"symbol":"ZZZZ"}.
		assert.Equal(t, "pass", outcome["langchain-openinference-mock weather-agent paris_trip"])
		// The judge's verdict, and MEAI's validations: no recorded
		// conversation (ADK Go) is not judged.
		assert.Equal(t, "pass", outcome["genkit-go-mock weatherAgentFlow judged_calls"])
		assert.Equal(t, "not_evaluated", outcome["adk-go-mock invoke_agent weather_agent judged_calls"])

		// Every annotated agent span carries one evaluation event per rule.
		for _, rs := range exported.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					if _, ok := s.Attributes().Get("tool_call_accuracy.rules"); !ok {
						continue
					}
					n := 0
					for _, e := range s.Events().All() {
						if e.Name() == "gen_ai.evaluation.result" {
							n++
						}
					}
					assert.Equal(t, 4, n, s.Name())
				}
			}
		}
	})

	t.Run("toolscore gives the collector's scores", func(t *testing.T) {
		collected, _ := toolscore(t, "report", "-format", "json", c.out)
		offline, _ := toolscore(t, "score", "-format", "json", "-config", demoConfig, "-config", overrides, "-processor", processor, sent)
		require.NotEmpty(t, collected.Runs)

		// The late copy of adk-go-mock's get_weather span came after its run
		// was scored: the collector counted it late; toolscore, which reads
		// every span before it scores, has it in the run, as in-order
		// delivery would. Every other run is scored alike.
		late := func(rep *report) (reportRun, []reportRun) {
			var run reportRun
			var rest []reportRun
			for _, r := range rep.Runs {
				if r.Service == "adk-go-mock" {
					run = r
				} else {
					rest = append(rest, r)
				}
			}
			return run, rest
		}
		offlineLate, offlineRest := late(offline)
		collectedLate, collectedRest := late(collected)
		assert.Equal(t, offlineRest, collectedRest)
		require.NotEmpty(t, offlineLate.Rules)
		require.NotEmpty(t, collectedLate.Rules)
		assert.Equal(t, []string{"get_weather"}, offlineLate.Rules[0].UnexpectedTools, "toolscore: the late copy is a second get_weather")
		assert.Empty(t, collectedLate.Rules[0].UnexpectedTools, "the collector: counted late, not scored")

		// The demo traces alone, as make run sends them.
		demo, err := filepath.Glob("../testdata/demo/traces/*.otlp.jsonl")
		require.NoError(t, err)
		demoRep, _ := toolscore(t, append([]string{"score", "-format", "json", "-config", demoConfig}, demo...)...)
		require.Len(t, demoRep.Runs, 9)
		byID := map[string]int{}
		for i, run := range collected.Runs {
			byID[run.TraceID+run.SpanID] = i
		}
		for _, run := range demoRep.Runs {
			i, ok := byID[run.TraceID+run.SpanID]
			if assert.True(t, ok, run.Service) {
				assert.Equal(t, collected.Runs[i], run)
			}
		}
	})

	// Wait for the orphan's eviction (max_age 10s, swept every second).
	evictedLabels := map[string]string{"processor": processor, "reason": "max_age"}
	deadline = time.Now().Add(30 * time.Second)
	var samples []sample
	var types map[string]string
	for {
		samples, types = c.scrape(t)
		if v, ok := value(samples, ourPrefix+"evicted_trajectories", evictedLabels); ok && v >= 1 {
			break
		}
		require.True(t, time.Now().Before(deadline), "no max_age eviction within 30s")
		time.Sleep(500 * time.Millisecond)
	}

	t.Run("metrics", func(t *testing.T) {
		rep, raw := toolscore(t, "report", "-format", "json", c.out)
		evals := map[[2]string]float64{}
		sums := map[string]float64{}
		counts := map[string]float64{}
		missing := map[string]float64{}
		for _, run := range rep.Runs {
			for _, rr := range run.Rules {
				evals[[2]string{rr.Rule, rr.Outcome}]++
				if rr.Score != nil {
					sums[rr.Rule] += *rr.Score
					counts[rr.Rule]++
				}
				missing[rr.Rule] += float64(len(rr.MissingTools))
			}
		}
		for key, n := range evals {
			got, ok := value(samples, ourPrefix+"evaluations", map[string]string{"processor": processor, "rule": key[0], "scorer": scorerOf(key[0]), "outcome": key[1]})
			assert.True(t, ok, "evaluations %v", key)
			assert.Equal(t, n, got, "evaluations %v", key)
		}
		for rule, n := range counts {
			labels := map[string]string{"processor": processor, "rule": rule, "scorer": scorerOf(rule)}
			got, _ := value(samples, ourPrefix+"score_count", labels)
			assert.Equal(t, n, got, "score_count %s", rule)
			sum, _ := value(samples, ourPrefix+"score_sum", labels)
			assert.InDelta(t, sums[rule], sum, 1e-9, "score_sum %s", rule)
			inf, _ := value(samples, ourPrefix+"score_bucket", map[string]string{"processor": processor, "rule": rule, "le": "+Inf"})
			assert.Equal(t, n, inf, "score_bucket{le=+Inf} %s", rule)
			for _, le := range []string{"0", "0.4999", "0.7999", "0.9999", "1"} {
				_, ok := value(samples, ourPrefix+"score_bucket", map[string]string{"processor": processor, "rule": rule, "le": le})
				assert.True(t, ok, "bucket le=%s of %s", le, rule)
			}
			got, _ = value(samples, ourPrefix+"tool_calls", map[string]string{"processor": processor, "rule": rule, "status": "missing"})
			assert.Equal(t, missing[rule], got, "tool_calls{status=missing} %s", rule)
		}
		assert.Positive(t, missing["paris_trip"])

		// The late copy of a tool span sent above. The Genkit slow-tool
		// capture's two get_weather spans, which its exporter sent after the
		// flow's span, are not late: the flow's model had asked for them, so
		// wait_for_missing held its span until they came.
		late, _ := value(samples, ourPrefix+"late_spans", map[string]string{"processor": processor})
		assert.Equal(t, 1.0, late, "late_spans")
		completed, _ := value(samples, ourPrefix+"incomplete_runs", map[string]string{"processor": processor, "resolution": "complete"})
		assert.GreaterOrEqual(t, completed, 1.0, "incomplete_runs{resolution=complete}")
		extracted, _ := value(samples, ourPrefix+"extracted_calls", map[string]string{"processor": processor})
		assert.Greater(t, extracted, 30.0)

		accepted, _ := value(samples, "otelcol_receiver_accepted_spans", map[string]string{"transport": "grpc"})
		assert.Equal(t, float64(grpcSpans), accepted, "accepted over gRPC")
		accepted, _ = value(samples, "otelcol_receiver_accepted_spans", map[string]string{"transport": "http"})
		assert.Equal(t, float64(httpSpans), accepted, "accepted over HTTP")
		in, _ := value(samples, "otelcol_processor_incoming_items", map[string]string{"processor": processor})
		assert.Equal(t, float64(total), in)
		// Agent spans held for judges go out on their own, not through the
		// processor helper's outgoing count: the exporter sees every span.
		sent, _ := value(samples, "otelcol_exporter_sent_spans", map[string]string{"exporter": "file"})
		assert.Equal(t, float64(total), sent)
		out, _ := value(samples, "otelcol_processor_outgoing_items", map[string]string{"processor": processor})
		assert.LessOrEqual(t, out, float64(total))

		// The second instance (testdata/overrides.yaml) selects no run and
		// keeps one call per run; it counts the runs that made calls.
		gate := map[string]string{"processor": processor + "/gate"}
		noRule, _ := value(samples, ourPrefix+"runs_without_rule", gate)
		var calls struct {
			Runs []struct {
				Calls []json.RawMessage `json:"calls"`
			} `json:"runs"`
		}
		require.NoError(t, json.Unmarshal(raw, &calls))
		withCalls := 0
		for _, run := range calls.Runs {
			if len(run.Calls) > 0 {
				withCalls++
			}
		}
		assert.Equal(t, float64(withCalls), noRule, "runs_without_rule of the gate")
		dropped, _ := value(samples, ourPrefix+"dropped_calls", map[string]string{"processor": processor + "/gate", "reason": "max_calls_per_trajectory"})
		assert.Positive(t, dropped, "dropped_calls of the gate")
		_, ok := value(samples, ourPrefix+"evaluations", gate)
		assert.False(t, ok, "the gate scores nothing")

		// Our metrics: counters without _total, every series labelled with
		// the processor id.
		for _, s := range samples {
			if strings.HasPrefix(s.name, ourPrefix) {
				assert.Contains(t, []string{processor, processor + "/gate"}, s.labels["processor"], s.name)
				assert.False(t, strings.HasSuffix(s.name, "_total"), s.name)
			}
		}
		assert.Equal(t, "counter", types[ourPrefix+"evaluations"])
		assert.Equal(t, "histogram", types[ourPrefix+"score"])

		// Every judged verdict came from the stand-in (or its cache).
		judgeLabels := func(outcome string) map[string]string {
			return map[string]string{"processor": processor, "rule": "judged_calls", "scorer": "meai_tool_call_accuracy", "outcome": outcome}
		}
		okRequests, _ := value(samples, ourPrefix+"judge_requests", judgeLabels("ok"))
		cacheHits, _ := value(samples, ourPrefix+"judge_requests", judgeLabels("cache_hit"))
		assert.Positive(t, okRequests)
		assert.Equal(t, evals[[2]string{"judged_calls", "pass"}]+evals[[2]string{"judged_calls", "fail"}], okRequests+cacheHits)
		assert.Equal(t, "histogram", types[ourPrefix+"judge_duration"])
		tokens, _ := value(samples, ourPrefix+"judge_tokens", map[string]string{"processor": processor, "token_type": "input"})
		assert.Positive(t, tokens)
	})

	// The judge dies: runs sent afterwards are not judged, every span still
	// comes out, and the collector keeps scoring.
	var reloaded int
	t.Run("a judge that dies", func(t *testing.T) {
		judge.kill(t)
		// The demo runs again, under new trace ids and about another city,
		// so that no verdict is in the judge's cache.
		demo, err := filepath.Glob("../testdata/demo/traces/*.otlp.jsonl")
		require.NoError(t, err)
		for _, f := range demo {
			for _, r := range readRequests(t, f) {
				td := retell(r.td, "Paris", "Lyon")
				c.sendHTTP(t, td)
				reloaded += td.SpanCount()
			}
		}
		deadline := time.Now().Add(60 * time.Second)
		var td ptrace.Traces
		for {
			var complete bool
			td, complete = readExported(t, c.out)
			if complete && td.SpanCount() >= total+reloaded {
				break
			}
			require.True(t, time.Now().Before(deadline), "%d of %d spans out after the judge died", td.SpanCount(), total+reloaded)
			time.Sleep(200 * time.Millisecond)
		}
		old := map[string]bool{}
		for _, id := range traceIDs(sentSpans) {
			old[id] = true
		}
		rep, _ := toolscore(t, "report", "-format", "json", c.out)
		judgedAfter := 0
		for _, run := range rep.Runs {
			if old[run.TraceID] {
				continue
			}
			for _, rr := range run.Rules {
				if rr.Rule == "judged_calls" {
					assert.Equal(t, "not_evaluated", rr.Outcome, "%s after the judge died", run.Service)
					judgedAfter++
				}
				if rr.Rule == "paris_trip" {
					assert.NotEqual(t, "error", rr.Outcome, "the other rules keep scoring")
				}
			}
		}
		assert.Positive(t, judgedAfter)
		samples, _ := c.scrape(t)
		failed, _ := value(samples, ourPrefix+"judge_requests", map[string]string{"processor": processor, "rule": "judged_calls", "outcome": "error"})
		assert.Positive(t, failed, "the failed requests are counted")
	})

	t.Run("alert rules use the exposed metric names", func(t *testing.T) {
		checkAlertNames(t, samples, false)
	})

	t.Run("shutdown loses nothing", func(t *testing.T) {
		require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
		select {
		case err := <-c.exited:
			require.NoError(t, err, "the collector must exit 0 on SIGTERM")
		case <-time.After(30 * time.Second):
			t.Fatal("the collector did not stop within 30s of SIGTERM")
		}
		assert.Equal(t, 0, c.cmd.ProcessState.ExitCode())
		final, complete := readExported(t, c.out)
		assert.True(t, complete)
		assert.Equal(t, total+reloaded, final.SpanCount(), "spans in == spans out")
		out := map[string]bool{}
		for _, id := range spanIDs(final) {
			out[id] = true
		}
		for _, id := range spanIDs(sentSpans) {
			assert.True(t, out[id], "span %s out", id)
		}
		log, err := os.ReadFile(c.log)
		require.NoError(t, err)
		assert.Contains(t, string(log), "Shutdown complete.")
	})
}

// scorerOf is the primary scorer of a demo rule.
func scorerOf(rule string) string {
	switch rule {
	case "tool_checks":
		return "checks"
	case "judged_calls":
		return "meai_tool_call_accuracy"
	}
	return "native"
}

// standinJudge is a running toolscore judge-standin.
type standinJudge struct {
	cmd      *exec.Cmd
	endpoint string
}

// startStandin starts the stand-in judge on a free loopback port.
func startStandin(t *testing.T) *standinJudge {
	t.Helper()
	port := freePorts(t, 1)[0]
	cmd := exec.Command(toolscoreBin, "judge-standin", "-listen", fmt.Sprintf("127.0.0.1:%d", port))
	require.NoError(t, cmd.Start())
	j := &standinJudge{cmd: cmd, endpoint: fmt.Sprintf("http://127.0.0.1:%d/v1", port)}
	t.Cleanup(func() { j.kill(t) })
	deadline := time.Now().Add(10 * time.Second)
	for {
		if conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err == nil {
			conn.Close()
			return j
		}
		require.True(t, time.Now().Before(deadline), "the stand-in judge did not listen within 10s")
		time.Sleep(50 * time.Millisecond)
	}
}

// kill stops the stand-in judge at once (SIGKILL), as a crash would.
func (j *standinJudge) kill(t *testing.T) {
	if j.cmd.ProcessState == nil {
		_ = j.cmd.Process.Kill()
		_ = j.cmd.Wait()
	}
}

// retell returns a copy of td under new trace ids (the first byte
// flipped) with every string attribute's from replaced by to.
func retell(td ptrace.Traces, from, to string) ptrace.Traces {
	out := ptrace.NewTraces()
	td.CopyTo(out)
	for _, rs := range out.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				id := s.TraceID()
				id[0] ^= 0xff
				s.SetTraceID(id)
				for _, v := range s.Attributes().All() {
					if v.Type() == pcommon.ValueTypeStr && strings.Contains(v.Str(), from) {
						v.SetStr(strings.ReplaceAll(v.Str(), from, to))
					}
				}
			}
		}
	}
	return out
}

// traceIDs lists every trace id of td.
func traceIDs(td ptrace.Traces) []string {
	var ids []string
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				ids = append(ids, s.TraceID().String())
			}
		}
	}
	return ids
}

// tier1Prefix marks the metrics the alert rules read from a scale-out's
// tier 1 (the load_balancing exporter's), which the scale-out test checks
// against that collector; the others are this build's.
const tier1Prefix = "otelcol_loadbalancer_"

// checkAlertNames checks that every metric the alert rules read is exposed
// by the binary under exactly that name: this build's metrics, or with
// tier1 those of the scale-out's tier-1 collector.
func checkAlertNames(t *testing.T, samples []sample, tier1 bool) {
	rules, err := os.ReadFile("../alerts/tool-call-accuracy.rules.yaml")
	require.NoError(t, err)
	observed := map[string]bool{}
	for _, s := range samples {
		observed[s.name] = true
	}
	// A metric name in PromQL: not part of a recording rule's name.
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?:^|[^:\w])(otelcol_\w+)`).FindAllSubmatch(rules, -1) {
		if name := string(m[1]); strings.HasPrefix(name, tier1Prefix) == tier1 {
			used[name] = true
		}
	}
	if tier1 {
		require.NotEmpty(t, used)
	} else {
		require.GreaterOrEqual(t, len(used), 9)
	}
	for name := range used {
		assert.True(t, observed[name], "the alert rules use %s, which the collector does not expose", name)
	}
}

func TestValidate(t *testing.T) {
	out, err := exec.Command(*collectorBin, "validate", "--config", "testdata/bad-config.yaml").CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "validate must reject testdata/bad-config.yaml:\n%s", out)
	assert.NotZero(t, exit.ExitCode())
	assert.Contains(t, string(out), `rules[0]: rule "paris_trip": expect.calls[0].match["city"]: regex: invalid regex "(Paris"`)
	assert.Contains(t, string(out), `rules[1]: rule "stock_lookup": expect.order: invalid value "sideways"`)

	out, err = exec.Command(*collectorBin, "validate", "--config", demoConfig).CombinedOutput()
	assert.NoError(t, err, "the demo configuration is valid:\n%s", out)
}

func TestComponents(t *testing.T) {
	out, err := exec.Command(*collectorBin, "components").CombinedOutput()
	require.NoError(t, err, string(out))
	for _, want := range []string{
		"name: tool_call_accuracy\n      module: github.com/toolcallaccuracy/toolcallaccuracyprocessor v0.0.0",
		"traces: Development",
		"name: otlp\n", "name: memory_limiter", "name: batch", "name: debug", "name: otlp_grpc", "name: otlp_http", "name: file",
		"name: evaluations\n      module: github.com/toolcallaccuracy/toolcallaccuracyprocessor v0.0.0", "name: prometheus",
	} {
		assert.Contains(t, string(out), want)
	}
}
