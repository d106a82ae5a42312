package judges

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/peers"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// AzureToolCallAccuracyName is the registered name of the Azure AI
// Evaluation ToolCallAccuracyEvaluator profile.
const AzureToolCallAccuracyName = "azure_tool_call_accuracy"

func init() { toolcall.Register(AzureToolCallAccuracyName, newAzureToolCallAccuracy) }

const (
	azureNoCalls           = "No tool calls found in response or provided tool_calls."
	azureNoDefinitions     = "Tool definitions must be provided."
	azureMissingDefinition = "Tool definitions for all tool calls must be provided."
	azureInvalidOutput     = "Tool call accuracy evaluator returned invalid output."
)

// azureToolCallAccuracy reproduces Azure AI Evaluation's
// ToolCallAccuracyEvaluator in its 1–5 form: azure-sdk-for-python,
// sdk/evaluation/azure-ai-evaluation/azure/ai/evaluation/_evaluators/
// _tool_call_accuracy/_tool_call_accuracy.py as first rewritten for the 1–5
// scale (result key "tool_call_accurate"; one judge call for all calls;
// reason = chain_of_thought; details per_tool_call_details, excess_tool_calls,
// missing_tool_calls), with its tool_call_accuracy.prompty (json_object,
// temperature 0, max_tokens 3000, top_p 1). We pin that source, not a
// release number: the package release that first shipped it was not
// verified here.
//
// Inputs, as the peer takes them:
//
//	query            the user's request: the recorded request's messages as a list of
//	                 {"role", "content"} dicts, or its text when it is not messages
//	tool_calls       one {"type": "tool_call", "tool_call_id", "name", "arguments",
//	                 "tool_result"} per call ("tool_result" when recorded; a failed call
//	                 with none shows "Error: Function failed.")
//	tool_definitions for each call, its tool's {"name", "description", "parameters"},
//	                 repeated when a tool is called again, as the peer extracts them
//
// Each is written into the prompt as Jinja writes a Python value: its repr().
//
// Checks, before any judge call:
//
//	no tool calls                 not_evaluated, "No tool calls found in response or provided
//	                              tool_calls." (the peer returns a not-applicable result marked
//	                              "pass"; a run with nothing to judge is not a pass here, so
//	                              it is reported as not evaluated with the peer's reason)
//	a call with unknown arguments error (the peer needs every call's arguments)
//	no definitions at all         error, "Tool definitions must be provided."
//	a called tool not defined     error, "Tool definitions for all tool calls must be provided."
//	                              (the peer's first 1–5 version returned these two as
//	                              not-applicable passes; later versions raise; we report an
//	                              error, since the run cannot be judged as configured)
//
// The answer is one JSON object; [ParseAzureAnswer] reads it as the peer
// does: json.loads (no Markdown fence, no text around it), then
// tool_calls_success_level must be truthy and float() of it in [1, 5],
// else an error "Invalid score value: …" (a string "4" reads as 4, true as 1,
// 4.5 is kept). chain_of_thought is the reason; additional_details (or
// details), excess_tool_calls and missing_tool_calls are reported.
//
// Score mapping: Result.Score must lie in [0, 1], so the level maps to
// (level-1)/4 (1 -> 0, 3 -> 0.5, 5 -> 1), and the raw level is kept in
// Details["tool_call_accuracy"]. The threshold option is on the peer's
// scale (default 3, in [1, 5]); the result's threshold is (threshold-1)/4,
// so the outcome is pass iff level >= threshold, as the peer decides it.
// The rule's threshold is not used.
//
// Details: tool_call_accuracy (level), tool_call_accuracy_result
// ("pass"/"fail"), tool_call_accuracy_threshold (peer scale),
// tool_call_accuracy_reason, per_tool_call_details, excess_tool_calls,
// missing_tool_calls, and the judge's usage.
type azureToolCallAccuracy struct {
	judge      toolcall.Completer
	configured []toolcall.ToolDefinition
	threshold  float64 // on the peer's 1..5 scale
}

var (
	_ toolcall.ContextScorer = (*azureToolCallAccuracy)(nil)
	_ toolcall.Deferred      = (*azureToolCallAccuracy)(nil)
)

