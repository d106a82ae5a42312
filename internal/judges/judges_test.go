package judges

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall/toolcalltest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/peers"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// updateGolden rewrites the golden files: go test ./internal/judges/ -run Golden -update
var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/judge")

// fakeJudge answers with scripted answers, in order, and records every
// request.
type fakeJudge struct {
	mu       sync.Mutex
	answers  []fakeAnswer
	requests []toolcall.ChatRequest
}

type fakeAnswer struct {
	content string
	err     error
}

func (f *fakeJudge) Complete(ctx context.Context, req toolcall.ChatRequest) (toolcall.ChatResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req)
	if err := ctx.Err(); err != nil {
		return toolcall.ChatResponse{}, err
	}
	if len(f.answers) == 0 {
		return toolcall.ChatResponse{}, errors.New("fake judge: no scripted answer left")
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	if a.err != nil {
		return toolcall.ChatResponse{}, a.err
	}
	return toolcall.ChatResponse{Content: a.content, Model: "fake-judge-1", FinishReason: "stop", InputTokens: 100, OutputTokens: 20}, nil
}

func answers(contents ...string) *fakeJudge {
	f := &fakeJudge{}
	for _, c := range contents {
		f.answers = append(f.answers, fakeAnswer{content: c})
	}
	return f
}

