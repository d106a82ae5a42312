package judges

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/peers"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// The registered names of Mastra's LLM-judged scorers.
const (
	MastraToolCallLLMName   = "mastra_tool_call_llm"
	MastraTrajectoryLLMName = "mastra_trajectory_llm"
)

func init() {
	toolcall.Register(MastraToolCallLLMName, newMastraToolCallLLM)
	toolcall.Register(MastraTrajectoryLLMName, newMastraTrajectoryLLM)
}

// mastraToolCallLLM reproduces @mastra/evals
// createToolCallAccuracyScorerLLM({model, availableTools})
// (src/scorers/llm/tool-call-accuracy/{index,prompts}.ts), 1.10.2 by
// default; option version "1.2.0" renders the run as 1.2.0 does (see
// Version differences).
//
// Available tools are the rule's tools (configuration) and the run's
// recorded definitions, written one a line as "${id}: ${description}" (a
// tool given no description reads "name: undefined", as the template
// literal writes it; an empty description, "name: ").
//
// Version differences (src/scorers/utils.ts): 1.10.2's agent response is
// the text of the last assistant message that has text, 1.2.0's the text
// of the first assistant message ("" when it has only tool calls); 1.10.2
// lists every call made, 1.2.0 leaves failed calls out (its
// extractToolCalls takes the states result and call, not output-error).
//
// Preprocess: a run with no recorded request, or with neither calls nor a
// recorded response, is the peer's error "Input and output messages cannot
// be null or empty" (an error result, no judge call).
//
// First judge call (the judge's instructions as system message, model
// defaults for temperature and tokens, a JSON object answer): the user's
// request (first user message), the agent's response (last assistant text),
// the names of the calls ("None" when there are none) and the tool list. The
// answer is {"evaluations": [{"toolCalled", "wasAppropriate", "reasoning"}],
// "missingTools"?: [string]}; [ParseMastraToolCallAnswer] reads it as the
// peer's zod schema does (a whole answer in a ```json fence is accepted).
//
// Score (the peer's generateScore): no evaluations -> 0 when missingTools
// is non-empty, else 1; otherwise round2(#wasAppropriate / #evaluations),
// round2(x) = Math.round((x + Number.EPSILON) * 100) / 100. The peer has no
// threshold: the rule's threshold decides pass or fail.
//
// Second judge call: the reason, one sentence, from the request, the score
// ("${score}/1"), JSON.stringify(evaluations) and JSON.stringify(missing
// tools). Its answer (trimmed) is the explanation; when that call fails,
// the explanation is built from the evaluations and Details["reason_error"]
// says why.
//
// Details: evaluations, missingTools, reason, and the judges' usage summed.
type mastraToolCallLLM struct {
	judge      toolcall.Completer
	threshold  float64
	configured []toolcall.ToolDefinition
	version    string
}

// mastraTrajectoryLLM reproduces @mastra/evals 1.10.2
// createTrajectoryAccuracyScorerLLM({model, expectedTrajectory})
// (src/scorers/llm/trajectory/{index,prompts}.ts).
//
// The actual trajectory is the run's steps, one a line,
// "${i+1}. [${stepType}] ${name}${details}" with details " (args: …,
// result: …)" for tool calls (each part when defined, JSON.stringify),
// " (model: …)" for model generations, " (output: …)" for workflow steps;
// children indented two spaces a level. The expected trajectory, when the
// rule has expected calls, is "${i+1}. [${stepType}] ${name} (${fields})"
// with the step type only when set and the fields (toolArgs from args,
// toolResult from result, then the step's other fields) as one
// JSON.stringify'd object when there are any. With no expected calls the
// prompt asks for a judgment on the task alone.
//
// The answer is {"stepEvaluations": [{"stepName", "wasNecessary",
// "wasInOrder", "reasoning"}], "missingSteps"?: [string], "extraSteps"?:
// [string], "overallAssessment": string} ([ParseMastraTrajectoryAnswer]).
//
// Score (1.10.2): no step evaluations -> 0 when missingSteps is non-empty,
// else 0.5 when extraSteps is non-empty, else 1; otherwise
// round2(clamp(0.6*necessary/n + 0.3*inOrder/n - 0.1*missing/(n+missing))).
// The weights sum to 0.9, so once the judge returns any step evaluation the
// best score is 0.9; 1 is reachable only with no evaluations and nothing
// missing or extra. The rule's threshold decides pass or fail.
//
// The reason is a second judge call as for mastra_tool_call_llm (with the
// step evaluations, missing and extra steps), with the same fallback.
// Expected calls with matchers, optional calls, must_succeed and forbidden
// tools are rejected (the peer cannot express them).
//
// The actual trajectory is what Mastra's runEvals gives the scorer,
// @mastra/core's extractTrajectory of the agent's output: toolArgs and
// toolResult that are not objects (arrays included) wrapped as {"value":
// x}, no result for a failed call. Option version "1.2.0" renders as
// @mastra/evals 1.2.0 with the @mastra/core it was built with (1.18.0):
// the first assistant message's text, and failed calls left out of the
// trajectory (that extractTrajectory takes the states result and call).
type mastraTrajectoryLLM struct {
	judge     toolcall.Completer
	threshold float64
	expected  []toolcall.ExpectedCall
	version   string
}

