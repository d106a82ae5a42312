package judges

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/peers"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

func init() { toolcall.Register(peers.DeepEvalLLMName, newDeepEvalLLM) }

const deepEvalNoTools = "No available tools were provided to assess tool selection criteria"

// deepevalLLM reproduces DeepEval's ToolCorrectnessMetric with
// available_tools set (deepeval/metrics/tool_correctness at git a2e0d4cf,
// 4.1.10): the deterministic tool-calling score of the deepeval profile
// (every option and quirk documented on the deepeval type) combined with an
// LLM judge's tool-selection score.
//
// It is a profile of its own rather than the deepeval profile with a
// non-empty available_tools, so that whether a scorer calls a judge (and is
// Deferred) follows from its name; deepeval rejects available_tools and
// points here.
//
// Options: those of deepeval, plus available_tools: a list of tool names or
// of {name, description} objects (DeepEval's ToolCall list). When it is
// absent or empty, the rule's tools and the run's recorded definitions are
// the available tools. With none at all, DeepEval skips the judge: the
// selection score is 1 with the reason "No available tools were provided to
// assess tool selection criteria".
//
// Judge call (temperature 0, a JSON object answer): the user's input (the
// first user message of the recorded request; a run with no recorded
// request is DeepEval's MissingTestCaseParamsError, an error result), the
// available tools and the calls made, each list written as DeepEval's
// print_tools_called writes ToolCalls (json.dumps of each with indent 4,
// fields name, type, description, reasoning, output, input_parameters,
// indented two spaces inside "[\n … \n]"). The rubric's scores are 1.0
// (all right, nothing better omitted), 0.75 (mostly right, minor omission
// or excess), 0.5 (mixed), 0.25 (poor, better tools ignored) and 0.0
// (misaligned). The answer {"score", "reason"} is read by
// [ParseDeepEvalSelectionAnswer] as trimAndLoadJson and pydantic do: the
// text from the first "{" to the last "}" (a missing final "}" added), a
// trailing comma before "]" or "}" forgiven on a second try; score must be
// a number (or numeric string, or boolean), reason a string. Scores off the
// rubric's five values are kept as given.
//
// Score: min(tool-calling score, selection score) (the tool-calling score is
// already zeroed below the threshold under strict_mode); strict_mode then
// zeroes a final score below the threshold. success = score >= threshold.
// The reason is DeepEval's
// "[\n\t Tool Calling Reason: …\n\t Tool Selection Reason: …\n]\n".
//
// Details: those of deepeval, plus tool_calling_score,
// tool_selection_score, tool_selection_reason and the judge's usage.
type deepevalLLM struct {
	det        *peers.Deepeval
	judge      toolcall.Completer
	available  []deToolInfo
	configured []toolcall.ToolDefinition
}

// deToolInfo is an available tool (a DeepEval ToolCall with a name and a
// description).
type deToolInfo struct{ name, description string }

var (
	_ toolcall.ContextScorer = (*deepevalLLM)(nil)
	_ toolcall.Deferred      = (*deepevalLLM)(nil)
)

