package peers

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall/toolcalltest"
)

func turn(c toolcall.Call, n int) toolcall.Call { c.Turn = n; return c }

func turnExp(e toolcall.ExpectedCall, n int) toolcall.ExpectedCall { e.Turn = n; return e }

func msg(role string) toolcall.Call { return toolcall.Call{StepType: StepMessage, Name: role} }

func msgExp(role string) toolcall.ExpectedCall {
	return toolcall.ExpectedCall{StepType: StepMessage, Name: role}
}

// aeFlat marks a call as given in LangChain's flat {name, args} form.
func aeFlat(c toolcall.Call) toolcall.Call {
	c.Fields = map[string]jsonv.Value{"tool_call_format": jsonv.String("flat")}
	return c
}

func aeFlatExp(e toolcall.ExpectedCall) toolcall.ExpectedCall {
	e.Fields = map[string]jsonv.Value{"tool_call_format": jsonv.String("flat")}
	return e
}

// aeRaw is an OpenAI-format call whose function.arguments text is raw
// (Fields["arguments"]); Args is left unset.
func aeRaw(name, text string) toolcall.Call {
	return toolcall.Call{Name: name, Fields: map[string]jsonv.Value{"arguments": jsonv.String(text)}}
}

func aeRawExp(name, text string) toolcall.ExpectedCall {
	return toolcall.ExpectedCall{Name: name, Fields: map[string]jsonv.Value{"arguments": jsonv.String(text)}}
}

func aeScore(t *testing.T, opts map[string]any, exp toolcall.Expectation, calls ...toolcall.Call) toolcall.Result {
	t.Helper()
	res := scoreProfile(t, AgentEvalsName, toolcall.Settings{Expectation: exp, Options: opts}, calls...)
	return res
}