// captureRun builds a run's calls and context from the attribute values of
// a real capture: testdata/traces/captures/vercel-ai-v7-otel-mock.otlp.jsonl
// (AI SDK 7 with its OTel GenAI integration, a mock model). The request and
// response are the invoke_agent span's gen_ai.input/output.messages, the
// definitions the first chat span's gen_ai.tool.definitions, the calls the
// execute_tool spans (ordered by call id, as the model listed them;
// lookup_stock failed with no result).
func captureRun(t *testing.T) ([]toolcall.Call, *toolcall.RunContext) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "traces", "captures", "vercel-ai-v7-otel-mock.otlp.jsonl"))
	require.NoError(t, err)
	type attr struct {
		Key   string `json:"key"`
		Value struct {
			StringValue string `json:"stringValue"`
		} `json:"value"`
	}
	type span struct {
		Name       string `json:"name"`
		Attributes []attr `json:"attributes"`
		Status     struct {
			Code int `json:"code"`
		} `json:"status"`
	}
	var spans []span
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []span `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &req))
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
	}
	get := func(s span, key string) string {
		for _, a := range s.Attributes {
			if a.Key == key {
				return a.Value.StringValue
			}
		}
		return ""
	}
	run := &toolcall.RunContext{}
	var calls []toolcall.Call
	for _, s := range spans {
		switch get(s, "gen_ai.operation.name") {
		case "invoke_agent":
			run.Request, run.Response = get(s, "gen_ai.input.messages"), get(s, "gen_ai.output.messages")
		case "chat":
			if run.Tools.Len() == 0 {
				defs, err := toolcall.ParseToolDefinitions(get(s, "gen_ai.tool.definitions"))
				require.NoError(t, err)
				run.Tools.Add(defs...)
			}
		case "execute_tool":
			c := toolcall.Call{Name: get(s, "gen_ai.tool.name"), ID: get(s, "gen_ai.tool.call.id"), Type: "function", Status: toolcall.StatusOK, Turn: 1}
			c.Args, err = jsonv.Parse(get(s, "gen_ai.tool.call.arguments"))
			require.NoError(t, err)
			if r := get(s, "gen_ai.tool.call.result"); r != "" {
				c.Result, err = jsonv.Parse(r)
				require.NoError(t, err)
			}
			if s.Status.Code == 2 {
				c.Status = toolcall.StatusError
			}
			calls = append(calls, c)
		}
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i].ID < calls[j].ID })
	require.Len(t, calls, 2)
	require.Equal(t, 2, run.Tools.Len())
	require.NotEmpty(t, run.Request)
	return toolcall.NumberCalls(calls), run
}

// renderRequests writes requests for a golden file.
func renderRequests(reqs []toolcall.ChatRequest) string {
	var sb strings.Builder
	for i, r := range reqs {
		fmt.Fprintf(&sb, "=== request %d\n", i+1)
		var params []string
		if r.Temperature != nil {
			params = append(params, fmt.Sprintf("temperature=%v", *r.Temperature))
		}
		if r.TopP != nil {
			params = append(params, fmt.Sprintf("top_p=%v", *r.TopP))
		}
		if r.MaxTokens != 0 {
			params = append(params, fmt.Sprintf("max_tokens=%d", r.MaxTokens))
		}
		params = append(params, fmt.Sprintf("json_object=%v", r.JSONObject))
		fmt.Fprintf(&sb, "params: %s\n", strings.Join(params, " "))
		for _, m := range r.Messages {
			fmt.Fprintf(&sb, "--- %s\n%s\n", m.Role, m.Content)
		}
	}
	return sb.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "judge", name+".golden.txt")
	if *updateGolden {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./internal/judges/ -run Golden -update to create it")
	assert.Equal(t, string(want), got, "golden file %s differs; rerun with -update after checking the change", path)
}

// TestJudgeGoldenPrompts renders every profile's prompt from the capture's
// run and compares it byte for byte with its golden file; built with
// OmitDetails, each profile gives the same result.
func TestJudgeGoldenPrompts(t *testing.T) {
	cases := []struct {
		name     string
		settings toolcall.Settings
		answers  []string
		outcome  toolcall.Outcome
	}{
		{MEAIToolCallAccuracyName, toolcall.Settings{}, []string{"<S0>Let's think step by step: fine.</S0><S1>Both calls fit.</S1><S2>1</S2>"}, toolcall.OutcomePass},
		{AzureToolCallAccuracyName, toolcall.Settings{}, []string{`{"chain_of_thought":"Let's think step by step: the stock call failed.","tool_calls_success_level":2,"excess_tool_calls":{"total":0,"details":[]},"missing_tool_calls":{"total":0,"details":[]}}`}, toolcall.OutcomeFail},
		{MastraToolCallLLMName, toolcall.Settings{Threshold: 0.5}, []string{`{"evaluations":[{"toolCalled":"get_weather","wasAppropriate":true,"reasoning":"asked"},{"toolCalled":"lookup_stock","wasAppropriate":true,"reasoning":"asked"}]}`, "Both tools were requested."}, toolcall.OutcomePass},
		{MastraTrajectoryLLMName, toolcall.Settings{Threshold: 0.5, Expectation: toolcall.Expectation{Calls: []toolcall.ExpectedCall{{Name: "get_weather", Args: jsonv.MustValueOf(map[string]any{"city": "Paris", "unit": "celsius"})}, {Name: "lookup_stock", StepType: toolcall.StepToolCall}}}}, []string{`{"stepEvaluations":[{"stepName":"get_weather","wasNecessary":true,"wasInOrder":true,"reasoning":"r"},{"stepName":"lookup_stock","wasNecessary":true,"wasInOrder":true,"reasoning":"r"}],"overallAssessment":"good"}`, "Both steps were needed and in order."}, toolcall.OutcomePass},
		{peers.DeepEvalLLMName, toolcall.Settings{Expectation: toolcall.Expectation{Calls: []toolcall.ExpectedCall{{Name: "get_weather"}, {Name: "lookup_stock"}}}, Options: map[string]any{"threshold": 0.5}}, []string{`{"score": 0.75, "reason": "Mostly right."}`}, toolcall.OutcomePass},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls, run := captureRun(t)
			judge := answers(tc.answers...)
			tc.settings.Judge = judge
			s, err := toolcall.New(tc.name, tc.settings)
			require.NoError(t, err)
			_, deferred := s.(toolcall.Deferred)
			assert.True(t, deferred)
			res := s.(toolcall.ContextScorer).ScoreContext(context.Background(), calls, run)
			require.NoError(t, res.Err)
			assert.Equal(t, tc.outcome, res.Outcome, res.Explanation)
			assert.Equal(t, len(tc.answers), len(judge.requests))
			assert.Equal(t, 100*len(tc.answers), res.Details["input_tokens"])
			assert.Equal(t, "fake-judge-1", res.Details["judge_model"])
			checkGolden(t, tc.name, renderRequests(judge.requests))
			// Judges ignore OmitDetails: the same result, Details included.
			lean := tc.settings
			lean.OmitDetails, lean.Judge = true, answers(tc.answers...)
			ls, err := toolcall.New(tc.name, lean)
			require.NoError(t, err)
			assert.Equal(t, res, ls.(toolcall.ContextScorer).ScoreContext(context.Background(), calls, run), "built with OmitDetails")
		})
	}
}

// TestJudgeProfilesNeedAJudge: every profile's factory refuses to build
// without a Completer.
func TestJudgeProfilesNeedAJudge(t *testing.T) {
	for _, name := range []string{MEAIToolCallAccuracyName, AzureToolCallAccuracyName, MastraToolCallLLMName, MastraTrajectoryLLMName, peers.DeepEvalLLMName} {
		_, err := toolcall.New(name, toolcall.Settings{})
		assert.ErrorIs(t, err, toolcall.ErrNoJudge, name)
		assert.ErrorContains(t, err, name)
	}
}

// TestJudgeFailures: a skipped judge leaves the run not evaluated, any other
// error (a cancelled context included) is an error, for every profile.
func TestJudgeFailures(t *testing.T) {
	settings := map[string]toolcall.Settings{
		MEAIToolCallAccuracyName:  {},
		AzureToolCallAccuracyName: {},
		MastraToolCallLLMName:     {},
		MastraTrajectoryLLMName:   {},
		peers.DeepEvalLLMName:     {Expectation: toolcall.Expectation{Calls: []toolcall.ExpectedCall{{Name: "get_weather"}}}},
	}
	for name, s := range settings {
		t.Run(name, func(t *testing.T) {
			calls, run := captureRun(t)
			skipped := fmt.Errorf("judge budget of 10 requests a minute used up: %w", toolcall.ErrJudgeSkipped)
			judge := &fakeJudge{answers: []fakeAnswer{{err: skipped}, {err: errors.New("HTTP 500")}}}
			s.Judge = judge
			sc, err := toolcall.New(name, s)
			require.NoError(t, err)
			cs := sc.(toolcall.ContextScorer)
			res := cs.ScoreContext(context.Background(), calls, run)
			assert.Equal(t, toolcall.OutcomeNotEvaluated, res.Outcome)
			assert.Equal(t, skipped.Error(), res.Explanation)
			res = cs.ScoreContext(context.Background(), calls, run)
			assert.Equal(t, toolcall.OutcomeError, res.Outcome)
			assert.ErrorContains(t, res.Err, "HTTP 500")
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			res = cs.ScoreContext(ctx, calls, run)
			assert.Equal(t, toolcall.OutcomeError, res.Outcome)
			assert.ErrorIs(t, res.Err, context.Canceled)
			assert.Len(t, judge.requests, 2, "a cancelled context sends nothing")
		})
	}
}

// ---------------------------------------------------------------------------
// meai_tool_call_accuracy

func TestMEAIValidationsAskNoJudge(t *testing.T) {
	calls, run := captureRun(t)
	noDefs := *run
	noDefs.Tools = toolcall.ToolDefinitions{}
	onlyWeather := toolcall.ToolDefinitions{}
	w, _ := run.Tools.Get("get_weather")
	onlyWeather.Add(w)
	unknown := *run
	unknown.Tools = onlyWeather
	cases := []struct {
		name  string
		calls []toolcall.Call
		run   *toolcall.RunContext
		want  string
	}{
		{"no context", calls, nil, meaiNoMessages},
		{"no request, no calls", nil, &toolcall.RunContext{Tools: run.Tools}, meaiNoMessages},
		{"no request", calls, &toolcall.RunContext{Response: run.Response, Tools: run.Tools}, meaiNoMessages},
		{"no calls", nil, run, meaiNoCalls},
		{"no definitions", calls, &noDefs, meaiNoDefinitions},
		{"unknown tool", calls, &unknown, meaiUnknownTool},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			judge := answers()
			s, err := toolcall.New(MEAIToolCallAccuracyName, toolcall.Settings{Judge: judge})
			require.NoError(t, err)
			res := s.(toolcall.ContextScorer).ScoreContext(context.Background(), tc.calls, tc.run)
			assert.Equal(t, toolcall.OutcomeNotEvaluated, res.Outcome)
			assert.Equal(t, tc.want, res.Explanation)
			assert.Empty(t, judge.requests)
		})
	}
	// Configured definitions count as the context's definitions.
	judge := answers("<S2>true</S2>")
	s, err := toolcall.New(MEAIToolCallAccuracyName, toolcall.Settings{Judge: judge, Tools: run.Tools.All()})
	require.NoError(t, err)
	res := s.(toolcall.ContextScorer).ScoreContext(context.Background(), calls, &noDefs)
	assert.Equal(t, toolcall.OutcomePass, res.Outcome)
}

func TestMEAIParseAndMap(t *testing.T) {
	pass, fail, inconclusive := toolcall.OutcomePass, toolcall.OutcomeFail, toolcall.OutcomeFail
	cases := []struct {
		name    string
		answer  string
		value   any
		outcome toolcall.Outcome
		score   float64
		expl    string
	}{
		{"true", "<S0>cot</S0><S1>fits</S1><S2>true</S2>", true, pass, 1, "fits"},
		{"TRUE padded", "  <S0>cot</S0>\n<S1>fits</S1>\n<S2>  TRUE \n</S2>  ", true, pass, 1, "fits"},
		{"False", "<S1>wrong city</S1><S2>False</S2>", false, fail, 0, "Tool Call Accuracy is not True. wrong city"},
		{"1", "<S2>1</S2>", true, pass, 1, "Tool Call Accuracy is True."},
		{"0", "<S2>0</S2>", false, fail, 0, "Tool Call Accuracy is not True."},
		{"multi-line tags", "<S0>line 1\nline 2</S0>\n<S1>\nok\n</S1>\n<S2>\n1\n</S2>", true, pass, 1, "ok"},
		{"2 is not a boolean", "<S2>2</S2>", nil, inconclusive, 0, "inconclusive: Failed to parse boolean score for 'Tool Call Accuracy' from the following text:\n2; Tool Call Accuracy is not True."},
		{"garbage", "<S2>yes</S2>", nil, inconclusive, 0, "inconclusive: Failed to parse boolean score for 'Tool Call Accuracy' from the following text:\nyes; Tool Call Accuracy is not True."},
		{"empty S2", "<S1>r</S1><S2>  </S2>", nil, inconclusive, 0, "inconclusive: Failed to parse score for 'Tool Call Accuracy' from the following evaluation response:\n<S1>r</S1><S2>  </S2>; Tool Call Accuracy is not True."},
		{"missing S2", "The calls look right. Score: 1", nil, inconclusive, 0, "inconclusive: Failed to parse score for 'Tool Call Accuracy' from the following evaluation response:\nThe calls look right. Score: 1; Tool Call Accuracy is not True."},
		{"unclosed S2", "<S2>1", nil, inconclusive, 0, "inconclusive: Failed to parse score for 'Tool Call Accuracy' from the following evaluation response:\n<S2>1; Tool Call Accuracy is not True."},
		{"first S2 wins", "<S2>0</S2><S2>1</S2>", false, fail, 0, "Tool Call Accuracy is not True."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := MapMEAIAnswer(ParseMEAIAnswer(tc.answer))
			assert.Equal(t, tc.value, res.Details["value"])
			assert.Equal(t, tc.outcome, res.Outcome)
			assert.Equal(t, tc.score, res.Score)
			assert.Equal(t, tc.expl, res.Explanation)
			assert.Equal(t, 1.0, res.Threshold)
		})
	}
	a := ParseMEAIAnswer("<S0> Let's think </S0><S1></S1><S2>false</S2>")
	assert.Equal(t, "Let's think", a.ChainOfThought)
	assert.Equal(t, "", a.Reason, "an empty tag is absent")
	res := MapMEAIAnswer(a)
	assert.Equal(t, "unacceptable", res.Details["rating"])
}

func TestMEAIRendering(t *testing.T) {
	calls := toolcall.NumberCalls([]toolcall.Call{
		{Name: "a", ID: "c1", Turn: 1, Args: jsonv.MustValueOf(map[string]any{"q": "<x> & 'y' + \"z\" é"}), Result: jsonv.String("ok")},
		{Name: "b", ID: "c2", Turn: 1, ArgsUnknown: true, Status: toolcall.StatusError},
		{Name: "a", ID: "c3", Turn: 2, Args: jsonv.Object(), Result: jsonv.Null()},
		{Name: "a", ID: "c4", Args: jsonv.Object()},
	})
	got := meaiRenderCalls(calls)
	want := `[{"callId":"c1","name":"a","arguments":{"q":"\u003Cx\u003E \u0026 \u0027y\u0027 \u002B \u0022z\u0022 \u00E9"}},{"callId":"c2","name":"b"},` +
		`{"callId":"c1","result":"ok"},{"callId":"c2","result":"Error: Function failed."},` +
		`{"callId":"c3","name":"a","arguments":{}},{"callId":"c3"},{"callId":"c4","name":"a","arguments":{}}]`
	assert.Equal(t, want, got)
	assert.Equal(t, `"\uD83D\uDE00\n\\"`, dotnetJSON(jsonv.String("😀\n\\")))
}

// ---------------------------------------------------------------------------
// azure_tool_call_accuracy

func TestAzureChecksBeforeTheJudge(t *testing.T) {
	calls, run := captureRun(t)
	judge := answers()
	s, err := toolcall.New(AzureToolCallAccuracyName, toolcall.Settings{Judge: judge})
	require.NoError(t, err)
	cs := s.(toolcall.ContextScorer)

	res := cs.ScoreContext(context.Background(), nil, run)
	assert.Equal(t, toolcall.OutcomeNotEvaluated, res.Outcome)
	assert.Equal(t, azureNoCalls, res.Explanation)

	unknown := append([]toolcall.Call(nil), calls...)
	unknown[1].ArgsUnknown, unknown[1].ArgsNote = true, "arguments larger than the 1 MiB limit"
	res = cs.ScoreContext(context.Background(), unknown, run)
	assert.Equal(t, toolcall.OutcomeError, res.Outcome)
	assert.ErrorContains(t, res.Err, "tool call 2 (lookup_stock) has no recorded arguments (arguments larger than the 1 MiB limit)")

	res = cs.ScoreContext(context.Background(), calls, &toolcall.RunContext{Request: run.Request})
	assert.Equal(t, toolcall.OutcomeError, res.Outcome)
	assert.ErrorContains(t, res.Err, azureNoDefinitions)

	only := &toolcall.RunContext{Request: run.Request}
	w, _ := run.Tools.Get("get_weather")
	only.Tools.Add(w)
	res = cs.ScoreContext(context.Background(), calls, only)
	assert.Equal(t, toolcall.OutcomeError, res.Outcome)
	assert.ErrorContains(t, res.Err, azureMissingDefinition+` (no definition of "lookup_stock")`)
	assert.Empty(t, judge.requests)
}

func TestAzureParseAndMap(t *testing.T) {
	judge := answers()
	s, err := toolcall.New(AzureToolCallAccuracyName, toolcall.Settings{Judge: judge})
	require.NoError(t, err)
	a := s.(*azureToolCallAccuracy)
	cases := []struct {
		name    string
		answer  string
		level   float64
		score   float64
		outcome toolcall.Outcome
		errText string
	}{
		{"level 5", `{"chain_of_thought":"ok","tool_calls_success_level":5}`, 5, 1, toolcall.OutcomePass, ""},
		{"level 4", `{"tool_calls_success_level":4}`, 4, 0.75, toolcall.OutcomePass, ""},
		{"level 3 passes at the default threshold", `{"tool_calls_success_level":3}`, 3, 0.5, toolcall.OutcomePass, ""},
		{"level 2 fails", `{"tool_calls_success_level":2}`, 2, 0.25, toolcall.OutcomeFail, ""},
		{"level 1", `{"tool_calls_success_level":1}`, 1, 0, toolcall.OutcomeFail, ""},
		{"a numeric string", `{"tool_calls_success_level":" 4 "}`, 4, 0.75, toolcall.OutcomePass, ""},
		{"a fraction is kept", `{"tool_calls_success_level":4.5}`, 4.5, 0.875, toolcall.OutcomePass, ""},
		{"true reads as 1", `{"tool_calls_success_level":true}`, 1, 0, toolcall.OutcomeFail, ""},
		{"0", `{"tool_calls_success_level":0}`, 0, 0, toolcall.OutcomeError, "Invalid score value: 0. Expected a number in range [1, 5]."},
		{"6", `{"tool_calls_success_level":6}`, 0, 0, toolcall.OutcomeError, "Invalid score value: 6. Expected a number in range [1, 5]."},
		{"negative", `{"tool_calls_success_level":-1}`, 0, 0, toolcall.OutcomeError, "Invalid score value: -1."},
		{"missing", `{"chain_of_thought":"x"}`, 0, 0, toolcall.OutcomeError, "Invalid score value: None."},
		{"null", `{"tool_calls_success_level":null}`, 0, 0, toolcall.OutcomeError, "Invalid score value: None."},
		{"a word", `{"tool_calls_success_level":"five"}`, 0, 0, toolcall.OutcomeError, "Invalid score value: five."},
		{"a list", `{"tool_calls_success_level":[5]}`, 0, 0, toolcall.OutcomeError, "Invalid score value: [5]."},
		{"malformed", `{"tool_calls_success_level":5`, 0, 0, toolcall.OutcomeError, "not JSON"},
		{"fenced JSON is not JSON", "```json\n{\"tool_calls_success_level\":5}\n```", 0, 0, toolcall.OutcomeError, "not JSON"},
		{"not an object", `[5]`, 0, 0, toolcall.OutcomeError, azureInvalidOutput},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := a.Map(ParseAzureAnswer(tc.answer))
			assert.Equal(t, tc.outcome, res.Outcome, res.Explanation)
			if tc.errText != "" {
				assert.ErrorContains(t, res.Err, tc.errText)
				return
			}
			require.NoError(t, res.Err)
			assert.Equal(t, tc.level, res.Details["tool_call_accuracy"])
			assert.InDelta(t, tc.score, res.Score, 1e-12)
			assert.Equal(t, 0.5, res.Threshold)
		})
	}
	full := a.Map(ParseAzureAnswer(`{"chain_of_thought":"Let's think step by step: one call was repeated.","tool_calls_success_level":3,"tool_calls_success_result":"pass",
		"additional_details":{"tool_calls_made_by_agent":3},"excess_tool_calls":{"total":1,"details":[{"tool_name":"a","excess_count":1}]},"missing_tool_calls":{"total":0,"details":[]}}`))
	assert.Equal(t, "level 3 of 5: Let's think step by step: one call was repeated. (excess tool calls: 1; missing tool calls: 0)", full.Explanation)
	assert.Equal(t, "pass", full.Details["tool_call_accuracy_result"])
	assert.Equal(t, map[string]any{"tool_calls_made_by_agent": float64(3)}, full.Details["per_tool_call_details"])
	older := a.Map(ParseAzureAnswer(`{"tool_calls_success_level":5,"details":{"x":1}}`))
	assert.Equal(t, map[string]any{"x": float64(1)}, older.Details["per_tool_call_details"], "details is read when additional_details is absent")

	// The threshold option is on the peer's scale.
	s4, err := toolcall.New(AzureToolCallAccuracyName, toolcall.Settings{Judge: judge, Options: map[string]any{"threshold": 4}})
	require.NoError(t, err)
	res := s4.(*azureToolCallAccuracy).Map(ParseAzureAnswer(`{"tool_calls_success_level":3}`))
	assert.Equal(t, toolcall.OutcomeFail, res.Outcome)
	assert.Equal(t, 0.75, res.Threshold)
	_, err = toolcall.New(AzureToolCallAccuracyName, toolcall.Settings{Judge: judge, Options: map[string]any{"threshold": 0.5}})
	assert.ErrorContains(t, err, `azure_tool_call_accuracy: option "threshold": 0.5 is outside [1, 5]`)
}

