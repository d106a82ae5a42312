package toolcallaccuracyprocessor

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgeclient"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgeclient/judgetest"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadatatest"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// echoJudge is a scorer that asks its judge about the run's request and
// passes when the answer is "pass": the processor's judge path without a
// peer profile.
type echoJudge struct{ judge toolcall.Completer }

func init() {
	toolcall.Register("test_echo_judge", func(s toolcall.Settings) (toolcall.Scorer, error) {
		if s.Judge == nil {
			return nil, toolcall.ErrNoJudge
		}
		return &echoJudge{judge: s.Judge}, nil
	})
}

func (j *echoJudge) Name() string { return "test_echo_judge" }
func (j *echoJudge) Deferred()    {}
func (j *echoJudge) Score(ctx context.Context, calls []toolcall.Call) toolcall.Result {
	return j.ScoreContext(ctx, calls, nil)
}

func (j *echoJudge) ScoreContext(ctx context.Context, calls []toolcall.Call, rc *toolcall.RunContext) toolcall.Result {
	args := calls[0].Args.JSON()
	if calls[0].ArgsDoc != nil {
		args = calls[0].ArgsDoc.Text()
	}
	req := toolcall.ChatRequest{Messages: []toolcall.ChatMessage{{Role: "user", Content: fmt.Sprintf("%d calls, first %s %s", len(calls), calls[0].Name, args)}}}
	if rc != nil {
		req.Messages = append(req.Messages, toolcall.ChatMessage{Role: "user", Content: rc.Request})
	}
	resp, err := j.judge.Complete(ctx, req)
	switch {
	case errors.Is(err, toolcall.ErrJudgeSkipped):
		return toolcall.Result{Scorer: j.Name(), Outcome: toolcall.OutcomeNotEvaluated, Explanation: err.Error()}
	case err != nil:
		return toolcall.Result{Scorer: j.Name(), Outcome: toolcall.OutcomeError, Err: err, Explanation: err.Error()}
	}
	res := toolcall.Result{Scorer: j.Name(), Threshold: 1, Explanation: resp.Content}
	if resp.Content == "pass" {
		res.Score, res.Outcome = 1, toolcall.OutcomePass
	}
	return res
}

// fakeJudge answers "pass" and counts what it was sent.
type fakeJudge struct {
	sent  atomic.Int64
	mu    sync.Mutex
	seen  map[string]int
	delay time.Duration
}

func (f *fakeJudge) Complete(ctx context.Context, req toolcall.ChatRequest) (toolcall.ChatResponse, error) {
	f.sent.Add(1)
	f.mu.Lock()
	if f.seen == nil {
		f.seen = map[string]int{}
	}
	f.seen[req.Messages[0].Content]++
	f.mu.Unlock()
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
			return toolcall.ChatResponse{}, ctx.Err()
		}
	}
	return toolcall.ChatResponse{Content: "pass", InputTokens: 12, OutputTokens: 1}, nil
}

func judgeRuleConfig(judge *JudgeConfig) *Config {
	cfg := weatherConfig()
	cfg.Rules[0].Scorers = []ScorerConfig{{Name: "native"}, {Name: "test_echo_judge", Label: "judge"}}
	judge.client = judgeclient.NewDefaultConfig()
	judge.client.ClientConfig.Endpoint = "http://127.0.0.1:1/v1" // never called: the tests' judges are fakes
	judge.client.Model = "fake"
	cfg.Rules[0].Judge = judge
	cfg.ScoreTimeout = 10 * time.Second
	return cfg
}

