package judges

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/peers"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// MEAIToolCallAccuracyName is the registered name of the
// Microsoft.Extensions.AI.Evaluation ToolCallAccuracyEvaluator profile.
const MEAIToolCallAccuracyName = "meai_tool_call_accuracy"

func init() { toolcall.Register(MEAIToolCallAccuracyName, newMEAIToolCallAccuracy) }

// The peer's diagnostics for the runs it declines to judge, in the order it
// checks them.
const (
	meaiNoMessages    = "The conversation history supplied for evaluation did not include any messages."
	meaiNoCalls       = "The modelResponse supplied for evaluation did not contain any tool calls (i.e., FunctionCallContents)."
	meaiNoDefinitions = "Supplied ToolCallAccuracyEvaluatorContext did not contain any ToolDefinitions."
	meaiUnknownTool   = "The modelResponse supplied for evaluation contained calls to tools that were not included in the supplied ToolCallAccuracyEvaluatorContext."
	meaiNotTrue       = "Tool Call Accuracy is not True."
)

// meaiToolCallAccuracy reproduces Microsoft.Extensions.AI.Evaluation.Quality
// ToolCallAccuracyEvaluator ([Experimental("AIEVAL001")], dotnet/extensions
// at e658c13e, the version whose checks run in the order below), an LLM judge
// that answers whether the run's tool calls are relevant and take their
// parameter values from the conversation.
//
// Checks, in the peer's order; each gives not_evaluated with the peer's
// diagnostic and no judge call:
//
//	no conversation messages  the run recorded no request (RunContext.Request blank, or no context)
//	no tool calls             the run made no tool call
//	no tool definitions       neither the rule nor the run has a definition
//	unknown tool              a call names a tool that has no definition
//
// One judge call: temperature 0, top_p 1, max tokens 800, a text answer.
// The prompt (our own words for the peer's rubric: 0 irrelevant, or values
// not present in or inferable from the conversation, or parameters not in
// the definition; 1 relevant, values from the conversation, parameters
// defined) shows the data as the peer renders it:
//
//	CONVERSATION     the request's messages, each "[role] text\n" (messages with no text
//	                 skipped), as ChatMessage.RenderText does; the peer renders only the
//	                 conversation history, so the final response text is not shown
//	TOOL CALLS       a JSON array, System.Text.Json's default escaping: each turn's calls
//	                 {"callId","name","arguments"} then their results {"callId","result"},
//	                 as FunctionCallContent and FunctionResultContent serialize (a failed
//	                 call with no recorded result shows "Error: Function failed.", what
//	                 the function-invoking client reports; unknown arguments are omitted)
//	TOOL DEFINITION  [{"name","description","functionSchema"}] ({} when no schema)
//
// The answer holds <S0>thought chain</S0>, <S1>explanation</S1> and
// <S2>score</S2>; [ParseMEAIAnswer] reads it as TryParseEvaluationResponseWithTags
// does (regex, dot matches newline, content trimmed, empty = absent). The
// score is bool.TryParse (true/false, any case) or the integer 0 or 1.
//
// Mapping: true -> score 1, pass; false -> score 0, fail, "Tool Call Accuracy
// is not True."; no score or an unreadable one -> the peer's Inconclusive,
// which it also marks failed: fail with score 0 and the parse diagnostic.
// The peer has no threshold (the result's threshold is 1).
//
// Details: value (true, false or nil), rating ("exceptional",
// "unacceptable", "inconclusive"), reason (S1), chain_of_thought (S0),
// diagnostic, and the judge's usage (input_tokens, output_tokens,
// judge_model).
type meaiToolCallAccuracy struct {
	judge      toolcall.Completer
	configured []toolcall.ToolDefinition
}

var (
	_ toolcall.ContextScorer = (*meaiToolCallAccuracy)(nil)
	_ toolcall.Deferred      = (*meaiToolCallAccuracy)(nil)
)

func newMEAIToolCallAccuracy(s toolcall.Settings) (toolcall.Scorer, error) {
	if err := newJudge(MEAIToolCallAccuracyName, s); err != nil {
		return nil, err
	}
	r := toolcall.NewOptionReader(MEAIToolCallAccuracyName, s.Options)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return &meaiToolCallAccuracy{judge: s.Judge, configured: s.Tools}, nil
}

func (m *meaiToolCallAccuracy) Name() string { return MEAIToolCallAccuracyName }

// Deferred marks the scorer as slow (an LLM judge).
func (m *meaiToolCallAccuracy) Deferred() {}

// Score judges calls with no run context: the peer has no conversation, so
// the run is not evaluated.
func (m *meaiToolCallAccuracy) Score(ctx context.Context, calls []toolcall.Call) toolcall.Result {
	return m.ScoreContext(ctx, calls, nil)
}

