package extract

import (
	"strings"
	"testing"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

var traceloopCases = []string{
	`{"args":["{\"city\":\"Paris\",\"unit\":\"celsius\"}"]}`,
	`{"args":["{\"symbol\":\"ZZZZ\"}"]}`,
	` { "args" : [ "{}" ] } `, "{\t\"args\"\n:\r[\"{\\\"a\\\":1}\"]}",
	`{"args":["ZZZZ"]}`, `{"args":[""]}`, `{"args":["[1]"]}`, `{"args":["{\"a\":"]}`, `{"args":["{"]}`,
	`{"args":["\"{\\\"a\\\":1}\""]}`, `{"args":["{\"a\":\"\\u00e9\"}"]}`, `{"args":["\x"]}`,
	`{"args":["a` + "\x01" + `"]}`, `{"args":["` + "\xff" + `"]}`,
	`{"args":[]}`, `{"args":[],"kwargs":{}}`, `{"args":["a","b"]}`, `{"args":["a"],"x":["b"]}`,
	`{"args":["a"]}x`, `{"args":["a"]`, `{"args":"a"}`, `{"args":[{"a":1}]}`, `{"args":[1]}`,
	`{"a\u0072gs":["{}"]}`, `{"args":["{}"],"args":["{\"b\":2}"]}`, `{"kwargs":{"a":1}}`,
	"{\v\"args\":[\"{}\"]}", `{"args":["{}"]` + "\u00a0}", `{"args":["{}"]}}`, `{{"args":["{}"]}`,
	`{"input_str":"{'a': 1}","inputs":{"a":1}}`, `{"tool_name":"t","arguments":"{\"a\":1}"}`,
	`{"args":["` + strings.Repeat(`[`, 70) + strings.Repeat(`]`, 70) + `"]}`,
}

func TestDecodeTraceloopMatchesTree(t *testing.T) {
	for _, s := range traceloopCases {
		checkDecodeTraceloop(t, s)
	}
}

func checkDecodeTraceloop(t *testing.T, s string) {
	t.Helper()
	var sl jsonv.Slab
	v, state := decodeTraceloop(s, &sl)
	wv, wstate := decodeTraceloopTree(s)
	if v.Kind() != wv.Kind() || v.JSON() != wv.JSON() || state != wstate {
		t.Errorf("decodeTraceloop(%q) = %s, %v; the tree gives %s, %v", s, v.JSON(), state, wv.JSON(), wstate)
	}
}

func FuzzDecodeTraceloop(f *testing.F) {
	for _, s := range traceloopCases {
		f.Add(s)
	}
	f.Fuzz(checkDecodeTraceloop)
}

// BenchmarkDecodeArgumentsTraceloop decodes the record OpenLLMetry JS
// writes for a tool called with one argument.
func BenchmarkDecodeArgumentsTraceloop(b *testing.B) {
	const raw = `{"args":["{\"city\":\"Paris\",\"unit\":\"celsius\"}"]}`
	b.ReportAllocs()
	for b.Loop() {
		DecodeArguments(raw, EncodingTraceloop, DecodeOptions{})
	}
}
