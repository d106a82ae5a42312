package toolcall

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// checksOutput renders everything a checks result says.
func checksOutput(r Result) string {
	return fmt.Sprintf("%v %s %v %+v | %s", r.Score, r.Outcome, r.Breakdown.Hallucinated, r.Breakdown.Findings, r.Explanation)
}

// TestChecksOutputsUnchanged pins the checks' results, findings and
// explanations, byte for byte, as the scorer wrote them before it was
// optimised.
func TestChecksOutputsUnchanged(t *testing.T) {
	schema := MustParse(`{"type":"object","properties":{"city":{"type":"string","maxLength":5},"unit":{"enum":["celsius","fahrenheit"]},"n":{"type":"integer","minimum":1}},"required":["city"],"additionalProperties":false}`)
	recorded := &RunContext{Notes: []string{"tool definitions over the 16 KiB run cap were dropped"}}
	recorded.Tools.Add(
		ToolDefinition{Name: "get_weather", Parameters: schema},
		ToolDefinition{Name: "lookup_stock", Parameters: MustParse(`{"type":"object","properties":{"symbol":{"type":"string"}},"required":["symbol"]}`)},
		ToolDefinition{Name: "shadowed", Parameters: MustParse(`{"type":"object","required":["x"]}`)},
		ToolDefinition{Name: "broken", Parameters: MustParse(`{"type":12}`)},
		ToolDefinition{Name: "no_schema"},
	)
	configured := []ToolDefinition{
		{Name: "shadowed"}, // no parameters: the recorded schema is not used
		{Name: "plan", Parameters: MustParse(`{"type":"object","properties":{"days":{"type":"integer"}}}`)},
	}
	want := map[string]string{
		"no calls":                           "0 not_evaluated [] [] | no tool calls to check",
		"all pass":                           "1 pass [] [] | all 2 calls passed the checks (tool definitions over the 16 KiB run cap were dropped)",
		"no definitions":                     "0.5 fail [] [{Call:1 Check:unrecovered_failure Detail:failed, and no later call to \"x\" succeeded}] | 1 of 2 calls failed checks: call 2 x: failed, and no later call to \"x\" succeeded; (no tool definitions recorded or configured: undefined tools and schemas not checked) (1 calls with unknown arguments: their arguments were not checked)",
		"several findings per call":          "0 fail [1] [{Call:0 Check:invalid_arguments Detail:arguments break the schema: /: additional properties 'extra' not allowed; /n: minimum: got 0, want 1; /unit: value must be one of 'celsius', 'fahrenheit'} {Call:0 Check:unrecovered_failure Detail:failed, and no later call to \"get_weather\" succeeded} {Call:1 Check:undefined_tool Detail:tool \"nope\" was not offered to the model} {Call:1 Check:unrecovered_failure Detail:failed, and no later call to \"nope\" succeeded} {Call:2 Check:invalid_arguments Detail:arguments break the schema: /: additional properties 'extra' not allowed; /n: minimum: got 0, want 1; /unit: value must be one of 'celsius', 'fahrenheit'} {Call:2 Check:repeated Detail:the same call to \"get_weather\" (same arguments) made 2 times, over the limit of 1} {Call:2 Check:unrecovered_failure Detail:failed, and no later call to \"get_weather\" succeeded} {Call:2 Check:over_budget Detail:call 3 is over the budget of 2 calls per run} {Call:3 Check:over_budget Detail:call 4 is over the budget of 2 calls per run} {Call:4 Check:invalid_arguments Detail:arguments break the schema: /city: maxLength: got 6, want 5} {Call:4 Check:unrecovered_failure Detail:failed, and no later call to \"get_weather\" succeeded} {Call:4 Check:over_budget Detail:call 5 is over the budget of 2 calls per run} {Call:5 Check:invalid_arguments Detail:arguments break the schema: /city: maxLength: got 6, want 5} {Call:5 Check:repeated Detail:the same call to \"get_weather\" (same arguments) made 2 times, over the limit of 1} {Call:5 Check:unrecovered_failure Detail:failed, and no later call to \"get_weather\" succeeded} {Call:5 Check:over_budget Detail:call 6 is over the budget of 2 calls per run}] | 6 of 6 calls failed checks: call 1 get_weather: arguments break the schema: /: additional properties 'extra' not allowed; /n: minimum: got 0, want 1; /unit: value must be one of 'celsius', 'fahrenheit', and failed, and no later call to \"get_weather\" succeeded; call 2 nope: tool \"nope\" was not offered to the model, and failed, and no later call to \"nope\" succeeded; call 3 get_weather: arguments break the schema: /: additional properties 'extra' not allowed; /n: minimum: got 0, want 1; /unit: value must be one of 'celsius', 'fahrenheit', and the same call to \"get_weather\" (same arguments) made 2 times, over the limit of 1, and failed, and no later call to \"get_weather\" succeeded, and call 3 is over the budget of 2 calls per run; call 4 lookup_stock: call 4 is over the budget of 2 calls per run; call 5 get_weather: arguments break the schema: /city: maxLength: got 6, want 5, and failed, and no later call to \"get_weather\" succeeded, and call 5 is over the budget of 2 calls per run; call 6 get_weather: arguments break the schema: /city: maxLength: got 6, want 5, and the same call to \"get_weather\" (same arguments) made 2 times, over the limit of 1, and failed, and no later call to \"get_weather\" succeeded, and call 6 is over the budget of 2 calls per run; (1 calls with unknown arguments: their arguments were not checked) (tool definitions over the 16 KiB run cap were dropped)",
		"repeats compare canonical JSON":     "0.5833333333333334 fail [11] [{Call:1 Check:repeated Detail:the same call to \"no_schema\" (same arguments) made 2 times, over the limit of 1} {Call:4 Check:repeated Detail:the same call to \"no_schema\" (same arguments) made 2 times, over the limit of 1} {Call:7 Check:repeated Detail:the same call to \"no_schema\" (same arguments) made 2 times, over the limit of 1} {Call:10 Check:repeated Detail:the same call to \"no_schema\" (same arguments) made 2 times, over the limit of 1} {Call:11 Check:undefined_tool Detail:tool \"other\" was not offered to the model}] | 5 of 12 calls failed checks: call 2 no_schema: the same call to \"no_schema\" (same arguments) made 2 times, over the limit of 1; call 5 no_schema: the same call to \"no_schema\" (same arguments) made 2 times, over the limit of 1; call 8 no_schema: the same call to \"no_schema\" (same arguments) made 2 times, over the limit of 1; call 11 no_schema: the same call to \"no_schema\" (same arguments) made 2 times, over the limit of 1; call 12 other: tool \"other\" was not offered to the model; (tool definitions over the 16 KiB run cap were dropped)",
		"configured, recorded and available": "0.42857142857142855 fail [6] [{Call:1 Check:invalid_arguments Detail:arguments break the schema: /days: got string, want integer} {Call:4 Check:unrecovered_failure Detail:failed, and no later call to \"broken\" succeeded} {Call:5 Check:invalid_arguments Detail:arguments break the schema: /city: maxLength: got 10, want 5} {Call:6 Check:undefined_tool Detail:tool \"unknown_tool\" was not offered to the model}] | 4 of 7 calls failed checks: call 2 plan: arguments break the schema: /days: got string, want integer; call 5 broken: failed, and no later call to \"broken\" succeeded; call 6 get_weather: arguments break the schema: /city: maxLength: got 10, want 5; call 7 unknown_tool: tool \"unknown_tool\" was not offered to the model; (the recorded schema of \"broken\" was not used: schema does not compile: \"parameters#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/type': 'anyOf' failed\n    - at '/type': value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'\n    - at '/type': got number, want array) (tool definitions over the 16 KiB run cap were dropped)",
		"available only":                     "0.3333333333333333 fail [1 2] [{Call:1 Check:undefined_tool Detail:tool \"b\" was not offered to the model} {Call:2 Check:undefined_tool Detail:tool \"b\" was not offered to the model}] | 2 of 3 calls failed checks: call 2 b: tool \"b\" was not offered to the model; call 3 b: tool \"b\" was not offered to the model",
		"checks off":                         "1 pass [] [] | all 2 calls passed the checks (tool definitions over the 16 KiB run cap were dropped)",
		"recovered failures":                 "0.5 fail [] [{Call:1 Check:unrecovered_failure Detail:failed, and no later call to \"get_weather\" succeeded} {Call:3 Check:unrecovered_failure Detail:failed, and no later call to \"get_weather\" succeeded}] | 2 of 4 calls failed checks: call 2 get_weather: failed, and no later call to \"get_weather\" succeeded; call 4 get_weather: failed, and no later call to \"get_weather\" succeeded; (tool definitions over the 16 KiB run cap were dropped)",
		"long run":                           "0 fail [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39] [{Call:0 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:1 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:2 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:3 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:4 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:5 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:6 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:7 Check:undefined_tool Detail:tool \"u\" was not offered to the model} {Call:8 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:9 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:10 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:10 Check:repeated Detail:the same call to \"t\" (same arguments) made 3 times, over the limit of 2} {Call:11 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:12 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:12 Check:repeated Detail:the same call to \"t\" (same arguments) made 3 times, over the limit of 2} {Call:13 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:13 Check:repeated Detail:the same call to \"t\" (same arguments) made 4 times, over the limit of 2} {Call:14 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:15 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:16 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:17 Check:undefined_tool Detail:tool \"u\" was not offered to the model} {Call:18 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:19 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:19 Check:repeated Detail:the same call to \"t\" (same arguments) made 4 times, over the limit of 2} {Call:20 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:20 Check:repeated Detail:the same call to \"t\" (same arguments) made 5 times, over the limit of 2} {Call:21 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:21 Check:repeated Detail:the same call to \"t\" (same arguments) made 3 times, over the limit of 2} {Call:22 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:22 Check:repeated Detail:the same call to \"t\" (same arguments) made 5 times, over the limit of 2} {Call:23 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:23 Check:repeated Detail:the same call to \"t\" (same arguments) made 6 times, over the limit of 2} {Call:24 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:25 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:25 Check:repeated Detail:the same call to \"t\" (same arguments) made 3 times, over the limit of 2} {Call:26 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:26 Check:repeated Detail:the same call to \"t\" (same arguments) made 3 times, over the limit of 2} {Call:27 Check:undefined_tool Detail:tool \"u\" was not offered to the model} {Call:27 Check:repeated Detail:the same call to \"u\" (same arguments) made 3 times, over the limit of 2} {Call:28 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:28 Check:repeated Detail:the same call to \"t\" (same arguments) made 3 times, over the limit of 2} {Call:29 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:29 Check:repeated Detail:the same call to \"t\" (same arguments) made 6 times, over the limit of 2} {Call:30 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:30 Check:repeated Detail:the same call to \"t\" (same arguments) made 7 times, over the limit of 2} {Call:31 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:31 Check:repeated Detail:the same call to \"t\" (same arguments) made 4 times, over the limit of 2} {Call:32 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:32 Check:repeated Detail:the same call to \"t\" (same arguments) made 7 times, over the limit of 2} {Call:33 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:33 Check:repeated Detail:the same call to \"t\" (same arguments) made 8 times, over the limit of 2} {Call:34 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:35 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:35 Check:repeated Detail:the same call to \"t\" (same arguments) made 4 times, over the limit of 2} {Call:36 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:36 Check:repeated Detail:the same call to \"t\" (same arguments) made 4 times, over the limit of 2} {Call:37 Check:undefined_tool Detail:tool \"u\" was not offered to the model} {Call:37 Check:repeated Detail:the same call to \"u\" (same arguments) made 4 times, over the limit of 2} {Call:38 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:38 Check:repeated Detail:the same call to \"t\" (same arguments) made 4 times, over the limit of 2} {Call:39 Check:undefined_tool Detail:tool \"t\" was not offered to the model} {Call:39 Check:repeated Detail:the same call to \"t\" (same arguments) made 8 times, over the limit of 2}] | 40 of 40 calls failed checks: call 1 t: tool \"t\" was not offered to the model; call 2 t: tool \"t\" was not offered to the model; call 3 t: tool \"t\" was not offered to the model; call 4 t: tool \"t\" was not offered to the model; call 5 t: tool \"t\" was not offered to the model; call 6 t: tool \"t\" was not offered to the model; call 7 t: tool \"t\" was not offered to the model; call 8 u: tool \"u\" was not offered to the model; call 9 t: tool \"t\" was not offered to the model; call 10 t: tool \"t\" was not offered to the model; call 11 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 3 times, over the limit of 2; call 12 t: tool \"t\" was not offered to the model; call 13 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 3 times, over the limit of 2; call 14 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 4 times, over the limit of 2; call 15 t: tool \"t\" was not offered to the model; call 16 t: tool \"t\" was not offered to the model; call 17 t: tool \"t\" was not offered to the model; call 18 u: tool \"u\" was not offered to the model; call 19 t: tool \"t\" was not offered to the model; call 20 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 4 times, over the limit of 2; call 21 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 5 times, over the limit of 2; call 22 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 3 times, over the limit of 2; call 23 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 5 times, over the limit of 2; call 24 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 6 times, over the limit of 2; call 25 t: tool \"t\" was not offered to the model; call 26 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 3 times, over the limit of 2; call 27 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 3 times, over the limit of 2; call 28 u: tool \"u\" was not offered to the model, and the same call to \"u\" (same arguments) made 3 times, over the limit of 2; call 29 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 3 times, over the limit of 2; call 30 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 6 times, over the limit of 2; call 31 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 7 times, over the limit of 2; call 32 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 4 times, over the limit of 2; call 33 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 7 times, over the limit of 2; call 34 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 8 times, over the limit of 2; call 35 t: tool \"t\" was not offered to the model; call 36 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 4 times, over the limit of 2; call 37 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 4 times, over the limit of 2; call 38 u: tool \"u\" was not offered to the model, and the same call to \"u\" (same arguments) made 4 times, over the limit of 2; call 39 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 4 times, over the limit of 2; call 40 t: tool \"t\" was not offered to the model, and the same call to \"t\" (same arguments) made 8 times, over the limit of 2; (4 calls with unknown arguments: their arguments were not checked) (tool definitions over the 16 KiB run cap were dropped)",
	}
	ok, fail := StatusOK, StatusError
	semicolon := Call{Name: "get_weather", Args: jsonv.Object(jsonv.Member{Key: "city", Value: jsonv.String("Paris;")}), Status: fail}
	for _, tt := range []struct {
		name    string
		tools   []ToolDefinition
		avail   []string
		options map[string]any
		run     *RunContext
		calls   []Call
	}{
		{name: "no calls", run: recorded},
		{name: "all pass", run: recorded, calls: []Call{
			callOf("get_weather", `{"city":"Paris","unit":"celsius"}`, ok), callOf("lookup_stock", `{"symbol":"A"}`, ok)}},
		{name: "no definitions", calls: []Call{callOf("x", `{"a":1}`, ok), callOf("x", "", fail)}},
		{name: "several findings per call", run: recorded, options: map[string]any{"max_repeats": 1, "max_calls": 2}, calls: []Call{
			callOf("get_weather", `{"city":"Paris","unit":"kelvin","n":0,"extra":1}`, fail),
			callOf("nope", `{}`, fail),
			callOf("get_weather", `{"n":0,"unit":"kelvin","extra":1,"city":"Paris"}`, fail),
			callOf("lookup_stock", "", ok),
			semicolon, semicolon,
		}},
		{name: "repeats compare canonical JSON", run: recorded, options: map[string]any{"max_repeats": 1}, calls: []Call{
			callOf("no_schema", `{"a":1,"b":[1,{"c":-0}]}`, ok),
			callOf("no_schema", `{"b":[1.0,{"c":0}],"a":1e0}`, ok),
			callOf("no_schema", `{"b":[1,{"c":0}],"a":2}`, ok),
			{Name: "no_schema", Args: jsonv.Array(jsonv.Number(math.NaN()), jsonv.Number(math.Inf(1)), jsonv.Undefined()), Status: ok},
			{Name: "no_schema", Args: jsonv.Array(jsonv.Null(), jsonv.Number(math.Inf(-1)), jsonv.Undefined()), Status: ok},
			{Name: "no_schema", Args: jsonv.Array(jsonv.Null(), jsonv.Null(), jsonv.Null()), Status: ok},
			callOf("no_schema", `[12345678901234567890, 12345678901234567891]`, ok),
			callOf("no_schema", `[12345678901234567891, 12345678901234567890]`, ok),
			{Name: "no_schema", Status: ok},
			{Name: "no_schema", Args: jsonv.Object(), Status: ok},
			{Name: "no_schema", Status: ok},
			callOf("other", `{"a":1}`, ok),
		}},
		{name: "configured, recorded and available", tools: configured, avail: []string{"listed", ""}, run: recorded, calls: []Call{
			callOf("shadowed", `{}`, ok), callOf("plan", `{"days":"two"}`, ok), callOf("listed", `{}`, ok),
			callOf("", `{}`, ok), callOf("broken", `{}`, fail), callOf("get_weather", `{"city":"Copenhagen"}`, ok),
			callOf("unknown_tool", `{}`, ok)}},
		{name: "long run", run: recorded, options: map[string]any{"max_repeats": 2}, calls: longRun(40)},
		{name: "available only", avail: []string{"a"}, calls: []Call{callOf("a", `{}`, ok), callOf("b", `{}`, fail), callOf("b", `{}`, ok)}},
		{name: "checks off", run: recorded, options: map[string]any{"undefined_tools": false, "arguments_schema": false, "unrecovered_failures": false, "max_repeats": 0},
			calls: []Call{callOf("nope", `{}`, fail), callOf("nope", `{}`, fail)}},
		{name: "recovered failures", run: recorded, calls: []Call{
			callOf("lookup_stock", `{"symbol":"A"}`, fail), callOf("get_weather", `{"city":"Rome"}`, fail),
			callOf("lookup_stock", `{"symbol":"B"}`, ok), callOf("get_weather", `{"city":"Rome"}`, fail)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(ChecksName, Settings{Threshold: 1, Tools: tt.tools, Options: tt.options, Expectation: Expectation{AvailableTools: tt.avail}})
			require.NoError(t, err)
			got := checksOutput(s.(ContextScorer).ScoreContext(context.Background(), tt.calls, tt.run))
			assert.Equal(t, want[tt.name], got)
		})
	}
}