func TestAgentEvalsModes(t *testing.T) {
	f1, g2 := toolcalltest.Call("f", `{"a":1}`), toolcalltest.Call("g", `{"b":2}`)
	ef1, eg2 := toolcalltest.Want("f", `{"a":1}`), toolcalltest.Want("g", `{"b":2}`)
	split := []toolcall.Call{msg("user"), turn(f1, 1), msg("tool"), turn(g2, 2), msg("tool")}
	together := expect(msgExp("user"), turnExp(ef1, 1), turnExp(eg2, 1), msgExp("tool"), msgExp("tool"))
	extraText := []toolcall.Call{msg("user"), turn(f1, 1), msg("tool"), msg("assistant"), msg("assistant")}
	refText := expect(msgExp("user"), turnExp(ef1, 1), msgExp("tool"), msgExp("assistant"))
	mode := func(m string) map[string]any { return map[string]any{"trajectory_match_mode": m} }
	tests := []struct {
		name  string
		opts  map[string]any
		exp   toolcall.Expectation
		calls []toolcall.Call
		want  bool
	}{
		{"strict: calls split over two messages", mode("strict"), together, split, false},
		{"unordered: split messages do not matter", mode("unordered"), together, split, true},
		{"strict: extra text-only assistant message", mode("strict"), refText, extraText, false},
		{"superset: extra text message ignored", mode("superset"), refText, extraText, true},
		{"strict: calls within a message in any order", mode("strict"),
			expect(turnExp(ef1, 1), turnExp(eg2, 1)), []toolcall.Call{turn(g2, 1), turn(f1, 1)}, true},
		{"strict without turns: each call its own message", mode("strict"), expect(ef1, eg2), []toolcall.Call{g2, f1}, false},
		{"strict without turns: same sequence", mode("strict"), expect(ef1, eg2), []toolcall.Call{f1, g2}, true},
		{"superset: extra output calls allowed", mode("superset"), expect(ef1), []toolcall.Call{f1, g2}, true},
		{"subset: extra output call fails", mode("subset"), expect(ef1), []toolcall.Call{f1, g2}, false},
		{"subset: missing output call allowed", mode("subset"), expect(ef1, eg2), []toolcall.Call{f1}, true},
		{"unordered: duplicates must match in count", mode("unordered"), expect(ef1), []toolcall.Call{f1, f1}, false},
		{"superset: duplicate output", mode("superset"), expect(ef1), []toolcall.Call{f1, f1}, true},
		{"empty vs empty: true", mode("unordered"), expect(), nil, true},
		{"5 is not \"5\"", mode("superset"), expect(toolcalltest.Want("f", `{"a":5}`)), []toolcall.Call{toolcalltest.Call("f", `{"a":"5"}`)}, false},
		{"[] equals {}", mode("superset"), expect(toolcalltest.Want("f", `{"a":{}}`)), []toolcall.Call{toolcalltest.Call("f", `{"a":[]}`)}, true},
		{"[1] equals {\"0\":1}", mode("superset"), expect(toolcalltest.Want("f", `{"a":{"0":1}}`)), []toolcall.Call{toolcalltest.Call("f", `{"a":[1]}`)}, true},
		{"{a:null} is not {}", mode("superset"), expect(toolcalltest.Want("f", `{}`)), []toolcall.Call{toolcalltest.Call("f", `{"a":null}`)}, false},
		{"absent arguments read as {}", mode("superset"), expect(toolcalltest.Want("f", `{}`)), []toolcall.Call{{Name: "f"}}, true},
		{"ignore args", map[string]any{"tool_args_match_mode": "ignore"}, expect(ef1), []toolcall.Call{toolcalltest.Call("f", `{"a":2}`)}, true},
		{"unknown args mode acts as ignore", map[string]any{"tool_args_match_mode": "bogus"}, expect(ef1), []toolcall.Call{toolcalltest.Call("f", `{"a":2}`)}, true},
		{"superset args: output ⊇ reference", map[string]any{"trajectory_match_mode": "superset", "tool_args_match_mode": "superset"},
			expect(ef1), []toolcall.Call{toolcalltest.Call("f", `{"a":1,"b":2}`)}, true},
		{"subset mode swaps roles: superset args mean reference ⊇ output", map[string]any{"trajectory_match_mode": "subset", "tool_args_match_mode": "superset"},
			expect(ef1), []toolcall.Call{toolcalltest.Call("f", `{"a":1,"b":2}`)}, false},
		{"subset mode swaps roles: reference ⊇ output passes", map[string]any{"trajectory_match_mode": "subset", "tool_args_match_mode": "superset"},
			expect(toolcalltest.Want("f", `{"a":1,"b":2}`)), []toolcall.Call{f1}, true},
		{"unordered with superset args demands equal keys", map[string]any{"trajectory_match_mode": "unordered", "tool_args_match_mode": "superset"},
			expect(ef1), []toolcall.Call{toolcalltest.Call("f", `{"a":1,"b":2}`)}, false},
		{"greedy first fit fails where a matching exists", map[string]any{"trajectory_match_mode": "superset", "tool_args_match_mode": "superset"},
			expect(toolcalltest.Want("f", `{"a":1}`), toolcalltest.Want("f", `{"a":1,"b":2}`)), []toolcall.Call{toolcalltest.Call("f", `{"a":1,"b":2}`), toolcalltest.Call("f", `{"a":1}`)}, false},
		{"empty tool_calls list counts as having tool calls in strict", mode("strict"),
			expect(msgExp("user"), msgExp("assistant")), []toolcall.Call{msg("user"), {StepType: StepMessage, Name: "assistant", Fields: map[string]jsonv.Value{"tool_calls": jsonv.Array()}}}, false},
		{"flat calls all match in strict", mode("strict"),
			expect(toolcall.ExpectedCall{Name: "g", Args: toolcalltest.MustParse(`{"b":2}`), Fields: map[string]jsonv.Value{"tool_call_format": jsonv.String("flat")}}),
			[]toolcall.Call{{Name: "f", Args: toolcalltest.MustParse(`{"a":1}`), Fields: map[string]jsonv.Value{"tool_call_format": jsonv.String("flat")}}}, true},
		{"flat calls compare normally in superset", mode("superset"),
			expect(toolcall.ExpectedCall{Name: "g", Args: toolcalltest.MustParse(`{"b":2}`), Fields: map[string]jsonv.Value{"tool_call_format": jsonv.String("flat")}}),
			[]toolcall.Call{{Name: "f", Args: toolcalltest.MustParse(`{"a":1}`), Fields: map[string]jsonv.Value{"tool_call_format": jsonv.String("flat")}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := aeScore(t, tt.opts, tt.exp, tt.calls...)
			require.NoError(t, res.Err)
			assert.Equal(t, tt.want, res.Details["score"], res.Explanation)
			assert.Equal(t, map[bool]float64{true: 1, false: 0}[tt.want], res.Score)
		})
	}
}

func TestAgentEvalsOverrides(t *testing.T) {
	upgrade := map[string]any{
		"when_reference": map[string]any{"query": map[string]any{"contains": "upgrade"}},
		"actual":         map[string]any{"query": map[string]any{"contains": "upgrade"}},
	}
	overrides := func(m map[string]any) map[string]any {
		return map[string]any{"trajectory_match_mode": "superset", "tool_args_match_overrides": m}
	}
	tests := []struct {
		name  string
		opts  map[string]any
		exp   toolcall.ExpectedCall
		call  toolcall.Call
		want  bool
		error string
	}{
		{"comparator: reference mentions upgrade, output too", overrides(map[string]any{"lookup": upgrade}),
			toolcalltest.Want("lookup", `{"query":"upgrade to first"}`), toolcalltest.Call("lookup", `{"query":"flight upgrades"}`), true, ""},
		{"comparator: reference mentions upgrade, output not", overrides(map[string]any{"lookup": upgrade}),
			toolcalltest.Want("lookup", `{"query":"upgrade to first"}`), toolcalltest.Call("lookup", `{"query":"first class"}`), false, ""},
		{"comparator: condition false -> true", overrides(map[string]any{"lookup": upgrade}),
			toolcalltest.Want("lookup", `{"query":"foo"}`), toolcalltest.Call("lookup", `{"query":"bar"}`), true, ""},
		{"comparator roles swap in subset mode", map[string]any{"trajectory_match_mode": "subset", "tool_args_match_overrides": map[string]any{"lookup": upgrade}},
			toolcalltest.Want("lookup", `{"query":"first class"}`), toolcalltest.Call("lookup", `{"query":"upgrade"}`), false, ""},
		{"key paths: only those compared", overrides(map[string]any{"lookup": []any{"time.start"}}),
			toolcalltest.Want("lookup", `{"q":"a","time":{"start":1,"end":2}}`), toolcalltest.Call("lookup", `{"q":"b","time":{"start":1,"end":9}}`), true, ""},
		{"key paths: null vs missing are equal", overrides(map[string]any{"f": []any{"x"}}), toolcalltest.Want("f", `{}`), toolcalltest.Call("f", `{"x":null}`), true, ""},
		{"key paths: through a string read undefined", overrides(map[string]any{"f": []any{"x.length"}}), toolcalltest.Want("f", `{"x":"zz"}`), toolcalltest.Call("f", `{"x":"abc"}`), true, ""},
		{"key paths into arrays", overrides(map[string]any{"f": []any{"x.0"}}), toolcalltest.Want("f", `{"x":[1,2]}`), toolcalltest.Call("f", `{"x":[1,3]}`), true, ""},
		{"mode string override", overrides(map[string]any{"f": "ignore"}), toolcalltest.Want("f", `{"x":1}`), toolcalltest.Call("f", `{"x":2}`), true, ""},
		{"null override ignored", overrides(map[string]any{"f": nil}), toolcalltest.Want("f", `{"x":1}`), toolcalltest.Call("f", `{"x":2}`), false, ""},
		{"toString always matches once overrides exist", overrides(map[string]any{}), toolcalltest.Want("toString", `{"x":1}`), toolcalltest.Call("toString", `{"x":2}`), true, ""},
		{"valueOf throws", overrides(map[string]any{}), toolcalltest.Want("valueOf", `{"x":1}`), toolcalltest.Call("valueOf", `{"x":1}`), false, "TypeError: Object.prototype.valueOf"},
		{"subset args on null arguments throw", map[string]any{"trajectory_match_mode": "superset", "tool_args_match_mode": "subset"},
			toolcalltest.Want("f", `{"a":1}`), toolcalltest.Call("f", `null`), false, "TypeError: Cannot convert undefined or null to object"},
		{"superset args on string arguments throw", map[string]any{"trajectory_match_mode": "superset", "tool_args_match_mode": "superset"},
			toolcalltest.Want("f", `{"a":1}`), toolcalltest.Call("f", `"ab"`), false, "TypeError: Cannot use 'in' operator to search for 'a' in ab"},
		{"subset of {} is vacuously true", map[string]any{"trajectory_match_mode": "superset", "tool_args_match_mode": "subset"},
			toolcalltest.Want("f", `null`), toolcalltest.Call("f", `{}`), true, ""},
		{"unknown arguments with a comparing matcher", map[string]any{"trajectory_match_mode": "superset"},
			toolcalltest.Want("f", `{"a":1}`), unknownArgs("f"), false, "agentevals: arguments unavailable for call 1 (f)"},
		{"unknown arguments ignored", map[string]any{"trajectory_match_mode": "superset", "tool_args_match_mode": "ignore"},
			toolcalltest.Want("f", `{"a":1}`), unknownArgs("f"), true, ""},
		// Raw function.arguments text is JSON.parsed: in superset, subset and
		// unordered mode every call's when the calls are extracted, in strict
		// mode a pair's when their names match.
		{"raw arguments are JSON.parsed", map[string]any{"trajectory_match_mode": "superset"},
			toolcalltest.Want("f", `{"a":1}`), aeRaw("f", ` {"a":1} `), true, ""},
		{"invalid JSON arguments throw even when arguments are ignored", map[string]any{"trajectory_match_mode": "superset", "tool_args_match_mode": "ignore"},
			toolcalltest.Want("f", `{}`), aeRaw("f", `{"a":`), false, `agentevals: SyntaxError: output tool call 1 (f): function.arguments is not valid JSON: "{\"a\":"`},
		{"invalid JSON arguments of a call no reference call names throw in superset mode", map[string]any{"trajectory_match_mode": "superset"},
			toolcalltest.Want("f", `{}`), aeRaw("g", `not json`), false, "SyntaxError: output tool call 1 (g)"},
		{"invalid JSON reference arguments throw in subset mode", map[string]any{"trajectory_match_mode": "subset", "tool_args_match_mode": "ignore"},
			aeRawExp("f", `{'a': 1}`), toolcalltest.Call("f", `{}`), false, "SyntaxError: reference tool call 1 (f)"},
		{"strict: invalid JSON arguments throw when compared, even when ignored", map[string]any{"trajectory_match_mode": "strict", "tool_args_match_mode": "ignore"},
			toolcalltest.Want("f", `{}`), aeRaw("f", `{x}`), false, "SyntaxError: output tool call 1 (f)"},
		{"strict: invalid JSON arguments are not parsed without a same-name reference call", map[string]any{"trajectory_match_mode": "strict"},
			toolcalltest.Want("f", `{}`), aeRaw("g", `{x}`), false, ""},
		{"strict: the parse error comes before a prototype matcher's TypeError", map[string]any{"trajectory_match_mode": "strict", "tool_args_match_overrides": map[string]any{}},
			toolcalltest.Want("valueOf", `{}`), aeRaw("valueOf", `{x}`), false, "SyntaxError: output tool call 1 (valueOf)"},
		// A flat call without args has undefined arguments outside strict mode.
		{"flat call without args is not {} (exact)", map[string]any{"trajectory_match_mode": "superset"},
			aeFlatExp(toolcalltest.Want("f", `{}`)), aeFlat(toolcalltest.Call("f", "")), false, ""},
		{"flat call without args equals null arguments (exact)", map[string]any{"trajectory_match_mode": "superset"},
			aeFlatExp(toolcalltest.Want("f", `null`)), aeFlat(toolcalltest.Call("f", "")), true, ""},
		{"flat calls without args on both sides match (exact)", map[string]any{"trajectory_match_mode": "unordered"},
			aeFlatExp(toolcalltest.Want("f", "")), aeFlat(toolcalltest.Call("f", "")), true, ""},
		{"subset args on a flat call without args throw", map[string]any{"trajectory_match_mode": "superset", "tool_args_match_mode": "subset"},
			aeFlatExp(toolcalltest.Want("f", `{"a":1}`)), aeFlat(toolcalltest.Call("f", "")), false, "TypeError: Cannot convert undefined or null to object"},
		{"superset args against a flat call without args throw", map[string]any{"trajectory_match_mode": "superset", "tool_args_match_mode": "superset"},
			aeFlatExp(toolcalltest.Want("f", `{"a":1}`)), aeFlat(toolcalltest.Call("f", "")), false, "TypeError: Cannot use 'in' operator to search for 'a' in undefined"},
		{"superset args: {} against a flat call without args is vacuously true", map[string]any{"trajectory_match_mode": "superset", "tool_args_match_mode": "superset"},
			aeFlatExp(toolcalltest.Want("f", `{}`)), aeFlat(toolcalltest.Call("f", "")), true, ""},
		{"strict: a flat call without args reads {}", map[string]any{"trajectory_match_mode": "strict"},
			aeFlatExp(toolcalltest.Want("f", `{}`)), aeFlat(toolcalltest.Call("f", "")), true, ""},
		{"key paths on a flat call without args read undefined", overrides(map[string]any{"f": []any{"x"}}),
			aeFlatExp(toolcalltest.Want("f", `{"x":null}`)), aeFlat(toolcalltest.Call("f", "")), true, ""},
		// A comparator reads members of its arguments as JavaScript does.
		{"comparator: null reference arguments throw", overrides(map[string]any{"lookup": upgrade}),
			toolcalltest.Want("lookup", `null`), toolcalltest.Call("lookup", `{"query":"upgrade"}`), false, "TypeError: Cannot read properties of null (reading 'query')"},
		{"comparator: output without args read after a true condition throws", overrides(map[string]any{"lookup": upgrade}),
			aeFlatExp(toolcalltest.Want("lookup", `{"query":"upgrade"}`)), aeFlat(toolcalltest.Call("lookup", "")), false, "TypeError: Cannot read properties of undefined (reading 'query')"},
		{"comparator: output arguments are not read when the condition is false", overrides(map[string]any{"lookup": upgrade}),
			toolcalltest.Want("lookup", `{"query":"other"}`), toolcalltest.Call("lookup", `null`), true, ""},
		{"comparator: a string argument reads undefined members", overrides(map[string]any{"lookup": upgrade}),
			toolcalltest.Want("lookup", `"upgrade"`), toolcalltest.Call("lookup", `{}`), true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := aeScore(t, tt.opts, expect(tt.exp), tt.call)
			if tt.error != "" {
				assert.Equal(t, toolcall.OutcomeError, res.Outcome)
				assert.ErrorContains(t, res.Err, tt.error)
				return
			}
			require.NoError(t, res.Err)
			assert.Equal(t, tt.want, res.Details["score"])
		})
	}
}