// ---------------------------------------------------------------------------
// mastra_tool_call_llm

func TestMastraToolCallPreprocess(t *testing.T) {
	calls, run := captureRun(t)
	judge := answers()
	s, err := toolcall.New(MastraToolCallLLMName, toolcall.Settings{Judge: judge})
	require.NoError(t, err)
	cs := s.(toolcall.ContextScorer)
	for name, tc := range map[string]struct {
		calls []toolcall.Call
		run   *toolcall.RunContext
	}{
		"no context":             {calls, nil},
		"no request":             {calls, &toolcall.RunContext{Response: run.Response}},
		"no calls, no response":  {nil, &toolcall.RunContext{Request: run.Request}},
		"blank request, no call": {nil, &toolcall.RunContext{Request: "  ", Response: run.Response}},
	} {
		res := cs.ScoreContext(context.Background(), tc.calls, tc.run)
		assert.Equal(t, toolcall.OutcomeError, res.Outcome, name)
		assert.ErrorContains(t, res.Err, "Input and output messages cannot be null or empty", name)
	}
	assert.Empty(t, judge.requests)
}

func TestMastraToolCallScores(t *testing.T) {
	ev := func(appropriate ...bool) string {
		var items []string
		for i, a := range appropriate {
			items = append(items, fmt.Sprintf(`{"toolCalled":"t%d","wasAppropriate":%v,"reasoning":"r"}`, i, a))
		}
		return `[` + strings.Join(items, ",") + `]`
	}
	cases := []struct {
		name   string
		answer string
		score  float64
		err    string
	}{
		{"all appropriate", `{"evaluations":` + ev(true, true) + `}`, 1, ""},
		{"one of three: round2", `{"evaluations":` + ev(true, false, false) + `}`, 0.33, ""},
		{"two of three: round2", `{"evaluations":` + ev(true, true, false) + `}`, 0.67, ""},
		{"missing tools do not lower a non-empty list", `{"evaluations":` + ev(true) + `,"missingTools":["x"]}`, 1, ""},
		{"no evaluations, nothing missing", `{"evaluations":[]}`, 1, ""},
		{"no evaluations, missing tools", `{"evaluations":[],"missingTools":["search"]}`, 0, ""},
		{"fenced", "```json\n{\"evaluations\":" + ev(false) + "}\n```", 0, ""},
		{"no evaluations key", `{"missingTools":[]}`, 0, "no evaluations list"},
		{"a string for a boolean", `{"evaluations":[{"toolCalled":"a","wasAppropriate":"true","reasoning":"r"}]}`, 0, "evaluations[0]"},
		{"missing reasoning", `{"evaluations":[{"toolCalled":"a","wasAppropriate":true}]}`, 0, "evaluations[0]"},
		{"null missingTools", `{"evaluations":[],"missingTools":null}`, 0, "missingTools"},
		{"malformed", `{"evaluations":[`, 0, "not JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := ParseMastraToolCallAnswer(tc.answer)
			if tc.err != "" {
				assert.ErrorContains(t, a.Err, tc.err)
				return
			}
			require.NoError(t, a.Err)
			assert.Equal(t, tc.score, MastraToolCallScore(a))
		})
	}
}

