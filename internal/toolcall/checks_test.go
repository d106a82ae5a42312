package toolcall

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// capturedDefinitions reads the tool definitions recorded in the bundled
// captures, by "<capture> <attribute>".
func capturedDefinitions(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "definitions", "captured.json"))
	require.NoError(t, err)
	var out map[string]string
	require.NoError(t, json.Unmarshal(data, &out))
	return out
}

func TestParseToolDefinitionsFromCaptures(t *testing.T) {
	want := map[string][]string{
		"constructed-pydantic-ai.json gen_ai.tool.definitions":          {"get_weather", "lookup_stock"},
		"mastra-otel-mock.otlp.jsonl gen_ai.tool.definitions":           {"get_weather", "lookup_stock"},
		"openinference-openai-agents.json llm.tools.0.tool.json_schema": {"get_current_weather"},
		"otel-genai-semconv.json gen_ai.tool.definitions":               {"get_current_weather"},
		"vercel-ai-sdk-legacy-ai-spans.json ai.prompt.tools":            {"get_current_weather"},
		"vercel-ai-v6-mock.otlp.jsonl ai.prompt.tools":                  {"get_weather", "lookup_stock"},
		"vercel-ai-v7-otel-mock.otlp.jsonl gen_ai.tool.definitions":     {"get_weather", "lookup_stock"},
	}
	got := capturedDefinitions(t)
	require.Len(t, got, len(want))
	for key, text := range got {
		t.Run(key, func(t *testing.T) {
			defs, err := ParseToolDefinitions(text)
			require.NoError(t, err)
			var names []string
			for _, d := range defs {
				names = append(names, d.Name)
				if !strings.HasPrefix(key, "mastra") {
					assert.Equal(t, jsonv.KindObject, d.Parameters.Kind(), "%s has its schema", d.Name)
					_, err := CompileArgumentSchema(d.Parameters)
					assert.NoError(t, err)
				}
			}
			assert.Equal(t, want[key], names)
		})
	}
}

func TestParseToolDefinitionsShapes(t *testing.T) {
	for _, tt := range []struct{ name, text, tool, param string }{
		{"openai chat", `[{"type":"function","function":{"name":"a","parameters":{"type":"object","properties":{"x":{}}}}}]`, "a", "x"},
		{"anthropic", `[{"name":"a","description":"d","input_schema":{"type":"object","properties":{"x":{}}}}]`, "a", "x"},
		{"bedrock", `{"tools":[{"toolSpec":{"name":"a","inputSchema":{"json":{"type":"object","properties":{"x":{}}}}}}]}`, "a", "x"},
		{"gemini", `[{"function_declarations":[{"name":"a","parameters":{"type":"object","properties":{"x":{}}}}]}]`, "a", "x"},
		{"adk request, gemini types", `{"model":"m","config":{"tools":[{"function_declarations":[{"name":"a","parameters":{"type":"OBJECT","properties":{"x":{"type":"STRING"}}}}]}]},"contents":[]}`, "a", "x"},
		{"schema as text", `[{"name":"a","parameters":"{\"type\":\"object\",\"properties\":{\"x\":{}}}"}]`, "a", "x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defs, err := ParseToolDefinitions(tt.text)
			require.NoError(t, err)
			require.Len(t, defs, 1)
			assert.Equal(t, tt.tool, defs[0].Name)
			assert.True(t, defs[0].Parameters.Has("properties"))
			_, err = CompileArgumentSchema(defs[0].Parameters)
			assert.NoError(t, err)
		})
	}
	_, err := ParseToolDefinitions(`not json`)
	assert.Error(t, err)
	defs, err := ParseToolDefinitions(`[{"name":"a"},{"description":"no name"}]`)
	assert.Len(t, defs, 1)
	assert.ErrorContains(t, err, "without a name")
	var big strings.Builder
	big.WriteString("[")
	for i := 0; i < MaxToolDefinitions+10; i++ {
		if i > 0 {
			big.WriteString(",")
		}
		big.WriteString(`"t` + Itoa(i) + `"`)
	}
	big.WriteString("]")
	defs, err = ParseToolDefinitions(big.String())
	assert.Len(t, defs, MaxToolDefinitions)
	assert.ErrorIs(t, err, ErrTooManyDefinitions)
}

