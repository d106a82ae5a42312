//go:build prometheus

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

var prometheusBin = flag.String("prometheus", "../bin/prometheus", "the Prometheus server binary (make e2e-prometheus installs it into bin/)")

const (
	prometheusCollectorConfig = "testdata/prometheus-collector.yaml"
	evaluationRules           = "../alerts/evaluations.rules.yaml"
	failingAgent              = "checkout-agent"
	passingAgent              = "weather-agent"
)

// TestPrometheus runs the built collector (tool_call_accuracy, the
// evaluations connector, a Prometheus exporter) under a real Prometheus
// server that scrapes it in OpenMetrics with exemplar storage on and
// evaluates the repository's per-agent alert rules (windows and `for`
// shortened). One agent fails every run, another passes every run. The test
// asserts, through Prometheus' HTTP API, that the failing-runs alert fires
// for the failing agent only, and that the exemplars Prometheus stored for
// that agent's score buckets name traces that really failed.
func TestPrometheus(t *testing.T) {
	if _, err := os.Stat(*prometheusBin); err != nil {
		t.Fatalf("Prometheus server %s: %v (make e2e-prometheus installs it, or pass -prometheus)", *prometheusBin, err)
	}
	ports := freePorts(t, 5) // OTLP gRPC, OTLP HTTP, internal metrics, exporter, Prometheus
	exporterPort, prometheusPort := ports[3], ports[4]
	c := launchCollector(t, *collectorBin, []string{prometheusCollectorConfig}, ports[:3], fmt.Sprintf("TCA_PROMETHEUS_PORT=%d", exporterPort))
	prom := startPrometheus(t, prometheusPort, exporterPort, c.promPort)

	// Runs until the alert fires: each round a failing run of one agent and
	// a passing run of the other, under new trace ids.
	failed, passed := map[string]bool{}, map[string]bool{}
	start := time.Now()
	deadline := start.Add(45 * time.Second)
	var firing []alert
	for round := 0; ; round++ {
		td, failTrace, passTrace := agentRuns(round)
		c.sendHTTP(t, td)
		failed[failTrace], passed[passTrace] = true, true
		firing = prom.firing(t, "AgentEvaluationsFailing")
		if len(firing) > 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "AgentEvaluationsFailing did not fire within 45s; alerts: %s", prom.get(t, "/api/v1/alerts", nil))
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("AgentEvaluationsFailing fired after %v and %d rounds", time.Since(start).Round(100*time.Millisecond), len(failed))

	t.Run("the alert fires for the failing agent only", func(t *testing.T) {
		for _, a := range firing {
			assert.Equal(t, failingAgent, a.Labels["gen_ai_agent_name"], "%v", a.Labels)
			assert.Equal(t, "trip/native", a.Labels["gen_ai_evaluation_name"])
		}
		// No alert of the rules, firing or pending, names the passing agent.
		for _, a := range prom.alerts(t) {
			assert.NotEqual(t, passingAgent, a.Labels["gen_ai_agent_name"], "%s %s %v", a.Labels["alertname"], a.State, a.Labels)
		}
		ratio := prom.query(t, `service_agent_evaluation:gen_ai_evaluation_results:fail_ratio_rate10m`)
		assert.Equal(t, map[string]float64{failingAgent: 1, passingAgent: 0}, byAgent(ratio))
	})

	t.Run("exemplars name runs that failed", func(t *testing.T) {
		series := prom.exemplars(t, fmt.Sprintf(`gen_ai_evaluation_score_bucket{gen_ai_agent_name=%q}`, failingAgent), start)
		require.NotEmpty(t, series, "no exemplar stored for the failing agent's score")
		n := 0
		for _, s := range series {
			for _, e := range s.Exemplars {
				n++
				assert.True(t, failed[e.Labels["trace_id"]], "exemplar trace %s of %v is not a failing run", e.Labels["trace_id"], s.SeriesLabels)
				assert.Len(t, e.Labels["span_id"], 16)
				v, err := strconv.ParseFloat(e.Value, 64)
				require.NoError(t, err)
				assert.Less(t, v, 0.75, "a failing score")
				le, err := strconv.ParseFloat(s.SeriesLabels["le"], 64)
				require.NoError(t, err)
				assert.LessOrEqual(t, v, le, "in its bucket")
			}
		}
		assert.Positive(t, n)
		e := series[0].Exemplars[0]
		t.Logf("%d exemplars of %s's score buckets, e.g. le=%s: trace_id=%s span_id=%s value=%s",
			n, failingAgent, series[0].SeriesLabels["le"], e.Labels["trace_id"], e.Labels["span_id"], e.Value)
		for _, s := range prom.exemplars(t, fmt.Sprintf(`gen_ai_evaluation_score_bucket{gen_ai_agent_name=%q}`, passingAgent), start) {
			for _, e := range s.Exemplars {
				assert.True(t, passed[e.Labels["trace_id"]], "exemplar trace %s of the passing agent", e.Labels["trace_id"])
			}
		}
		results := prom.exemplars(t, fmt.Sprintf(`gen_ai_evaluation_results_total{gen_ai_agent_name=%q,gen_ai_evaluation_score_label="fail"}`, failingAgent), start)
		require.NotEmpty(t, results, "the results counter carries exemplars too")
		for _, s := range results {
			for _, e := range s.Exemplars {
				assert.True(t, failed[e.Labels["trace_id"]])
			}
		}
	})

	t.Run("per-tool statuses and the connector's own telemetry", func(t *testing.T) {
		missing := prom.query(t, `sum by (gen_ai_agent_name, gen_ai_tool_name) (tool_call_accuracy_tool_calls_total{tool_call_accuracy_call_status="missing"})`)
		require.Len(t, missing, 1)
		assert.Equal(t, failingAgent, missing[0].Metric["gen_ai_agent_name"])
		assert.Equal(t, "book_flight", missing[0].Metric["gen_ai_tool_name"])
		read := prom.query(t, `sum by (connector, signal) (otelcol_connector_evaluations_read)`)
		assert.Len(t, read, 2, "the logs and the metrics connector count what they read")
	})

	t.Run("a log record per evaluation", func(t *testing.T) {
		sent := len(failed) + len(passed)
		var severity map[string]string
		require.Eventually(t, func() bool {
			severity = evaluationRecords(t, filepath.Join(filepath.Dir(c.out), "evaluations.jsonl"))
			return len(severity) >= sent
		}, 10*time.Second, 100*time.Millisecond)
		for trace := range failed {
			assert.Equal(t, "WARN", severity[trace], trace)
		}
		for trace := range passed {
			assert.Equal(t, "INFO", severity[trace], trace)
		}
	})
}