// newJudged is a started processor whose rules' judges are fake.
func newJudged(t *testing.T, cfg *Config, fake *fakeJudge) (*harness, *tcaProcessor) {
	t.Helper()
	h := &harness{sink: new(consumertest.TracesSink), tel: componenttest.NewTelemetry()}
	t.Cleanup(func() { require.NoError(t, h.tel.Shutdown(context.Background())) })
	var p *tcaProcessor
	f := newFactory(func(tp *tcaProcessor) {
		tp.makeJudge = func(context.Context, *JudgeConfig, component.Host, component.TelemetrySettings) (toolcall.Completer, error) {
			return fake, nil
		}
		p = tp
	})
	proc, err := f.CreateTraces(context.Background(), metadatatest.NewSettings(h.tel), cfg, h.sink)
	require.NoError(t, err)
	require.NoError(t, proc.Start(context.Background(), componenttest.NewNopHost()))
	h.proc = proc
	return h, p
}

// runJudged sends every batch, waits until every span is out (the judged
// runs' spans go out when their judges answer), then shuts the processor
// down and returns all output. Shutting down at once would cancel the
// judges still working.
func (h *harness) runJudged(t *testing.T, batches ...ptrace.Traces) ptrace.Traces {
	t.Helper()
	total := totalSpans(batches)
	for _, td := range batches {
		require.NoError(t, h.proc.ConsumeTraces(context.Background(), td))
	}
	require.Eventually(t, func() bool { return h.sink.SpanCount() == total }, 30*time.Second, 5*time.Millisecond)
	return h.run(t, nil)
}

// citiesBatch is one batch of n runs, each in its own trace and asking
// for another city, so that no two judge requests are alike.
func citiesBatch(n uint64) ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := uint64(0); i < n; i++ {
		appendRun(ss, i, fmt.Sprintf("City %d", i), pcommon.SpanID{})
	}
	return td
}

// judgedRuns returns the judge's outcome label on every agent span.
func judgedRuns(td ptrace.Traces) map[pcommon.SpanID]string {
	out := map[pcommon.SpanID]string{}
	for id, s := range spansByID(td) {
		if s.Name() != "invoke_agent weather-agent" {
			continue
		}
		out[id] = evaluationEvents(s)["weather/judge"]
	}
	return out
}

// TestJudgeSamplingIsByTraceID: two processors with the same ratio judge
// the same runs, about ratio of them.
func TestJudgeSamplingIsByTraceID(t *testing.T) {
	ratio := 0.3
	var picked [2]map[pcommon.SpanID]string
	for i := range picked {
		fake := &fakeJudge{}
		h, _ := newJudged(t, judgeRuleConfig(&JudgeConfig{SampleRatio: &ratio}), fake)
		out := h.runJudged(t, citiesBatch(400))
		require.Equal(t, 800, out.SpanCount())
		picked[i] = judgedRuns(out)
		judged := 0
		for _, label := range picked[i] {
			if label != "" {
				judged++
			}
		}
		assert.Equal(t, int64(judged), fake.sent.Load())
		assert.InDelta(t, 0.3*400, judged, 40)
	}
	assert.Equal(t, picked[0], picked[1])
}

// TestJudgeBudget: 1,000 runs against 50 requests a minute: 50 requests go
// out; the other runs are not_evaluated and counted as budget.
func TestJudgeBudget(t *testing.T) {
	fake := &fakeJudge{}
	h, _ := newJudged(t, judgeRuleConfig(&JudgeConfig{RequestsPerMinute: 50, QueueSize: 1000, MaxConcurrent: 8}), fake)
	out := h.runJudged(t, citiesBatch(1000))
	require.Equal(t, 2000, out.SpanCount())
	assert.Equal(t, int64(50), fake.sent.Load())
	labels := map[string]int{}
	for _, l := range judgedRuns(out) {
		labels[l]++
	}
	assert.Equal(t, map[string]int{"pass": 50, "not_evaluated": 950}, labels)
	metadatatest.AssertEqualProcessorToolCallAccuracyJudgeRequests(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 50, Attributes: attrs("rule", "weather", "scorer", "judge", "outcome", "ok")},
		{Value: 950, Attributes: attrs("rule", "weather", "scorer", "judge", "outcome", "budget")},
	}, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualProcessorToolCallAccuracyEvaluations(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 1000, Attributes: attrs("rule", "weather", "scorer", "native", "outcome", "fail")},
		{Value: 50, Attributes: attrs("rule", "weather", "scorer", "judge", "outcome", "pass")},
		{Value: 950, Attributes: attrs("rule", "weather", "scorer", "judge", "outcome", "not_evaluated")},
	}, metricdatatest.IgnoreTimestamp())
}