var (
	_ toolcall.ContextScorer = (*mastraToolCallLLM)(nil)
	_ toolcall.Deferred      = (*mastraToolCallLLM)(nil)
	_ toolcall.ContextScorer = (*mastraTrajectoryLLM)(nil)
	_ toolcall.Deferred      = (*mastraTrajectoryLLM)(nil)
)

func newMastraToolCallLLM(s toolcall.Settings) (toolcall.Scorer, error) {
	if err := newJudge(MastraToolCallLLMName, s); err != nil {
		return nil, err
	}
	r := toolcall.NewOptionReader(MastraToolCallLLMName, s.Options)
	version := r.String("version", peers.MastraVersion1102, peers.MastraVersion1102, peers.MastraVersion120)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return &mastraToolCallLLM{judge: s.Judge, threshold: s.Threshold, configured: s.Tools, version: version}, nil
}

func newMastraTrajectoryLLM(s toolcall.Settings) (toolcall.Scorer, error) {
	if err := newJudge(MastraTrajectoryLLMName, s); err != nil {
		return nil, err
	}
	r := toolcall.NewOptionReader(MastraTrajectoryLLMName, s.Options)
	version := r.String("version", peers.MastraVersion1102, peers.MastraVersion1102, peers.MastraVersion120)
	if err := r.Err(); err != nil {
		return nil, err
	}
	if err := peers.CheckPeerExpectation(MastraTrajectoryLLMName, s.Expectation, peers.PeerFeatures{}); err != nil {
		return nil, err
	}
	return &mastraTrajectoryLLM{judge: s.Judge, threshold: s.Threshold, expected: s.Expectation.Calls, version: version}, nil
}

func (m *mastraToolCallLLM) Name() string   { return MastraToolCallLLMName }
func (m *mastraTrajectoryLLM) Name() string { return MastraTrajectoryLLMName }

// Deferred marks the scorer as slow (an LLM judge).
func (m *mastraToolCallLLM) Deferred() {}

// Deferred marks the scorer as slow (an LLM judge).
func (m *mastraTrajectoryLLM) Deferred() {}

// Score implements Scorer, with no run context.
func (m *mastraToolCallLLM) Score(ctx context.Context, calls []toolcall.Call) toolcall.Result {
	return m.ScoreContext(ctx, calls, nil)
}

// Score implements Scorer, with no run context.
func (m *mastraTrajectoryLLM) Score(ctx context.Context, calls []toolcall.Call) toolcall.Result {
	return m.ScoreContext(ctx, calls, nil)
}

// ---------------------------------------------------------------------------
// Tool call accuracy.