// agentRuns is one round of traffic: a run of the failing agent (the
// weather asked for Lyon, no flight booked) and one of the passing agent
// (Paris, then a flight), each an invoke_agent span over execute_tool
// spans, in traces new to the round.
func agentRuns(round int) (td ptrace.Traces, failTrace, passTrace string) {
	td = ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "travel-desk")
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	now := time.Now()
	run := func(agent string, n byte, calls ...[2]string) string {
		trace := pcommon.TraceID{0xe2, 0xe0, n, byte(round >> 8), byte(round), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
		root := pcommon.SpanID{n, byte(round >> 8), byte(round), 0, 0, 0, 0, 1}
		for i, call := range calls {
			s := spans.AppendEmpty()
			s.SetTraceID(trace)
			s.SetSpanID(pcommon.SpanID{n, byte(round >> 8), byte(round), 0, 0, 0, 1, byte(i)})
			s.SetParentSpanID(root)
			s.SetName("execute_tool " + call[0])
			s.SetStartTimestamp(pcommon.NewTimestampFromTime(now.Add(time.Duration(i) * time.Millisecond)))
			s.SetEndTimestamp(pcommon.NewTimestampFromTime(now.Add(time.Duration(i)*time.Millisecond + 500*time.Microsecond)))
			a := s.Attributes()
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", call[0])
			a.PutStr("gen_ai.tool.call.id", fmt.Sprintf("call_%d", i))
			a.PutStr("gen_ai.tool.call.arguments", call[1])
		}
		s := spans.AppendEmpty()
		s.SetTraceID(trace)
		s.SetSpanID(root)
		s.SetName("invoke_agent " + agent)
		s.SetStartTimestamp(pcommon.NewTimestampFromTime(now.Add(-time.Millisecond)))
		s.SetEndTimestamp(pcommon.NewTimestampFromTime(now.Add(10 * time.Millisecond)))
		s.Attributes().PutStr("gen_ai.operation.name", "invoke_agent")
		s.Attributes().PutStr("gen_ai.agent.name", agent)
		return trace.String()
	}
	failTrace = run(failingAgent, 1, [2]string{"get_weather", `{"city":"Lyon"}`})
	passTrace = run(passingAgent, 2, [2]string{"get_weather", `{"city":"Paris"}`}, [2]string{"book_flight", `{"to":"CDG"}`})
	return td, failTrace, passTrace
}

// evaluationRecords reads the connector's log file: each record's trace id
// and severity.
func evaluationRecords(t *testing.T, path string) map[string]string {
	out := map[string]string{}
	data, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	var u plog.JSONUnmarshaler
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		ld, err := u.UnmarshalLogs(sc.Bytes())
		if err != nil {
			break // a line still being written
		}
		for _, rl := range ld.ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					assert.Equal(t, "gen_ai.evaluation.result", lr.EventName())
					out[lr.TraceID().String()] = lr.SeverityText()
				}
			}
		}
	}
	return out
}

// prometheus is a running Prometheus server.
type prometheus struct {
	base string
}