func TestMastraReasonCallAndFallback(t *testing.T) {
	calls, run := captureRun(t)
	analysis := `{"evaluations":[{"toolCalled":"get_weather","wasAppropriate":true,"reasoning":"asked"},{"toolCalled":"lookup_stock","wasAppropriate":false,"reasoning":"not asked"}],"missingTools":["news"]}`
	judge := &fakeJudge{answers: []fakeAnswer{{content: analysis}, {content: "  Only the weather was asked for.\n"}}}
	s, err := toolcall.New(MastraToolCallLLMName, toolcall.Settings{Judge: judge, Threshold: 0.5})
	require.NoError(t, err)
	res := s.(toolcall.ContextScorer).ScoreContext(context.Background(), calls, run)
	assert.Equal(t, 0.5, res.Score)
	assert.Equal(t, toolcall.OutcomePass, res.Outcome)
	assert.Equal(t, "Only the weather was asked for.", res.Explanation)
	require.Len(t, judge.requests, 2)
	reason := judge.requests[1].Messages[1].Content
	assert.Contains(t, reason, "Score: 0.5/1\n")
	assert.Contains(t, reason, `Tool evaluations: [{"toolCalled":"get_weather","wasAppropriate":true,"reasoning":"asked"},{"toolCalled":"lookup_stock","wasAppropriate":false,"reasoning":"not asked"}]`)
	assert.Contains(t, reason, `Missing tools: ["news"]`)
	assert.Equal(t, 200, res.Details["input_tokens"])

	judge = &fakeJudge{answers: []fakeAnswer{{content: analysis}, {err: errors.New("HTTP 503")}}}
	s, err = toolcall.New(MastraToolCallLLMName, toolcall.Settings{Judge: judge, Threshold: 0.5})
	require.NoError(t, err)
	res = s.(toolcall.ContextScorer).ScoreContext(context.Background(), calls, run)
	assert.Equal(t, toolcall.OutcomePass, res.Outcome, "the score stands when the reason call fails")
	assert.Equal(t, "0.5: 1 of 2 tool calls appropriate; inappropriate: lookup_stock; missing: news", res.Explanation)
	assert.Equal(t, "HTTP 503", res.Details["reason_error"])
}