// ScoreContext implements ContextScorer.
func (m *meaiToolCallAccuracy) ScoreContext(ctx context.Context, calls []toolcall.Call, run *toolcall.RunContext) toolcall.Result {
	req, why := m.Request(calls, run)
	if why != "" {
		return notEvaluated(MEAIToolCallAccuracyName, 1, why)
	}
	var usage judgeUsage
	resp, err := askJudge(ctx, m.judge, req, &usage)
	if err != nil {
		return judgeFailure(MEAIToolCallAccuracyName, 1, ctx, err)
	}
	res := MapMEAIAnswer(ParseMEAIAnswer(resp.Content))
	usage.record(&res)
	if run != nil {
		for _, n := range run.Notes {
			res.Explanation += " (" + n + ")"
		}
	}
	return res
}

// Request builds the judge request for a run, or says why the peer declines
// to judge it.
func (m *meaiToolCallAccuracy) Request(calls []toolcall.Call, run *toolcall.RunContext) (toolcall.ChatRequest, string) {
	if run == nil || strings.TrimSpace(run.Request) == "" {
		return toolcall.ChatRequest{}, meaiNoMessages
	}
	calls = peers.FlattenToolCalls(toolcall.WithArguments(calls))
	if len(calls) == 0 {
		return toolcall.ChatRequest{}, meaiNoCalls
	}
	defs := judgeDefinitions(m.configured, run)
	if defs.Len() == 0 {
		return toolcall.ChatRequest{}, meaiNoDefinitions
	}
	for i := range calls {
		if _, ok := defs.Get(calls[i].Name); !ok {
			return toolcall.ChatRequest{}, meaiUnknownTool
		}
	}
	var conv strings.Builder
	for _, msg := range transcript(run.Request, "user") {
		if len(msg.Parts) == 0 {
			continue
		}
		conv.WriteString("[" + msg.Role + "] " + msg.Text() + "\n")
	}
	user := meaiPromptHead + "CONVERSATION : " + conv.String() + "\nTOOL CALLS: " + meaiRenderCalls(calls) +
		"\nTOOL DEFINITION: " + meaiRenderDefinitions(defs) + "\n" + meaiPromptTail
	return toolcall.ChatRequest{
		Messages:    []toolcall.ChatMessage{{Role: "system", Content: meaiSystemPrompt}, {Role: "user", Content: user}},
		Temperature: ptrFloat(0),
		TopP:        ptrFloat(1),
		MaxTokens:   800,
	}, ""
}

// meaiRenderCalls writes the calls and results as the peer's
// RenderToolCallsAndResultsAsJson does: the response's contents in order,
// so each model turn's calls come before that turn's results.
func meaiRenderCalls(calls []toolcall.Call) string {
	var items []jsonv.Value
	flush := func(group []toolcall.Call) {
		for i := range group {
			c := &group[i]
			members := []jsonv.Member{{Key: "callId", Value: jsonv.String(c.ID)}, {Key: "name", Value: jsonv.String(c.Name)}}
			if !c.ArgsUnknown && !c.Args.IsNullish() {
				members = append(members, jsonv.Member{Key: "arguments", Value: c.Args})
			}
			items = append(items, jsonv.Object(members...))
		}
		for i := range group {
			c := &group[i]
			res := callResult(c)
			if res.IsUndefined() {
				continue
			}
			members := []jsonv.Member{{Key: "callId", Value: jsonv.String(c.ID)}}
			if !res.IsNullish() {
				members = append(members, jsonv.Member{Key: "result", Value: res})
			}
			items = append(items, jsonv.Object(members...))
		}
	}
	start := 0
	for i := 1; i <= len(calls); i++ {
		if i == len(calls) || calls[i].Turn == 0 || calls[i].Turn != calls[start].Turn {
			flush(calls[start:i])
			start = i
		}
	}
	return dotnetJSON(jsonv.Array(items...))
}

// meaiRenderDefinitions writes the definitions as the peer's
// AIToolExtensions.RenderAsJson does for AIFunctions.
func meaiRenderDefinitions(defs *toolcall.ToolDefinitions) string {
	items := make([]jsonv.Value, 0, defs.Len())
	for _, d := range defs.All() {
		schema := d.Parameters
		if schema.IsUndefined() {
			schema = jsonv.Object()
		}
		items = append(items, jsonv.Object(
			jsonv.Member{Key: "name", Value: jsonv.String(d.Name)},
			jsonv.Member{Key: "description", Value: jsonv.String(d.Description)},
			jsonv.Member{Key: "functionSchema", Value: schema},
		))
	}
	return dotnetJSON(jsonv.Array(items...))
}

