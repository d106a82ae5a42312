package peers

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall/toolcalltest"
)

func TestPythonSemantics(t *testing.T) {
	repr := []struct{ json, want string }{
		{`"a'b"`, `a'b`},
		{`{"a":"x","b":[1,2.5,true,null]}`, `{'a': 'x', 'b': [1, 2.5, True, None]}`},
		{`{"s":"it's"}`, `{'s': "it's"}`},
		{`{"s":"a\"b'c\n"}`, `{'s': 'a"b\'c\n'}`},
		{`1.0`, `1.0`},
		{`100.0`, `100.0`},
		{`1e16`, `1e+16`},
		{`1.5e-5`, `1.5e-05`},
		{`0.0001`, `0.0001`},
		{`123456789012345678901234567890`, `123456789012345678901234567890`},
		{`-0`, `0`},
		{`-0.0`, `-0.0`},
		{`9999999999999998.0`, `9999999999999998.0`},
		{`{"k":"\u0001é"}`, `{'k': '\x01é'}`},
	}
	for _, tt := range repr {
		assert.Equal(t, tt.want, PyStr(toolcalltest.MustParse(tt.json)), tt.json)
	}
	eq := []struct {
		a, b string
		want bool
	}{
		{`1`, `1.0`, true},
		{`true`, `1`, true},
		{`false`, `0.0`, true},
		{`"5"`, `5`, false},
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2.0],"a":true}`, true},
		{`[1,2]`, `[2,1]`, false},
		{`null`, `{}`, false},
		{`{"a":null}`, `{}`, false},
	}
	for _, tt := range eq {
		assert.Equal(t, tt.want, pyEqual(toolcalltest.MustParse(tt.a), toolcalltest.MustParse(tt.b)), "%s == %s", tt.a, tt.b)
	}
	assert.True(t, pyEqual(jsonv.Undefined(), jsonv.Null()), "both None")
	assert.Equal(t, "['a', \"b'\"]", pyListRepr([]string{"a", "b'"}))
}

func TestJavaScriptSemantics(t *testing.T) {
	same := []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":2}`, `{"a":1,"b":2}`, true},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, false},
		{`{"b":1,"1":2}`, `{"1":2,"b":1}`, true},
		{`{"b":1,"01":2}`, `{"01":2,"b":1}`, false},
		{`{"2":1,"10":2}`, `{"10":2,"2":1}`, true},
		{`[1,{"x":[true]}]`, `[1.0,{"x":[true]}]`, true},
		{`5`, `"5"`, false},
		{`null`, `null`, true},
	}
	for _, tt := range same {
		assert.Equal(t, tt.want, jsStringifyEqual(toolcalltest.MustParse(tt.a), toolcalltest.MustParse(tt.b)), "%s vs %s", tt.a, tt.b)
	}
	withUndef := jsonv.Object(jsonv.Member{Key: "x", Value: jsonv.Int(1)}, jsonv.Member{Key: "y", Value: jsonv.Undefined()})
	assert.True(t, jsStringifyEqual(withUndef, toolcalltest.MustParse(`{"x":1}`)), "undefined members vanish")
	assert.True(t, jsStringifyEqual(jsonv.Array(jsonv.Undefined()), toolcalltest.MustParse(`[null]`)), "undefined elements are null")
	assert.True(t, jsStringifyEqual(jsonv.Undefined(), jsonv.Undefined()))
	assert.False(t, jsStringifyEqual(jsonv.Undefined(), jsonv.Null()))

	assert.Equal(t, 3.0, jsMathRound(2.5))
	assert.Equal(t, -2.0, jsMathRound(-2.5), "ties toward +Infinity")
	assert.Equal(t, 0.33, MastraRound2(1.0/3))
	assert.Equal(t, 0.67, MastraRound2(2.0/3))
	for _, k := range []string{"0", "17", "4294967294"} {
		_, ok := jsArrayIndex(k)
		assert.True(t, ok, k)
	}
	for _, k := range []string{"01", "-1", "4294967295", "1.0", ""} {
		_, ok := jsArrayIndex(k)
		assert.False(t, ok, k)
	}
}

func TestFlattenToolCalls(t *testing.T) {
	flat := []toolcall.Call{toolcalltest.Call("a", ""), toolcalltest.Call("b", "")}
	assert.Equal(t, flat, FlattenToolCalls(flat))
	nested := []toolcall.Call{
		{Name: "plan", StepType: toolcall.StepModelGeneration},
		{Name: "agent", StepType: toolcall.StepAgentRun, Children: []toolcall.Call{toolcalltest.Call("x", ""), {Name: "mcp", StepType: toolcall.StepMCPToolCall}}},
		msg("user"),
		toolcalltest.Call("y", ""),
	}
	assert.Equal(t, []string{"x", "mcp", "y"}, ToolNames(FlattenToolCalls(nested)))
}

