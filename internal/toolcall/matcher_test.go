package toolcall

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// absentArg stands for an argument that is not in the call.
const absentArg = "<absent>"

// TestMatchers runs every matcher, in its configuration form, over values
// it must accept and values it must reject.
func TestMatchers(t *testing.T) {
	tests := []struct {
		name   string
		spec   any
		coerce bool
		accept []string // JSON values, or absentArg
		reject []string
	}{
		{"equals: typed deep equality", map[string]any{"equals": map[string]any{"a": 1, "b": []any{"x", true}}}, false,
			[]string{`{"b":["x",true],"a":1.0}`}, []string{`{"a":1,"b":["x",true],"c":null}`, `{"a":"1","b":["x",true]}`, `{"a":1,"b":[true,"x"]}`, absentArg}},
		{"equals: numeric strings with coercion", map[string]any{"equals": 5}, true,
			[]string{`5`, `"5"`, `"5.0"`}, []string{`"five"`, `6`}},
		{"any", "any", false, []string{`1`, `null`, absentArg}, nil},
		{"present", "present", false, []string{`null`, `""`, `0`}, []string{absentArg}},
		{"absent", map[string]any{"absent": true}, false, []string{absentArg}, []string{`null`, `""`}},
		{"null", "null", false, []string{`null`}, []string{absentArg, `0`, `""`}},
		{"empty", "empty", false, []string{absentArg, `null`, `""`, `[]`, `{}`}, []string{`0`, `" "`, `[null]`, `false`}},
		{"type", map[string]any{"type": []any{"integer", "null"}}, false,
			[]string{`3`, `3.0e0`, `null`}, []string{`3.5`, `"3"`, absentArg}},
		{"type object", map[string]any{"type": "object"}, false, []string{`{}`}, []string{`[]`, `null`}},
		{"one_of", map[string]any{"one_of": []any{"celsius", "fahrenheit", 0}}, false,
			[]string{`"celsius"`, `0.0`}, []string{`"Celsius"`, `"kelvin"`, absentArg}},
		{"regex is RE2 and unanchored", map[string]any{"regex": `Par(is)?\b`}, false,
			[]string{`"Paris"`, `"to Par now"`}, []string{`"Parisian"`, `1`, absentArg}},
		{"regex on numbers with coercion", map[string]any{"regex": `^\d{3}$`}, true, []string{`123`, `"123"`}, []string{`1234`}},
		{"case_insensitive", map[string]any{"case_insensitive": "PARIS"}, false, []string{`"paris"`, `"Paris"`}, []string{`"Paris "`, `1`}},
		{"normalized (BFCL)", map[string]any{"normalized": "New York, NY"}, false,
			[]string{`"new york ny"`, `"NEW-YORK/NY"`, `"newyork,ny"`}, []string{`"New York NJ"`, `7`}},
		{"contains", map[string]any{"contains": "weather"}, false, []string{`"the weather today"`}, []string{`"Weather"`, `["weather"]`}},
		{"prefix", map[string]any{"prefix": "SELECT "}, false, []string{`"SELECT * FROM t"`}, []string{`"select * from t"`, `" SELECT x"`}},
		{"suffix", map[string]any{"suffix": ".csv"}, false, []string{`"a.csv"`}, []string{`"a.csv.gz"`}},
		{"range", map[string]any{"range": map[string]any{"gte": 1, "lt": 7}}, false,
			[]string{`1`, `6.99`}, []string{`7`, `0.5`, `"3"`, absentArg}},
		{"range with coercion", map[string]any{"range": map[string]any{"gt": 0}}, true, []string{`"0.1"`}, []string{`"0"`, `"x"`}},
		{"tolerance absolute", map[string]any{"tolerance": map[string]any{"value": 10, "abs": 0.5}}, false,
			[]string{`10.5`, `9.5`}, []string{`10.6`, `"10"`}},
		{"tolerance relative", map[string]any{"tolerance": map[string]any{"value": 100, "rel": 0.01}}, false,
			[]string{`101`, `99`}, []string{`102`}},
		{"not", map[string]any{"not": map[string]any{"one_of": []any{"drop", "truncate"}}}, false,
			[]string{`"select"`, absentArg}, []string{`"drop"`}},
		{"any_of: the optional-argument idiom", map[string]any{"any_of": []any{"absent", map[string]any{"type": "string"}}}, false,
			[]string{absentArg, `"x"`}, []string{`1`, `null`}},
		{"all_of", map[string]any{"all_of": []any{map[string]any{"type": "string"}, map[string]any{"prefix": "a"}}}, false,
			[]string{`"abc"`}, []string{`"bcd"`, `1`}},
		{"several names in one map all apply", map[string]any{"prefix": "a", "suffix": "z"}, false,
			[]string{`"abcz"`}, []string{`"abc"`, `"xyz"`}},
		{"array_or_single", map[string]any{"array_or_single": map[string]any{"equals": "Paris"}}, false,
			[]string{`"Paris"`, `["Paris"]`}, []string{`["Paris","Lyon"]`, `[]`, `"Lyon"`}},
		{"subset_of", map[string]any{"subset_of": map[string]any{"a": 1, "b": 2}}, false,
			[]string{`{"a":1}`, `{}`, `{"b":2,"a":1}`}, []string{`{"a":1,"c":3}`, `{"a":2}`, `[]`}},
		{"superset_of", map[string]any{"superset_of": map[string]any{"a": 1}}, false,
			[]string{`{"a":1,"c":3}`, `{"a":1.0}`}, []string{`{"c":3}`, `{"a":"1"}`}},
		{"array_ordered", map[string]any{"array_ordered": []any{"a", "b"}}, false,
			[]string{`["a","b"]`}, []string{`["b","a"]`, `["a","b","c"]`, `"a"`}},
		{"array_unordered is a multiset", map[string]any{"array_unordered": []any{"a", "b", "a"}}, false,
			[]string{`["a","a","b"]`, `["b","a","a"]`}, []string{`["a","b","b"]`, `["a","b"]`}},
		{"array_contains counts duplicates", map[string]any{"array_contains": []any{"a", "a"}}, false,
			[]string{`["a","x","a"]`}, []string{`["a","x"]`}},
		{"each", map[string]any{"each": map[string]any{"type": "integer"}}, false,
			[]string{`[1,2]`, `[]`}, []string{`[1,"2"]`, `1`}},
		{"dollar keys in literals are literal", map[string]any{"equals": map[string]any{"$gte": 18}}, false,
			[]string{`{"$gte":18}`}, []string{`20`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseMatcher(tt.spec, MatcherOptions{CoerceStrings: tt.coerce})
			require.NoError(t, err)
			assert.NotEmpty(t, m.String())
			for _, a := range tt.accept {
				assert.True(t, m.Match(matcherArg(a)), "%s should accept %s", m, a)
			}
			for _, r := range tt.reject {
				assert.False(t, m.Match(matcherArg(r)), "%s should reject %s", m, r)
			}
		})
	}
}