// ---------------------------------------------------------------------------
// mastra_trajectory_llm

func TestMastraTrajectoryScores(t *testing.T) {
	step := func(necessary, inOrder bool) string {
		return fmt.Sprintf(`{"stepName":"s","wasNecessary":%v,"wasInOrder":%v,"reasoning":"r"}`, necessary, inOrder)
	}
	list := func(steps ...string) string { return "[" + strings.Join(steps, ",") + "]" }
	cases := []struct {
		name   string
		answer string
		score  float64
		err    string
	}{
		{"perfect evaluations reach only 0.9", `{"stepEvaluations":` + list(step(true, true), step(true, true)) + `,"overallAssessment":"ok"}`, 0.9, ""},
		{"no evaluations, nothing missing or extra: 1", `{"stepEvaluations":[],"overallAssessment":"ok"}`, 1, ""},
		{"no evaluations, extra steps: 0.5", `{"stepEvaluations":[],"extraSteps":["x"],"overallAssessment":"ok"}`, 0.5, ""},
		{"no evaluations, missing steps: 0", `{"stepEvaluations":[],"missingSteps":["x"],"extraSteps":["y"],"overallAssessment":"ok"}`, 0, ""},
		{"half necessary, all in order", `{"stepEvaluations":` + list(step(true, true), step(false, true)) + `,"overallAssessment":"ok"}`, 0.6, ""},
		// 0.6*1 + 0.3*1 - 0.1*1/3 = 0.8666… -> 0.87
		{"missing penalty", `{"stepEvaluations":` + list(step(true, true), step(true, true)) + `,"missingSteps":["m"],"overallAssessment":"ok"}`, 0.87, ""},
		// 0.6/3 + 0 - 0.1*3/6 = 0.15
		{"rounded", `{"stepEvaluations":` + list(step(true, false), step(false, false), step(false, false)) + `,"missingSteps":["a","b","c"],"overallAssessment":"ok"}`, 0.15, ""},
		{"clamped at 0", `{"stepEvaluations":` + list(step(false, false)) + `,"missingSteps":["a","b","c","d"],"overallAssessment":"ok"}`, 0, ""},
		{"overallAssessment is required", `{"stepEvaluations":[]}`, 0, "overallAssessment"},
		{"wasInOrder is required", `{"stepEvaluations":[{"stepName":"s","wasNecessary":true,"reasoning":"r"}],"overallAssessment":"ok"}`, 0, "stepEvaluations[0]"},
		{"extraSteps must be strings", `{"stepEvaluations":[],"extraSteps":[1],"overallAssessment":"ok"}`, 0, "extraSteps[0]"},
		{"not an object", `"fine"`, 0, "not an object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := ParseMastraTrajectoryAnswer(tc.answer)
			if tc.err != "" {
				assert.ErrorContains(t, a.Err, tc.err)
				return
			}
			require.NoError(t, a.Err)
			assert.Equal(t, tc.score, MastraTrajectoryScore(a))
		})
	}
}