func TestJSFunctionTranslator(t *testing.T) {
	m, err := jsPredicateMatcher("(v) => v > 10")
	require.NoError(t, err)
	assert.True(t, m.Match(jsonv.Int(11)))
	assert.False(t, m.Match(jsonv.Int(10)))
	m, err = jsPredicateMatcher("()=>true")
	require.NoError(t, err)
	assert.Nil(t, m)
	m, err = jsPredicateMatcher(`(s) => s.startsWith("ab") && s.endsWith("z") || s === "q"`)
	require.NoError(t, err)
	assert.True(t, m.Match(jsonv.String("abz")))
	assert.True(t, m.Match(jsonv.String("q")))
	assert.False(t, m.Match(jsonv.String("ab")))
	m, err = jsPredicateMatcher(`(v) => typeof v === "string" && !v.includes("x")`)
	require.NoError(t, err)
	assert.True(t, m.Match(jsonv.String("abc")))
	assert.False(t, m.Match(jsonv.String("axc")))
	_, err = jsPredicateMatcher("(v) => v % 2 === 0")
	assert.Error(t, err)

	spec, err := jsComparatorSpec(`(toolArgs,referenceToolArgs)=>{if(referenceToolArgs.query&&referenceToolArgs.query.includes("upgrade")){return toolArgs.query?.includes("upgrade")??false}return true}`)
	require.NoError(t, err)
	assert.Contains(t, spec, "when_reference")
	assert.Contains(t, spec, "actual")
	_, err = jsComparatorSpec(`(a, b) => a.query === b.query`)
	assert.ErrorContains(t, err, "unsupported")
}

// TestProfilesNeverPanic feeds odd trajectories to every profile in several
// configurations: each must return a result (possibly an error), never panic.
func TestProfilesNeverPanic(t *testing.T) {
	exp := toolcall.Expectation{Calls: []toolcall.ExpectedCall{toolcalltest.Want("a", `{"x":[1,{"y":null}]}`), toolcalltest.Want("b", ""), {Name: "user", StepType: StepMessage}, turnExp(toolcalltest.Want("a", `{}`), 2)}}
	odd := [][]toolcall.Call{
		nil,
		{toolcalltest.Call("a", `null`), toolcalltest.Call("a", `"str"`), toolcalltest.Call("a", `[1,2]`), toolcalltest.Call("a", `7`)},
		{{Name: "a", ArgsUnknown: true}, {Name: "b", Status: toolcall.StatusError, Type: "mcp"}},
		{msg("user"), turn(toolcalltest.Call("a", `{"x":[1,{"y":null}]}`), 1), msg("tool"), {Name: "p", StepType: toolcall.StepAgentRun, Children: []toolcall.Call{toolcalltest.Call("b", `{}`), {Name: "g", StepType: toolcall.StepModelGeneration}}}},
		{{Name: "", StepType: StepMessage, Fields: map[string]jsonv.Value{"tool_calls": jsonv.Array()}}, {Name: "a", Args: jsonv.Object(jsonv.Member{Key: "u", Value: jsonv.Undefined()})}},
	}
	configs := map[string][]map[string]any{
		MongoDBName:              {nil},
		MastraToolCallName:       {nil, {"expected_tool_order": []any{"a", "b"}, "strict_mode": true, "version": "1.2.0"}},
		MastraTrajectoryName:     {nil, {"comparison_options": map[string]any{"ordering": "strict", "allow_repeated_steps": false}}, {"comparison_options": map[string]any{"ordering": "unordered"}}},
		MastraTrajectoryFullName: {nil, {"defaults": map[string]any{"max_steps": 1, "max_total_tokens": 5, "no_redundant_calls": true, "blacklisted_tools": []any{"b"}, "steps": []any{map[string]any{"name": "p", "children": map[string]any{"steps": []any{map[string]any{"name": "b"}}}}}}}},
		DeepEvalName:             {nil, {"evaluation_params": []any{"input_parameters", "output"}}, {"should_consider_ordering": true, "evaluation_params": []any{"input_parameters"}}, {"should_exact_match": true}},
		AgentEvalsName:           {nil, {"trajectory_match_mode": "unordered", "tool_args_match_mode": "subset"}, {"trajectory_match_mode": "superset", "tool_args_match_overrides": map[string]any{"a": []any{"x.1.y"}}}},
		ADKName:                  {nil, {"match_type": "ANY_ORDER"}, {"metric": "tool_parameter_match"}},
		RagasName:                {nil, {"strict_order": false}, {"metric": "tool_call_f1"}},
	}
	for name, cfgs := range configs {
		for i, opts := range cfgs {
			e := exp
			if name == MongoDBName || name == MastraToolCallName || name == MastraTrajectoryName || name == MastraTrajectoryFullName ||
				name == DeepEvalName || name == ADKName || name == RagasName {
				e = toolcall.Expectation{Calls: []toolcall.ExpectedCall{toolcalltest.Want("a", `{"x":[1,{"y":null}]}`), toolcalltest.Want("b", "")}}
			}
			sc, err := toolcall.New(name, toolcall.Settings{Expectation: e, Options: opts, Threshold: 0.5})
			require.NoError(t, err, "%s config %d", name, i)
			for j, calls := range odd {
				assert.NotPanics(t, func() {
					res := sc.Score(t.Context(), calls)
					assert.Equal(t, name, res.Scorer, "%s config %d input %d", name, i, j)
					if res.Outcome == toolcall.OutcomeError {
						assert.Error(t, res.Err)
					}
				}, "%s config %d input %d", name, i, j)
			}
		}
	}
}