// TestSameRunJudgedOnce: the same run sent twice (a retry the processor did
// not see fail) asks the judge once.
func TestSameRunJudgedOnce(t *testing.T) {
	fake := &fakeJudge{}
	h, _ := newJudged(t, judgeRuleConfig(&JudgeConfig{}), fake)
	// Two traces with the same content: the same request.
	a, b := runsBatch(0, 1, "Paris"), runsBatch(1, 1, "Paris")
	out := h.runJudged(t, a, b)
	assert.Equal(t, 4, out.SpanCount())
	assert.Equal(t, int64(1), fake.sent.Load())
	for _, l := range judgedRuns(out) {
		assert.Equal(t, "pass", l)
	}
}

// TestShutdownCancelsJudges: a judge that does not answer is cancelled at
// Shutdown; the held spans go out with what is in.
func TestShutdownCancelsJudges(t *testing.T) {
	fake := &fakeJudge{delay: time.Hour}
	h, _ := newJudged(t, judgeRuleConfig(&JudgeConfig{}), fake)
	require.NoError(t, h.proc.ConsumeTraces(context.Background(), citiesBatch(3)))
	require.Eventually(t, func() bool { return fake.sent.Load() == 3 }, 5*time.Second, time.Millisecond)
	start := time.Now()
	require.NoError(t, h.proc.Shutdown(context.Background()))
	assert.Less(t, time.Since(start), 5*time.Second)
	out := mergeTraces(h.sink.AllTraces())
	assert.Equal(t, 6, out.SpanCount())
	for _, l := range judgedRuns(out) {
		assert.Equal(t, "not_evaluated", l, "cut short at Shutdown: not judged")
	}
}

// judgeServerConfig is a rule judged by MEAI's ToolCallAccuracy profile
// against srv, with an API key.
func judgeServerConfig(t *testing.T, endpoint string) *Config {
	cfg := createDefaultConfig().(*Config)
	cfg.ScoreTimeout = 10 * time.Second
	jc := &JudgeConfig{client: judgeclient.NewDefaultConfig()}
	jc.client.ClientConfig.Endpoint = endpoint
	jc.client.Model = "judge-model"
	jc.client.APIKey = "sk-secret-key-do-not-log"
	jc.client.MaxRetries = 1
	jc.client.InitialBackoff = time.Millisecond
	cfg.Rules = []RuleConfig{{Name: "judged", Scorers: []ScorerConfig{{Name: "meai_tool_call_accuracy"}}, Judge: jc}}
	require.NoError(t, confmap.Validate(cfg))
	return cfg
}