// callOf builds a call with JSON arguments ("" for unknown).
func callOf(name, args string, status CallStatus) Call {
	c := Call{Name: name, Status: status}
	if args == "" {
		c.ArgsUnknown = true
		return c
	}
	c.Args = MustParse(args)
	return c
}

// MustParse parses JSON or panics, for tests.
func MustParse(s string) jsonv.Value {
	v, err := jsonv.Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

func runWithDefinitions(t *testing.T, key string) *RunContext {
	t.Helper()
	defs, err := ParseToolDefinitions(capturedDefinitions(t)[key])
	require.NoError(t, err)
	run := &RunContext{}
	run.Tools.Add(defs...)
	return run
}

func TestChecks(t *testing.T) {
	pydantic := "constructed-pydantic-ai.json gen_ai.tool.definitions"
	vercel := "vercel-ai-v6-mock.otlp.jsonl ai.prompt.tools"
	for _, tt := range []struct {
		name     string
		defs     string
		options  map[string]any
		calls    []Call
		score    float64
		findings []string // "call:check"
		detail   string
	}{
		{name: "conforming calls pass", defs: vercel,
			calls: []Call{callOf("get_weather", `{"city":"Paris","unit":"celsius"}`, StatusOK), callOf("lookup_stock", `{"symbol":"ZZZZ"}`, StatusOK)},
			score: 1},
		{name: "missing required", defs: pydantic,
			calls:    []Call{callOf("get_weather", `{"city":"Paris"}`, StatusOK)},
			findings: []string{"0:invalid_arguments"}, detail: "missing property 'unit'"},
		{name: "wrong type", defs: pydantic,
			calls:    []Call{callOf("get_weather", `{"city":7,"unit":"celsius"}`, StatusOK)},
			findings: []string{"0:invalid_arguments"}, detail: "/city: got number, want string"},
		{name: "enum miss", defs: vercel,
			calls:    []Call{callOf("get_weather", `{"city":"Paris","unit":"kelvin"}`, StatusOK)},
			findings: []string{"0:invalid_arguments"}, detail: "/unit: value must be one of"},
		{name: "additional property", defs: pydantic,
			calls:    []Call{callOf("get_weather", `{"city":"Paris","unit":"celsius","days":3}`, StatusOK)},
			findings: []string{"0:invalid_arguments"}, detail: "additional properties 'days' not allowed"},
		{name: "undefined tool", defs: vercel,
			calls:    []Call{callOf("get_weather", `{"city":"Paris","unit":"celsius"}`, StatusOK), callOf("delete_everything", `{}`, StatusOK)},
			score:    0.5,
			findings: []string{"1:undefined_tool"}, detail: `tool "delete_everything" was not offered`},
		{name: "unknown arguments are not checked", defs: vercel,
			calls: []Call{callOf("get_weather", "", StatusOK)},
			score: 1, detail: "1 calls with unknown arguments"},
		{name: "repeated call", defs: vercel, options: map[string]any{"max_repeats": 2},
			calls: []Call{
				callOf("lookup_stock", `{"symbol":"A"}`, StatusOK), callOf("lookup_stock", `{"symbol":"A"}`, StatusOK),
				callOf("lookup_stock", `{"symbol":"A"}`, StatusOK), callOf("lookup_stock", `{"symbol":"B"}`, StatusOK)},
			score: 0.75, findings: []string{"2:repeated"}, detail: "made 3 times, over the limit of 2"},
		{name: "unrecovered failure", defs: vercel,
			calls: []Call{
				callOf("lookup_stock", `{"symbol":"A"}`, StatusError), callOf("lookup_stock", `{"symbol":"B"}`, StatusOK),
				callOf("get_weather", `{"city":"Paris","unit":"celsius"}`, StatusError)},
			score: 2.0 / 3, findings: []string{"2:unrecovered_failure"}, detail: "no later call"},
		{name: "call budget", defs: vercel, options: map[string]any{"max_calls": 1},
			calls: []Call{callOf("lookup_stock", `{"symbol":"A"}`, StatusOK), callOf("lookup_stock", `{"symbol":"B"}`, StatusOK)},
			score: 0.5, findings: []string{"1:over_budget"}},
		{name: "no definitions: definition checks not evaluated",
			calls: []Call{callOf("anything", `{"x":1}`, StatusOK)},
			score: 1, detail: "no tool definitions"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(ChecksName, Settings{Threshold: 1, Options: tt.options})
			require.NoError(t, err)
			var run *RunContext
			if tt.defs != "" {
				run = runWithDefinitions(t, tt.defs)
			}
			res := s.(ContextScorer).ScoreContext(context.Background(), tt.calls, run)
			var got []string
			for _, f := range res.Breakdown.Findings {
				got = append(got, Itoa(f.Call)+":"+f.Check)
			}
			assert.Equal(t, tt.findings, got, res.Explanation)
			want := tt.score
			if tt.findings != nil && want == 0 && len(tt.calls) > 1 {
				t.Fatalf("give the score of a multi-call case")
			}
			assert.InDelta(t, want, res.Score, 1e-9, res.Explanation)
			assert.Contains(t, res.Explanation, tt.detail)
			assert.Equal(t, want >= 1, res.Passed())
		})
	}
}