func TestMastraTrajectoryRendering(t *testing.T) {
	steps := []toolcall.Call{
		{Name: "plan", StepType: toolcall.StepModelGeneration, Fields: map[string]jsonv.Value{"modelId": jsonv.String("m-1")}},
		{Name: "search", Args: jsonv.MustValueOf(map[string]any{"q": "x"}), Result: jsonv.String("found"), Children: []toolcall.Call{{Name: "fetch", ArgsUnknown: true}}},
		{Name: "agent", StepType: toolcall.StepAgentRun},
	}
	// A result that is no object is wrapped, as @mastra/core's
	// extractTrajectory makes a step's toolResult.
	assert.Equal(t, "1. [model_generation] plan (model: m-1)\n2. [tool_call] search (args: {\"q\":\"x\"}, result: {\"value\":\"found\"})\n  1. [tool_call] fetch\n3. [agent_run] agent", mastraFormatTrajectory(steps, 0))
	exp := []toolcall.ExpectedCall{{Name: "search", StepType: toolcall.StepToolCall, Args: jsonv.MustValueOf(map[string]any{"q": "x"})}, {Name: "answer"}}
	assert.Equal(t, "1. [tool_call] search ({\"toolArgs\":{\"q\":\"x\"}})\n2. answer", mastraFormatExpected(exp))

	// Without expected calls the prompt judges the task alone; with an empty
	// trajectory the section is empty, as the peer writes it.
	judge := answers(`{"stepEvaluations":[],"missingSteps":["get_weather"],"overallAssessment":"nothing done"}`, "Nothing was done.")
	s, err := toolcall.New(MastraTrajectoryLLMName, toolcall.Settings{Judge: judge, Threshold: 0.5})
	require.NoError(t, err)
	res := s.(toolcall.ContextScorer).ScoreContext(context.Background(), nil, &toolcall.RunContext{Request: "What is the weather?"})
	assert.Equal(t, 0.0, res.Score)
	assert.Equal(t, toolcall.OutcomeFail, res.Outcome)
	prompt := judge.requests[0].Messages[1].Content
	assert.Contains(t, prompt, "ACTUAL TRAJECTORY (the agent's steps, in order):\n\n")
	assert.Contains(t, prompt, "no expected trajectory is given")
	assert.NotContains(t, prompt, "EXPECTED TRAJECTORY")
	assert.Contains(t, prompt, `USER REQUEST: "What is the weather?"`)

	_, err = toolcall.New(MastraTrajectoryLLMName, toolcall.Settings{Judge: judge, Expectation: toolcall.Expectation{Calls: []toolcall.ExpectedCall{{Name: "a", Optional: true}}}})
	assert.ErrorContains(t, err, "optional expected calls are not supported")
}

// ---------------------------------------------------------------------------
// deepeval_llm

func TestDeepEvalSelectionParse(t *testing.T) {
	cases := []struct {
		name   string
		answer string
		score  float64
		reason string
		err    string
	}{
		{"plain", `{"score": 0.75, "reason": "r"}`, 0.75, "r", ""},
		{"prose and fence around", "Here you go:\n```json\n{\"score\": 0.5, \"reason\": \"mixed\"}\n```", 0.5, "mixed", ""},
		{"missing closing brace", `{"score": 0.25, "reason": "poor"`, 0.25, "poor", ""},
		{"trailing comma", `{"score": 1.0, "reason": "all fit",}`, 1, "all fit", ""},
		{"integer", `{"score": 0, "reason": "misaligned"}`, 0, "misaligned", ""},
		{"numeric string", `{"score": "0.75", "reason": "r"}`, 0.75, "r", ""},
		{"off the rubric is kept", `{"score": 0.6, "reason": "r"}`, 0.6, "r", ""},
		{"no JSON", `I think it is fine.`, 0, "", deInvalidJSON},
		{"malformed", `{"score": , "reason": "r"}`, 0, "", deInvalidJSON},
		{"missing score", `{"reason": "r"}`, 0, "", "score: field required"},
		{"missing reason", `{"score": 1}`, 0, "", "reason: field required"},
		{"reason not a string", `{"score": 1, "reason": 3}`, 0, "", "reason: input should be a valid string"},
		{"score a word", `{"score": "high", "reason": "r"}`, 0, "", "score: input should be a valid number"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sel := ParseDeepEvalSelectionAnswer(tc.answer)
			if tc.err != "" {
				assert.ErrorContains(t, sel.Err, tc.err)
				return
			}
			require.NoError(t, sel.Err)
			assert.Equal(t, tc.score, sel.Score)
			assert.Equal(t, tc.reason, sel.Reason)
		})
	}
}