func newAzureToolCallAccuracy(s toolcall.Settings) (toolcall.Scorer, error) {
	if err := newJudge(AzureToolCallAccuracyName, s); err != nil {
		return nil, err
	}
	r := toolcall.NewOptionReader(AzureToolCallAccuracyName, s.Options)
	a := &azureToolCallAccuracy{judge: s.Judge, configured: s.Tools}
	a.threshold = r.Float("threshold", 3, 1, 5)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *azureToolCallAccuracy) Name() string { return AzureToolCallAccuracyName }

// Deferred marks the scorer as slow (an LLM judge).
func (a *azureToolCallAccuracy) Deferred() {}

func (a *azureToolCallAccuracy) resultThreshold() float64 { return (a.threshold - 1) / 4 }

// Score implements Scorer (no run context: no query, no recorded
// definitions).
func (a *azureToolCallAccuracy) Score(ctx context.Context, calls []toolcall.Call) toolcall.Result {
	return a.ScoreContext(ctx, calls, nil)
}

// ScoreContext implements ContextScorer.
func (a *azureToolCallAccuracy) ScoreContext(ctx context.Context, calls []toolcall.Call, run *toolcall.RunContext) toolcall.Result {
	req, skip, err := a.Request(calls, run)
	if skip != "" {
		return notEvaluated(AzureToolCallAccuracyName, a.resultThreshold(), skip)
	}
	if err != nil {
		return toolcall.ErrorResult(AzureToolCallAccuracyName, a.resultThreshold(), err)
	}
	var usage judgeUsage
	resp, err := askJudge(ctx, a.judge, req, &usage)
	if err != nil {
		return judgeFailure(AzureToolCallAccuracyName, a.resultThreshold(), ctx, err)
	}
	res := a.Map(ParseAzureAnswer(resp.Content))
	usage.record(&res)
	if run != nil && res.Outcome != toolcall.OutcomeError {
		for _, n := range run.Notes {
			res.Explanation += " (" + n + ")"
		}
	}
	return res
}

// Request builds the judge request, or says why the run is not evaluated
// (skip) or cannot be (err).
func (a *azureToolCallAccuracy) Request(calls []toolcall.Call, run *toolcall.RunContext) (_ toolcall.ChatRequest, skip string, _ error) {
	calls = peers.FlattenToolCalls(toolcall.WithArguments(calls))
	if len(calls) == 0 {
		return toolcall.ChatRequest{}, azureNoCalls, nil
	}
	for i := range calls {
		if calls[i].ArgsUnknown {
			note := ""
			if calls[i].ArgsNote != "" {
				note = " (" + calls[i].ArgsNote + ")"
			}
			return toolcall.ChatRequest{}, "", fmt.Errorf("%s: tool call %d (%s) has no recorded arguments%s; the evaluator needs every call's arguments", AzureToolCallAccuracyName, i+1, calls[i].Name, note)
		}
	}
	defs := judgeDefinitions(a.configured, run)
	if defs.Len() == 0 {
		return toolcall.ChatRequest{}, "", fmt.Errorf("%s: %s", AzureToolCallAccuracyName, azureNoDefinitions)
	}
	var toolCalls, needed []jsonv.Value
	for i := range calls {
		c := &calls[i]
		d, ok := defs.Get(c.Name)
		if !ok {
			return toolcall.ChatRequest{}, "", fmt.Errorf("%s: %s (no definition of %q)", AzureToolCallAccuracyName, azureMissingDefinition, c.Name)
		}
		args := c.Args
		if args.IsUndefined() {
			args = jsonv.Object()
		}
		members := []jsonv.Member{
			{Key: "type", Value: jsonv.String("tool_call")},
			{Key: "tool_call_id", Value: jsonv.String(c.ID)},
			{Key: "name", Value: jsonv.String(c.Name)},
			{Key: "arguments", Value: args},
		}
		if res := callResult(c); !res.IsUndefined() {
			members = append(members, jsonv.Member{Key: "tool_result", Value: res})
		}
		toolCalls = append(toolCalls, jsonv.Object(members...))
		params := d.Parameters
		if params.IsUndefined() {
			params = jsonv.Object()
		}
		needed = append(needed, jsonv.Object(
			jsonv.Member{Key: "name", Value: jsonv.String(d.Name)},
			jsonv.Member{Key: "description", Value: jsonv.String(d.Description)},
			jsonv.Member{Key: "parameters", Value: params},
		))
	}
	user := azurePromptHead + "CONVERSATION : " + azureQuery(run) + "\nTOOL CALLS: " + peers.PyRepr(jsonv.Array(toolCalls...)) +
		"\nTOOL DEFINITIONS: " + peers.PyRepr(jsonv.Array(needed...)) + "\n" + azurePromptTail
	return toolcall.ChatRequest{
		Messages:    []toolcall.ChatMessage{{Role: "system", Content: azureSystemPrompt}, {Role: "user", Content: user}},
		Temperature: ptrFloat(0),
		TopP:        ptrFloat(1),
		MaxTokens:   3000,
		JSONObject:  true,
	}, "", nil
}

