package judges

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/peers"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// This file holds what the LLM-judged profiles share: asking the judge and
// mapping its failures to a result, recording token usage, reading the run's
// recorded request and response into messages, and writing values the way
// each peer's runtime writes them into its prompt (System.Text.Json, Python's
// json.dumps and repr, JavaScript's JSON.stringify).

// judgeFailedResult is the result text a failed call with no recorded result
// is shown to a judge with: what Microsoft.Extensions.AI's function-invoking
// client hands the model when a function throws and detailed errors are off.
const judgeFailedResult = "Error: Function failed."

// judgeUsage sums the usage of a profile's judge calls.
type judgeUsage struct {
	input, output int
	model         string
	calls         int
}

func (u *judgeUsage) add(r toolcall.ChatResponse) {
	u.input += r.InputTokens
	u.output += r.OutputTokens
	if u.model == "" {
		u.model = r.Model
	}
	u.calls++
}

// record writes the usage into a result's details.
func (u *judgeUsage) record(res *toolcall.Result) {
	if u.calls == 0 {
		return
	}
	if res.Details == nil {
		res.Details = map[string]any{}
	}
	res.Details["input_tokens"] = u.input
	res.Details["output_tokens"] = u.output
	res.Details["judge_model"] = u.model
	res.Details["judge_calls"] = u.calls
}

// askJudge sends one request, bounded by ctx. A context that is already done
// is an error before anything is sent.
func askJudge(ctx context.Context, j toolcall.Completer, req toolcall.ChatRequest, u *judgeUsage) (toolcall.ChatResponse, error) {
	if err := ctx.Err(); err != nil {
		return toolcall.ChatResponse{}, err
	}
	resp, err := j.Complete(ctx, req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%w)", err, ctxErr)
		}
		return toolcall.ChatResponse{}, err
	}
	u.add(resp)
	return resp, nil
}

// judgeFailure maps a judge's error: a judge that was not asked
// (ErrJudgeSkipped) leaves the run not evaluated, with the reason; anything
// else, a cancelled or expired context included, is an error.
func judgeFailure(name string, threshold float64, ctx context.Context, err error) toolcall.Result {
	if errors.Is(err, toolcall.ErrJudgeSkipped) && ctx.Err() == nil {
		return toolcall.Result{Scorer: name, Threshold: threshold, Outcome: toolcall.OutcomeNotEvaluated, Explanation: err.Error()}
	}
	return toolcall.ErrorResult(name, threshold, fmt.Errorf("%s: judge: %w", name, err))
}

// notEvaluated is a result for a run the profile's peer declines to judge.
func notEvaluated(name string, threshold float64, why string) toolcall.Result {
	return toolcall.Result{Scorer: name, Threshold: threshold, Outcome: toolcall.OutcomeNotEvaluated, Explanation: why}
}

func ptrFloat(x float64) *float64 { return &x }