func matcherArg(s string) jsonv.Value {
	if s == absentArg {
		return jsonv.Undefined()
	}
	return mustParse(s)
}

// TestMatcherErrors checks that bad matcher configuration is rejected with a
// message that says what is wrong.
func TestMatcherErrors(t *testing.T) {
	tests := []struct {
		spec any
		want string
	}{
		{"bogus", `unknown matcher "bogus"`},
		{map[string]any{"$gte": 18}, `unknown matcher "$gte" (literal values belong in args`},
		{"regex", `matcher "regex" needs an operand`},
		{map[string]any{"regex": "("}, `regex: invalid regex "("`},
		{map[string]any{"one_of": []any{}}, `one_of: expects a non-empty list of values`},
		{map[string]any{"range": map[string]any{"gt": 1, "gte": 2}}, `range: give at most one lower bound`},
		{map[string]any{"range": map[string]any{"gte": 5, "lte": 1}}, `range: lower bound 5 is above upper bound 1`},
		{map[string]any{"range": map[string]any{"min": 1}}, `range:`},
		{map[string]any{"type": "decimal"}, `type:`},
		{map[string]any{"present": "yes"}, `present: takes no operand`},
		{map[string]any{"subset_of": []any{1}}, `subset_of: expects an object`},
		{map[string]any{"array_ordered": "ab"}, `array_ordered: expects a list`},
		{map[string]any{}, `empty matcher`},
		{42, `a matcher is a name or a map of name to operand`},
	}
	for _, tt := range tests {
		_, err := ParseMatcher(tt.spec, MatcherOptions{})
		if assert.Error(t, err, "%v", tt.spec) {
			assert.Contains(t, err.Error(), tt.want)
		}
	}
}