// repeatCalls are calls to one tool whose arguments repeat under key order,
// number spelling and undefined members.
func repeatCalls() []Call {
	return []Call{
		callOf("t", `{"a":1,"b":[1,{"c":-0}]}`, StatusOK),
		callOf("t", `{"b":[1.0,{"c":0}],"a":1e0}`, StatusOK),
		callOf("t", `{"b":[1,{"c":0}],"a":2}`, StatusOK),
		{Name: "t", Args: jsonv.Array(jsonv.Number(math.NaN()), jsonv.Number(math.Inf(1)), jsonv.Undefined()), Status: StatusOK},
		{Name: "t", Args: jsonv.Array(jsonv.Null(), jsonv.Number(math.Inf(-1)), jsonv.Undefined()), Status: StatusOK},
		{Name: "t", Args: jsonv.Object(jsonv.Member{Key: "x", Value: jsonv.Undefined()}), Status: StatusOK},
		{Name: "t", Args: jsonv.Object(), Status: StatusOK},
		{Name: "t", Status: StatusOK},
		callOf("t", "", StatusOK),
		callOf("u", `{"a":1,"b":[1,{"c":-0}]}`, StatusOK),
	}
}

// longRun returns n calls cycling through repeatCalls.
func longRun(n int) []Call {
	base := repeatCalls()
	calls := make([]Call, n)
	for i := range calls {
		calls[i] = base[(i*7)%len(base)]
	}
	return calls
}