func TestChecksNestedSchemaFromConfig(t *testing.T) {
	schema := MustParse(`{"type":"object","properties":{"trip":{"type":"object","properties":{"days":{"type":"integer","minimum":1}},"required":["days"]}},"required":["trip"]}`)
	s, err := New(ChecksName, Settings{Threshold: 1, Tools: []ToolDefinition{{Name: "plan", Parameters: schema}}})
	require.NoError(t, err)
	res := s.Score(context.Background(), []Call{callOf("plan", `{"trip":{"days":0}}`, StatusOK), callOf("plan", `{"trip":{}}`, StatusOK), callOf("plan", `{"trip":{"days":2}}`, StatusOK)})
	assert.InDelta(t, 1.0/3, res.Score, 1e-9)
	assert.Contains(t, res.Explanation, "/trip/days: minimum: got 0, want 1")
	assert.Contains(t, res.Explanation, "/trip: missing property 'days'")
	assert.Equal(t, 0, res.Breakdown.Findings[0].Call)
}

func TestChecksRejectsBadConfiguration(t *testing.T) {
	_, err := New(ChecksName, Settings{Tools: []ToolDefinition{{Name: "a", Parameters: MustParse(`{"type":"nonsense"}`)}}})
	assert.ErrorContains(t, err, `tool "a": parameters: schema does not compile`)
	_, err = New(ChecksName, Settings{Tools: []ToolDefinition{{Name: "a", Parameters: MustParse(`{"$ref":"https://example.com/s.json"}`)}}})
	assert.ErrorContains(t, err, "outside the schema")
	_, err = New(ChecksName, Settings{Options: map[string]any{"max_repeats": -1}})
	assert.ErrorContains(t, err, `option "max_repeats"`)
	_, err = New(ChecksName, Settings{Options: map[string]any{"strict": true}})
	assert.ErrorContains(t, err, `unknown option "strict"`)
}

// A recorded schema that does not compile is not used, and the explanation
// says so; the call is not failed for it.
func TestChecksRecordedSchemaThatDoesNotCompile(t *testing.T) {
	s, err := New(ChecksName, Settings{Threshold: 1})
	require.NoError(t, err)
	run := &RunContext{}
	run.Tools.Add(ToolDefinition{Name: "a", Parameters: MustParse(`{"type":12}`)})
	res := s.(ContextScorer).ScoreContext(context.Background(), []Call{callOf("a", `{}`, StatusOK)}, run)
	assert.Equal(t, 1.0, res.Score)
	assert.Contains(t, res.Explanation, `the recorded schema of "a" was not used`)
}

func BenchmarkChecks(b *testing.B) {
	defs, err := ParseToolDefinitions(`[{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["celsius","fahrenheit"]}},"required":["city"],"additionalProperties":false}},{"name":"lookup_stock","parameters":{"type":"object","properties":{"symbol":{"type":"string"}},"required":["symbol"]}}]`)
	require.NoError(b, err)
	s, err := New(ChecksName, Settings{Threshold: 1, Tools: defs})
	require.NoError(b, err)
	calls := []Call{
		callOf("get_weather", `{"city":"Paris","unit":"celsius"}`, StatusOK), callOf("lookup_stock", `{"symbol":"A"}`, StatusError),
		callOf("lookup_stock", `{"symbol":"B"}`, StatusOK), callOf("get_weather", `{"city":"Oslo"}`, StatusOK),
		callOf("get_weather", `{"city":"Rome","unit":"celsius"}`, StatusOK),
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Score(context.Background(), calls)
	}
}