// MEAIAnswer is a judge answer read as the peer reads it.
type MEAIAnswer struct {
	// ChainOfThought (S0) and Reason (S1) are "" when absent.
	ChainOfThought, Reason string
	// Value is the score: nil when it is missing or unreadable.
	Value *bool
	// Diagnostic says why Value is nil.
	Diagnostic string
}

var meaiTags = [3]*regexp.Regexp{
	regexp.MustCompile(`(?s)<S0>(.*?)</S0>`),
	regexp.MustCompile(`(?s)<S1>(.*?)</S1>`),
	regexp.MustCompile(`(?s)<S2>(.*?)</S2>`),
}

// meaiTag returns a tag's trimmed content; ok is false when the tag is
// missing or empty.
func meaiTag(text string, i int) (string, bool) {
	m := meaiTags[i].FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	v := strings.TrimSpace(m[1])
	return v, v != ""
}

// ParseMEAIAnswer reads a judge answer for meai_tool_call_accuracy.
func ParseMEAIAnswer(content string) MEAIAnswer {
	text := strings.TrimSpace(content)
	var a MEAIAnswer
	a.ChainOfThought, _ = meaiTag(text, 0)
	a.Reason, _ = meaiTag(text, 1)
	valueText, ok := meaiTag(text, 2)
	if !ok {
		a.Diagnostic = "Failed to parse score for 'Tool Call Accuracy' from the following evaluation response:\n" + text
		return a
	}
	if b, ok := dotnetBoolParse(valueText); ok {
		a.Value = &b
		return a
	}
	if n, err := strconv.Atoi(valueText); err == nil && (n == 0 || n == 1) {
		b := n == 1
		a.Value = &b
		return a
	}
	a.Diagnostic = "Failed to parse boolean score for 'Tool Call Accuracy' from the following text:\n" + valueText
	return a
}

// dotnetBoolParse is bool.TryParse: "true" or "false" in any case, with
// surrounding white space.
func dotnetBoolParse(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// MapMEAIAnswer maps a parsed answer to a result as the peer interprets its
// boolean metric.
func MapMEAIAnswer(a MEAIAnswer) toolcall.Result {
	res := toolcall.Result{Scorer: MEAIToolCallAccuracyName, Threshold: 1, Details: map[string]any{
		"reason":           a.Reason,
		"chain_of_thought": a.ChainOfThought,
	}}
	switch {
	case a.Value == nil:
		res.Details["value"] = nil
		res.Details["rating"] = "inconclusive"
		res.Details["diagnostic"] = a.Diagnostic
		res.Outcome = toolcall.OutcomeFail
		res.Explanation = "inconclusive: " + a.Diagnostic + "; " + meaiNotTrue
		return res
	case *a.Value:
		res.Details["value"] = true
		res.Details["rating"] = "exceptional"
		res.Score = 1
	default:
		res.Details["value"] = false
		res.Details["rating"] = "unacceptable"
	}
	res.Decide()
	switch {
	case res.Outcome == toolcall.OutcomePass && a.Reason != "":
		res.Explanation = a.Reason
	case res.Outcome == toolcall.OutcomePass:
		res.Explanation = "Tool Call Accuracy is True."
	case a.Reason != "":
		res.Explanation = meaiNotTrue + " " + a.Reason
	default:
		res.Explanation = meaiNotTrue
	}
	return res
}

// The prompt, in our own words for the peer's rubric. The data sections and
// the answer tags are the peer's.
const meaiSystemPrompt = `You judge the tool calls an AI assistant made during a conversation.
For every call, decide whether it fits the conversation and whether its parameters are right: each parameter must exist in the tool's definition, and each value must be stated in the conversation or follow from it.
You are given the CONVERSATION, the TOOL CALLS with their results, and the TOOL DEFINITION of every tool.`

const meaiPromptHead = `# What to judge
Tool call accuracy: do the calls help with what the user needs at this point of the conversation, and were their parameter values taken from the conversation rather than made up?
Weigh these points:
1. Fit: the call belongs to the topic and the current step of the conversation.
2. Parameters: every parameter is defined for the tool and matters for the user's latest request.
3. Values: every value is stated in the conversation or can be inferred from it.
4. Use: what the call returns helps answer the user.
5. Timing: the call makes sense at this moment of the conversation.

# Scale
0: a call does not help with the user's need, or a value is neither stated in nor inferable from the conversation, or a parameter is not in the definition.
1: the calls directly help with the user's need, every value comes from the conversation, and every parameter is in the definition.

# Data
`

const meaiPromptTail = `
# Answer
Reason briefly step by step (begin with "Let's think step by step:"), then explain your decision in one short sentence, then give the score, 0 or 1.
Put the three parts in these tags, in this order: <S0>your step-by-step reasoning</S0>, <S1>your explanation</S1>, <S2>0 or 1</S2>.
`