// newJudge checks that a judge profile has a Completer.
func newJudge(name string, s toolcall.Settings) error {
	if s.Judge == nil {
		return fmt.Errorf("%s: %w", name, toolcall.ErrNoJudge)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Definitions and messages.

// judgeDefinitions are the tools a run was offered, for judges: the rule's
// configured definitions first, then the run's recorded ones, one per name.
func judgeDefinitions(configured []toolcall.ToolDefinition, run *toolcall.RunContext) *toolcall.ToolDefinitions {
	defs := &toolcall.ToolDefinitions{}
	defs.Add(configured...)
	if run != nil {
		defs.Add(run.Tools.All()...)
	}
	return defs
}

// transcriptMessage is one recorded message: its role and its text parts
// (tool calls, tool results and other non-text parts are left out).
type transcriptMessage struct {
	Role  string
	Parts []string
}

// Text is the message's text parts joined, as .NET's ChatMessage.Text
// concatenates its text contents.
func (m *transcriptMessage) Text() string { return strings.Join(m.Parts, "") }

// transcript reads a recorded request or response into messages. It reads
// OTel GenAI messages ([{"role", "parts": [{"type": "text", "content"}]}]),
// chat messages ([{"role", "content": "…" | [{"type": "text", "text"}]}]),
// the AI SDK's ai.prompt ({"system", "prompt" | "messages"}) and a single
// message object. Any other text is one message of role defaultRole.
// Messages with no text are kept with no parts.
func transcript(text, defaultRole string) []transcriptMessage {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return nil
	}
	if trimmed[0] == '[' || trimmed[0] == '{' {
		if v, err := jsonv.Parse(trimmed); err == nil {
			if msgs, ok := messagesOf(v, defaultRole); ok {
				return msgs
			}
		}
	}
	return []transcriptMessage{{Role: defaultRole, Parts: []string{text}}}
}

func messagesOf(v jsonv.Value, defaultRole string) ([]transcriptMessage, bool) {
	switch v.Kind() {
	case jsonv.KindArray:
		var out []transcriptMessage
		for i := 0; i < v.Len(); i++ {
			item := v.Index(i)
			if item.Kind() != jsonv.KindObject {
				if item.Kind() == jsonv.KindString {
					out = append(out, transcriptMessage{Role: defaultRole, Parts: []string{item.StringValue()}})
					continue
				}
				return nil, false
			}
			m, ok := messageOf(item, defaultRole)
			if !ok {
				return nil, false
			}
			out = append(out, m)
		}
		return out, true
	case jsonv.KindObject:
		if _, ok := v.Get("role"); ok {
			m, ok := messageOf(v, defaultRole)
			return []transcriptMessage{m}, ok
		}
		var out []transcriptMessage
		found := false
		if s, ok := v.Get("system"); ok && s.Kind() == jsonv.KindString {
			out = append(out, transcriptMessage{Role: "system", Parts: []string{s.StringValue()}})
			found = true
		}
		if p, ok := v.Get("prompt"); ok {
			found = true
			if p.Kind() == jsonv.KindString {
				out = append(out, transcriptMessage{Role: "user", Parts: []string{p.StringValue()}})
			} else if msgs, ok := messagesOf(p, defaultRole); ok {
				out = append(out, msgs...)
			}
		}
		if ms, ok := v.Get("messages"); ok && ms.Kind() == jsonv.KindArray {
			found = true
			if msgs, ok := messagesOf(ms, defaultRole); ok {
				out = append(out, msgs...)
			}
		}
		return out, found
	}
	return nil, false
}

func messageOf(item jsonv.Value, defaultRole string) (transcriptMessage, bool) {
	m := transcriptMessage{Role: defaultRole}
	if r, ok := item.Get("role"); ok && r.Kind() == jsonv.KindString {
		m.Role = r.StringValue()
	}
	if c, ok := item.Get("content"); ok {
		m.Parts = append(m.Parts, textParts(c)...)
	}
	if p, ok := item.Get("parts"); ok {
		m.Parts = append(m.Parts, textParts(p)...)
	}
	if len(m.Parts) == 0 {
		if t, ok := item.Get("text"); ok && t.Kind() == jsonv.KindString && t.StringValue() != "" {
			m.Parts = append(m.Parts, t.StringValue())
		}
	}
	return m, true
}

// textParts returns the text of a content value: a string, or the text
// parts of a list ({"type": "text", "text" | "content"}).
func textParts(c jsonv.Value) []string {
	switch c.Kind() {
	case jsonv.KindString:
		if c.StringValue() == "" {
			return nil
		}
		return []string{c.StringValue()}
	case jsonv.KindArray:
		var out []string
		for i := 0; i < c.Len(); i++ {
			p := c.Index(i)
			if p.Kind() == jsonv.KindString {
				out = append(out, p.StringValue())
				continue
			}
			if t, ok := p.Get("type"); ok && t.Kind() == jsonv.KindString && t.StringValue() != "text" {
				continue
			}
			for _, key := range []string{"text", "content"} {
				if s, ok := p.Get(key); ok && s.Kind() == jsonv.KindString {
					out = append(out, s.StringValue())
					break
				}
			}
		}
		return out
	}
	return nil
}

// userRequestText is the text of the run's first user message (its last text
// part), as Mastra's getUserMessageFromRunInput reads a run's input; "" when
// none was recorded.
func userRequestText(run *toolcall.RunContext) string {
	if run == nil {
		return ""
	}
	return firstMessageText(run.Request, "user")
}

// firstMessageText is the last text part of the first message of role in
// recorded text (see transcript); "" when there is none, or it has no text.
func firstMessageText(text, role string) string {
	for _, m := range transcript(text, role) {
		if m.Role == role {
			if len(m.Parts) == 0 {
				return ""
			}
			return m.Parts[len(m.Parts)-1]
		}
	}
	return ""
}

// finalResponseText is the text of the run's last assistant message that has
// text (its last text part), as Mastra's getAssistantMessageFromRunOutput
// reads a run's output; "" when none was recorded.
func finalResponseText(run *toolcall.RunContext) string {
	if run == nil {
		return ""
	}
	msgs := transcript(run.Response, "assistant")
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "assistant" && len(msgs[i].Parts) > 0 {
			return msgs[i].Parts[len(msgs[i].Parts)-1]
		}
	}
	return ""
}

