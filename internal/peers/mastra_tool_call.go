package peers

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// MastraToolCallName is the registered name of the Mastra tool-call
// profile (createToolCallAccuracyScorerCode), documented on the
// mastraToolCall type in mastra_tool_call.go.
const MastraToolCallName = "mastra_tool_call"

// Mastra versions the Mastra profiles emulate.
const (
	MastraVersion1102 = "1.10.2"
	MastraVersion120  = "1.2.0"
)

func init() { toolcall.Register(MastraToolCallName, newMastraToolCall) }

// mastraToolCall reproduces @mastra/evals createToolCallAccuracyScorerCode
// (src/scorers/code/tool-call-accuracy/index.ts; identical in 1.2.0 and
// 1.10.2 apart from how calls are extracted). Binary score, arguments never
// read.
//
// Options (the peer's, in snake_case):
//
//	expected_tool        string   the tool that must be called
//	expected_tool_order  []string names in the order they must be called
//	strict_mode          bool     default false
//	version              "1.10.2" (default) or "1.2.0"
//
// Algorithm:
//
//	no tool called: 0 (so "expect nothing" can never score 1)
//	expected_tool_order non-empty: checkToolOrder ? 1 : 0
//	    strict:  the called names are exactly the order (JSON.stringify equality)
//	    relaxed: idx_k = indexOf(order[k]) (FIRST occurrence); any missing -> 0; idx must strictly increase
//	no expected_tool: 0
//	strict_mode: exactly one call, to expected_tool; else expected_tool among the calls
//
// Quirks reproduced (each has a test case):
//
//   - Relaxed order uses indexOf, so a repeated expected name can never be
//     satisfied ([a,b,a] vs [a,b,a] scores 0) and an earlier stray call
//     breaks the order ([a,b] vs [b,a,b] scores 0).
//   - expected_tool_order: [] is accepted by the constructor but ignored by
//     the score (falls back to expected_tool); correctOrderCalled is still
//     computed for it (true in relaxed mode).
//   - strict_mode with expected_tool needs exactly one call: [a,a] scores 0.
//   - correctToolCalled follows the strict rule even when the order decides
//     the score (the upstream test asserting true for 3 calls in strict mode
//     contradicts every published build; we follow the code).
//   - Arguments are ignored, so calls with unknown arguments score normally.
//   - 1.10.2 counts a call whose tool threw (state output-error, or Status
//     error) as called; 1.2.0 does not. A partial-call never counts.
//
// Which calls count: tool-call steps in depth-first order (children
// flattened); a call's state is Fields["state"] when it is a string, else
// "output-error" for Status error and "result" otherwise. Only the states
// result, call (and output-error in 1.10.2) count.
//
// Expectation mapping (only when neither expected_tool nor
// expected_tool_order is given): one expected call becomes expected_tool,
// several become expected_tool_order (names in order). Order exact maps to
// strict_mode when strict_mode is not given. Optional calls, matchers,
// must_succeed and forbidden tools are rejected. With no expected tool at
// all, building the scorer fails with Mastra's own message.
//
// Preprocess errors: [ScoreAgentRun] takes Mastra's run shape and fails,
// like Mastra, with "Input and output messages cannot be null or empty"
// when the input messages or the output are missing or empty. Score, which
// receives only the calls, assumes a non-empty run (a trace always has a
// prompt and an output), so zero calls score 0.
//
// Reference vs source notes: no disagreement on the algorithm; both record
// that the upstream test's correctToolCalled === true (strict, three calls)
// contradicts the code, which we follow.
//
// Details (preprocessStepResult): expectedTool, actualTools, strictMode,
// expectedToolOrder, hasToolCalls, correctToolCalled, toolCallInfos
// ([]MastraToolCallInfo: toolName, toolCallId, messageIndex,
// invocationIndex; from Score, messageIndex is 0 and invocationIndex the
// call's index), correctOrderCalled (nil when no order was given).
type mastraToolCall struct {
	expectedTool string
	order        []string // nil: not given
	strict       bool
	version      string
	threshold    float64
	// omitDetails: Settings.OmitDetails.
	omitDetails bool
}