func TestDeepEvalLLMCombine(t *testing.T) {
	calls, run := captureRun(t)
	expect := toolcall.Expectation{Calls: []toolcall.ExpectedCall{{Name: "get_weather"}, {Name: "lookup_stock"}}}
	cases := []struct {
		name      string
		expected  []toolcall.ExpectedCall
		options   map[string]any
		selection string
		score     float64
		outcome   toolcall.Outcome
	}{
		{"the selection score is lower", expect.Calls, nil, `{"score":0.25,"reason":"poor"}`, 0.25, toolcall.OutcomeFail},
		{"the calling score is lower", append(append([]toolcall.ExpectedCall(nil), expect.Calls...), toolcall.ExpectedCall{Name: "news"}), nil, `{"score":1,"reason":"fine"}`, 2.0 / 3, toolcall.OutcomePass},
		{"strict mode zeroes below 1", expect.Calls, map[string]any{"strict_mode": true}, `{"score":0.75,"reason":"mostly"}`, 0, toolcall.OutcomeFail},
		{"strict mode keeps 1", expect.Calls, map[string]any{"strict_mode": true}, `{"score":1,"reason":"all"}`, 1, toolcall.OutcomePass},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			judge := answers(tc.selection)
			opts := map[string]any{"threshold": 0.5}
			for k, v := range tc.options {
				opts[k] = v
			}
			s, err := toolcall.New(peers.DeepEvalLLMName, toolcall.Settings{Judge: judge, Expectation: toolcall.Expectation{Calls: tc.expected}, Options: opts})
			require.NoError(t, err)
			res := s.(toolcall.ContextScorer).ScoreContext(context.Background(), calls, run)
			require.NoError(t, res.Err)
			assert.InDelta(t, tc.score, res.Score, 1e-12)
			assert.Equal(t, tc.outcome, res.Outcome)
			reason := res.Details["reason"].(string)
			assert.True(t, strings.HasPrefix(reason, "[\n\t Tool Calling Reason: "), reason)
			sel := ParseDeepEvalSelectionAnswer(tc.selection)
			assert.True(t, strings.HasSuffix(reason, "\n\t Tool Selection Reason: "+sel.Reason+"\n]\n"), reason)
		})
	}

	// No available tools anywhere: DeepEval does not ask, selection is 1.
	judge := answers()
	s, err := toolcall.New(peers.DeepEvalLLMName, toolcall.Settings{Judge: judge, Expectation: expect})
	require.NoError(t, err)
	res := s.(toolcall.ContextScorer).ScoreContext(context.Background(), calls, &toolcall.RunContext{Request: run.Request})
	assert.Equal(t, 1.0, res.Score)
	assert.Contains(t, res.Details["reason"], "Tool Selection Reason: "+deepEvalNoTools)
	assert.Empty(t, judge.requests)

	// No recorded request: DeepEval's missing input, before any judge call.
	res = s.(toolcall.ContextScorer).ScoreContext(context.Background(), calls, nil)
	assert.Equal(t, toolcall.OutcomeError, res.Outcome)
	assert.ErrorContains(t, res.Err, "'input' cannot be None")
	assert.Empty(t, judge.requests)

	// available_tools given as names and objects wins over the run's tools.
	judge = answers(`{"score":1,"reason":"ok"}`)
	s, err = toolcall.New(peers.DeepEvalLLMName, toolcall.Settings{Judge: judge, Expectation: expect, Options: map[string]any{"available_tools": []any{"get_weather", map[string]any{"name": "news", "description": "Headlines"}}}})
	require.NoError(t, err)
	s.(toolcall.ContextScorer).ScoreContext(context.Background(), calls, run)
	require.Len(t, judge.requests, 1)
	prompt := judge.requests[0].Messages[0].Content
	assert.Contains(t, prompt, "ALL AVAILABLE TOOLS:\n[\n  {\n      \"name\": \"get_weather\",\n      \"type\": \"FUNCTION\",\n      \"description\": null,")
	assert.Contains(t, prompt, "\"description\": \"Headlines\"")
	assert.NotContains(t, prompt, "\"name\": \"lookup_stock\",\n      \"type\": \"FUNCTION\",\n      \"description\": \"")

	_, err = toolcall.New(peers.DeepEvalLLMName, toolcall.Settings{Judge: judge, Options: map[string]any{"available_tools": []any{3}}})
	assert.ErrorContains(t, err, `deepeval_llm: option "available_tools": [0]`)
}

func TestPyJSONDumps(t *testing.T) {
	v := jsonv.MustValueOf(map[string]any{"a": []any{}, "b": map[string]any{}, "c": 1.5, "d": "é😀\"", "e": []any{1, nil}})
	assert.Equal(t, "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": 1.5,\n  \"d\": \"\\u00e9\\ud83d\\ude00\\\"\",\n  \"e\": [\n    1,\n    null\n  ]\n}", peers.PyJSONDumps(v, 2))
	assert.Equal(t, `{"a": [], "b": {}, "c": 1.5, "d": "\u00e9\ud83d\ude00\"", "e": [1, null]}`, peers.PyJSONDumps(v, 0))
}

func TestTranscript(t *testing.T) {
	otel := `[{"role":"system","parts":[{"type":"text","content":"Be brief."}]},{"role":"user","parts":[{"type":"text","content":"Hi"}]},{"role":"assistant","parts":[{"type":"tool_call","id":"1","name":"a"}]}]`
	msgs := transcript(otel, "user")
	require.Len(t, msgs, 3)
	assert.Equal(t, "Be brief.", msgs[0].Text())
	assert.Empty(t, msgs[2].Parts)
	sdk := `{"system":"S","prompt":"What is up?"}`
	assert.Equal(t, []transcriptMessage{{Role: "system", Parts: []string{"S"}}, {Role: "user", Parts: []string{"What is up?"}}}, transcript(sdk, "user"))
	chat := `[{"role":"user","content":[{"type":"text","text":"one"},{"type":"image"},{"type":"text","text":"two"}]}]`
	assert.Equal(t, "two", userRequestText(&toolcall.RunContext{Request: chat}))
	assert.Equal(t, "plain text", userRequestText(&toolcall.RunContext{Request: "plain text"}))
	assert.Equal(t, "[not json", transcript("[not json", "user")[0].Text())
	assert.Equal(t, "done", finalResponseText(&toolcall.RunContext{Response: `[{"role":"assistant","parts":[{"type":"text","content":"done"}]},{"role":"assistant","parts":[{"type":"tool_call"}]}]`}))
}

