package scoring

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		assert.Equal(t, tt.want, pyStr(mustParse(tt.json)), tt.json)
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
		assert.Equal(t, tt.want, pyEqual(mustParse(tt.a), mustParse(tt.b)), "%s == %s", tt.a, tt.b)
	}
	assert.True(t, pyEqual(Undefined(), Null()), "both None")
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
		assert.Equal(t, tt.want, jsStringifyEqual(mustParse(tt.a), mustParse(tt.b)), "%s vs %s", tt.a, tt.b)
	}
	withUndef := Object(Member{"x", Int(1)}, Member{"y", Undefined()})
	assert.True(t, jsStringifyEqual(withUndef, mustParse(`{"x":1}`)), "undefined members vanish")
	assert.True(t, jsStringifyEqual(Array(Undefined()), mustParse(`[null]`)), "undefined elements are null")
	assert.True(t, jsStringifyEqual(Undefined(), Undefined()))
	assert.False(t, jsStringifyEqual(Undefined(), Null()))

	assert.Equal(t, 3.0, jsMathRound(2.5))
	assert.Equal(t, -2.0, jsMathRound(-2.5), "ties toward +Infinity")
	assert.Equal(t, 0.33, mastraRound2(1.0/3))
	assert.Equal(t, 0.67, mastraRound2(2.0/3))
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
	flat := []Call{call("a", ""), call("b", "")}
	assert.Equal(t, flat, flattenToolCalls(flat))
	nested := []Call{
		{Name: "plan", StepType: StepModelGeneration},
		{Name: "agent", StepType: StepAgentRun, Children: []Call{call("x", ""), {Name: "mcp", StepType: StepMCPToolCall}}},
		msg("user"),
		call("y", ""),
	}
	assert.Equal(t, []string{"x", "mcp", "y"}, toolNames(flattenToolCalls(nested)))
}