// startPrometheus runs the server on port with exemplar storage, scraping
// the collector's exporter (OpenMetrics) and internal metrics every second
// and evaluating the repository's evaluation rules with short windows, and
// waits until it is ready.
func startPrometheus(t *testing.T, port, exporterPort, internalPort int) *prometheus {
	t.Helper()
	dir := t.TempDir()
	rules, err := os.ReadFile(evaluationRules)
	require.NoError(t, err)
	rulesPath := filepath.Join(dir, "rules.yaml")
	require.NoError(t, os.WriteFile(rulesPath, shortenRules(rules), 0o600))
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [%q]
scrape_configs:
  - job_name: otelcol
    scrape_protocols: [OpenMetricsText1.0.0, PrometheusText0.0.4]
    static_configs:
      - targets: ["127.0.0.1:%d"]
  - job_name: otelcol-internal
    static_configs:
      - targets: ["127.0.0.1:%d"]
`, rulesPath, exporterPort, internalPort)
	configPath := filepath.Join(dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(configPath, []byte(config), 0o600))

	logPath := filepath.Join(dir, "prometheus.log")
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	cmd := exec.Command(*prometheusBin,
		"--config.file="+configPath,
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port),
		"--enable-feature=exemplar-storage",
		"--log.level=warn")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); logFile.Close() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			data, _ := os.ReadFile(logPath)
			t.Logf("prometheus log:\n%s", data)
		}
	})
	p := &prometheus{base: fmt.Sprintf("http://127.0.0.1:%d", port)}
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-exited:
			data, _ := os.ReadFile(logPath)
			t.Fatalf("prometheus exited during start-up: %v\n%s", err, data)
		default:
		}
		if resp, err := http.Get(p.base + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		require.True(t, time.Now().Before(deadline), "prometheus not ready within 30s")
		time.Sleep(100 * time.Millisecond)
	}
}

var (
	ruleWindow   = regexp.MustCompile(`\[(10|30)m\]`)
	ruleFor      = regexp.MustCompile(`(?m)^(\s+for: )\d+m$`)
	ruleInterval = regexp.MustCompile(`(?m)^(\s+interval: )1m$`)
)

// shortenRules gives the rules windows, `for` and intervals of seconds, so
// that an alert fires within the test.
func shortenRules(rules []byte) []byte {
	rules = ruleWindow.ReplaceAll(rules, []byte("[20s]"))
	rules = ruleFor.ReplaceAll(rules, []byte("${1}3s"))
	return ruleInterval.ReplaceAll(rules, []byte("${1}1s"))
}

func TestShortenRules(t *testing.T) {
	rules, err := os.ReadFile(evaluationRules)
	require.NoError(t, err)
	short := string(shortenRules(rules))
	assert.NotContains(t, short, "[10m]")
	assert.NotRegexp(t, `for: \d+m`, short)
	assert.Contains(t, short, "for: 3s")
	assert.Contains(t, short, "interval: 1s")
}

// get calls the HTTP API and returns the body.
func (p *prometheus) get(t *testing.T, path string, params url.Values) []byte {
	t.Helper()
	u := p.base + path
	if params != nil {
		u += "?" + params.Encode()
	}
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	return body
}

// apiResponse is the envelope of Prometheus' HTTP API.
type apiResponse[T any] struct {
	Status string `json:"status"`
	Data   T      `json:"data"`
}

func decode[T any](t *testing.T, body []byte) T {
	t.Helper()
	var r apiResponse[T]
	require.NoError(t, json.Unmarshal(body, &r), string(body))
	require.Equal(t, "success", r.Status, string(body))
	return r.Data
}

type alert struct {
	Labels map[string]string `json:"labels"`
	State  string            `json:"state"`
}

func (p *prometheus) alerts(t *testing.T) []alert {
	return decode[struct {
		Alerts []alert `json:"alerts"`
	}](t, p.get(t, "/api/v1/alerts", nil)).Alerts
}

// firing returns the firing alerts of that name.
func (p *prometheus) firing(t *testing.T, name string) []alert {
	var out []alert
	for _, a := range p.alerts(t) {
		if a.Labels["alertname"] == name && a.State == "firing" {
			out = append(out, a)
		}
	}
	return out
}

type sampleVector []struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// query evaluates an instant query.
func (p *prometheus) query(t *testing.T, q string) sampleVector {
	return decode[struct {
		Result sampleVector `json:"result"`
	}](t, p.get(t, "/api/v1/query", url.Values{"query": {q}})).Result
}

// byAgent maps each sample's gen_ai_agent_name to its value.
func byAgent(v sampleVector) map[string]float64 {
	out := map[string]float64{}
	for _, s := range v {
		f, _ := strconv.ParseFloat(strings.TrimSpace(fmt.Sprint(s.Value[1])), 64)
		out[s.Metric["gen_ai_agent_name"]] = f
	}
	return out
}

type exemplarSeries struct {
	SeriesLabels map[string]string `json:"seriesLabels"`
	Exemplars    []struct {
		Labels map[string]string `json:"labels"`
		Value  string            `json:"value"`
	} `json:"exemplars"`
}

// exemplars returns the exemplars stored for the series of q since start.
func (p *prometheus) exemplars(t *testing.T, q string, start time.Time) []exemplarSeries {
	return decode[[]exemplarSeries](t, p.get(t, "/api/v1/query_exemplars", url.Values{
		"query": {q},
		"start": {strconv.FormatInt(start.Add(-time.Minute).Unix(), 10)},
		"end":   {strconv.FormatInt(time.Now().Add(time.Minute).Unix(), 10)},
	}))
}