// callResult is what a judge is shown as a call's result: the recorded
// result, or for a failed call with none, judgeFailedResult; undefined for
// a call with no recorded result that did not fail.
func callResult(c *toolcall.Call) jsonv.Value {
	if !c.Result.IsUndefined() {
		return c.Result
	}
	if c.Failed() {
		return jsonv.String(judgeFailedResult)
	}
	return jsonv.Value{}
}

// ---------------------------------------------------------------------------
// System.Text.Json (Microsoft.Extensions.AI).

// dotnetJSON writes v compactly as System.Text.Json does with its default
// encoder: members in written order, and in strings every non-ASCII
// character, the HTML-sensitive characters < > & ' and also " + ` escaped
// as \uXXXX (upper-case hex), the usual short escapes for \b \t \n \f \r and
// \\ for the backslash. Numbers are written as JavaScript writes them.
func dotnetJSON(v jsonv.Value) string {
	var sb strings.Builder
	appendDotnetJSON(&sb, v)
	return sb.String()
}

func appendDotnetJSON(sb *strings.Builder, v jsonv.Value) {
	switch v.Kind() {
	case jsonv.KindUndefined, jsonv.KindNull:
		sb.WriteString("null")
	case jsonv.KindBool:
		sb.WriteString(strconv.FormatBool(v.BoolValue()))
	case jsonv.KindNumber:
		sb.WriteString(jsonv.FormatJSNumber(v.NumberValue()))
	case jsonv.KindString:
		appendDotnetString(sb, v.StringValue())
	case jsonv.KindArray:
		sb.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			appendDotnetJSON(sb, v.Index(i))
		}
		sb.WriteByte(']')
	case jsonv.KindObject:
		sb.WriteByte('{')
		first := true
		for i := 0; i < v.Len(); i++ {
			k, m := v.MemberAt(i)
			if m.IsUndefined() {
				continue
			}
			if !first {
				sb.WriteByte(',')
			}
			first = false
			appendDotnetString(sb, k)
			sb.WriteByte(':')
			appendDotnetJSON(sb, m)
		}
		sb.WriteByte('}')
	}
}

func appendDotnetString(sb *strings.Builder, s string) {
	peers.AppendPeerJSONString(sb, s, &peers.DotnetStrings)
}

// ---------------------------------------------------------------------------
// Answers.

// fencedJSON returns the content of a Markdown code block (```json … ``` or
// ``` … ```) when the whole answer is one; otherwise the answer trimmed.
func fencedJSON(content string) string {
	s := strings.TrimSpace(content)
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	body := s[3 : len(s)-3]
	if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "{[") {
		body = body[nl+1:]
	}
	return strings.TrimSpace(body)
}

// sortedFieldKeys returns a step's field names sorted, for a stable order.
func sortedFieldKeys(fields map[string]jsonv.Value) []string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
