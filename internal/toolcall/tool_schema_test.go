package toolcall

import (
	"math"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// nested returns a value of depth levels of arrays around 1.
func nested(depth int) jsonv.Value {
	v := jsonv.Int(1)
	for i := 0; i < depth; i++ {
		v = jsonv.Array(v)
	}
	return v
}

// instanceCases are values whose schema instance must be what decoding
// their JSON text gives.
func instanceCases() map[string]jsonv.Value {
	parsed := map[string]string{
		"numbers":         `[1, -0, 0.0, 1.0, 1e2, 1E+2, 1.5e-7, 0.000001, 1e21, 123456789012345678901234567890, -9007199254740993, 1e400, -1e400, 1e-400]`,
		"strings":         `["", "a\"b\\c", "\u0000\u001f\n\t", "é ü 中文 🙂", "\ud83d\ude42", "\u2028"]`,
		"unicode keys":    `{"é":1, "中文":{"🙂":[true,false,null]}, "":"empty key"}`,
		"duplicate keys":  `{"a":1, "b":2, "a":3}`,
		"nested":          `{"trip":{"days":[1,2,{"x":null}],"city":"Paris"}}`,
		"deep but parsed": strings.Repeat("[", 300) + strings.Repeat("]", 300),
		"empty":           `{}`,
	}
	out := map[string]jsonv.Value{}
	for name, text := range parsed {
		out[name] = MustParse(text)
	}
	out["invalid utf-8"] = jsonv.Object(
		jsonv.Member{Key: "\xff", Value: jsonv.String("a\xffb\xed\xa0\x80c\xc3")},
		jsonv.Member{Key: "ok", Value: jsonv.Array(jsonv.String("\xe2\x82"), jsonv.String("\xef\xbf\xbd"))},
	)
	out["keys colliding once decoded"] = jsonv.Object(jsonv.Member{Key: "\xff", Value: jsonv.Int(1)}, jsonv.Member{Key: "\xfe", Value: jsonv.Int(2)})
	out["undefined members and items"] = jsonv.Object(
		jsonv.Member{Key: "gone", Value: jsonv.Undefined()},
		jsonv.Member{Key: "list", Value: jsonv.Array(jsonv.Undefined(), jsonv.Int(1), jsonv.Undefined())},
	)
	out["not finite"] = jsonv.Array(jsonv.Number(math.NaN()), jsonv.Number(math.Inf(1)), jsonv.Number(math.Inf(-1)), jsonv.Number(math.Copysign(0, -1)))
	out["built numbers"] = jsonv.Array(jsonv.Int(7), jsonv.Int(-12), jsonv.Number(0.1), jsonv.Number(1e21), jsonv.Number(2.5), jsonv.MustValueOf(uint64(math.MaxUint64)))
	out["scalars"] = jsonv.Array(jsonv.Null(), jsonv.Bool(true), jsonv.Bool(false), jsonv.String("s"))
	out["top-level string"] = jsonv.String("x\xff")
	out["top-level number"] = MustParse(`1.0`)
	out["top-level null"] = jsonv.Null()
	out["deep past the limit"] = nested(maxInstanceDepth + 5)
	out["deep past the decoder's limit"] = nested(10005)
	out["undefined"] = jsonv.Undefined()
	return out
}

// TestSchemaInstanceMatchesDecodedText checks that validating a value
// converted directly sees what decoding its JSON text saw.
func TestSchemaInstanceMatchesDecodedText(t *testing.T) {
	for name, v := range instanceCases() {
		t.Run(name, func(t *testing.T) {
			want, wantErr := jsonschema.UnmarshalJSON(strings.NewReader(v.JSON()))
			got, ok := schemaInstance(&v, 0)
			if !ok {
				// The text path is taken: fine whatever it says.
				return
			}
			require.NoError(t, wantErr)
			assert.Equal(t, want, got)
		})
	}
	_, ok := schemaInstance(&jsonv.Value{}, 0)
	assert.False(t, ok, "undefined takes the text path")
	deep := nested(maxInstanceDepth + 5)
	_, ok = schemaInstance(&deep, 0)
	assert.False(t, ok, "deep values take the text path")
}

// TestViolationsUnchanged compares Violations with validating the decoded
// JSON text, as it was done before.
func TestViolationsUnchanged(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"trip":{"type":"object","properties":{"days":{"type":"integer","minimum":1}},"required":["days"]}},"required":["trip"]}`,
		`{"type":"array","items":{"type":"integer","maximum":100,"multipleOf":3}}`,
		`{"type":"array","items":{"type":["string","null"],"maxLength":2,"pattern":"^[a-z]*$"}}`,
		`{"type":"object","additionalProperties":false,"properties":{"a":{"const":1}}}`,
		`{"type":"object","propertyNames":{"maxLength":1},"minProperties":5}`,
		`{"type":"object","properties":{"list":{"type":"array","minItems":5,"uniqueItems":true}}}`,
		`{"type":"number","exclusiveMaximum":1e20}`,
		`{"enum":[{"a":1},[1,2],"x"]}`,
	}
	for _, text := range schemas {
		sch, err := CompileArgumentSchema(MustParse(text))
		require.NoError(t, err)
		for name, v := range instanceCases() {
			got := sch.Violations(v)
			want := oldViolations(sch, v)
			assert.Equal(t, want, got, "%s against %s", name, text)
		}
	}
}

// oldViolations is Violations as it was: the arguments written as JSON and
// decoded again.
func oldViolations(s *ArgumentSchema, args jsonv.Value) []string {
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(args.JSON()))
	if err != nil {
		return []string{"arguments: " + err.Error()}
	}
	return s.violationsOf(inst)
}

// FuzzSchemaInstance checks the direct conversion against decoding the JSON
// text on parsed documents.
func FuzzSchemaInstance(f *testing.F) {
	for _, seed := range []string{`{"a":[1,-0,1e400,"é"]}`, `[1.0, 12345678901234567890123]`, "[\"\xff\"]", `{"a":1,"a":{"b":null}}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := jsonv.Parse(text)
		if err != nil {
			return
		}
		got, ok := schemaInstance(&v, 0)
		if !ok {
			return
		}
		want, err := jsonschema.UnmarshalJSON(strings.NewReader(v.JSON()))
		require.NoError(t, err)
		require.Equal(t, want, got)
	})
}

func BenchmarkViolations(b *testing.B) {
	sch, err := CompileArgumentSchema(MustParse(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["celsius","fahrenheit"]},"days":{"type":"integer","minimum":1}},"required":["city"],"additionalProperties":false}`))
	require.NoError(b, err)
	args := MustParse(`{"city":"Paris","unit":"celsius","days":3}`)
	b.ReportAllocs()
	for b.Loop() {
		_ = sch.Violations(args)
	}
}

// TestViolationsDeterministic: a call with several properties a schema does
// not allow is reported the same way every time, its property names in
// order (the schema library gathers them from a map).
func TestViolationsDeterministic(t *testing.T) {
	sch, err := CompileArgumentSchema(MustParse(`{"type":"object","properties":{"city":{"type":"string"}},"additionalProperties":false}`))
	require.NoError(t, err)
	args := MustParse(`{"city":"Paris","zeta":1,"alpha":2,"mid":3,"beta":4,"omega":5}`)
	want := []string{"/: additional properties 'alpha', 'beta', 'mid', 'omega', 'zeta' not allowed"}
	for range 50 {
		require.Equal(t, want, sch.Violations(args))
	}
}
