package toolcall

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// schemaGen draws random schemas of the shapes the fast path handles (and
// now and then a keyword it does not), and instances biased towards those
// schemas, so that both valid and invalid arguments are common.
type schemaGen struct{ r *rand.Rand }

var (
	genNames   = []string{"a", "b", "city", "é", "unit", "\xff"}
	genStrings = []string{"", "a", "é", "ab", "abc", "celsius", "中文🙂", "x\xffy", "\xff", "b"}
	genNumbers = []float64{0, 1, -1, 1.5, 0.1, 2, 3, -2.5, 1e21, 1e-7, 9007199254740993, math.Copysign(0, -1), math.NaN(), math.Inf(1), 100}
	genTypes   = []string{"null", "boolean", "number", "integer", "string", "array", "object"}
	genDrafts  = []string{
		"http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-06/schema#",
		"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2019-09/schema",
		"https://json-schema.org/draft/2020-12/schema",
	}
)

func (g schemaGen) pick(n int) int        { return g.r.IntN(n) }
func (g schemaGen) chance(p float64) bool { return g.r.Float64() < p }

func (g schemaGen) scalar() jsonv.Value {
	switch g.pick(4) {
	case 0:
		return jsonv.Null()
	case 1:
		return jsonv.Bool(g.chance(0.5))
	case 2:
		return jsonv.Number(genNumbers[g.pick(len(genNumbers)-3)]) // finite ones
	}
	return jsonv.String(genStrings[g.pick(len(genStrings))])
}

func (g schemaGen) schema(depth int) jsonv.Value {
	if g.chance(0.08) {
		return jsonv.Bool(g.chance(0.8))
	}
	var ms []jsonv.Member
	add := func(k string, v jsonv.Value) { ms = append(ms, jsonv.Member{Key: k, Value: v}) }
	if depth == 0 && g.chance(0.3) {
		add("$schema", jsonv.String(genDrafts[g.pick(len(genDrafts))]))
	}
	if g.chance(0.7) {
		if g.chance(0.8) {
			add("type", jsonv.String(genTypes[g.pick(len(genTypes))]))
		} else {
			add("type", jsonv.Array(jsonv.String(genTypes[g.pick(len(genTypes))]), jsonv.String(genTypes[g.pick(len(genTypes))])))
		}
	}
	if depth < 3 && g.chance(0.5) {
		var props []jsonv.Member
		for range g.pick(4) {
			props = append(props, jsonv.Member{Key: genNames[g.pick(len(genNames))], Value: g.schema(depth + 1)})
		}
		add("properties", jsonv.Object(props...))
	}
	if g.chance(0.4) {
		var req []jsonv.Value
		for range 1 + g.pick(3) {
			req = append(req, jsonv.String(genNames[g.pick(len(genNames))]))
		}
		add("required", jsonv.Array(req...))
	}
	if g.chance(0.3) {
		if depth < 3 && g.chance(0.3) {
			add("additionalProperties", g.schema(depth+1))
		} else {
			add("additionalProperties", jsonv.Bool(g.chance(0.3)))
		}
	}
	if depth < 3 && g.chance(0.2) {
		add("items", g.schema(depth+1))
	}
	if g.chance(0.2) {
		var vs []jsonv.Value
		for range g.pick(4) {
			vs = append(vs, g.scalar())
		}
		add("enum", jsonv.Array(vs...))
	}
	if g.chance(0.08) {
		add("const", g.scalar())
	}
	for _, k := range []string{"minimum", "maximum"} {
		if g.chance(0.1) {
			add(k, jsonv.Number(genNumbers[g.pick(len(genNumbers)-3)]))
		}
	}
	for _, k := range []string{"minLength", "maxLength", "minItems", "maxItems"} {
		if g.chance(0.08) {
			add(k, jsonv.Int(int64(g.pick(4))))
		}
	}
	if g.chance(0.2) {
		add("description", jsonv.String("d"))
	}
	if g.chance(0.03) {
		add([]string{"pattern", "format", "minProperties", "nullable", "exclusiveMinimum"}[g.pick(5)], jsonv.String("x"))
	}
	return jsonv.Object(ms...)
}