// azureQuery renders the query: a list of {"role", "content"} dicts when the
// request was recorded as messages, else its text (a str query renders as
// itself); "None" when nothing was recorded, as Jinja renders a None.
func azureQuery(run *toolcall.RunContext) string {
	if run == nil || strings.TrimSpace(run.Request) == "" {
		return "None"
	}
	msgs := transcript(run.Request, "user")
	if len(msgs) == 1 && msgs[0].Role == "user" && len(msgs[0].Parts) == 1 && msgs[0].Parts[0] == run.Request {
		return run.Request
	}
	items := make([]jsonv.Value, 0, len(msgs))
	for _, m := range msgs {
		items = append(items, jsonv.Object(jsonv.Member{Key: "role", Value: jsonv.String(m.Role)}, jsonv.Member{Key: "content", Value: jsonv.String(m.Text())}))
	}
	return peers.PyRepr(jsonv.Array(items...))
}

// AzureAnswer is a judge answer read as the peer reads it.
type AzureAnswer struct {
	// Level is the tool_calls_success_level; valid only when Err is nil.
	Level float64
	// ChainOfThought is the reason.
	ChainOfThought string
	// Details (additional_details, or details), Excess and Missing are the
	// answer's objects (undefined when absent).
	Details, Excess, Missing jsonv.Value
	// Err says why the answer cannot be used.
	Err error
}

// ParseAzureAnswer reads a judge answer for azure_tool_call_accuracy.
func ParseAzureAnswer(content string) AzureAnswer {
	var a AzureAnswer
	v, err := jsonv.Parse(content)
	if err != nil {
		a.Err = fmt.Errorf("the judge's answer is not JSON (%v)", err)
		return a
	}
	if v.Kind() != jsonv.KindObject {
		a.Err = errors.New(azureInvalidOutput)
		return a
	}
	raw, _ := v.Get("tool_calls_success_level")
	level, ok := pyFloatScore(raw)
	if !ok || level < 1 || level > 5 {
		a.Err = fmt.Errorf("Invalid score value: %s. Expected a number in range [1, 5].", peers.PyStr(raw))
		return a
	}
	a.Level = level
	if c, ok := v.Get("chain_of_thought"); ok {
		a.ChainOfThought = peers.PyStr(c)
		if c.IsNullish() {
			a.ChainOfThought = ""
		}
	}
	a.Details, _ = v.Get("additional_details")
	if a.Details.IsUndefined() {
		a.Details, _ = v.Get("details")
	}
	a.Excess, _ = v.Get("excess_tool_calls")
	a.Missing, _ = v.Get("missing_tool_calls")
	return a
}

// pyFloatScore is the peer's check: `not score` fails (absent, null, 0,
// false, "", [], {}), then float(score): numbers, booleans (True is 1.0)
// and numeric strings read; lists and objects do not.
func pyFloatScore(v jsonv.Value) (float64, bool) {
	switch v.Kind() {
	case jsonv.KindNumber:
		f := v.NumberValue()
		return f, f != 0
	case jsonv.KindBool:
		if v.BoolValue() {
			return 1, true
		}
		return 0, false
	case jsonv.KindString:
		s := strings.TrimSpace(v.StringValue())
		if s == "" {
			return 0, false
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false
		}
		return f, !math.IsNaN(f)
	}
	return 0, false
}