// TestProfilesAcceptAnEmptyToolName: the peers take a tool call named "";
// so do their profiles (the processor's configuration rejects such a name
// before any scorer is built).
func TestProfilesAcceptAnEmptyToolName(t *testing.T) {
	for _, name := range []string{MongoDBName, MastraToolCallName, MastraTrajectoryName, MastraTrajectoryFullName, DeepEvalName, AgentEvalsName, ADKName, RagasName} {
		t.Run(name, func(t *testing.T) {
			s := toolcall.Settings{Expectation: toolcall.Expectation{Calls: []toolcall.ExpectedCall{{Name: "", Args: toolcalltest.MustParse(`{}`)}}}, Threshold: 0.5}
			if name == MastraToolCallName {
				// "" is falsy in JavaScript: Mastra's own constructor check.
				_, err := toolcall.New(name, s)
				require.ErrorContains(t, err, "Either expectedTool or expectedToolOrder must be provided")
				return
			}
			res := scoreProfile(t, name, s, toolcalltest.Call("", `{}`))
			assert.NoError(t, res.Err)
			assert.GreaterOrEqual(t, res.Score, 0.0)
			assert.LessOrEqual(t, res.Score, 1.0)
		})
	}
}

// TestStringifyEqualAgreesWithReference compares jsStringifyEqual, and
// stringifyEqualPlain when the second value is plain, with the
// implementation jsStringifyEqual replaced (every object scanned for array-index keys
// before its members are compared) on random values and random variants
// of them: member order swapped, members undefined, added or dropped,
// array-index keys, values changed.
func TestStringifyEqualAgreesWithReference(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	plain := 0
	for n := 0; n < 20000; n++ {
		a := randomStringifyValue(rng, 0)
		b := a
		if rng.Intn(4) != 0 {
			b = mutateStringifyValue(rng, a)
		}
		if rng.Intn(2) == 0 {
			a, b = b, a
		}
		want := stringifyEqualReference(&a, &b)
		if a.Kind() == jsonv.KindUndefined || b.Kind() == jsonv.KindUndefined {
			want = a.Kind() == b.Kind()
		}
		if got := jsStringifyEqual(a, b); got != want {
			t.Fatalf("%s vs %s: got %v, want %v", a.JSON(), b.JSON(), got, want)
		}
		if b.Kind() != jsonv.KindUndefined && stringifyPlain(&b) {
			plain++
			if got := stringifyEqualPlain(&a, &b); got != stringifyEqualReference(&a, &b) {
				t.Fatalf("plain %s vs %s: got %v, want %v", a.JSON(), b.JSON(), got, !got)
			}
		}
	}
	if plain < 5000 {
		t.Fatalf("only %d plain values compared", plain)
	}
}

var stringifyKeys = []string{"a", "b", "q", "0", "1", "01", "10", "2x", ""}

func randomStringifyValue(rng *rand.Rand, depth int) jsonv.Value {
	k := rng.Intn(8)
	if depth >= 3 {
		k = rng.Intn(4)
	}
	switch k {
	case 0:
		return jsonv.Null()
	case 1:
		return jsonv.Int(int64(rng.Intn(3)))
	case 2:
		return jsonv.String(stringifyKeys[rng.Intn(len(stringifyKeys))])
	case 3:
		return jsonv.Bool(rng.Intn(2) == 0)
	case 4:
		items := make([]jsonv.Value, rng.Intn(3))
		for i := range items {
			items[i] = randomStringifyValue(rng, depth+1)
		}
		return jsonv.Array(items...)
	default:
		members := make([]jsonv.Member, rng.Intn(5))
		for i := range members {
			members[i] = jsonv.Member{Key: stringifyKeys[rng.Intn(len(stringifyKeys))], Value: randomStringifyValue(rng, depth+1)}
			if rng.Intn(6) == 0 {
				members[i].Value = jsonv.Undefined()
			}
		}
		return jsonv.Object(members...)
	}
}