// Request builds the analysis request, or returns the peer's preprocess
// error.
func (m *mastraToolCallLLM) Request(calls []toolcall.Call, run *toolcall.RunContext) (toolcall.ChatRequest, error) {
	calls = peers.FlattenToolCalls(toolcall.WithArguments(calls))
	if run == nil || strings.TrimSpace(run.Request) == "" || (len(calls) == 0 && strings.TrimSpace(run.Response) == "") {
		return toolcall.ChatRequest{}, errors.New("Input and output messages cannot be null or empty")
	}
	called := calls
	if m.version == peers.MastraVersion120 {
		called = succeeded(calls)
	}
	names := "None"
	if len(called) > 0 {
		names = strings.Join(peers.ToolNames(called), ", ")
	}
	var tools []string
	for _, d := range judgeDefinitions(m.configured, run).All() {
		desc := d.Description
		if desc == "" && !d.EmptyDescription {
			desc = "undefined" // ${tool.description} of a tool without one
		}
		tools = append(tools, d.Name+": "+desc)
	}
	user := mastraToolCallPrompt1 + "USER REQUEST: \"" + userRequestText(run) + "\"\nAGENT RESPONSE: \"" + mastraResponseText(run, m.version) +
		"\"\nTOOLS THE AGENT CALLED: " + names + "\n\nAVAILABLE TOOLS:\n" + strings.Join(tools, "\n") + "\n" + mastraToolCallPrompt2
	return toolcall.ChatRequest{
		Messages:   []toolcall.ChatMessage{{Role: "system", Content: mastraToolCallInstructions}, {Role: "user", Content: user}},
		JSONObject: true,
	}, nil
}

// ScoreContext implements ContextScorer.
func (m *mastraToolCallLLM) ScoreContext(ctx context.Context, calls []toolcall.Call, run *toolcall.RunContext) toolcall.Result {
	req, err := m.Request(calls, run)
	if err != nil {
		return toolcall.ErrorResult(MastraToolCallLLMName, m.threshold, fmt.Errorf("%s: %w", MastraToolCallLLMName, err))
	}
	var usage judgeUsage
	resp, err := askJudge(ctx, m.judge, req, &usage)
	if err != nil {
		return judgeFailure(MastraToolCallLLMName, m.threshold, ctx, err)
	}
	ans := ParseMastraToolCallAnswer(resp.Content)
	if ans.Err != nil {
		res := toolcall.ErrorResult(MastraToolCallLLMName, m.threshold, fmt.Errorf("%s: %w", MastraToolCallLLMName, ans.Err))
		usage.record(&res)
		return res
	}
	res := toolcall.Result{Scorer: MastraToolCallLLMName, Threshold: m.threshold, Score: MastraToolCallScore(ans)}
	res.Decide()
	res.Details = map[string]any{"evaluations": ans.Evaluations.Interface(), "missingTools": peers.StringsOrEmpty(ans.MissingTools)}
	reasonReq := toolcall.ChatRequest{Messages: []toolcall.ChatMessage{{Role: "system", Content: mastraToolCallInstructions}, {Role: "user", Content: mastraToolCallReasonPrompt(userRequestText(run), res.Score, ans)}}}
	m.explain(ctx, &res, reasonReq, &usage, func() string { return mastraToolCallFallback(ans, res.Score) })
	usage.record(&res)
	return res
}

// explain asks for the one-sentence reason, falling back to build.
func (m *mastraToolCallLLM) explain(ctx context.Context, res *toolcall.Result, req toolcall.ChatRequest, u *judgeUsage, build func() string) {
	mastraExplain(ctx, m.judge, res, req, u, build)
}

func mastraExplain(ctx context.Context, j toolcall.Completer, res *toolcall.Result, req toolcall.ChatRequest, u *judgeUsage, build func() string) {
	resp, err := askJudge(ctx, j, req, u)
	reason := strings.TrimSpace(resp.Content)
	if err == nil && reason != "" {
		res.Explanation = reason
		res.Details["reason"] = reason
		return
	}
	if err == nil {
		err = errors.New("the judge gave an empty reason")
	}
	res.Details["reason_error"] = err.Error()
	res.Explanation = build()
}

// MastraToolCallAnswer is a judge answer for mastra_tool_call_llm.
type MastraToolCallAnswer struct {
	// Evaluations is the list as answered (each with toolCalled,
	// wasAppropriate, reasoning); Appropriate counts wasAppropriate.
	Evaluations  jsonv.Value
	Appropriate  int
	MissingTools []string
	Err          error
}

