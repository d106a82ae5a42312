package extract

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// contextKeyChoices are the keys spanFromBytes picks from: every context
// key, the indexed families with their fields, and keys read by neither.
var contextKeyChoices = []string{
	"gen_ai.tool.definitions", "ai.prompt.tools", "gen_ai.input.messages", "gen_ai.output.messages",
	"input.value", "output.value", "traceloop.entity.input", "traceloop.entity.output", "ai.prompt",
	"ai.prompt.messages", "ai.response.text", "genkit:input", "genkit:output",
	"gcp.vertex.agent.llm_request", "gcp.vertex.agent.llm_response", "gen_ai.prompt", "gen_ai.completion",
	"llm.tools.%d.tool.json_schema", "llm.tools.%d.tool.name",
	"llm.request.functions.%d.name", "llm.request.functions.%d.description", "llm.request.functions.%d.parameters", "llm.request.functions.%d.other",
	"llm.input_messages.%d.message.role", "llm.input_messages.%d.message.content", "llm.input_messages.%d.message.tool_calls.0.id",
	"llm.output_messages.%d.message.role", "llm.output_messages.%d.message.content",
	"gen_ai.prompt.%d.role", "gen_ai.prompt.%d.content", "gen_ai.completion.%d.role", "gen_ai.completion.%d.content",
	"gen_ai.prompt.x.role", "gen_ai.prompt.-1.role", "gen_ai.prompt.3", "llm.tools..x", "http.method",
}

// contextTexts are the string values spanFromBytes writes.
var contextTexts = []string{"", "{}", "[]", "user", "assistant", `say "hi"` + "\n", `{"tools":[{"name":"f"}]}`, "\x01\xff", "a longer text than the others"}

// spanFromBytes builds a span whose attributes data picks: three bytes an
// attribute (key, index, value).
func spanFromBytes(data []byte) ptrace.Span {
	span := ptrace.NewSpan()
	span.SetStartTimestamp(pcommon.Timestamp(len(data)))
	span.SetEndTimestamp(pcommon.Timestamp(2 * len(data)))
	attrs := span.Attributes()
	for len(data) >= 3 {
		key := contextKeyChoices[int(data[0])%len(contextKeyChoices)]
		index := int(data[1] % 24)
		key = strings.Replace(key, "%d", strconv.Itoa(index), 1)
		switch v := data[2]; {
		case v < 200:
			attrs.PutStr(key, contextTexts[int(v)%len(contextTexts)])
		case v < 230:
			s := attrs.PutEmptySlice(key)
			for k := 0; k < int(v%4); k++ {
				s.AppendEmpty().SetStr(contextTexts[(int(v)+k)%len(contextTexts)])
				if k == 1 {
					s.AppendEmpty().SetInt(int64(k))
				}
			}
		case v < 245:
			attrs.PutInt(key, int64(v))
		default:
			attrs.PutEmpty(key)
		}
		data = data[3:]
	}
	return span
}

// checkCaptureContext compares CaptureContext with the reference, and
// ClassifyWithContext with Classify and CaptureContext, for the span and
// for it made a model call, an agent run and a tool span, by attributes
// or by name.
func checkCaptureContext(t *testing.T, span ptrace.Span) {
	t.Helper()
	got, want := CaptureContext(span), oldCaptureContext(span)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CaptureContext(%v)\n got %#v\nwant %#v", span.Attributes().AsRaw(), got, want)
	}
	scope := pcommon.NewInstrumentationScope()
	checkClassifyWithContext(t, span, scope)
	for _, op := range []string{"chat", "invoke_agent", "execute_tool"} {
		s := ptrace.NewSpan()
		span.CopyTo(s)
		s.Attributes().PutStr("gen_ai.operation.name", op)
		checkClassifyWithContext(t, s, scope)
	}
	for _, name := range []string{"agent run", "execute_tool get_weather"} {
		// Known by name alone when no attribute marks it.
		s := ptrace.NewSpan()
		span.CopyTo(s)
		s.SetName(name)
		checkClassifyWithContext(t, s, scope)
	}
}

// checkClassifyWithContext compares ClassifyWithContext with Classify and,
// where the processor captures the context, CaptureContext.
func checkClassifyWithContext(t *testing.T, span ptrace.Span, scope pcommon.InstrumentationScope) {
	t.Helper()
	opts := &Options{SkipTools: DefaultSkipTools()}
	want := Classify(span, scope, opts)
	for _, capture := range []bool{false, true} {
		for _, root := range []bool{false, true} {
			var part ContextPart
			var into *ContextPart
			if capture {
				into = &part
			}
			got := ClassifyWithContext(span, scope, opts, root, into)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ClassifyWithContext(%v, %v, %v)\n got %#v\nwant %#v", span.Attributes().AsRaw(), capture, root, got, want)
			}
			var wantPart ContextPart
			if capture && (want.ModelCall || want.Kind == KindAgent || (want.GenAI && root)) {
				wantPart = CaptureContext(span)
			}
			if !reflect.DeepEqual(part, wantPart) {
				t.Errorf("ClassifyWithContext(%v, %v, %v) context\n got %#v\nwant %#v", span.Attributes().AsRaw(), capture, root, part, wantPart)
			}
		}
	}
}

// TestClassifyWithContextOnCaptures compares ClassifyWithContext with
// Classify and CaptureContext on every span of the demo captures.
func TestClassifyWithContextOnCaptures(t *testing.T) {
	for _, s := range demoCaptureSpans(t) {
		checkClassifyWithContext(t, s.span, s.scope)
	}
}