// TestRepeatsShortAndLongRunsAgree checks that the pairwise scan of short
// runs finds what the map of long runs finds.
func TestRepeatsShortAndLongRunsAgree(t *testing.T) {
	for _, max := range []int{1, 2, 3} {
		c := &checks{maxRepeats: max}
		for n := 1; n <= repeatScanLimit; n++ {
			calls := longRun(n)
			assert.Equal(t, c.countRepeats(calls, nil), c.checkRepeats(calls, nil), "%d calls, max %d", n, max)
		}
	}
}

// TestExplanationSizeBoundsText checks that the explanation is written
// within the size reserved for it.
func TestExplanationSizeBoundsText(t *testing.T) {
	for _, n := range []int{1, 9, 10, 11, 99, 100, 101} {
		calls := make([]Call, n)
		var findings []Finding
		for i := range calls {
			calls[i] = Call{Name: "tool" + Itoa(i), ArgsUnknown: i%3 == 0}
			for k := 0; k < i%3; k++ {
				findings = append(findings, Finding{Call: i, Detail: "detail " + Itoa(k)})
			}
		}
		failed := 0
		for i := range findings {
			if i == 0 || findings[i-1].Call != findings[i].Call {
				failed++
			}
		}
		unknown := (n + 2) / 3
		for _, known := range []bool{false, true} {
			for _, notes := range [][]string{nil, {"a note", ""}} {
				for _, f := range []int{0, failed} {
					fs := findings
					if f == 0 {
						fs = nil
					}
					text := explainChecks(calls, fs, f, &offered{known: known}, notes)
					size := explanationSize(calls, fs, f, unknown, known, notes)
					assert.LessOrEqual(t, len(text), size, "%d calls", n)
					if len(fs) == 0 {
						assert.LessOrEqual(t, size-len(text), 1, "%d calls", n)
					}
				}
			}
		}
	}
}