// ParseMastraToolCallAnswer reads a judge answer as the peer's schema does.
func ParseMastraToolCallAnswer(content string) MastraToolCallAnswer {
	var a MastraToolCallAnswer
	v, err := mastraParseObject(content)
	if err != nil {
		a.Err = err
		return a
	}
	evs, ok := v.Get("evaluations")
	if !ok || evs.Kind() != jsonv.KindArray {
		a.Err = errors.New("the judge's answer has no evaluations list")
		return a
	}
	clean := make([]jsonv.Value, 0, evs.Len())
	for i := 0; i < evs.Len(); i++ {
		e := evs.Index(i)
		tc, ok1 := mastraAnswerField(e, "toolCalled", jsonv.KindString)
		wa, ok2 := mastraAnswerField(e, "wasAppropriate", jsonv.KindBool)
		re, ok3 := mastraAnswerField(e, "reasoning", jsonv.KindString)
		if !ok1 || !ok2 || !ok3 {
			a.Err = fmt.Errorf("evaluations[%d]: expected {toolCalled: string, wasAppropriate: boolean, reasoning: string}, got %.200s", i, e.JSON())
			return a
		}
		if wa.BoolValue() {
			a.Appropriate++
		}
		clean = append(clean, jsonv.Object(jsonv.Member{Key: "toolCalled", Value: tc}, jsonv.Member{Key: "wasAppropriate", Value: wa}, jsonv.Member{Key: "reasoning", Value: re}))
	}
	a.Evaluations = jsonv.Array(clean...)
	a.MissingTools, a.Err = mastraStrings(v, "missingTools")
	return a
}

// MastraToolCallScore is the peer's generateScore.
func MastraToolCallScore(a MastraToolCallAnswer) float64 {
	n := a.Evaluations.Len()
	if n == 0 {
		if len(a.MissingTools) > 0 {
			return 0
		}
		return 1
	}
	return peers.MastraRound2(float64(a.Appropriate) / float64(n))
}

func mastraToolCallReasonPrompt(userInput string, score float64, a MastraToolCallAnswer) string {
	return mastraReasonHead + "User request: \"" + userInput + "\"\nScore: " + jsonv.FormatJSNumber(score) + "/1\nTool evaluations: " +
		a.Evaluations.JSON() + "\nMissing tools: " + mastraStringsJSON(a.MissingTools) + "\n" + mastraReasonTail
}

func mastraToolCallFallback(a MastraToolCallAnswer, score float64) string {
	n := a.Evaluations.Len()
	if n == 0 {
		if len(a.MissingTools) > 0 {
			return fmt.Sprintf("%s: no tool calls evaluated; missing: %s", toolcall.FormatScore(score), toolcall.JoinNames(a.MissingTools, 5))
		}
		return toolcall.FormatScore(score) + ": no tool calls evaluated, none missing"
	}
	var bad []string
	for i := 0; i < n; i++ {
		e := a.Evaluations.Index(i)
		if wa, _ := e.Get("wasAppropriate"); !wa.BoolValue() {
			tc, _ := e.Get("toolCalled")
			bad = append(bad, tc.StringValue())
		}
	}
	s := fmt.Sprintf("%s: %d of %d tool calls appropriate", toolcall.FormatScore(score), a.Appropriate, n)
	if len(bad) > 0 {
		s += "; inappropriate: " + toolcall.JoinNames(bad, 5)
	}
	if len(a.MissingTools) > 0 {
		s += "; missing: " + toolcall.JoinNames(a.MissingTools, 5)
	}
	return s
}

// ---------------------------------------------------------------------------
// Trajectory accuracy.

// Request builds the analysis request.
func (m *mastraTrajectoryLLM) Request(calls []toolcall.Call, run *toolcall.RunContext) toolcall.ChatRequest {
	calls = toolcall.WithArguments(calls)
	if m.version == peers.MastraVersion120 {
		calls = succeeded(calls)
	}
	user := mastraTrajectoryPrompt1 + "USER REQUEST: \"" + userRequestText(run) + "\"\nAGENT FINAL RESPONSE: \"" + mastraResponseText(run, m.version) +
		"\"\n\nACTUAL TRAJECTORY (the agent's steps, in order):\n" + mastraFormatTrajectory(calls, 0) + "\n"
	if expected := mastraFormatExpected(m.expected); expected != "" {
		user += "\nEXPECTED TRAJECTORY (the reference sequence):\n" + expected + "\n" + mastraTrajectoryExpectedCriteria
	} else {
		user += mastraTrajectoryTaskCriteria
	}
	user += mastraTrajectoryPrompt2
	return toolcall.ChatRequest{
		Messages:   []toolcall.ChatMessage{{Role: "system", Content: mastraTrajectoryInstructions}, {Role: "user", Content: user}},
		JSONObject: true,
	}
}

