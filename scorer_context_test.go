package toolcallaccuracyprocessor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadatatest"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// contextRecorder is a scorer that keeps the run contexts it is given.
type contextRecorder struct {
	mu   sync.Mutex
	runs []*toolcall.RunContext
}

var recorders = struct {
	sync.Mutex
	byID map[string]*contextRecorder
}{byID: map[string]*contextRecorder{}}

func init() {
	toolcall.Register("test_context_recorder", func(s toolcall.Settings) (toolcall.Scorer, error) {
		id, _ := s.Options["id"].(string)
		r := &contextRecorder{}
		recorders.Lock()
		recorders.byID[id] = r
		recorders.Unlock()
		return r, nil
	})
}

func (r *contextRecorder) Name() string { return "test_context_recorder" }
func (r *contextRecorder) Score(ctx context.Context, calls []toolcall.Call) toolcall.Result {
	return r.ScoreContext(ctx, calls, nil)
}

func (r *contextRecorder) ScoreContext(_ context.Context, _ []toolcall.Call, run *toolcall.RunContext) toolcall.Result {
	if run != nil {
		kept := *run // the processor reuses run's memory
		run = &kept
	}
	r.mu.Lock()
	r.runs = append(r.runs, run)
	r.mu.Unlock()
	return toolcall.Result{Scorer: r.Name(), Score: 1, Threshold: 1, Outcome: toolcall.OutcomePass}
}

func recorderConfig(id string) *Config {
	cfg := createDefaultConfig().(*Config)
	cfg.Rules = []RuleConfig{{Name: "context", Scorers: []ScorerConfig{{Name: "test_context_recorder", Options: map[string]any{"id": id}}}}}
	return cfg
}

// capturedContext is what the golden file records of one run's context.
type capturedContext struct {
	Tools    []string `json:"tools,omitempty"`
	Request  string   `json:"request,omitempty"`
	Response string   `json:"response,omitempty"`
	Notes    []string `json:"notes,omitempty"`
}

func summarize(rc *toolcall.RunContext) capturedContext {
	out := capturedContext{Request: clip(rc.Request), Response: clip(rc.Response), Notes: rc.Notes}
	for _, d := range rc.Tools.All() {
		name := d.Name
		if !d.Parameters.IsUndefined() {
			name += " (schema)"
		}
		out.Tools = append(out.Tools, name)
	}
	return out
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// TestRunContextGolden: the request, response and tool definitions recovered
// for every run of every bundled trace (testdata/golden/run_context.json).
func TestRunContextGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "traces", "*", "*.json*"))
	require.NoError(t, err)
	got := map[string][]capturedContext{}
	for _, file := range files {
		id := "golden " + file
		h := newHarness(t, recorderConfig(id))
		h.run(t, readTraceFile(t, file))
		recorders.Lock()
		r := recorders.byID[id]
		recorders.Unlock()
		var runs []capturedContext
		for _, rc := range r.runs {
			runs = append(runs, summarize(rc))
		}
		sort.Slice(runs, func(i, j int) bool { return runs[i].Request+runs[i].Response < runs[j].Request+runs[j].Response })
		got[filepath.Base(file)] = runs
	}
	path := filepath.Join("testdata", "golden", "run_context.json")
	data, err := json.MarshalIndent(got, "", " ")
	require.NoError(t, err)
	if *updateGolden {
		require.NoError(t, os.WriteFile(path, append(data, '\n'), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(data))
}

// TestRunContextByConvention: each convention that records tool
// definitions, a request or a response has them recovered.
func TestRunContextByConvention(t *testing.T) {
	for _, tt := range []struct {
		file           string
		tools          []string
		request, reply string
	}{
		{file: "conventions/otel-genai-semconv.json", tools: []string{"get_current_weather (schema)"}, request: "Seattle", reply: "raining"},
		{file: "conventions/openinference-openai-agents.json", tools: []string{"get_current_weather (schema)"}, request: "Seattle", reply: "raining"},
		{file: "conventions/openllmetry-traceloop-legacy.json", tools: []string{"get_current_weather (schema)"}, request: "Seattle", reply: "raining"},
		{file: "conventions/vercel-ai-sdk-legacy-ai-spans.json", tools: []string{"get_current_weather (schema)"}, request: "Seattle", reply: "raining"},
		{file: "emitters/vercel-ai-v6-mock.otlp.jsonl", tools: []string{"get_weather (schema)", "lookup_stock (schema)"}, request: "Paris", reply: "21C"},
		{file: "captures/vercel-ai-v7-otel-mock.otlp.jsonl", tools: []string{"get_weather (schema)", "lookup_stock (schema)"}, request: "Paris"},
		{file: "captures/constructed-pydantic-ai.json", tools: []string{"get_weather (schema)", "lookup_stock (schema)"}, request: "Paris"},
		{file: "emitters/mastra-otel-mock.otlp.jsonl", tools: []string{"get_weather", "lookup_stock"}},
		{file: "captures/genkit-go-mock.otlp.jsonl", request: "Paris"},
		{file: "captures/constructed-google-adk-python.json", tools: []string{"get_weather (schema)", "lookup_stock (schema)"}, request: "Paris"},
		{file: "captures/constructed-langgraph-openinference.json", request: "Paris", reply: "21C"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			id := "convention " + tt.file
			h := newHarness(t, recorderConfig(id))
			h.run(t, readTraceFile(t, filepath.Join("testdata", "traces", tt.file)))
			recorders.Lock()
			r := recorders.byID[id]
			recorders.Unlock()
			require.NotEmpty(t, r.runs)
			rc := summarize(r.runs[len(r.runs)-1])
			assert.Equal(t, tt.tools, rc.Tools)
			assert.Contains(t, r.runs[len(r.runs)-1].Request, tt.request)
			assert.Contains(t, r.runs[len(r.runs)-1].Response, tt.reply)
		})
	}
}