// mutateStringifyValue returns a copy of v, changed somewhere (or not).
func mutateStringifyValue(rng *rand.Rand, v jsonv.Value) jsonv.Value {
	switch v.Kind() {
	case jsonv.KindArray:
		items := slices.Clone(v.Items())
		if len(items) > 0 && rng.Intn(2) == 0 {
			i := rng.Intn(len(items))
			items[i] = mutateStringifyValue(rng, items[i])
		} else if rng.Intn(2) == 0 {
			items = append(items, randomStringifyValue(rng, 2))
		}
		return jsonv.Array(items...)
	case jsonv.KindObject:
		items := slices.Clone(v.Items())
		m := len(items) / 2
		switch op := rng.Intn(6); {
		case m >= 2 && op == 0:
			i, j := rng.Intn(m), rng.Intn(m)
			items[2*i], items[2*j] = items[2*j], items[2*i]
			items[2*i+1], items[2*j+1] = items[2*j+1], items[2*i+1]
		case m >= 1 && op == 1:
			i := rng.Intn(m)
			items = append(items[:2*i], items[2*i+2:]...)
		case op == 2:
			items = append(items, jsonv.String(stringifyKeys[rng.Intn(len(stringifyKeys))]), jsonv.Undefined())
		case op == 3:
			items = append(items, jsonv.String(stringifyKeys[rng.Intn(len(stringifyKeys))]), randomStringifyValue(rng, 2))
		case m >= 1:
			i := rng.Intn(m)
			items[2*i+1] = mutateStringifyValue(rng, items[2*i+1])
		}
		return jsonv.ObjectFromItems(items)
	}
	if rng.Intn(2) == 0 {
		return randomStringifyValue(rng, 3)
	}
	return v
}

// stringifyEqualReference is stringifyEqual as it was before objects were
// walked once (stringifyMembersEqual).
func stringifyEqualReference(a, b *jsonv.Value) bool {
	ak, bk := a.Kind(), b.Kind()
	if ak == jsonv.KindUndefined {
		ak = jsonv.KindNull
	}
	if bk == jsonv.KindUndefined {
		bk = jsonv.KindNull
	}
	if ak != bk {
		return false
	}
	switch ak {
	case jsonv.KindNull:
		return true
	case jsonv.KindBool:
		return a.BoolValue() == b.BoolValue()
	case jsonv.KindNumber:
		return a.NumberValue() == b.NumberValue()
	case jsonv.KindString:
		return a.Literal() == b.Literal()
	case jsonv.KindArray:
		if len(a.Items()) != len(b.Items()) {
			return false
		}
		for i := range a.Items() {
			if !stringifyEqualReference(&a.Items()[i], &b.Items()[i]) {
				return false
			}
		}
		return true
	}
	if !hasIndexKeyReference(a) && !hasIndexKeyReference(b) {
		i, j := 0, 0
		for {
			for i < len(a.Items()) && a.Items()[i+1].Kind() == jsonv.KindUndefined {
				i += 2
			}
			for j < len(b.Items()) && b.Items()[j+1].Kind() == jsonv.KindUndefined {
				j += 2
			}
			if i >= len(a.Items()) || j >= len(b.Items()) {
				return i >= len(a.Items()) && j >= len(b.Items())
			}
			if a.Items()[i].Literal() != b.Items()[j].Literal() || !stringifyEqualReference(&a.Items()[i+1], &b.Items()[j+1]) {
				return false
			}
			i += 2
			j += 2
		}
	}
	ka, kb := stringifyOrder(a), stringifyOrder(b)
	if len(ka) != len(kb) {
		return false
	}
	for i := range ka {
		if a.Items()[ka[i]].Literal() != b.Items()[kb[i]].Literal() || !stringifyEqualReference(&a.Items()[ka[i]+1], &b.Items()[kb[i]+1]) {
			return false
		}
	}
	return true
}

func hasIndexKeyReference(v *jsonv.Value) bool {
	for i := 0; i < len(v.Items()); i += 2 {
		if k := v.Items()[i].Literal(); k != "" && k[0] >= '0' && k[0] <= '9' {
			if _, ok := jsArrayIndex(k); ok {
				return true
			}
		}
	}
	return false
}