// TestMastraJudgesRenderAsEachVersion renders the runs of
// testdata/judge/mastra-judge-inputs.json, on which Mastra's own
// createToolCallAccuracyScorerLLM and createTrajectoryAccuracyScorerLLM
// asked a recording judge (tools/peers/mastra/record_judges.mjs, @mastra/evals
// 1.2.0 and 1.10.2, the trajectory extracted by @mastra/core 1.18.0 and
// 1.71.0), with option version, and compares what each prompt shows of the
// run (the wording around it is this project's own): the user request, the
// agent response (1.2.0: the first assistant message; 1.10.2: the last
// with text), the calls named (1.2.0 leaves failed calls out), the tool
// reference ("undefined" for a tool given no description, nothing for an
// empty one) and the actual trajectory (results that are no object
// wrapped, none for a failed call; 1.2.0 leaves failed calls out).
func TestMastraJudgesRenderAsEachVersion(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "judge", "mastra-judge-inputs.json"))
	require.NoError(t, err)
	var file struct {
		Tools []struct {
			ID          string  `json:"id"`
			Description *string `json:"description"`
		} `json:"tools"`
		Versions map[string]struct {
			Runs []struct {
				ID  string `json:"id"`
				Run struct {
					User     string `json:"user"`
					Messages []struct {
						Text  string `json:"text"`
						Calls []struct {
							Name   string          `json:"name"`
							Args   json.RawMessage `json:"args"`
							Result json.RawMessage `json:"result"`
							Error  string          `json:"error"`
						} `json:"calls"`
					} `json:"messages"`
				} `json:"run"`
				ToolCallPrompt   string `json:"tool_call_prompt"`
				TrajectoryPrompt string `json:"trajectory_prompt"`
			} `json:"runs"`
		} `json:"versions"`
	}
	require.NoError(t, json.Unmarshal(raw, &file))
	require.Len(t, file.Versions, 2)
	var defs []toolcall.ToolDefinition
	for _, tl := range file.Tools {
		d := toolcall.ToolDefinition{Name: tl.ID}
		if tl.Description != nil {
			d.Description, d.EmptyDescription = *tl.Description, *tl.Description == ""
		}
		defs = append(defs, d)
	}
	peerToolCall := regexp.MustCompile(`(?s)USER REQUEST: "(.*?)"\nAGENT RESPONSE: "(.*?)"\nTOOLS THE AGENT ACTUALLY CALLED: (.*?)\n\nTOOL REFERENCE:\n(.*?)\n\n`)
	oursToolCall := regexp.MustCompile(`(?s)USER REQUEST: "(.*?)"\nAGENT RESPONSE: "(.*?)"\nTOOLS THE AGENT CALLED: (.*?)\n\nAVAILABLE TOOLS:\n(.*?)\n\n`)
	peerTrajectory := regexp.MustCompile(`(?s)USER REQUEST: "(.*?)"\nAGENT FINAL RESPONSE: "(.*?)"\n\nACTUAL TRAJECTORY \(sequence of actions the agent took\):\n(.*?)\n\n(?:EXPECTED|EVALUATION)`)
	oursTrajectory := regexp.MustCompile(`(?s)USER REQUEST: "(.*?)"\nAGENT FINAL RESPONSE: "(.*?)"\n\nACTUAL TRAJECTORY \(the agent's steps, in order\):\n(.*?)\n\nWHAT TO CHECK`)
	fields := func(re *regexp.Regexp, prompt string) []string {
		m := re.FindStringSubmatch(prompt)
		require.NotNil(t, m, "prompt does not read as expected:\n%s", prompt)
		return m[1:]
	}
	for version, recorded := range file.Versions {
		for _, r := range recorded.Runs {
			t.Run(version+"/"+r.ID, func(t *testing.T) {
				var calls []toolcall.Call
				var msgs []jsonv.Value
				for _, m := range r.Run.Messages {
					var parts []jsonv.Value
					if m.Text != "" {
						parts = append(parts, jsonv.Object(jsonv.Member{Key: "type", Value: jsonv.String("text")}, jsonv.Member{Key: "content", Value: jsonv.String(m.Text)}))
					}
					for _, c := range m.Calls {
						call := toolcall.Call{Name: c.Name, Args: toolcalltest.MustParse(string(c.Args)), Status: toolcall.StatusOK}
						if c.Error != "" {
							call.Status, call.Result = toolcall.StatusError, jsonv.String(c.Error)
						} else {
							call.Result = toolcalltest.MustParse(string(c.Result))
						}
						calls = append(calls, call)
						parts = append(parts, jsonv.Object(jsonv.Member{Key: "type", Value: jsonv.String("tool_call")}, jsonv.Member{Key: "name", Value: jsonv.String(c.Name)}))
					}
					msgs = append(msgs, jsonv.Object(jsonv.Member{Key: "role", Value: jsonv.String("assistant")}, jsonv.Member{Key: "parts", Value: jsonv.Array(parts...)}))
				}
				run := &toolcall.RunContext{Request: jsonv.Array(jsonv.Object(jsonv.Member{Key: "role", Value: jsonv.String("user")}, jsonv.Member{Key: "content", Value: jsonv.String(r.Run.User)})).JSON(), Response: jsonv.Array(msgs...).JSON()}
				opts := map[string]any{"version": version}

				s, err := toolcall.New(MastraToolCallLLMName, toolcall.Settings{Judge: answers(), Tools: defs, Options: opts})
				require.NoError(t, err)
				req, err := s.(*mastraToolCallLLM).Request(toolcall.NumberCalls(calls), run)
				require.NoError(t, err)
				assert.Equal(t, fields(peerToolCall, r.ToolCallPrompt), fields(oursToolCall, req.Messages[1].Content), "tool-call judge")

				s, err = toolcall.New(MastraTrajectoryLLMName, toolcall.Settings{Judge: answers(), Options: opts})
				require.NoError(t, err)
				req = s.(*mastraTrajectoryLLM).Request(toolcall.NumberCalls(calls), run)
				assert.Equal(t, fields(peerTrajectory, r.TrajectoryPrompt), fields(oursTrajectory, req.Messages[1].Content), "trajectory judge")
			})
		}
	}
	_, err = toolcall.New(MastraToolCallLLMName, toolcall.Settings{Judge: answers(), Options: map[string]any{"version": "1.3.0"}})
	assert.ErrorContains(t, err, `mastra_tool_call_llm: option "version": invalid value "1.3.0"`)
}