func newDeepEvalLLM(s toolcall.Settings) (toolcall.Scorer, error) {
	if err := newJudge(peers.DeepEvalLLMName, s); err != nil {
		return nil, err
	}
	opts := make(map[string]any, len(s.Options))
	var tools any
	for k, v := range s.Options {
		if k == "available_tools" {
			tools = v
			continue
		}
		opts[k] = v
	}
	d := &deepevalLLM{judge: s.Judge, configured: s.Tools}
	if tools != nil {
		r := toolcall.NewOptionReader(peers.DeepEvalLLMName, map[string]any{"available_tools": tools})
		if v, ok := r.Value("available_tools"); ok {
			if v.Kind() != jsonv.KindArray {
				r.Fail("available_tools", "expects a list of tool names or {name, description} objects, got %s", v.Kind())
			}
			for i := 0; i < v.Len(); i++ {
				item := v.Index(i)
				switch item.Kind() {
				case jsonv.KindString:
					d.available = append(d.available, deToolInfo{name: item.StringValue()})
				case jsonv.KindObject:
					n, _ := item.Get("name")
					desc, _ := item.Get("description")
					if n.Kind() != jsonv.KindString || n.StringValue() == "" {
						r.Fail("available_tools", "[%d]: expects a name", i)
						continue
					}
					d.available = append(d.available, deToolInfo{name: n.StringValue(), description: desc.StringValue()})
				default:
					r.Fail("available_tools", "[%d]: expects a tool name or a {name, description} object, got %s", i, item.Kind())
				}
			}
		}
		if err := r.Err(); err != nil {
			return nil, err
		}
	}
	s.Options = opts
	// The judge's details combine the deterministic metric's: it builds
	// them whatever OmitDetails says (a judge's cost is its model's).
	s.OmitDetails = false
	det, err := peers.NewDeepEval(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", peers.DeepEvalLLMName, err)
	}
	d.det = det.(*peers.Deepeval)
	return d, nil
}

func (d *deepevalLLM) Name() string { return peers.DeepEvalLLMName }

// Deferred marks the scorer as slow (an LLM judge).
func (d *deepevalLLM) Deferred() {}

// Score implements Scorer, with no run context.
func (d *deepevalLLM) Score(ctx context.Context, calls []toolcall.Call) toolcall.Result {
	return d.ScoreContext(ctx, calls, nil)
}

// availableTools returns the tools the judge is shown.
func (d *deepevalLLM) availableTools(run *toolcall.RunContext) []deToolInfo {
	if len(d.available) > 0 {
		return d.available
	}
	defs := judgeDefinitions(d.configured, run)
	out := make([]deToolInfo, 0, defs.Len())
	for _, def := range defs.All() {
		out = append(out, deToolInfo{name: def.Name, description: def.Description})
	}
	return out
}

// Request builds the tool-selection request; it is false when DeepEval
// would not ask (no available tools).
func (d *deepevalLLM) Request(calls []toolcall.Call, run *toolcall.RunContext) (toolcall.ChatRequest, bool) {
	tools := d.availableTools(run)
	if len(tools) == 0 {
		return toolcall.ChatRequest{}, false
	}
	avail := make([]jsonv.Value, len(tools))
	for i, t := range tools {
		desc := jsonv.Null()
		if t.description != "" {
			desc = jsonv.String(t.description)
		}
		avail[i] = deToolCallValue(t.name, false, desc, jsonv.Null(), jsonv.Null())
	}
	flat := peers.FlattenToolCalls(toolcall.WithArguments(calls))
	called := make([]jsonv.Value, len(flat))
	for i := range flat {
		c := &flat[i]
		params, output := c.Args, c.Result
		if c.ArgsUnknown || params.IsUndefined() {
			params = jsonv.Null()
		}
		if output.IsUndefined() {
			output = jsonv.Null()
		}
		called[i] = deToolCallValue(c.Name, strings.EqualFold(c.Type, "mcp"), jsonv.Null(), output, params)
	}
	user := deepEvalPromptHead + "USER INPUT:\n" + userRequestText(run) + "\n\nALL AVAILABLE TOOLS:\n" + dePrintToolsCalled(avail) +
		"\n\nTOOL CALLS MADE BY AGENT:\n" + dePrintToolsCalled(called) + "\n\n" + deepEvalPromptTail
	return toolcall.ChatRequest{
		Messages:    []toolcall.ChatMessage{{Role: "user", Content: user}},
		Temperature: ptrFloat(0),
		JSONObject:  true,
	}, true
}