func TestCaptureContextMatchesReference(t *testing.T) {
	for _, data := range [][]byte{
		nil,
		{0, 0, 6, 1, 0, 210},
		{23, 0, 3, 24, 0, 4, 23, 1, 3, 24, 1, 8, 25, 2, 5},     // input messages
		{23, 3, 3, 23, 1, 4, 24, 1, 5, 24, 3, 6, 23, 1, 7},     // out of order, rewritten
		{19, 0, 3, 20, 0, 4, 21, 0, 5, 22, 1, 6, 19, 2, 7},     // functions
		{17, 0, 6, 17, 1, 220, 18, 0, 3},                       // tools
		{28, 0, 3, 29, 0, 4, 30, 0, 3, 31, 0, 6, 32, 0, 1},     // gen_ai.prompt.N
		{2, 0, 8, 23, 0, 3, 13, 0, 6, 14, 0, 8, 36, 0, 1},      // single keys win
		{33, 0, 3, 34, 0, 3, 35, 0, 3, 30, 0, 246, 31, 0, 240}, // rejected keys, empty and int values
	} {
		checkCaptureContext(t, spanFromBytes(data))
	}
	// Many messages: past the scan limit, out of order and rewritten.
	var many []byte
	for i := 0; i < 60; i++ {
		many = append(many, 23+byte(i%2), byte(i*7%24), byte(i))
	}
	checkCaptureContext(t, spanFromBytes(many))
	// Random spans.
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		data := make([]byte, 3*rnd.IntN(40))
		for i := range data {
			data[i] = byte(rnd.UintN(256))
		}
		checkCaptureContext(t, spanFromBytes(data))
	}
}

func FuzzCaptureContext(f *testing.F) {
	f.Add([]byte{23, 0, 3, 24, 0, 4, 23, 1, 3, 24, 1, 8, 25, 2, 5})
	f.Add([]byte{19, 0, 3, 20, 0, 4, 21, 0, 5, 22, 1, 6, 19, 2, 7, 1, 0, 215})
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCaptureContext(t, spanFromBytes(data))
	})
}

// BenchmarkCaptureContext captures the context of an AI SDK model call
// (tool definitions as a string list) and of an OpenInference LLM span
// (flattened messages).
func BenchmarkCaptureContext(b *testing.B) {
	aiSDK := ptrace.NewSpan()
	a := aiSDK.Attributes()
	tools := a.PutEmptySlice("ai.prompt.tools")
	for _, name := range []string{"get_weather", "get_time", "search_docs"} {
		tools.AppendEmpty().SetStr(`{"type":"function","name":"` + name + `","description":"Looks it up.","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}`)
	}
	a.PutStr("ai.prompt.messages", `[{"role":"user","content":[{"type":"text","text":"What is the weather in Paris?"}]}]`)
	a.PutStr("ai.operationId", "ai.generateText.doGenerate")
	oi := ptrace.NewSpan()
	o := oi.Attributes()
	o.PutStr("openinference.span.kind", "LLM")
	for i, role := range []string{"system", "user", "assistant", "tool", "assistant", "user"} {
		o.PutStr("llm.input_messages."+strconv.Itoa(i)+".message.role", role)
		o.PutStr("llm.input_messages."+strconv.Itoa(i)+".message.content", "message "+strconv.Itoa(i)+" says \"hello\"")
	}
	o.PutStr("llm.output_messages.0.message.role", "assistant")
	o.PutStr("llm.output_messages.0.message.content", "Sunny.")
	b.ReportAllocs()
	for b.Loop() {
		CaptureContext(aiSDK)
		CaptureContext(oi)
	}
}

// TestIndexedFamily checks the family and rest of each indexed prefix, and
// that keys beside them belong to none.
func TestIndexedFamily(t *testing.T) {
	for _, tc := range []struct {
		key  string
		fam  family
		rest string
		ok   bool
	}{
		{"llm.tools.0.tool.json_schema", famTools, "0.tool.json_schema", true},
		{"llm.request.functions.1.name", famFunctions, "1.name", true},
		{"llm.input_messages.2.message.role", famInputs, "2.message.role", true},
		{"llm.output_messages.0.message.content", famOutputs, "0.message.content", true},
		{"gen_ai.prompt.3.content", famInputs, "3.content", true},
		{"gen_ai.completion.0.role", famOutputs, "0.role", true},
		{"gen_ai.prompt", 0, "", false},
		{"gen_ai.completion", 0, "", false},
		{"gen_ai.operation.name", 0, "", false},
		{"llm.request.type", 0, "", false},
		{"llm.tools", 0, "", false},
		{"llm.", 0, "", false},
		{"http.route", 0, "", false},
		{"Llm.tools.0.name", 0, "", false},
		{"gen_ai.provider.name", 0, "", false},
		{"gen_ai.conversation.id", 0, "", false},
		{"llm.token_count.prompt", 0, "", false},
		{"llm.invocation_parameters", 0, "", false},
		{"llm.model_name", 0, "", false},
		{"llm.tools.", famTools, "", true},
		{"gen_ai.c", 0, "", false},
		{"llm", 0, "", false},
		{"g", 0, "", false},
	} {
		if tc.ok && !mayBeIndexed(tc.key) {
			t.Errorf("mayBeIndexed(%q) is false", tc.key)
		}
		if start := mayBeIndexed(tc.key) && indexedStart(tc.key); start != tc.ok {
			t.Errorf("indexedStart(%q) is %v", tc.key, start)
		}
		fam, rest, ok := indexedFamily(tc.key)
		if fam != tc.fam || rest != tc.rest || ok != tc.ok {
			t.Errorf("indexedFamily(%q) = %v, %q, %v; want %v, %q, %v", tc.key, fam, rest, ok, tc.fam, tc.rest, tc.ok)
		}
	}
}