// ScoreContext implements ContextScorer.
func (m *mastraTrajectoryLLM) ScoreContext(ctx context.Context, calls []toolcall.Call, run *toolcall.RunContext) toolcall.Result {
	req := m.Request(calls, run)
	var usage judgeUsage
	resp, err := askJudge(ctx, m.judge, req, &usage)
	if err != nil {
		return judgeFailure(MastraTrajectoryLLMName, m.threshold, ctx, err)
	}
	ans := ParseMastraTrajectoryAnswer(resp.Content)
	if ans.Err != nil {
		res := toolcall.ErrorResult(MastraTrajectoryLLMName, m.threshold, fmt.Errorf("%s: %w", MastraTrajectoryLLMName, ans.Err))
		usage.record(&res)
		return res
	}
	res := toolcall.Result{Scorer: MastraTrajectoryLLMName, Threshold: m.threshold, Score: MastraTrajectoryScore(ans)}
	res.Decide()
	res.Details = map[string]any{
		"stepEvaluations":   ans.StepEvaluations.Interface(),
		"missingSteps":      peers.StringsOrEmpty(ans.MissingSteps),
		"extraSteps":        peers.StringsOrEmpty(ans.ExtraSteps),
		"overallAssessment": ans.OverallAssessment,
	}
	reasonReq := toolcall.ChatRequest{Messages: []toolcall.ChatMessage{{Role: "system", Content: mastraTrajectoryInstructions}, {Role: "user", Content: mastraTrajectoryReasonPrompt(userRequestText(run), res.Score, ans)}}}
	mastraExplain(ctx, m.judge, &res, reasonReq, &usage, func() string { return mastraTrajectoryFallback(ans, res.Score) })
	usage.record(&res)
	return res
}