// deToolCallValue is a ToolCall as vars() lists its fields.
func deToolCallValue(name string, mcp bool, description, output, params jsonv.Value) jsonv.Value {
	return jsonv.Object(
		jsonv.Member{Key: "name", Value: jsonv.String(name)},
		jsonv.Member{Key: "type", Value: jsonv.String(peers.DeTypeName(mcp))},
		jsonv.Member{Key: "description", Value: description},
		jsonv.Member{Key: "reasoning", Value: jsonv.Null()},
		jsonv.Member{Key: "output", Value: output},
		jsonv.Member{Key: "input_parameters", Value: params},
	)
}

// dePrintToolsCalled is DeepEval's print_tools_called ("" for no tools).
func dePrintToolsCalled(items []jsonv.Value) string {
	if len(items) == 0 {
		return ""
	}
	var sb strings.Builder
	sb.WriteString("[\n")
	for i, it := range items {
		lines := strings.Split(peers.PyJSONDumps(it, 4), "\n")
		for j, l := range lines {
			if j > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString("  " + l)
		}
		if i < len(items)-1 {
			sb.WriteString(",\n")
		} else {
			sb.WriteString("\n")
		}
	}
	sb.WriteString("]")
	return sb.String()
}

// ScoreContext implements ContextScorer.
func (d *deepevalLLM) ScoreContext(ctx context.Context, calls []toolcall.Call, run *toolcall.RunContext) toolcall.Result {
	th := d.det.Pass
	if run == nil || strings.TrimSpace(run.Request) == "" {
		return toolcall.ErrorResult(peers.DeepEvalLLMName, th, fmt.Errorf("%s: 'input' cannot be None for the 'Tool Correctness' metric (MissingTestCaseParamsError): no request was recorded for the run", peers.DeepEvalLLMName))
	}
	var det toolcall.Result
	callingReason := d.det.ScoreWithReason(calls, &det)
	if det.Outcome == toolcall.OutcomeError {
		det.Scorer = peers.DeepEvalLLMName
		return det
	}
	sel := DeepEvalSelection{Score: 1, Reason: deepEvalNoTools}
	var usage judgeUsage
	if req, ask := d.Request(calls, run); ask {
		resp, err := askJudge(ctx, d.judge, req, &usage)
		if err != nil {
			return judgeFailure(peers.DeepEvalLLMName, th, ctx, err)
		}
		sel = ParseDeepEvalSelectionAnswer(resp.Content)
		if sel.Err != nil {
			res := toolcall.ErrorResult(peers.DeepEvalLLMName, th, fmt.Errorf("%s: %w", peers.DeepEvalLLMName, sel.Err))
			usage.record(&res)
			return res
		}
	}
	res := d.Combine(det, callingReason, sel)
	usage.record(&res)
	return res
}

// Combine is DeepEval's final step: min of the tool-calling result det (as
// the deepeval profile computed it) and the selection score, strict_mode,
// success, and the wrapped reason.
func (d *deepevalLLM) Combine(det toolcall.Result, callingReason string, sel DeepEvalSelection) toolcall.Result {
	th := d.det.Threshold
	score := min(det.Score, sel.Score)
	if d.det.Strict && score < th {
		score = 0
	}
	res := det
	res.Scorer = peers.DeepEvalLLMName
	res.Score = score
	res.Details = map[string]any{}
	for k, v := range det.Details {
		res.Details[k] = v
	}
	reason := "[\n\t Tool Calling Reason: " + callingReason + "\n\t Tool Selection Reason: " + sel.Reason + "\n]\n"
	var success any = score >= th
	if d.det.NoThreshold {
		success = nil
	}
	res.Details["success"] = success
	res.Details["reason"] = reason
	res.Details["tool_calling_score"] = det.Score
	res.Details["tool_selection_score"] = sel.Score
	res.Details["tool_selection_reason"] = sel.Reason
	res.Decide()
	res.Explanation = fmt.Sprintf("%s: tool calling %s: %s; tool selection %s: %s", toolcall.FormatScore(res.Score), toolcall.FormatScore(det.Score), callingReason, toolcall.FormatScore(sel.Score), sel.Reason)
	return res
}

// DeepEvalSelection is a tool-selection answer read as DeepEval reads it.
type DeepEvalSelection struct {
	Score  float64
	Reason string
	Err    error
}

