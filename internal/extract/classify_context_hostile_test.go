package extract

import (
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestClassifyWithContextAgreesOnHostileSpans: spans read from OTLP/JSON with
// duplicate keys, values of every type where strings are expected, more
// context values than one pass keeps, and indexed families; ClassifyWith
// Context agrees with Classify and CaptureContext, CaptureContext with the
// reference.
func TestClassifyWithContextAgreesOnHostileSpans(t *testing.T) {
	vals := []string{
		`{"stringValue":"[{\"role\":\"user\",\"content\":\"hi\"}]"}`,
		`{"stringValue":""}`, `{"stringValue":"{}"}`, `{"stringValue":"[]"}`,
		`{"intValue":"7"}`, `{"doubleValue":1.5}`, `{"boolValue":true}`,
		`{"bytesValue":"AAEC"}`, `{}`,
		`{"arrayValue":{"values":[{"stringValue":"{\"name\":\"a\"}"},{"intValue":"3"}]}}`,
		`{"kvlistValue":{"values":[{"key":"tools","value":{"stringValue":"x"}}]}}`,
		`{"stringValue":"{\"tools\":[1],\"contents\":[]}"}`,
	}
	keys := []string{
		"gen_ai.operation.name", "openinference.span.kind", "input.value", "output.value",
		"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.definitions",
		"gcp.vertex.agent.llm_request", "gcp.vertex.agent.llm_response", "traceloop.entity.input",
		"ai.prompt.tools", "ai.prompt", "ai.response.text", "genkit:input", "genkit:output",
		"gen_ai.prompt", "gen_ai.completion", "llm.tools.0.tool.json_schema",
		"llm.input_messages.0.message.role", "llm.input_messages.0.message.content",
		"llm.output_messages.1.message.content", "gen_ai.prompt.0.content", "gen_ai.completion.0.content",
		"llm.request.functions.0.name", "gen_ai.tool.name", "metadata", "http.route", "",
	}
	ops := []string{`{"stringValue":"chat"}`, `{"stringValue":"invoke_agent"}`, `{"stringValue":"LLM"}`, `{"stringValue":"agent"}`, `{"intValue":"1"}`}
	u := &ptrace.JSONUnmarshaler{}
	n := 0
	for seed := 0; seed < 4000; seed++ {
		var attrs []string
		x := uint32(seed*2654435761 + 1)
		next := func(m int) int { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return int(x % uint32(m)) }
		for i, cnt := 0, 1+next(14); i < cnt; i++ {
			k := keys[next(len(keys))]
			v := vals[next(len(vals))]
			if k == "gen_ai.operation.name" || k == "openinference.span.kind" {
				v = ops[next(len(ops))]
			}
			attrs = append(attrs, fmt.Sprintf(`{"key":%q,"value":%s}`, k, v))
			if next(3) == 0 { // a duplicate of the key just written
				attrs = append(attrs, fmt.Sprintf(`{"key":%q,"value":%s}`, k, vals[next(len(vals))]))
			}
		}
		names := []string{"x", "agent run", "execute_tool get_weather"}
		doc := fmt.Sprintf(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":%q,"startTimeUnixNano":"5","endTimeUnixNano":"9","attributes":[%s]}]}]}]}`,
			names[next(3)], strings.Join(attrs, ","))
		td, err := u.UnmarshalTraces([]byte(doc))
		if err != nil {
			t.Fatalf("%v: %s", err, doc)
		}
		span := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
		if span.Attributes().Len() != len(attrs) {
			continue
		}
		n++
		checkCaptureContext(t, span)
		if t.Failed() {
			t.Fatalf("seed %d: %s", seed, doc)
		}
	}
	if n == 0 {
		t.Fatal("duplicate keys not kept by the unmarshaler")
	}
	t.Logf("%d spans with duplicates kept", n)
}
