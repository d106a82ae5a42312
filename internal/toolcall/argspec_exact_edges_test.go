package toolcall

import (
	"strings"
	"testing"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// TestLiteralStepsEdges: inputs where the steps might say "all
// passed" while eval reports something: duplicate keys, keys out of
// place, numbers near 2^53 and below the smallest double, -0, strings
// differing in one byte at every position, nested extras.
func TestLiteralStepsEdges(t *testing.T) {
	cases := [][2]string{
		{`{"a":1}`, `{"a":1,"a":2}`},
		{`{"a":1}`, `{"a":1,"a":"x"}`},
		{`{"a":1}`, `{"a":2,"a":1}`},
		{`{"a":1,"a":2}`, `{"a":2,"a":1}`},
		{`{"a":1,"a":1}`, `{"a":1,"a":1}`},
		{`{"a":1,"b":2}`, `{"a":1,"b":2,"a":3}`},
		{`{"a":1,"b":2}`, `{"a":1,"b":2,"b":3}`},
		{`{"a":[1]}`, `{"a":[1],"a":[2]}`},
		{`{"o":{"x":1}}`, `{"o":{"x":1,"x":2}}`},
		{`{"o":{"x":1}}`, `{"o":{"x":1,"y":2}}`},
		{`{"o":{}}`, `{"o":{"x":1}}`},
		{`{"o":{"x":{}},"p":1}`, `{"o":{"x":{"z":1}},"p":1}`},
		{`{"o":{"x":[]},"p":1}`, `{"o":{"x":[]},"p":1}`},
		{`{"o":{"x":{"y":1}},"p":[1,2]}`, `{"o":{"x":{"y":1}},"p":[1,2]}`},
		{`{"o":{"x":{"y":1}},"p":[1,2]}`, `{"o":{"x":{"y":1,"q":0}},"p":[1,2]}`},
		{`{"n":9007199254740991}`, `{"n":9007199254740990.9}`},
		{`{"n":9007199254740991}`, `{"n":9007199254740991.4}`},
		{`{"n":-9007199254740991}`, `{"n":-9007199254740991.0}`},
		{`{"n":0}`, `{"n":1e-400}`},
		{`{"n":0}`, `{"n":-1e-400}`},
		{`{"n":-0}`, `{"n":0}`},
		{`{"n":0.1}`, `{"n":0.10000000000000001}`},
		{`{"n":100}`, `{"n":1e2}`},
		{`{"n":1}`, `{"n":1e400}`},
		{`{"n":4503599627370497}`, `{"n":4503599627370497.0}`},
		{`{"s":""}`, `{"s":""}`},
		{`{"":1}`, `{"":1}`},
		{`{"s":"é"}`, `{"s":"\u00e9"}`},
		{`{"s":"a\u0000b"}`, `{"s":"a\u0000c"}`},
		{`{"s":"a\u0000b"}`, `{"s":"a\u0000b"}`},
		{`{"a":true}`, `{"a":"true"}`},
		{`{"a":null}`, `{"a":"null"}`},
		{`{"a":"1"}`, `{"a":1}`},
		{`{"a":[1,"1"]}`, `{"a":["1",1]}`},
	}
	for _, c := range cases {
		checkLiteralSteps(t, mustParse(c[0]), mustParse(c[1]))
	}
	// Every string of 1 to 20 bytes against each one-byte change.
	base := "abcdefghijklmnopqrst"
	for n := 1; n <= len(base); n++ {
		s := base[:n]
		for i := 0; i < n; i++ {
			b := []byte(s)
			b[i] = 'Z'
			checkLiteralSteps(t, jsonv.Object(jsonv.Member{Key: "k", Value: jsonv.String(s)}), jsonv.Object(jsonv.Member{Key: "k", Value: jsonv.String(string(b))}))
			checkLiteralSteps(t, jsonv.Object(jsonv.Member{Key: s, Value: jsonv.Int(1)}), jsonv.Object(jsonv.Member{Key: string(b), Value: jsonv.Int(1)}))
		}
	}
}

// TestLiteralStepsPartial: arguments holding a value the parse left
// unknown (nested too deep) beside the members the literal names.
func TestLiteralStepsPartial(t *testing.T) {
	deep := strings.Repeat(`{"a":`, jsonv.MaxParseDepth+2) + "1" + strings.Repeat("}", jsonv.MaxParseDepth+2)
	for _, doc := range []string{
		`{"b":1,"z":` + deep + `}`,
		`{"b":1,"o":{"c":2,"z":` + deep + `}}`,
		`{"b":1,"o":{"c":2},"z":[` + deep + `]}`,
	} {
		v, err := jsonv.Parse(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range []string{`{"b":1}`, `{"b":1,"o":{"c":2}}`, `{"b":1,"o":{}}`} {
			checkLiteralSteps(t, mustParse(spec), v)
		}
	}
}