// Map maps a parsed answer to a result.
func (a *azureToolCallAccuracy) Map(ans AzureAnswer) toolcall.Result {
	th := a.resultThreshold()
	if ans.Err != nil {
		return toolcall.ErrorResult(AzureToolCallAccuracyName, th, fmt.Errorf("%s: %w", AzureToolCallAccuracyName, ans.Err))
	}
	res := toolcall.Result{Scorer: AzureToolCallAccuracyName, Threshold: th, Score: (ans.Level - 1) / 4}
	res.Decide()
	verdict := "fail"
	if ans.Level >= a.threshold {
		verdict = "pass"
		res.Outcome = toolcall.OutcomePass
	} else {
		res.Outcome = toolcall.OutcomeFail
	}
	res.Details = map[string]any{
		"tool_call_accuracy":           ans.Level,
		"tool_call_accuracy_result":    verdict,
		"tool_call_accuracy_threshold": a.threshold,
		"tool_call_accuracy_reason":    ans.ChainOfThought,
		"per_tool_call_details":        objectOrEmpty(ans.Details),
		"excess_tool_calls":            objectOrEmpty(ans.Excess),
		"missing_tool_calls":           objectOrEmpty(ans.Missing),
	}
	expl := fmt.Sprintf("level %s of 5", jsonv.FormatJSNumber(ans.Level))
	if ans.ChainOfThought != "" {
		expl += ": " + ans.ChainOfThought
	}
	var counts []string
	if n, ok := azureTotal(ans.Excess); ok {
		counts = append(counts, "excess tool calls: "+n)
	}
	if n, ok := azureTotal(ans.Missing); ok {
		counts = append(counts, "missing tool calls: "+n)
	}
	if len(counts) > 0 {
		expl += " (" + strings.Join(counts, "; ") + ")"
	}
	res.Explanation = expl
	return res
}

// objectOrEmpty returns a JSON value as plain Go data, {} when absent (the
// peer's default).
func objectOrEmpty(v jsonv.Value) any {
	if v.IsUndefined() {
		return map[string]any{}
	}
	return v.Interface()
}

func azureTotal(v jsonv.Value) (string, bool) {
	t, ok := v.Get("total")
	if !ok || t.IsNullish() {
		return "", false
	}
	return peers.PyStr(t), true
}

// The prompt, in our own words for the peer's rubric (levels 1–5, the
// pass/fail split, the JSON keys of the answer).
const azureSystemPrompt = `You judge how accurately an AI agent used its tools to answer a user.
You get the CONVERSATION, the TOOL CALLS the agent made (with their results) and the TOOL DEFINITIONS of the tools it called.
Be exact: pick the level whose description fits the calls, and answer with one JSON object only.`

const azurePromptHead = `# What to judge
Tool call accuracy: are the calls relevant to the user's request at this point of the conversation, do their parameters match the definitions, and are the parameter values taken from the conversation? Look at relevance, parameters, parameter values, how useful each result is, and whether each call comes at a sensible moment.

# Levels
1 (fail): the calls have nothing to do with the request, so the answer is irrelevant or useless.
  Example: asked for popular hotels in a city, the agent searches local files.
2 (fail): the calls relate to the request but the agent could not reach an answer, because a tool failed and no retry succeeded, or a parameter was wrong, or calls that were needed were not made.
  Examples: asked for the coordinates of one city, the agent passes another city; or the right call fails and is not retried successfully; or only one of three needed calls is made.
3 (pass): the calls are relevant and lead to a correct answer, but some calls were excessive or unnecessary.
  Example: the same call with the same parameters is repeated although one result was enough.
4 (pass): the right tools were called with the right parameters (from the request or the earlier conversation); a tool failed once, and a retry succeeded.
5 (pass): the right tools were called with the right parameters, nothing unnecessary was called, no tool failed, and the agent reached an answer without trouble.
  Example: to give the distance between two places, the agent gets both coordinates, then computes the distance, with correct arguments throughout.

Levels 1 and 2 fail; levels 3, 4 and 5 pass. If the agent could not reach an answer to the request, the level cannot be a passing one, and the other way round.
Do not judge whether a tool's result is correct: a tool that did not fail returned a correct result.

# Data
`

const azurePromptTail = `
# Answer
Answer with one JSON object with these keys:
- "chain_of_thought": your reasoning toward the level, as a string starting with "Let's think step by step:".
- "tool_calls_success_level": the level, an integer from 1 to 5.
- "tool_calls_success_result": "pass" for levels 3 to 5, "fail" for levels 1 and 2.
- "additional_details": an object with "tool_calls_made_by_agent" (how many calls), "correct_tool_calls_made_by_agent" (how many were correct) and "details", a list with one object per tool: "tool_name", "total_calls_required", "correct_calls_made_by_agent", "correct_tool_percentage" (0.0 to 1.0), "tool_call_errors", "tool_success_result" ("pass" or "fail").
- "excess_tool_calls": an object with "total" (how many calls were unnecessary) and "details", a list of {"tool_name", "excess_count"}.
- "missing_tool_calls": an object with "total" (how many needed calls were not made) and "details", a list of {"tool_name", "missing_count"}.
`