var _ toolcall.Scorer = (*mastraToolCall)(nil)

func newMastraToolCall(s toolcall.Settings) (toolcall.Scorer, error) {
	r := toolcall.NewOptionReader(MastraToolCallName, s.Options)
	m := &mastraToolCall{threshold: s.Threshold, omitDetails: s.OmitDetails}
	m.expectedTool = r.String("expected_tool", "")
	_, hasOrder := r.Opts["expected_tool_order"]
	m.order = r.Strings("expected_tool_order")
	if hasOrder && m.order == nil && r.Opts["expected_tool_order"] != nil {
		m.order = []string{}
	}
	_, hasStrict := r.Opts["strict_mode"]
	m.strict = r.Bool("strict_mode", false)
	m.version = r.String("version", MastraVersion1102, MastraVersion1102, MastraVersion120)
	if err := r.Err(); err != nil {
		return nil, err
	}
	if err := CheckPeerExpectation(MastraToolCallName, s.Expectation, PeerFeatures{}); err != nil {
		return nil, err
	}
	if m.expectedTool == "" && m.order == nil {
		switch calls := s.Expectation.Calls; len(calls) {
		case 0:
		case 1:
			m.expectedTool = calls[0].Name
		default:
			m.order = expectedNames(calls)
		}
	}
	if !hasStrict && s.Expectation.Order == toolcall.OrderExact {
		m.strict = true
	}
	if m.expectedTool == "" && m.order == nil {
		return nil, errors.New("mastra_tool_call: Either expectedTool or expectedToolOrder must be provided (set expected_tool, expected_tool_order, or expected calls)")
	}
	return m, nil
}

func (m *mastraToolCall) Name() string { return MastraToolCallName }

// MastraAgentRun is the run a Mastra agent scorer receives: the input
// messages and the output messages (MastraDBMessage objects, as JSON).
// Undefined means the field is missing from the run.
type MastraAgentRun struct {
	InputMessages jsonv.Value
	Output        jsonv.Value
}

// Score implements Scorer.
func (m *mastraToolCall) Score(_ context.Context, calls []toolcall.Call) (res toolcall.Result) {
	m.ScoreInto(calls, nil, &res)
	return res
}

// ScoreInto is Score writing its result to res (see ScoreInto).
func (m *mastraToolCall) ScoreInto(calls []toolcall.Call, _ *toolcall.RunContext, res *toolcall.Result) {
	calls = toolcall.WithArguments(calls)
	tools := FlattenToolCalls(calls)
	names := make([]string, 0, len(tools))
	infos := make([]MastraToolCallInfo, 0, len(tools))
	for i := range tools {
		state := "result"
		if tools[i].Failed() {
			state = "output-error"
		}
		if s, ok := tools[i].Fields["state"]; ok && s.Kind() == jsonv.KindString {
			state = s.StringValue()
		}
		if !m.stateCounts(state) {
			continue
		}
		id := tools[i].ID
		if id == "" {
			id = "0-" + strconv.Itoa(i)
		}
		names = append(names, tools[i].Name)
		infos = append(infos, MastraToolCallInfo{ToolName: tools[i].Name, ToolCallID: id, InvocationIndex: i})
	}
	m.score(names, infos, res)
}

func (m *mastraToolCall) stateCounts(state string) bool {
	switch state {
	case "result", "call":
		return true
	case "output-error":
		return m.version != MastraVersion120
	}
	return false
}