// TestJudgeOverHTTP: a captured run judged over the chat-completions
// protocol: the verdict on the span, the request and token metrics.
func TestJudgeOverHTTP(t *testing.T) {
	srv := judgetest.NewServer(t)
	srv.Always(judgetest.Reply{Content: "<S0>both calls fit the request</S0><S1>The calls are right.</S1><S2>true</S2>", PromptTokens: 900, CompletionTokens: 30})
	in := readTraceFile(t, filepath.Join("testdata", "traces", "captures", "vercel-ai-v7-otel-mock.otlp.jsonl"))
	h := newHarness(t, judgeServerConfig(t, srv.OpenAIEndpoint()))
	for _, td := range cloneAll(in) {
		require.NoError(t, h.proc.ConsumeTraces(context.Background(), td))
	}
	require.Eventually(t, func() bool { return h.sink.SpanCount() == totalSpans(in) }, 10*time.Second, 5*time.Millisecond, "the judged span goes out when the judge answers")
	out := h.run(t, nil)
	assertConserved(t, in, out)
	agent := onlyScored(t, out)
	assert.Equal(t, map[string]string{"judged/meai_tool_call_accuracy": "pass"}, evaluationEvents(agent))
	expl, _ := agent.Attributes().Get(attrPrefix + "judged.explanation")
	assert.Equal(t, "The calls are right.", expl.Str())
	require.Equal(t, 1, srv.Count())
	req := srv.Requests()[0]
	assert.Equal(t, "Bearer sk-secret-key-do-not-log", req.Header.Get("Authorization"))
	assert.Contains(t, string(req.RawBody), "lookup_stock", "the calls and definitions are sent")
	assert.Equal(t, "judge-model", req.Body.Model)
	metadatatest.AssertEqualProcessorToolCallAccuracyJudgeRequests(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 1, Attributes: attrs("rule", "judged", "scorer", "meai_tool_call_accuracy", "outcome", "ok")},
	}, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualProcessorToolCallAccuracyJudgeTokens(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 900, Attributes: attrs("rule", "judged", "scorer", "meai_tool_call_accuracy", "token_type", "input")},
		{Value: 30, Attributes: attrs("rule", "judged", "scorer", "meai_tool_call_accuracy", "token_type", "output")},
	}, metricdatatest.IgnoreTimestamp())
}

// TestFailingJudgeKeepsTheKeySecret: a judge that fails (401, then 500s)
// leaves the run with an error result, every span delivered, and the API
// key in no log line, error or explanation.
func TestFailingJudgeKeepsTheKeySecret(t *testing.T) {
	srv := judgetest.NewServer(t)
	srv.Enqueue(judgetest.Status(401, "Incorrect API key provided: sk-secret-key-do-not-log"))
	srv.Always(judgetest.Status(500, "boom"))
	core, logs := observer.New(zap.DebugLevel)
	in := readTraceFile(t, filepath.Join("testdata", "traces", "captures", "vercel-ai-v7-otel-mock.otlp.jsonl"))
	in = append(in, readTraceFile(t, filepath.Join("testdata", "traces", "emitters", "vercel-ai-v6-mock.otlp.jsonl"))...)
	sink := new(consumertest.TracesSink)
	set := processortest.NewNopSettings(NewFactory().Type())
	set.Logger = zap.New(core)
	p, err := NewFactory().CreateTraces(context.Background(), set, judgeServerConfig(t, srv.OpenAIEndpoint()), sink)
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	for _, td := range cloneAll(in) {
		require.NoError(t, p.ConsumeTraces(context.Background(), td))
	}
	require.Eventually(t, func() bool { return sink.SpanCount() == totalSpans(in) }, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, p.Shutdown(context.Background()))
	out := mergeTraces(sink.AllTraces())
	assertConserved(t, in, out)
	var texts []string
	for _, s := range spansByID(out) {
		for _, v := range s.Attributes().All() {
			texts = append(texts, v.AsString())
		}
		for _, e := range s.Events().All() {
			for _, v := range e.Attributes().All() {
				texts = append(texts, v.AsString())
			}
		}
	}
	for _, e := range logs.All() {
		texts = append(texts, e.Message)
		for _, f := range e.Context {
			texts = append(texts, fmt.Sprint(f.Interface, f.String, f.Integer))
		}
	}
	require.NotEmpty(t, texts)
	for _, text := range texts {
		assert.NotContains(t, text, "sk-secret-key-do-not-log")
	}
	// 401 is a configuration error; 500s after the retries leave the run
	// not judged.
	labels := map[string]int{}
	for _, s := range spansByID(out) {
		if l, ok := evaluationEvents(s)["judged/meai_tool_call_accuracy"]; ok {
			labels[l]++
		}
	}
	assert.Equal(t, map[string]int{"error": 1, "not_evaluated": 1}, labels)
}