// TestUnrecoveredShortAndLongRunsAgree checks that looking ahead in short
// runs finds what the set of recovered tools finds in long ones.
func TestUnrecoveredShortAndLongRunsAgree(t *testing.T) {
	names := []string{"a", "b", "a", "c", "b", "a", "a"}
	for n := 1; n <= repeatScanLimit; n++ {
		calls := make([]Call, n)
		for i := range calls {
			calls[i] = Call{Name: names[(i*5)%len(names)], Status: []CallStatus{StatusOK, StatusError, StatusError}[(i*i)%3]}
		}
		assert.Equal(t, checkUnrecoveredLong(calls, nil), checkUnrecovered(calls, nil), "%d calls", n)
	}
}

// oldCanonicalJSON is the canonical JSON as checkRepeats wrote it before
// appendCanonical: keys sorted through Keys and Get, scalars through JSON.
func oldCanonicalJSON(v jsonv.Value) string {
	var sb strings.Builder
	var write func(v jsonv.Value)
	write = func(v jsonv.Value) {
		switch v.Kind() {
		case jsonv.KindObject:
			keys := v.Keys()
			sort.Strings(keys)
			sb.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					sb.WriteByte(',')
				}
				sb.WriteString(jsonv.String(k).JSON())
				sb.WriteByte(':')
				m, _ := v.Get(k)
				write(m)
			}
			sb.WriteByte('}')
		case jsonv.KindArray:
			sb.WriteByte('[')
			for i := 0; i < v.Len(); i++ {
				if i > 0 {
					sb.WriteByte(',')
				}
				write(v.Index(i))
			}
			sb.WriteByte(']')
		default:
			sb.WriteString(v.JSON())
		}
	}
	write(v)
	return sb.String()
}

