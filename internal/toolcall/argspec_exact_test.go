package toolcall

import (
	"fmt"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// fullEvaluation evaluates actual against spec by eval alone, without the
// literal steps evaluate runs first.
func fullEvaluation(spec argSpec, actual jsonv.Value) (float64, argTally) {
	spec.literal = literalCheck{}
	t := argTally{record: true}
	score := spec.evaluate(&actual, &t)
	return score, t
}

// checkLiteralSteps compares evaluate (literal steps first) with eval alone
// on one pair, for every extra-argument policy and with and without
// coercion: the same score, tallies and mismatches. When the steps pass,
// eval must find every check passed.
func checkLiteralSteps(t *testing.T, expected, actual jsonv.Value) {
	t.Helper()
	for _, extra := range []ExtraPolicy{ExtraAllow, ExtraPenalize, ExtraFail} {
		for _, coerce := range []bool{false, true} {
			calls, err := compileExpectation(Expectation{ExtraArgs: extra, CoerceStrings: coerce, Calls: []ExpectedCall{{Name: "t", Args: expected}}})
			if err != nil {
				t.Fatal(err)
			}
			spec := calls[0].spec
			wantScore, want := fullEvaluation(spec, actual)
			got := argTally{record: true}
			gotScore := spec.evaluate(&actual, &got)
			if gotScore != wantScore || !reflect.DeepEqual(got, want) {
				t.Fatalf("extra %s, coerce %v: %s against %s: evaluate %v %+v, eval %v %+v", extra, coerce, actual.JSON(), expected.JSON(), gotScore, got, wantScore, want)
			}
			if spec.literal.steps != nil && spec.passesAll(&actual) {
				if want.passed != want.total || want.total != spec.root.checks || want.extras != 0 || len(want.mismatches) != 0 {
					t.Fatalf("extra %s, coerce %v: %s against %s: the steps pass, eval finds %+v", extra, coerce, actual.JSON(), expected.JSON(), want)
				}
			}
		}
	}
}

// TestLiteralStepsAgreeWithEval checks the literal steps against eval on
// the benchmark's arguments, hand-picked cases and random mutations of
// random literal arguments.
func TestLiteralStepsAgreeWithEval(t *testing.T) {
	args := func(i int) jsonv.Value {
		return mustParse(fmt.Sprintf(`{"db":"test","collection":"users%d","filter":{"age":{"$gte":%d},"status":"active","tags":["a","b"]},"limit":10}`, i, 18+i))
	}
	for i := range 10 {
		for j := range 10 {
			checkLiteralSteps(t, args(i), args(j))
		}
	}
	cases := [][2]string{
		{`{"a":"abcdefghijklmnopq"}`, `{"a":"abcdefghijklmnopq"}`},
		{`{"a":"abcdefghijklmnopq"}`, `{"a":"abcdefghXjklmnopq"}`},
		{`{"a":"abcdefghijklmnopqrstuvwxyz0123"}`, `{"a":"abcdefghijklmnopqrstuvwxyz0124"}`},
		{`{"a":"abc"}`, `{"a":"aXc"}`},
		{`{"a":"abcde"}`, `{"a":"abXde"}`},
		{`{"":""}`, `{"":""}`},
		{`{"a":null,"b":true,"c":[]}`, `{"a":null,"b":true,"c":[]}`},
		{`{"a":null}`, `{"a":false}`},
		{`{"n":9007199254740993}`, `{"n":9007199254740993}`},
		{`{"n":9007199254740993}`, `{"n":9007199254740992}`},
		{`{"n":1}`, `{"n":1.0}`},
		{`{"n":0}`, `{"n":-0}`},
		{`{"n":1}`, `{"n":"1"}`},
		{`{"t":["1",2]}`, `{"t":[1,"2"]}`},
		{`{"t":[[1]]}`, `{"t":[[1]]}`},
		{`{"o":{}}`, `{"o":{"x":1}}`},
		{`{"o":{}}`, `{"o":[]}`},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`},
		{`{"a":1,"b":2}`, `{"a":1,"b":2,"c":3}`},
		{`{"a":1,"b":2}`, `{"c":3,"a":1,"b":2}`},
		{`{"a":1,"a":2}`, `{"a":1,"a":2}`},
		{`{"a":1}`, `[1]`},
		{`{"a":{"b":{"c":{"d":{"e":{"f":{"g":1}}}}}}}`, `{"a":{"b":{"c":{"d":{"e":{"f":{"g":1}}}}}}}`},
		{`{"a":{"b":[1,{"c":2}]}}`, `{"a":{"b":[1,{"c":2}]}}`},
	}
	for _, c := range cases {
		checkLiteralSteps(t, mustParse(c[0]), mustParse(c[1]))
	}
	// A value nested deeper than the parser reads is unknown.
	deep := strings.Repeat(`{"a":`, jsonv.MaxParseDepth+2) + "1" + strings.Repeat("}", jsonv.MaxParseDepth+2)
	if v, err := jsonv.Parse(deep); err == nil {
		checkLiteralSteps(t, mustParse(`{"a":{"a":{"a":1}}}`), v)
		checkLiteralSteps(t, mustParse(`{"a":[1]}`), v)
	}
	rng := rand.New(rand.NewSource(1))
	for range 3000 {
		expected := randomLiteral(rng, 0, true)
		checkLiteralSteps(t, expected, expected)
		checkLiteralSteps(t, expected, mutateValue(rng, expected))
	}
}

// literalStrings are short and long strings of few distinct bytes, so that
// strings of one length often differ in a single byte anywhere.
var literalStrings = []string{"", "a", "b", "ab", "ba", "abc", "acc", "abcd", "abce", "users1", "users2", "active", "activf",
	"abcdefgh", "abcdefgi", "bbcdefgh", "collection", "collectiom", "abcdefghijklmnop", "abcdefghijklmnoq", "abcdefghijklmnopq", "abcdefghXjklmnopq",
	"2026-05-01T00:00:00Z", "2026-05-01T00:00:01Z", "$gte", "$lte"}

// randomLiteral returns a random JSON value: an object at the top.
func randomLiteral(rng *rand.Rand, depth int, object bool) jsonv.Value {
	if object || (depth < 4 && rng.Intn(4) == 0) {
		n := rng.Intn(5)
		var b strings.Builder
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(literalStrings[rng.Intn(len(literalStrings))]))
			b.WriteByte(':')
			b.WriteString(randomLiteral(rng, depth+1, false).JSON())
		}
		b.WriteByte('}')
		return mustParse(b.String())
	}
	switch rng.Intn(7) {
	case 0:
		return jsonv.Null()
	case 1:
		return jsonv.Bool(rng.Intn(2) == 0)
	case 2:
		return mustParse([]string{"0", "-0", "1", "1.0", "18", "1e3", "9007199254740993", "9007199254740992", "0.5"}[rng.Intn(9)])
	case 3:
		var b strings.Builder
		b.WriteByte('[')
		for i := range rng.Intn(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(randomLiteral(rng, depth+1, false).JSON())
		}
		b.WriteByte(']')
		return mustParse(b.String())
	}
	return jsonv.String(literalStrings[rng.Intn(len(literalStrings))])
}

// mutateValue returns v with one random change somewhere (or none).
func mutateValue(rng *rand.Rand, v jsonv.Value) jsonv.Value {
	switch v.Kind() {
	case jsonv.KindObject, jsonv.KindArray:
		items := append([]jsonv.Value(nil), v.Items()...)
		step := 1
		if v.Kind() == jsonv.KindObject {
			step = 2
		}
		switch r := rng.Intn(6); {
		case r == 0 && len(items) >= 2*step:
			// Swap two members or elements.
			i, j := rng.Intn(len(items)/step)*step, rng.Intn(len(items)/step)*step
			for k := range step {
				items[i+k], items[j+k] = items[j+k], items[i+k]
			}
		case r == 1:
			// Add one at the end.
			if step == 2 {
				items = append(items, jsonv.String(literalStrings[rng.Intn(len(literalStrings))]))
			}
			items = append(items, randomLiteral(rng, 3, false))
		case r == 2 && len(items) >= step:
			// Drop one.
			i := rng.Intn(len(items)/step) * step
			items = append(items[:i], items[i+step:]...)
		case r == 3 && step == 2 && len(items) > 0:
			// Change a key.
			i := rng.Intn(len(items)/2) * 2
			items[i] = jsonv.String(literalStrings[rng.Intn(len(literalStrings))])
		case len(items) > 0:
			i := rng.Intn(len(items)/step)*step + step - 1
			items[i] = mutateValue(rng, items[i])
		}
		out := jsonv.Array(items...)
		if v.Kind() == jsonv.KindObject {
			out = jsonv.ObjectFromItems(items)
		}
		return mustParse(out.JSON())
	case jsonv.KindString:
		if s := v.Literal(); len(s) > 0 && rng.Intn(2) == 0 {
			b := []byte(s)
			b[rng.Intn(len(b))] ^= 1
			return jsonv.String(string(b))
		}
	}
	if rng.Intn(3) == 0 {
		return v
	}
	return randomLiteral(rng, 3, false)
}

// FuzzLiteralSteps checks the literal steps against eval on arbitrary
// JSON: expected arguments, then actual ones, separated by a newline.
func FuzzLiteralSteps(f *testing.F) {
	f.Add(`{"db":"test","collection":"users1","filter":{"age":{"$gte":19},"status":"active","tags":["a","b"]},"limit":10}`,
		`{"db":"test","collection":"users1","filter":{"age":{"$gte":19},"status":"active","tags":["a","b"]},"limit":10}`)
	f.Add(`{"a":"abcdefghijklmnopq","b":[1,"x",null,true]}`, `{"a":"abcdefghijklmnopq","b":[1,"x",null,true],"c":1}`)
	f.Add(`{"n":9007199254740993,"o":{}}`, `{"n":9007199254740993,"o":{"p":1}}`)
	f.Fuzz(func(t *testing.T, expected, actual string) {
		e, err := jsonv.Parse(expected)
		if err != nil || e.Kind() != jsonv.KindObject {
			return
		}
		a, err := jsonv.Parse(actual)
		if err != nil {
			return
		}
		checkLiteralSteps(t, e, a)
	})
}
