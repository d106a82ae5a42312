package extract

import (
	"strings"
	"testing"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// oldLangChainToolMessage is how langChainToolName read the ToolMessage
// before langChainToolMessage: the whole document parsed. It is the
// reference langChainToolMessage must match on every input.
func oldLangChainToolMessage(out string) (name, id string, ok bool) {
	msg, err := jsonv.Parse(out)
	if err != nil {
		return "", "", false
	}
	kw, _ := msg.Get("kwargs")
	n, _ := kw.Get("name")
	i, _ := kw.Get("tool_call_id")
	return n.StringValue(), i.StringValue(), true
}

// toolMessageOutput is the traceloop.entity.output OpenLLMetry JS records
// for a LangChain tool (testdata/demo/traces/openllmetry-langchain-mock*).
const toolMessageOutput = `{"lc":1,"type":"constructor","id":["langchain_core","messages","ToolMessage"],"kwargs":{"status":"success","content":"{\"city\":\"Paris\",\"unit\":\"celsius\",\"temperature\":21}","tool_call_id":"call_1","name":"get_weather","metadata":{"versions":{"@langchain/core":"1.2.13"}},"additional_kwargs":{},"response_metadata":{}}}`

var toolMessageCases = []string{
	toolMessageOutput,
	``, ` `, `ToolMessage`, `null`, `"ToolMessage"`, `[]`, `{}`, `[{"kwargs":{"name":"x"}}]`,
	`{"kwargs":null}`, `{"kwargs":"name"}`, `{"kwargs":[{"name":"x"}]}`, `{"kwargs":{}}`,
	`{"kwargs":{"name":1,"tool_call_id":true}}`, `{"kwargs":{"name":{"a":"b"},"tool_call_id":["c"]}}`,
	` { "kwargs" : { "name" : "a" , "tool_call_id" : "b" } } `,
	"\t{\n\"kwargs\"\r:{\"name\":\"a\"}}\n",
	`{"kwargs":{"name":"a","name":"b"},"kwargs":{"tool_call_id":"c"}}`,
	`{"kwargs":{"name":"a"},"kwargs":{"name":"b","name":""}}`,
	`{"kw\u0061rgs":{"n\u0061me":"a\"b","tool_call_id":"\ud83d\ude00\ud800x"}}`,
	`{"kwargs":{"name":"\\","tool_call_id":"\\\"\\"}}`,
	`{"kwargs":{"name":"a\\\\","x":"\\\"}\"","tool_call_id":"q"}}`,
	`{"a":{"kwargs":{"name":"deep"}},"b":[{"}":"]"},"{"],"kwargs":{"name":"top"}}`,
	`{"kwargs":{"name":"a"}`, `{"kwargs":{"name":"a"}}x`, `{"kwargs":{"name":"a",}}`, `{"kwargs":{"name":"a\x"}}`,
	`{"kwargs":{"name":"a` + "\x01" + `"}}`, `{"kwargs":{"name":"` + "\xff" + `"}}`,
	`{"n":-0.5e+3,"t":true,"f":false,"z":null,"kwargs":{"x":1e400,"name":"n"}}`,
	`{"kwargs":{"name":"a"},"deep":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`,
	`{"kwargs":` + strings.Repeat(`{"a":`, 300) + `1` + strings.Repeat("}", 300) + `}`,
}

func TestLangChainToolMessageMatchesParse(t *testing.T) {
	for _, s := range toolMessageCases {
		checkLangChainToolMessage(t, s)
	}
	name, id, ok := langChainToolMessage(toolMessageOutput)
	if name != "get_weather" || id != "call_1" || !ok {
		t.Errorf("langChainToolMessage = %q, %q, %v; want get_weather, call_1, true", name, id, ok)
	}
}

func checkLangChainToolMessage(t *testing.T, s string) {
	t.Helper()
	name, id, ok := langChainToolMessage(s)
	wname, wid, wok := oldLangChainToolMessage(s)
	if name != wname || id != wid || ok != wok {
		t.Errorf("langChainToolMessage(%q) = %q, %q, %v; Parse gives %q, %q, %v", s, name, id, ok, wname, wid, wok)
	}
}

func FuzzLangChainToolMessage(f *testing.F) {
	for _, s := range toolMessageCases {
		f.Add(s)
	}
	f.Fuzz(checkLangChainToolMessage)
}

func TestLangChainToolMessageAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { langChainToolMessage(toolMessageOutput) }); n != 0 {
		t.Errorf("langChainToolMessage allocates %v times, want 0", n)
	}
}

// BenchmarkLangChainToolMessage reads the tool name and call id of the
// ToolMessage OpenLLMetry JS records.
func BenchmarkLangChainToolMessage(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		langChainToolMessage(toolMessageOutput)
	}
}