func TestAgentEvalsOptionsAndMapping(t *testing.T) {
	_, err := toolcall.New(AgentEvalsName, toolcall.Settings{Options: map[string]any{"trajectory_match_mode": "loose"}})
	assert.EqualError(t, err, "agentevals: Invalid trajectory match type: loose")
	_, err = toolcall.New(AgentEvalsName, toolcall.Settings{Options: map[string]any{"trajectory_match_mode": nil}})
	assert.EqualError(t, err, "agentevals: Invalid trajectory match type: null", "a JS default replaces undefined, not null")
	// An explicit null argument mode is not a known mode: arguments are ignored.
	res := aeScore(t, map[string]any{"tool_args_match_mode": nil}, expect(toolcalltest.Want("f", `{"a":1}`)), toolcalltest.Call("f", `{"a":2}`))
	assert.Equal(t, true, res.Details["score"])
	res = aeScore(t, map[string]any{}, expect(toolcalltest.Want("f", `{"a":1}`)), toolcalltest.Call("f", `{"a":2}`))
	assert.Equal(t, false, res.Details["score"], "the default is exact")
	_, err = toolcall.New(AgentEvalsName, toolcall.Settings{Options: map[string]any{"tool_args_match_overrides": map[string]any{"f": map[string]any{"reference": map[string]any{}}}}})
	assert.EqualError(t, err, `agentevals: option "tool_args_match_overrides": f: unknown comparator key "reference", expected "when_reference" or "actual"`)
	_, err = toolcall.New(AgentEvalsName, toolcall.Settings{Options: map[string]any{"tool_args_match_overrides": map[string]any{"f": map[string]any{"actual": map[string]any{"q": map[string]any{"bogus": 1}}}}}})
	assert.ErrorContains(t, err, `f: actual["q"]: unknown matcher "bogus"`)
	_, err = toolcall.New(AgentEvalsName, toolcall.Settings{Options: map[string]any{"tool_args_match_overrides": map[string]any{"f": map[string]any{"actual": map[string]any{"q[*]": "any"}}}}})
	assert.ErrorContains(t, err, `[*] is not supported in a comparator`)
	_, err = toolcall.New(AgentEvalsName, toolcall.Settings{Options: map[string]any{"trajectoryMatchMode": "strict"}})
	assert.EqualError(t, err, `agentevals: unknown option "trajectoryMatchMode", expected one of "tool_args_match_mode", "tool_args_match_overrides", "trajectory_match_mode"`)
	_, err = toolcall.New(AgentEvalsName, toolcall.Settings{Expectation: expect(toolcalltest.WithMatcher(toolcalltest.Want("f", ""), "a", "any"))})
	assert.ErrorContains(t, err, "agentevals: calls[0] (f): argument matchers are not supported")

	f, g := toolcalltest.Call("f", `{}`), toolcalltest.Call("g", `{}`)
	mapped := func(o toolcall.OrderMode, extra toolcall.ExtraPolicy) string {
		sc := newProfile(t, AgentEvalsName, toolcall.Settings{Expectation: toolcall.Expectation{Calls: []toolcall.ExpectedCall{toolcalltest.Want("f", `{}`)}, Order: o, ExtraCalls: extra}})
		return sc.Score(t.Context(), []toolcall.Call{f, g}).Details["key"].(string)
	}
	assert.Equal(t, "trajectory_strict_match", mapped("", ""))
	assert.Equal(t, "trajectory_strict_match", mapped(toolcall.OrderExact, ""))
	assert.Equal(t, "trajectory_superset_match", mapped(toolcall.OrderInOrder, ""))
	assert.Equal(t, "trajectory_superset_match", mapped(toolcall.OrderAny, ""))
	assert.Equal(t, "trajectory_unordered_match", mapped(toolcall.OrderAny, toolcall.ExtraFail))
	res = aeScore(t, map[string]any{"trajectory_match_mode": "subset"}, toolcall.Expectation{Calls: []toolcall.ExpectedCall{toolcalltest.Want("f", `{}`)}, Order: toolcall.OrderExact}, f)
	assert.Equal(t, "trajectory_subset_match", res.Details["key"])
	assert.Equal(t, "true: trajectory_subset_match (1 output calls, 1 reference calls)", res.Explanation)

	// Nested children are flattened; other step types are skipped.
	res = aeScore(t, map[string]any{"trajectory_match_mode": "unordered"}, expect(toolcalltest.Want("f", `{}`)),
		toolcall.Call{Name: "agent", StepType: toolcall.StepAgentRun, Children: []toolcall.Call{f}}, toolcall.Call{Name: "gen", StepType: toolcall.StepModelGeneration})
	assert.Equal(t, true, res.Details["score"])
}