var deTrailingComma = regexp.MustCompile(`,\s*([\]}])`)

const deInvalidJSON = "Evaluation LLM outputted an invalid JSON. Please use a better evaluation model."

// ParseDeepEvalSelectionAnswer reads a judge answer for deepeval_llm.
func ParseDeepEvalSelectionAnswer(content string) DeepEvalSelection {
	start := strings.IndexByte(content, '{')
	end := strings.LastIndexByte(content, '}') + 1
	if end == 0 && start != -1 {
		content += "}"
		end = len(content)
	}
	text := ""
	if start != -1 && end != 0 && start < end {
		text = content[start:end]
	}
	v, err := jsonv.Parse(text)
	if err != nil {
		if v, err = jsonv.Parse(deTrailingComma.ReplaceAllString(text, "$1")); err != nil {
			return DeepEvalSelection{Err: errors.New(deInvalidJSON)}
		}
	}
	if v.Kind() != jsonv.KindObject {
		return DeepEvalSelection{Err: fmt.Errorf("ToolSelectionScore: expected an object, got %s", v.Kind())}
	}
	var sel DeepEvalSelection
	raw, ok := v.Get("score")
	switch {
	case !ok:
		sel.Err = errors.New("ToolSelectionScore: score: field required")
	case raw.Kind() == jsonv.KindNumber:
		sel.Score = raw.NumberValue()
	case raw.Kind() == jsonv.KindBool:
		if raw.BoolValue() {
			sel.Score = 1
		}
	case raw.Kind() == jsonv.KindString:
		f, err := strconv.ParseFloat(strings.TrimSpace(raw.StringValue()), 64)
		if err != nil {
			sel.Err = fmt.Errorf("ToolSelectionScore: score: input should be a valid number, got %q", raw.StringValue())
		}
		sel.Score = f
	default:
		sel.Err = fmt.Errorf("ToolSelectionScore: score: input should be a valid number, got %s", raw.Kind())
	}
	if sel.Err != nil {
		return sel
	}
	reason, ok := v.Get("reason")
	switch {
	case !ok:
		sel.Err = errors.New("ToolSelectionScore: reason: field required")
	case reason.Kind() != jsonv.KindString:
		sel.Err = fmt.Errorf("ToolSelectionScore: reason: input should be a valid string, got %s", reason.Kind())
	default:
		sel.Reason = reason.StringValue()
	}
	return sel
}

// The prompt, in our own words for DeepEval's tool-selection rubric; the
// data headings and the answer's keys are DeepEval's.
const deepEvalPromptHead = `You are judging how well an AI agent chose its tools.

You get the user's input (the task), every tool the agent could use with its description, and the tool calls the agent made with their parameters.

Score only the choice of tools: were the tools the agent picked the right ones for the task and its parts, judged from the tools' descriptions? Do not score how well the tools were used, whether the agent followed a plan, or whether the result was correct or efficient.

How to judge:
1. Work out from the user's input what had to be done.
2. Read the available tools and what each is for.
3. Compare the calls made with the task: did the chosen tools fit, was a clearly better tool left unused, was a tool used where it did not belong or was not needed?
4. Name the problems you see: tools that fit (correct selection), more tools than needed (over-selection), a well-suited tool left out (under-selection), a tool that does not fit its use (mis-selection).

Scores:
- 1.0: every tool chosen fits and was needed, and no better tool was left out.
- 0.75: the choice is mostly right, with a small omission or an unneeded call.
- 0.5: the choice is mixed: useful tools were left out or unsuitable ones were used.
- 0.25: the choice is poor: better tools were available and not used.
- 0.0: the choice does not match what the task needed.

`

const deepEvalPromptTail = `Answer with only this JSON object, nothing before or after it:
{"score": <one of the scores above>, "reason": "<one to three short, factual sentences that explain the score, naming tools where it helps>"}

JSON:
`