// ScoreAgentRun scores a run in Mastra's own shape, including its
// preprocess validation and its extraction of tool invocations from the
// output messages (1.10.2 merges content.parts tool invocations with the
// legacy content.toolInvocations, parts winning for a shared toolCallId;
// 1.2.0 reads only content.toolInvocations).
func (m *mastraToolCall) ScoreAgentRun(_ context.Context, run MastraAgentRun) toolcall.Result {
	// !run.input.inputMessages || length === 0 || !run.output || length === 0
	inputOK := run.InputMessages.Kind() == jsonv.KindArray && run.InputMessages.Len() > 0
	outputOK := run.Output.Kind() == jsonv.KindArray && run.Output.Len() > 0
	if !inputOK || !outputOK {
		return toolcall.ErrorResult(MastraToolCallName, m.threshold, errors.New("mastra_tool_call: Input and output messages cannot be null or empty"))
	}
	var names []string
	var infos []MastraToolCallInfo
	for mi := 0; mi < run.Output.Len(); mi++ {
		msg := run.Output.Index(mi)
		invs := mastraToolInvocations(msg, m.version)
		for ii, inv := range invs {
			name, _ := inv.Get("toolName")
			state, _ := inv.Get("state")
			if !jsTruthy(name) || state.Kind() != jsonv.KindString || !m.stateCounts(state.StringValue()) {
				continue
			}
			nameStr := jsToString(name)
			id := fmt.Sprintf("%d-%d", mi, ii)
			if v, ok := inv.Get("toolCallId"); ok && jsTruthy(v) {
				id = jsToString(v)
			}
			names = append(names, nameStr)
			infos = append(infos, MastraToolCallInfo{ToolName: nameStr, ToolCallID: id, MessageIndex: mi, InvocationIndex: ii})
		}
	}
	var res toolcall.Result
	m.score(names, infos, &res)
	return res
}

// mastraToolInvocations returns a message's tool invocations as the given
// Mastra version's extractToolCalls sees them.
func mastraToolInvocations(msg jsonv.Value, version string) []jsonv.Value {
	content, _ := msg.Get("content")
	legacyV, _ := content.Get("toolInvocations")
	legacy := legacyV.Items()
	if legacyV.Kind() != jsonv.KindArray {
		legacy = nil
	}
	if version == MastraVersion120 {
		return legacy
	}
	var fromParts []jsonv.Value
	if parts, _ := content.Get("parts"); parts.Kind() == jsonv.KindArray {
		for _, p := range parts.Items() {
			t, _ := p.Get("type")
			if t.StringValue() != "tool-invocation" || t.Kind() != jsonv.KindString {
				continue
			}
			if inv, ok := p.Get("toolInvocation"); ok && jsTruthy(inv) {
				fromParts = append(fromParts, inv)
			}
		}
	}
	partIDs := map[string]bool{}
	for _, inv := range fromParts {
		if id, ok := inv.Get("toolCallId"); ok && jsTruthy(id) {
			partIDs[jsToString(id)] = true
		}
	}
	callID := func(inv jsonv.Value) (string, bool) {
		id, ok := inv.Get("toolCallId")
		if !ok || id.Kind() == jsonv.KindUndefined {
			return "", false
		}
		return jsToString(id), true
	}
	legacyPos := map[string]int{}
	for i, inv := range legacy {
		if id, ok := callID(inv); ok {
			legacyPos[id] = i
		}
	}
	inParts := func(inv jsonv.Value) bool {
		id, ok := callID(inv)
		return ok && partIDs[id]
	}
	var out []jsonv.Value
	li := 0
	for _, inv := range fromParts {
		shared := -1
		if id, ok := inv.Get("toolCallId"); ok && jsTruthy(id) {
			if k, found := legacyPos[jsToString(id)]; found {
				shared = k
			}
		}
		if shared >= 0 && shared >= li {
			for ; li < shared; li++ {
				if prev := legacy[li]; jsTruthy(prev) && !inParts(prev) {
					out = append(out, prev)
				}
			}
			li++
		}
		out = append(out, inv)
	}
	for ; li < len(legacy); li++ {
		if inv := legacy[li]; jsTruthy(inv) && !inParts(inv) {
			out = append(out, inv)
		}
	}
	return out
}

// MastraToolCallInfo is Mastra's ToolCallInfo, the entries of the
// toolCallInfos detail (JSON field names as in Mastra).
type MastraToolCallInfo struct {
	ToolName        string `json:"toolName"`
	ToolCallID      string `json:"toolCallId"`
	MessageIndex    int    `json:"messageIndex"`
	InvocationIndex int    `json:"invocationIndex"`
}

// jsTruthy is JavaScript truthiness of a JSON value.
func jsTruthy(v jsonv.Value) bool {
	switch v.Kind() {
	case jsonv.KindUndefined, jsonv.KindNull:
		return false
	case jsonv.KindBool:
		return v.BoolValue()
	case jsonv.KindNumber:
		return v.NumberValue() != 0 && v.NumberValue() == v.NumberValue()
	case jsonv.KindString:
		return v.Literal() != ""
	}
	return true
}