// mastraFormatTrajectory is the peer's formatTrajectory.
func mastraFormatTrajectory(steps []toolcall.Call, indent int) string {
	prefix := strings.Repeat("  ", indent)
	lines := make([]string, 0, len(steps))
	for i := range steps {
		s := &steps[i]
		stepType := s.StepType
		if stepType == "" {
			stepType = toolcall.StepToolCall
		}
		line := fmt.Sprintf("%s%d. [%s] %s%s", prefix, i+1, stepType, s.Name, mastraStepDetails(s, stepType))
		if len(s.Children) > 0 {
			line += "\n" + mastraFormatTrajectory(s.Children, indent+1)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

func mastraStepDetails(s *toolcall.Call, stepType string) string {
	switch stepType {
	case toolcall.StepToolCall, toolcall.StepMCPToolCall:
		// As @mastra/core's extractTrajectory makes a step of a call.
		var parts []string
		if !s.ArgsUnknown && s.Args.Kind() > jsonv.KindNull {
			parts = append(parts, "args: "+mastraStepValue(s.Args).JSON())
		}
		if !s.Failed() && s.Result.Kind() > jsonv.KindNull {
			parts = append(parts, "result: "+mastraStepValue(s.Result).JSON())
		}
		if len(parts) == 0 {
			return ""
		}
		return " (" + strings.Join(parts, ", ") + ")"
	case toolcall.StepModelGeneration:
		if m, ok := s.Fields["modelId"]; ok && m.Kind() == jsonv.KindString && m.StringValue() != "" {
			return " (model: " + m.StringValue() + ")"
		}
	case "workflow_step":
		if o, ok := s.Fields["output"]; ok && !o.IsUndefined() {
			return " (output: " + o.JSON() + ")"
		}
	}
	return ""
}

// mastraStepValue is a step's toolArgs or toolResult as extractTrajectory
// makes it: an object as it is, anything else as {"value": x}.
func mastraStepValue(v jsonv.Value) jsonv.Value {
	if v.Kind() == jsonv.KindObject {
		return v
	}
	return jsonv.Object(jsonv.Member{Key: "value", Value: v})
}

// succeeded returns the calls that did not fail (children included), for
// Mastra 1.2.0, whose extraction leaves failed calls out.
func succeeded(calls []toolcall.Call) []toolcall.Call {
	out := make([]toolcall.Call, 0, len(calls))
	for i := range calls {
		if calls[i].Failed() {
			continue
		}
		c := calls[i]
		if len(c.Children) > 0 {
			c.Children = succeeded(c.Children)
		}
		out = append(out, c)
	}
	return out
}

// mastraResponseText is the agent response Mastra's
// getAssistantMessageFromRunOutput reads from the run's output: 1.10.2 the
// last assistant message that has text, 1.2.0 the first assistant message
// (its last text part, "" when it has none).
func mastraResponseText(run *toolcall.RunContext, version string) string {
	if version != peers.MastraVersion120 {
		return finalResponseText(run)
	}
	if run == nil {
		return ""
	}
	return firstMessageText(run.Response, "assistant")
}

// mastraFormatExpected is the peer's formatExpectedSteps.
func mastraFormatExpected(steps []toolcall.ExpectedCall) string {
	lines := make([]string, 0, len(steps))
	for i := range steps {
		e := &steps[i]
		typ := ""
		if e.StepType != "" {
			typ = "[" + e.StepType + "] "
		}
		var fields []jsonv.Member
		if !e.Args.IsUndefined() {
			fields = append(fields, jsonv.Member{Key: "toolArgs", Value: e.Args})
		}
		if !e.Result.IsUndefined() {
			fields = append(fields, jsonv.Member{Key: "toolResult", Value: e.Result})
		}
		for _, k := range sortedFieldKeys(e.Fields) {
			fields = append(fields, jsonv.Member{Key: k, Value: e.Fields[k]})
		}
		data := ""
		if len(fields) > 0 {
			data = " (" + jsonv.Object(fields...).JSON() + ")"
		}
		lines = append(lines, fmt.Sprintf("%d. %s%s%s", i+1, typ, e.Name, data))
	}
	return strings.Join(lines, "\n")
}

// MastraTrajectoryAnswer is a judge answer for mastra_trajectory_llm.
type MastraTrajectoryAnswer struct {
	StepEvaluations          jsonv.Value
	Necessary, InOrder       int
	MissingSteps, ExtraSteps []string
	OverallAssessment        string
	Err                      error
}

// ParseMastraTrajectoryAnswer reads a judge answer as the peer's schema
// does.
func ParseMastraTrajectoryAnswer(content string) MastraTrajectoryAnswer {
	var a MastraTrajectoryAnswer
	v, err := mastraParseObject(content)
	if err != nil {
		a.Err = err
		return a
	}
	evs, ok := v.Get("stepEvaluations")
	if !ok || evs.Kind() != jsonv.KindArray {
		a.Err = errors.New("the judge's answer has no stepEvaluations list")
		return a
	}
	clean := make([]jsonv.Value, 0, evs.Len())
	for i := 0; i < evs.Len(); i++ {
		e := evs.Index(i)
		sn, ok1 := mastraAnswerField(e, "stepName", jsonv.KindString)
		wn, ok2 := mastraAnswerField(e, "wasNecessary", jsonv.KindBool)
		wo, ok3 := mastraAnswerField(e, "wasInOrder", jsonv.KindBool)
		re, ok4 := mastraAnswerField(e, "reasoning", jsonv.KindString)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			a.Err = fmt.Errorf("stepEvaluations[%d]: expected {stepName: string, wasNecessary: boolean, wasInOrder: boolean, reasoning: string}, got %.200s", i, e.JSON())
			return a
		}
		if wn.BoolValue() {
			a.Necessary++
		}
		if wo.BoolValue() {
			a.InOrder++
		}
		clean = append(clean, jsonv.Object(jsonv.Member{Key: "stepName", Value: sn}, jsonv.Member{Key: "wasNecessary", Value: wn}, jsonv.Member{Key: "wasInOrder", Value: wo}, jsonv.Member{Key: "reasoning", Value: re}))
	}
	a.StepEvaluations = jsonv.Array(clean...)
	if a.MissingSteps, a.Err = mastraStrings(v, "missingSteps"); a.Err != nil {
		return a
	}
	if a.ExtraSteps, a.Err = mastraStrings(v, "extraSteps"); a.Err != nil {
		return a
	}
	oa, ok := mastraAnswerField(v, "overallAssessment", jsonv.KindString)
	if !ok {
		a.Err = errors.New("the judge's answer has no overallAssessment string")
		return a
	}
	a.OverallAssessment = oa.StringValue()
	return a
}

// MastraTrajectoryScore is the peer's generateScore (1.10.2).
func MastraTrajectoryScore(a MastraTrajectoryAnswer) float64 {
	n := a.StepEvaluations.Len()
	if n == 0 {
		switch {
		case len(a.MissingSteps) > 0:
			return 0
		case len(a.ExtraSteps) > 0:
			return 0.5
		}
		return 1
	}
	missing := float64(len(a.MissingSteps))
	penalty := 0.0
	if missing > 0 {
		penalty = missing / (float64(n) + missing)
	}
	score := float64(a.Necessary)/float64(n)*0.6 + float64(a.InOrder)/float64(n)*0.3 - penalty*0.1
	return peers.MastraRound2(max(0, min(1, score)))
}

func mastraTrajectoryReasonPrompt(userInput string, score float64, a MastraTrajectoryAnswer) string {
	return mastraReasonHead + "User request: \"" + userInput + "\"\nScore: " + jsonv.FormatJSNumber(score) + "/1\nStep evaluations: " +
		a.StepEvaluations.JSON() + "\nMissing steps: " + mastraStringsJSON(a.MissingSteps) + "\nExtra or unnecessary steps: " +
		mastraStringsJSON(a.ExtraSteps) + "\n" + mastraReasonTail
}

func mastraTrajectoryFallback(a MastraTrajectoryAnswer, score float64) string {
	n := a.StepEvaluations.Len()
	s := toolcall.FormatScore(score) + ": "
	if n == 0 {
		s += "no steps evaluated"
	} else {
		s += fmt.Sprintf("%d of %d steps necessary, %d in order", a.Necessary, n, a.InOrder)
	}
	if len(a.MissingSteps) > 0 {
		s += "; missing: " + toolcall.JoinNames(a.MissingSteps, 5)
	}
	if len(a.ExtraSteps) > 0 {
		s += "; extra: " + toolcall.JoinNames(a.ExtraSteps, 5)
	}
	if a.OverallAssessment != "" {
		s += "; " + a.OverallAssessment
	}
	return s
}

// ---------------------------------------------------------------------------
// Shared by both.

// mastraParseObject reads the answer as one JSON object (a whole answer in
// a Markdown code fence is unwrapped first).
func mastraParseObject(content string) (jsonv.Value, error) {
	v, err := jsonv.Parse(fencedJSON(content))
	if err != nil {
		return jsonv.Value{}, fmt.Errorf("the judge's answer is not JSON (%v)", err)
	}
	if v.Kind() != jsonv.KindObject {
		return jsonv.Value{}, fmt.Errorf("the judge's answer is a JSON %s, not an object", v.Kind())
	}
	return v, nil
}

func mastraAnswerField(v jsonv.Value, key string, kind jsonv.Kind) (jsonv.Value, bool) {
	f, ok := v.Get(key)
	return f, ok && f.Kind() == kind
}

// mastraStrings reads an optional list of strings (absent is empty; zod's
// optional() rejects null).
func mastraStrings(v jsonv.Value, key string) ([]string, error) {
	l, ok := v.Get(key)
	if !ok {
		return nil, nil
	}
	if l.Kind() != jsonv.KindArray {
		return nil, fmt.Errorf("%s: expected a list of strings, got %.100s", key, l.JSON())
	}
	out := make([]string, 0, l.Len())
	for i := 0; i < l.Len(); i++ {
		item := l.Index(i)
		if item.Kind() != jsonv.KindString {
			return nil, fmt.Errorf("%s[%d]: expected a string, got %.100s", key, i, item.JSON())
		}
		out = append(out, item.StringValue())
	}
	return out, nil
}

func mastraStringsJSON(s []string) string {
	items := make([]jsonv.Value, len(s))
	for i, x := range s {
		items[i] = jsonv.String(x)
	}
	return jsonv.Array(items...).JSON()
}

// The prompts, in our own words for the peers' rubrics; the data lines and
// the JSON keys are the peers'.
const mastraToolCallInstructions = `You evaluate the tools an AI agent chose for a user's request.
Judge each call against what the user explicitly asked for, and name the tools the agent should have used but did not.
Be strict and literal: a call is appropriate only when it directly serves the stated request. A tool that is merely related or could be useful, but was not asked for, is not appropriate.
Give specific reasoning for every call, apply the same standard throughout, and answer with JSON in the requested shape.`

const mastraToolCallPrompt1 = `
Decide whether the agent chose the right tools for the user's request.

`

const mastraToolCallPrompt2 = `
HOW TO DECIDE:
1. The agent called no tool: judge the request and the reply together. Was the request specific enough to act on? Did the agent rightly ask for details it needed? Would acting without them have given a poor result?
   - Asking follow-up questions about a vague request is appropriate; missingTools stays empty.
   - Giving a generic answer where an available tool would have answered is not appropriate.
   - Ignoring a clear, specific request is not appropriate.
   For instance: "find me a lawyer" answered with questions about the field and the city is a good clarification; a detailed request to draft a document answered with more questions is needless delay; "what does this service cost" answered generically misses a pricing tool.
2. The agent called tools: judge each call against the request as stated.
   - A call is appropriate only when it provides what the user asked for.
   - Being helpful or being about the same subject is not enough.
   - Calls the agent added without being asked are not appropriate.

Evaluate every tool call; when there was none, evaluate whether calling none was right.

Answer with one JSON object:
{"evaluations": [{"toolCalled": "<tool name>", "wasAppropriate": true or false, "reasoning": "<why>"}], "missingTools": ["<a tool that should have been called>"]}
`

const mastraReasonHead = `
Say in ONE sentence why this evaluation got its score.

`

const mastraReasonTail = `
Answer with that single short sentence only.
`

const mastraTrajectoryInstructions = `You evaluate the sequence of actions (tool calls, model steps) an AI agent took to complete a user's request.
Look at every step and at the whole path: was each step needed, did the steps come in a sensible order, and were steps repeated, superfluous or missing?
A good path is complete, efficient and logical. Redundant steps lower its quality even when the final answer is right; a missing essential step is a serious flaw; steps that depend on others must come after them.
Explain your judgment clearly, apply the same standard throughout, and answer with JSON in the requested shape.`

const mastraTrajectoryPrompt1 = `
Decide whether the agent took a suitable sequence of actions for the user's request.

`

const mastraTrajectoryExpectedCriteria = `
WHAT TO CHECK:
1. Presence: were all the expected steps performed?
2. Order: were the steps in a sensible order? (The expected order guides, it does not bind.)
3. Extra steps: were steps taken that the expected trajectory does not need?
4. Missing steps: which expected steps are absent from what the agent did?
5. Execution: was each matching step carried out properly?

For every step the agent took, say whether it matches an expected step, whether it was needed, and whether it came at the right point.
`

const mastraTrajectoryTaskCriteria = `
WHAT TO CHECK (no expected trajectory is given; judge against the task):
1. Completeness: did the agent take every step the request needs?
2. Efficiency: were any steps redundant or unneeded?
3. Order: did the steps respect their dependencies?
4. Fit: was every step suited to the task?
`

const mastraTrajectoryPrompt2 = `
Evaluate each step and the trajectory as a whole, and answer with one JSON object:
{"stepEvaluations": [{"stepName": "<step name>", "wasNecessary": true or false, "wasInOrder": true or false, "reasoning": "<why>"}], "missingSteps": ["<step that should have been taken>"], "extraSteps": ["<step that was not needed>"], "overallAssessment": "<short overall judgment>"}
`