// BenchmarkChecksRecorded scores runs as the processor does: definitions
// recorded on the run (none configured), a failure, a repeat and an
// undefined tool among the calls.
func BenchmarkChecksRecorded(b *testing.B) {
	defs, err := ParseToolDefinitions(`[{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["celsius","fahrenheit"]}},"required":["city"],"additionalProperties":false}},{"name":"lookup_stock","parameters":{"type":"object","properties":{"symbol":{"type":"string"}},"required":["symbol"]}}]`)
	require.NoError(b, err)
	run := &RunContext{}
	run.Tools.Add(defs...)
	for i := range defs {
		run.Tools.list[i].Schema, err = CompileArgumentSchema(defs[i].Parameters)
		require.NoError(b, err)
	}
	s, err := New(ChecksName, Settings{Threshold: 1, Options: map[string]any{"max_repeats": 1}})
	require.NoError(b, err)
	sc := s.(ContextScorer)
	runs := map[string][]Call{
		"pass": {
			callOf("get_weather", `{"city":"Paris","unit":"celsius"}`, StatusOK), callOf("lookup_stock", `{"symbol":"ZZZZ"}`, StatusOK),
		},
		"fail": {
			callOf("get_weather", `{"city":"Paris","unit":"celsius"}`, StatusOK), callOf("lookup_stock", `{"symbol":"A"}`, StatusError),
			callOf("lookup_stock", `{"symbol":"A"}`, StatusError), callOf("get_weather", `{"unit":"kelvin"}`, StatusOK),
			callOf("book_flight", `{"to":"Rome"}`, StatusOK),
		},
	}
	for _, name := range []string{"pass", "fail"} {
		calls := runs[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = sc.ScoreContext(context.Background(), calls, run)
			}
		})
	}
}

func BenchmarkCheckUnrecovered(b *testing.B) {
	calls := []Call{
		callOf("get_weather", `{"city":"Paris"}`, StatusOK), callOf("lookup_stock", `{"symbol":"A"}`, StatusError),
		callOf("lookup_stock", `{"symbol":"A"}`, StatusOK), callOf("get_weather", `{"unit":"kelvin"}`, StatusOK),
		callOf("book_flight", `{"to":"Rome"}`, StatusOK), callOf("search", `{"q":"Rome"}`, StatusOK),
	}
	var findings []Finding
	b.ReportAllocs()
	for b.Loop() {
		findings = checkUnrecovered(calls, findings[:0])
	}
}

// TestChecksPassedExplanation checks that a run that passed every check is
// explained as explainChecks writes it, whether definitions were known and
// however many of its calls had unknown arguments, and that a run like an
// earlier one is explained without allocating.
func TestChecksPassedExplanation(t *testing.T) {
	defs := []ToolDefinition{{Name: "a"}, {Name: "b"}}
	for _, configured := range [][]ToolDefinition{nil, defs} {
		s, err := New(ChecksName, Settings{Threshold: 1, Tools: configured})
		require.NoError(t, err)
		c := s.(*checks)
		for n := 1; n <= maxPassedTable+1; n++ {
			for unknown := 0; unknown <= n; unknown++ {
				calls := make([]Call, n)
				for i := range calls {
					calls[i] = callOf([]string{"a", "b"}[i%2], `{"x":1}`, StatusOK)
					calls[i].Args = MustParse(fmt.Sprintf(`{"x":%d}`, i))
					calls[i].ArgsUnknown = i < unknown
				}
				calls = NumberCalls(calls)
				var res Result
				c.ScoreInto(calls, nil, &res)
				require.Equal(t, 1.0, res.Score)
				d := c.definitions(nil)
				require.Equal(t, explainChecks(calls, nil, 0, &d, nil), res.Explanation)
				if n <= maxPassedTable {
					again := testing.AllocsPerRun(10, func() { _ = c.passedExplanation(calls, &d) })
					assert.Zero(t, again)
				}
			}
		}
	}
}