func TestAgentEvalsDeepEqual(t *testing.T) {
	eq := func(a, b string) bool {
		x, y := toolcalltest.MustParse(a), toolcalltest.MustParse(b)
		return aeDeepEqual(&x, &y)
	}
	assert.True(t, eq(`{"a":1,"b":2}`, `{"b":2,"a":1}`))
	assert.False(t, eq(`[1,2]`, `[2,1]`))
	assert.True(t, eq(`null`, `null`))
	assert.False(t, eq(`null`, `{}`))
	assert.True(t, eq(`12345678901234567890`, `12345678901234567891`), "numbers compare as float64")
	u, n := jsonv.Undefined(), jsonv.Null()
	assert.True(t, aeDeepEqual(&u, &n))
}

func TestAgentEvalsToolCallMessageRole(t *testing.T) {
	strict := map[string]any{"trajectory_match_mode": "strict"}
	withRole := func(c toolcall.Call, role string) toolcall.Call {
		c.Fields = map[string]jsonv.Value{"role": jsonv.String(role)}
		return c
	}
	exp := expect(msgExp("user"), toolcalltest.Want("f", `{"a":1}`))
	// The roles are compared as raw strings, including the role of the
	// message that carries the tool calls.
	res := aeScore(t, strict, exp, msg("user"), withRole(toolcalltest.Call("f", `{"a":1}`), "ai"))
	assert.Equal(t, false, res.Details["score"], `"ai" is not "assistant"`)
	res = aeScore(t, strict, exp, msg("user"), toolcalltest.Call("f", `{"a":1}`))
	assert.Equal(t, true, res.Details["score"])
	res = aeScore(t, map[string]any{"trajectory_match_mode": "unordered"}, exp, msg("user"), withRole(toolcalltest.Call("f", `{"a":1}`), "ai"))
	assert.Equal(t, true, res.Details["score"], "only strict reads roles")
}