// instance draws a value for schema, mostly following it.
func (g schemaGen) instance(schema *jsonv.Value, depth int) jsonv.Value {
	if depth > 5 || schema.Kind() != jsonv.KindObject || g.chance(0.1) {
		return g.any(depth)
	}
	if e, ok := schema.Get("enum"); ok && e.Len() > 0 && g.chance(0.7) {
		return e.Index(g.pick(e.Len()))
	}
	if c, ok := schema.Get("const"); ok && g.chance(0.7) {
		return c
	}
	typ := ""
	if t, ok := schema.Get("type"); ok {
		if t.Kind() == jsonv.KindArray {
			t = t.Index(g.pick(t.Len()))
		}
		typ = t.StringValue()
	}
	switch typ {
	case "object":
		return g.object(schema, depth)
	case "array":
		items, _ := schema.Get("items")
		var vs []jsonv.Value
		for range g.pick(4) {
			vs = append(vs, g.instance(&items, depth+1))
		}
		if g.chance(0.1) {
			vs = append(vs, jsonv.Undefined())
		}
		return jsonv.Array(vs...)
	case "string":
		return jsonv.String(genStrings[g.pick(len(genStrings))])
	case "integer":
		return jsonv.Int(int64(g.pick(7) - 3))
	case "number":
		return jsonv.Number(genNumbers[g.pick(len(genNumbers))])
	case "boolean":
		return jsonv.Bool(g.chance(0.5))
	case "null":
		return jsonv.Null()
	}
	if _, ok := schema.Get("properties"); ok {
		return g.object(schema, depth)
	}
	return g.any(depth)
}

// object draws an object with the schema's required properties, some of
// its others and now and then an extra, a duplicate or an undefined member.
func (g schemaGen) object(schema *jsonv.Value, depth int) jsonv.Value {
	var items []jsonv.Value
	put := func(k string, v jsonv.Value) { items = append(items, jsonv.String(k), v) }
	props, _ := schema.Get("properties")
	if req, ok := schema.Get("required"); ok && req.Kind() == jsonv.KindArray {
		for i := range req.Len() {
			if g.chance(0.95) {
				name := req.Index(i).StringValue()
				sub, _ := props.Get(name)
				put(name, g.instance(&sub, depth+1))
			}
		}
	}
	for i := 0; i < len(props.Items()); i += 2 {
		if g.chance(0.5) {
			put(props.Items()[i].Literal(), g.instance(&props.Items()[i+1], depth+1))
		}
	}
	if g.chance(0.15) {
		put(genNames[g.pick(len(genNames))], g.any(depth+1))
	}
	if g.chance(0.05) {
		put(genNames[g.pick(len(genNames))], jsonv.Undefined())
	}
	if len(items) > 0 && g.chance(0.05) {
		items = append(items, items[0], g.any(depth+1)) // duplicate key
	}
	if items == nil {
		items = []jsonv.Value{}
	}
	return jsonv.ObjectFromItems(items)
}

func (g schemaGen) any(depth int) jsonv.Value {
	if depth < 4 && g.chance(0.2) {
		if g.chance(0.5) {
			return jsonv.Array(g.any(depth+1), g.any(depth+1))
		}
		return jsonv.ObjectFromItems([]jsonv.Value{jsonv.String(genNames[g.pick(len(genNames))]), g.any(depth + 1)})
	}
	switch g.pick(5) {
	case 0:
		return jsonv.Null()
	case 1:
		return jsonv.Bool(g.chance(0.5))
	case 2:
		return jsonv.Number(genNumbers[g.pick(len(genNumbers))])
	case 3:
		return MustParse(`1.0`)
	}
	return jsonv.String(genStrings[g.pick(len(genStrings))])
}

// fastDifferential checks one schema against instances drawn for it: where
// the fast path says valid, the library must find no violation. It
// returns how many instances the fast path proved valid.
func fastDifferential(t testing.TB, schema jsonv.Value, instances []jsonv.Value) int {
	sch, err := CompileArgumentSchema(schema)
	if err != nil {
		return 0
	}
	proved := 0
	for _, inst := range instances {
		if sch.fast == nil || !sch.fast.valid(&inst) {
			continue
		}
		proved++
		if v := sch.slowViolations(inst); v != nil {
			t.Fatalf("fast path says valid, the library does not:\nschema   %s\ninstance %s\nviolations %q", schema.JSON(), inst.JSON(), v)
		}
	}
	return proved
}

func drawCase(seed uint64, n int) (jsonv.Value, []jsonv.Value) {
	g := schemaGen{rand.New(rand.NewPCG(seed, seed>>1|1))}
	schema := g.schema(0)
	instances := make([]jsonv.Value, n)
	for i := range instances {
		instances[i] = g.instance(&schema, 0)
	}
	return schema, instances
}

// TestFastSchemaDifferential runs random schemas of the shapes the fast
// path handles against the library, and checks the fast path proves a fair
// share of instances valid (it must not be vacuous).
func TestFastSchemaDifferential(t *testing.T) {
	cases, instances, proved, fast := 3000, 0, 0, 0
	if testing.Short() {
		cases = 300
	}
	for seed := range uint64(cases) {
		schema, insts := drawCase(seed, 20)
		instances += len(insts)
		proved += fastDifferential(t, schema, insts)
		if sch, err := CompileArgumentSchema(schema); err == nil && sch.fast != nil {
			fast++
		}
	}
	t.Logf("%d schemas (%d with a fast path), %d instances, %d proved valid", cases, fast, instances, proved)
	assert.Greater(t, fast, cases/2)
	assert.Greater(t, proved, instances/10)
}