// jsToString is String(v) for the scalar values used as names and ids.
func jsToString(v jsonv.Value) string {
	switch v.Kind() {
	case jsonv.KindString:
		return v.Literal()
	case jsonv.KindNumber:
		return jsonv.FormatJSNumber(v.NumberValue())
	case jsonv.KindBool:
		if v.BoolValue() {
			return "true"
		}
		return "false"
	case jsonv.KindNull:
		return "null"
	case jsonv.KindUndefined:
		return "undefined"
	}
	return v.JSON()
}

func (m *mastraToolCall) checkOrder(actual []string) bool {
	if m.strict {
		if len(actual) != len(m.order) {
			return false
		}
		for i := range actual {
			if actual[i] != m.order[i] {
				return false
			}
		}
		return true
	}
	prev := -1
	for k, want := range m.order {
		idx := -1
		for i, a := range actual {
			if a == want {
				idx = i
				break
			}
		}
		if idx < 0 {
			return false
		}
		if k > 0 && idx <= prev {
			return false
		}
		prev = idx
	}
	return true
}

// details are Mastra's preprocessStepResult fields of a scored run.
func (m *mastraToolCall) details(actual []string, correctTool bool, infos []MastraToolCallInfo, correctOrder any) map[string]any {
	details := map[string]any{
		"actualTools":        actual,
		"strictMode":         m.strict,
		"hasToolCalls":       len(actual) > 0,
		"correctToolCalled":  correctTool,
		"toolCallInfos":      infos,
		"correctOrderCalled": correctOrder,
	}
	if m.expectedTool != "" {
		details["expectedTool"] = m.expectedTool
	} else {
		details["expectedTool"] = nil
	}
	if m.order != nil {
		details["expectedToolOrder"] = m.order
	} else {
		details["expectedToolOrder"] = nil
	}
	return details
}

func (m *mastraToolCall) score(actual []string, infos []MastraToolCallInfo, res *toolcall.Result) {
	if actual == nil {
		actual = []string{}
	}
	if infos == nil {
		infos = []MastraToolCallInfo{}
	}
	correctTool := false
	if m.expectedTool != "" {
		if m.strict {
			correctTool = len(actual) == 1 && actual[0] == m.expectedTool
		} else {
			for _, a := range actual {
				if a == m.expectedTool {
					correctTool = true
					break
				}
			}
		}
	}
	var correctOrder any
	if m.order != nil {
		correctOrder = m.checkOrder(actual)
	}
	var score float64
	switch {
	case len(actual) == 0:
	case len(m.order) > 0:
		if correctOrder == true {
			score = 1
		}
	case m.expectedTool == "":
	case correctTool:
		score = 1
	}
	*res = toolcall.Result{Scorer: MastraToolCallName, Threshold: m.threshold, Score: score}
	if !m.omitDetails {
		res.Details = m.details(actual, correctTool, infos, correctOrder)
	}
	res.Decide()
	var sb strings.Builder
	toolcall.WriteScore(&sb, score)
	sb.WriteString(": ")
	switch {
	case len(actual) == 0:
		sb.WriteString("no tool was called")
	case len(m.order) > 0 && score == 1:
		sb.WriteString("tools called in the expected order")
	case len(m.order) > 0:
		sb.WriteString("tools not called in the expected order [")
		sb.WriteString(strings.Join(m.order, ", "))
		sb.WriteString("]")
	case score == 1:
		sb.WriteString(m.expectedTool)
		sb.WriteString(" was called")
	case m.strict:
		sb.WriteString("expected only ")
		sb.WriteString(m.expectedTool)
		sb.WriteString(" (strict mode)")
	default:
		sb.WriteString(m.expectedTool)
		sb.WriteString(" was not called")
	}
	if len(actual) > 0 {
		sb.WriteString("; called ")
		sb.WriteString(toolcall.JoinNames(actual, 5))
	}
	res.Explanation = sb.String()
}