// FuzzCanonical checks appendCanonical against the canonical JSON written
// before, on parsed documents and on the repeat cases.
func FuzzCanonical(f *testing.F) {
	for _, c := range repeatCalls() {
		f.Add(c.Args.JSON())
	}
	f.Add(`{"b":{"y":[1,{"z":1e400,"a":-0}],"x":"\u00e9"},"a":[],"":{}}`)
	f.Add(strings.Repeat(`{"k":`, 30) + `1` + strings.Repeat(`}`, 30))
	f.Fuzz(func(t *testing.T, text string) {
		v, err := jsonv.Parse(text)
		if err != nil {
			return
		}
		if got, want := string(appendCanonical(nil, &v)), oldCanonicalJSON(v); got != want {
			t.Fatalf("canonical %q, was %q", got, want)
		}
	})
}

// TestCanonicalUnchanged compares appendCanonical with the canonical JSON
// written before on values Parse does not make (undefined, not finite).
func TestCanonicalUnchanged(t *testing.T) {
	values := []jsonv.Value{}
	for _, c := range repeatCalls() {
		values = append(values, c.Args)
	}
	for _, v := range instanceCases() {
		values = append(values, v)
	}
	for _, v := range values {
		assert.Equal(t, oldCanonicalJSON(v), string(appendCanonical(nil, &v)))
	}
}