// TestChecksRuleScoresRunsWithoutExpectation: a rule with no expected calls
// and the checks scorer scores real runs against their recorded definitions.
func TestChecksRuleScoresRunsWithoutExpectation(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	cfg.Rules = []RuleConfig{{Name: "tool_checks", Scorers: []ScorerConfig{{Name: "checks"}}}}
	for _, tt := range []struct {
		file        string
		score       float64
		explanation string
	}{
		// lookup_stock fails and is never retried; the arguments conform.
		{"captures/vercel-ai-v7-otel-mock.otlp.jsonl", 0.5, `lookup_stock: failed, and no later call to "lookup_stock" succeeded`},
		{"emitters/vercel-ai-v6-mock.otlp.jsonl", 0.5, `lookup_stock: failed`},
		{"conventions/otel-genai-semconv.json", 1, "all 2 calls passed the checks"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			in := readTraceFile(t, filepath.Join("testdata", "traces", tt.file))
			out := newHarness(t, cfg).run(t, cloneAll(in))
			assertConserved(t, in, out)
			agent := onlyScored(t, out)
			score, _ := agent.Attributes().Get(attrPrefix + "tool_checks.score")
			assert.InDelta(t, tt.score, score.Double(), 1e-9)
			expl, _ := agent.Attributes().Get(attrPrefix + "tool_checks.explanation")
			assert.Contains(t, expl.Str(), tt.explanation)
		})
	}
}

// TestBadRunContextInput: definitions that are not JSON, a schema that does
// not compile, a 10 MB definition list: the run is scored on what is
// valid, the explanation and a counter say what was not used, and every
// span is delivered.
func TestBadRunContextInput(t *testing.T) {
	huge := `[` + strings.Repeat(`{"name":"t","parameters":{"type":"object"}},`, 10<<20/44) + `{"name":"last"}]`
	for _, tt := range []struct {
		name, definitions, reason, explanation string
		score                                  float64
	}{
		{"not json", `[{"name":"get_weather",`, "invalid_tool_definitions", "recorded tool definitions not all read", 1},
		{"schema does not compile", `[{"name":"get_weather","parameters":{"type":"nonsense"}}]`, "invalid_tool_schema", `the recorded schema of "get_weather" was not used`, 1},
		{"10 MB list", huge, "context_cap", "run context over the 16384-byte cap", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := createDefaultConfig().(*Config)
			cfg.Rules = []RuleConfig{{Name: "tool_checks", Scorers: []ScorerConfig{{Name: "checks"}}}}
			h := newHarness(t, cfg)
			// Two runs recording the same text: the second reads it from
			// the cache, and is noted and counted all the same.
			td := runsBatch(0, 2, "Paris")
			for n := uint64(0); n < 2; n++ {
				chat := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().AppendEmpty()
				chat.SetName("chat gpt-4o")
				chat.SetTraceID(traceID(n))
				chat.SetSpanID(spanID(100 + n))
				chat.SetParentSpanID(spanID(2*n + 1))
				chat.SetStartTimestamp(600_000)
				chat.SetEndTimestamp(800_000)
				chat.Attributes().PutStr("gen_ai.operation.name", "chat")
				chat.Attributes().PutStr("gen_ai.tool.definitions", tt.definitions)
			}
			want := td.SpanCount()
			out := h.run(t, []ptrace.Traces{td})
			assert.Equal(t, want, out.SpanCount())
			for n := uint64(0); n < 2; n++ {
				agent := spansByID(out)[spanID(2*n+1)]
				score, _ := agent.Attributes().Get(attrPrefix + "tool_checks.score")
				assert.InDelta(t, tt.score, score.Double(), 1e-9)
				expl, _ := agent.Attributes().Get(attrPrefix + "tool_checks.explanation")
				assert.Contains(t, expl.Str(), tt.explanation)
			}
			metadatatest.AssertEqualProcessorToolCallAccuracyContextIssues(t, h.tel,
				[]metricdata.DataPoint[int64]{{Value: 2, Attributes: attrs("reason", tt.reason)}}, metricdatatest.IgnoreTimestamp())
		})
	}
}

// TestCachedDefinitionsAreNotChanged: a run recording two definitions texts
// gets both, and the cached definitions of the first text, shared with
// other runs, do not gain the second's tools.
func TestCachedDefinitionsAreNotChanged(t *testing.T) {
	c := newControlled(t, weatherConfig())
	defer func() { require.NoError(t, c.proc.Shutdown(context.Background())) }()
	weather := `[{"name":"get_weather","parameters":{"type":"object"}}]`
	stock := `[{"name":"lookup_stock","parameters":{"type":"object","required":["symbol"]}}]`
	counts := c.p.tel.newCounts()
	span := ptrace.NewSpan()
	both := c.p.runContext(span, &trajectory.CapturedContext{Definitions: []string{weather, stock}}, counts, nil)
	assert.Equal(t, 2, both.Tools.Len())
	def, ok := both.Tools.Get("lookup_stock")
	require.True(t, ok)
	assert.NotNil(t, def.Schema, "compiled once, with the definitions")
	one := c.p.runContext(span, &trajectory.CapturedContext{Definitions: []string{weather}}, counts, nil)
	assert.Equal(t, 1, one.Tools.Len())
	_, ok = one.Tools.Get("lookup_stock")
	assert.False(t, ok)
}