// FuzzFastSchema is TestFastSchemaDifferential driven by the fuzzer.
func FuzzFastSchema(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 1 << 40} {
		f.Add(binary.LittleEndian.AppendUint64(nil, s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var b [8]byte
		copy(b[:], data)
		schema, insts := drawCase(binary.LittleEndian.Uint64(b[:]), 30)
		fastDifferential(t, schema, insts)
	})
}

// TestFastSchemaRecorded checks the recorded definitions: each gets a fast
// path, which proves their usual arguments valid and leaves the rest to the
// library, with the same violations.
func TestFastSchemaRecorded(t *testing.T) {
	proved := 0
	for key, text := range capturedDefinitions(t) {
		defs, err := ParseToolDefinitions(text)
		require.NoError(t, err, key)
		for _, d := range defs {
			if d.Parameters.IsUndefined() {
				continue
			}
			sch, err := CompileArgumentSchema(d.Parameters)
			require.NoError(t, err)
			require.NotNil(t, sch.fast, "%s: %s has a fast path", key, d.Name)
			g := schemaGen{rand.New(rand.NewPCG(7, 9))}
			var insts []jsonv.Value
			for range 300 {
				insts = append(insts, g.instance(&d.Parameters, 0))
			}
			proved += fastDifferential(t, d.Parameters, insts)
		}
	}
	assert.Greater(t, proved, 500)
}

// TestFastSchemaCases pins what the fast path proves and what it leaves to
// the library.
func TestFastSchemaCases(t *testing.T) {
	const weather = `{"type":"object","properties":{"city":{"type":"string","minLength":1},"unit":{"enum":["celsius","fahrenheit"]},"days":{"type":"integer","minimum":1,"maximum":14},"tags":{"type":"array","items":{"type":"string"},"maxItems":2},"opt":{"type":["string","null"]}},"required":["city"],"additionalProperties":false}`
	for _, tt := range []struct {
		name, schema, args string
		proved             bool
	}{
		{"valid", weather, `{"city":"Paris","unit":"celsius","days":3,"tags":["a"],"opt":null}`, true},
		{"bound equal", weather, `{"city":"P","days":14}`, true},
		{"integral float", weather, `{"city":"P","days":2.0}`, true},
		{"missing required", weather, `{"unit":"celsius"}`, false},
		{"extra property", weather, `{"city":"Paris","zz":1}`, false},
		{"not in enum", weather, `{"city":"Paris","unit":"kelvin"}`, false},
		{"too short", weather, `{"city":""}`, false},
		{"fraction", weather, `{"city":"P","days":2.5}`, false},
		{"over maximum", weather, `{"city":"P","days":15}`, false},
		{"too many items", weather, `{"city":"P","tags":["a","b","c"]}`, false},
		{"wrong type", weather, `{"city":1}`, false},
		{"fraction bound", `{"minimum":0.1}`, `0.1`, false},
		{"above fraction bound", `{"minimum":0.1}`, `0.2`, true},
		{"enum number doubted", `{"enum":[1,2]}`, `1`, false},
		{"anything", `{}`, `{"a":[1,{"b":null}]}`, true},
		{"false schema", `{"properties":{"a":false}}`, `{"a":1}`, false},
		{"unsupported keyword", `{"type":"string","pattern":"^a"}`, `"a"`, false},
		{"format", `{"type":"string","format":"email"}`, `"a@b.c"`, false},
		{"ref", `{"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s"}`, `"a"`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sch, err := CompileArgumentSchema(MustParse(tt.schema))
			require.NoError(t, err)
			args := MustParse(tt.args)
			assert.Equal(t, tt.proved, sch.fast != nil && sch.fast.valid(&args))
			assert.Equal(t, sch.slowViolations(args), sch.Violations(args))
		})
	}
}

// TestFastSchemaDepth: values nested past the fast path's limit are left to
// the library, whatever the schema allows.
func TestFastSchemaDepth(t *testing.T) {
	sch, err := CompileArgumentSchema(MustParse(`{"type":"object"}`))
	require.NoError(t, err)
	shallowArgs := jsonv.Object(jsonv.Member{Key: "a", Value: nested(10)})
	assert.True(t, sch.fast.valid(&shallowArgs))
	deep := jsonv.Object(jsonv.Member{Key: "a", Value: nested(10005)})
	assert.False(t, sch.fast.valid(&deep))
	assert.Equal(t, sch.slowViolations(deep), sch.Violations(deep))
	undef := jsonv.Undefined()
	assert.False(t, sch.fast.valid(&undef))
}

func BenchmarkViolationsFast(b *testing.B) {
	sch, err := CompileArgumentSchema(MustParse(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city","unit"],"additionalProperties":false}`))
	require.NoError(b, err)
	args := MustParse(`{"city":"Paris","unit":"celsius"}`)
	for _, bb := range []struct {
		name string
		f    func(jsonv.Value) []string
	}{{"fast", sch.Violations}, {"library", sch.slowViolations}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = bb.f(args)
			}
		})
	}
}