func TestJSFunctionTranslator(t *testing.T) {
	m, err := jsPredicateMatcher("(v) => v > 10")
	require.NoError(t, err)
	assert.True(t, m.Match(Int(11)))
	assert.False(t, m.Match(Int(10)))
	m, err = jsPredicateMatcher("()=>true")
	require.NoError(t, err)
	assert.Nil(t, m)
	m, err = jsPredicateMatcher(`(s) => s.startsWith("ab") && s.endsWith("z") || s === "q"`)
	require.NoError(t, err)
	assert.True(t, m.Match(String("abz")))
	assert.True(t, m.Match(String("q")))
	assert.False(t, m.Match(String("ab")))
	m, err = jsPredicateMatcher(`(v) => typeof v === "string" && !v.includes("x")`)
	require.NoError(t, err)
	assert.True(t, m.Match(String("abc")))
	assert.False(t, m.Match(String("axc")))
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
	exp := Expectation{Calls: []ExpectedCall{want("a", `{"x":[1,{"y":null}]}`), want("b", ""), {Name: "user", StepType: StepMessage}, turnExp(want("a", `{}`), 2)}}
	odd := [][]Call{
		nil,
		{call("a", `null`), call("a", `"str"`), call("a", `[1,2]`), call("a", `7`)},
		{{Name: "a", ArgsUnknown: true}, {Name: "b", Status: StatusError, Type: "mcp"}},
		{msg("user"), turn(call("a", `{"x":[1,{"y":null}]}`), 1), msg("tool"), {Name: "p", StepType: StepAgentRun, Children: []Call{call("b", `{}`), {Name: "g", StepType: StepModelGeneration}}}},
		{{Name: "", StepType: StepMessage, Fields: map[string]Value{"tool_calls": Array()}}, {Name: "a", Args: Object(Member{"u", Undefined()})}},
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
				e = Expectation{Calls: []ExpectedCall{want("a", `{"x":[1,{"y":null}]}`), want("b", "")}}
			}
			sc, err := New(name, Settings{Expectation: e, Options: opts, Threshold: 0.5})
			require.NoError(t, err, "%s config %d", name, i)
			for j, calls := range odd {
				assert.NotPanics(t, func() {
					res := sc.Score(t.Context(), calls)
					assert.Equal(t, name, res.Scorer, "%s config %d input %d", name, i, j)
					if res.Outcome == OutcomeError {
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
			s := Settings{Expectation: Expectation{Calls: []ExpectedCall{{Name: "", Args: mustParse(`{}`)}}}, Threshold: 0.5}
			if name == MastraToolCallName {
				// "" is falsy in JavaScript: Mastra's own constructor check.
				_, err := New(name, s)
				require.ErrorContains(t, err, "Either expectedTool or expectedToolOrder must be provided")
				return
			}
			res := scoreProfile(t, name, s, call("", `{}`))
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
		if a.kind == KindUndefined || b.kind == KindUndefined {
			want = a.kind == b.kind
		}
		if got := jsStringifyEqual(a, b); got != want {
			t.Fatalf("%s vs %s: got %v, want %v", a.JSON(), b.JSON(), got, want)
		}
		if b.kind != KindUndefined && stringifyPlain(&b) {
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

func randomStringifyValue(rng *rand.Rand, depth int) Value {
	k := rng.Intn(8)
	if depth >= 3 {
		k = rng.Intn(4)
	}
	switch k {
	case 0:
		return Null()
	case 1:
		return Int(int64(rng.Intn(3)))
	case 2:
		return String(stringifyKeys[rng.Intn(len(stringifyKeys))])
	case 3:
		return Bool(rng.Intn(2) == 0)
	case 4:
		items := make([]Value, rng.Intn(3))
		for i := range items {
			items[i] = randomStringifyValue(rng, depth+1)
		}
		return Array(items...)
	default:
		members := make([]Member, rng.Intn(5))
		for i := range members {
			members[i] = Member{Key: stringifyKeys[rng.Intn(len(stringifyKeys))], Value: randomStringifyValue(rng, depth+1)}
			if rng.Intn(6) == 0 {
				members[i].Value = Undefined()
			}
		}
		return Object(members...)
	}
}

// mutateStringifyValue returns a copy of v, changed somewhere (or not).
func mutateStringifyValue(rng *rand.Rand, v Value) Value {
	switch v.kind {
	case KindArray:
		items := slices.Clone(v.items)
		if len(items) > 0 && rng.Intn(2) == 0 {
			i := rng.Intn(len(items))
			items[i] = mutateStringifyValue(rng, items[i])
		} else if rng.Intn(2) == 0 {
			items = append(items, randomStringifyValue(rng, 2))
		}
		return Value{kind: KindArray, items: items}
	case KindObject:
		items := slices.Clone(v.items)
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
			items = append(items, String(stringifyKeys[rng.Intn(len(stringifyKeys))]), Undefined())
		case op == 3:
			items = append(items, String(stringifyKeys[rng.Intn(len(stringifyKeys))]), randomStringifyValue(rng, 2))
		case m >= 1:
			i := rng.Intn(m)
			items[2*i+1] = mutateStringifyValue(rng, items[2*i+1])
		}
		return Value{kind: KindObject, items: items}
	}
	if rng.Intn(2) == 0 {
		return randomStringifyValue(rng, 3)
	}
	return v
}

// stringifyEqualReference is stringifyEqual as it was before objects were
// walked once (stringifyMembersEqual).
func stringifyEqualReference(a, b *Value) bool {
	ak, bk := a.kind, b.kind
	if ak == KindUndefined {
		ak = KindNull
	}
	if bk == KindUndefined {
		bk = KindNull
	}
	if ak != bk {
		return false
	}
	switch ak {
	case KindNull:
		return true
	case KindBool:
		return a.b == b.b
	case KindNumber:
		return a.num == b.num
	case KindString:
		return a.str == b.str
	case KindArray:
		if len(a.items) != len(b.items) {
			return false
		}
		for i := range a.items {
			if !stringifyEqualReference(&a.items[i], &b.items[i]) {
				return false
			}
		}
		return true
	}
	if !hasIndexKeyReference(a) && !hasIndexKeyReference(b) {
		i, j := 0, 0
		for {
			for i < len(a.items) && a.items[i+1].kind == KindUndefined {
				i += 2
			}
			for j < len(b.items) && b.items[j+1].kind == KindUndefined {
				j += 2
			}
			if i >= len(a.items) || j >= len(b.items) {
				return i >= len(a.items) && j >= len(b.items)
			}
			if a.items[i].str != b.items[j].str || !stringifyEqualReference(&a.items[i+1], &b.items[j+1]) {
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
		if a.items[ka[i]].str != b.items[kb[i]].str || !stringifyEqualReference(&a.items[ka[i]+1], &b.items[kb[i]+1]) {
			return false
		}
	}
	return true
}

func hasIndexKeyReference(v *Value) bool {
	for i := 0; i < len(v.items); i += 2 {
		if k := v.items[i].str; k != "" && k[0] >= '0' && k[0] <= '9' {
			if _, ok := jsArrayIndex(k); ok {
				return true
			}
		}
	}
	return false
}
