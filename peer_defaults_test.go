package toolcallaccuracyprocessor

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// scoreRule compiles rule as the processor does and scores calls with its
// first scorer.
func scoreRule(t *testing.T, rule RuleConfig, calls []toolcall.Call) toolcall.Result {
	t.Helper()
	r, err := compileRule(&rule, nopTelemetry(), nil)
	require.NoError(t, err)
	var res toolcall.Result
	toolcall.ScoreInto(context.Background(), r.Scorers[0].Scorer, r.Calls(toolcall.NumberCalls(calls), nil), nil, &res)
	require.NoError(t, res.Err)
	return res
}

// TestDeepEvalPassesAsDeepEval pins that a rule without a threshold passes
// or fails a deepeval run as DeepEval's success does: score >= threshold
// (deepeval/metrics/base_metric.py, is_successful), with threshold 0.5 by
// default and 1 under strict_mode (metrics/tool_correctness/
// tool_correctness.py, __init__: threshold: Optional[float] = 0.5,
// self.threshold = 1 if strict_mode else threshold). A rule's own
// threshold still decides.
func TestDeepEvalPassesAsDeepEval(t *testing.T) {
	// DeepEval's TestToolCorrectnessMetricType::test_mixed_types_score_partially
	// (tests/test_metrics/test_tool_correctness_metric.py): 0.5 with the
	// default threshold, a success.
	mixed := RuleConfig{Name: "mixed", Scorers: []ScorerConfig{{Name: "deepeval"}}, Expect: ExpectConfig{Calls: []ExpectedCallConfig{{Tool: "get_weather"}, {Tool: "ask_question"}}}}
	mixedCalls := []toolcall.Call{{Name: "get_weather", Type: "function"}, {Name: "ask_question", Type: "mcp"}}
	res := scoreRule(t, mixed, mixedCalls)
	assert.Equal(t, 0.5, res.Score)
	assert.Equal(t, toolcall.OutcomePass, res.Outcome)
	assert.Equal(t, 0.5, res.Threshold)

	// Issue #34's case: three expected, the first two called, 2/3.
	three := func(opts map[string]any, threshold *float64) RuleConfig {
		return RuleConfig{Name: "three", Threshold: threshold, Scorers: []ScorerConfig{{Name: "deepeval", Options: opts}},
			Expect: ExpectConfig{Calls: []ExpectedCallConfig{{Tool: "get_weather"}, {Tool: "lookup_stock"}, {Tool: "get_time"}}}}
	}
	twoCalls := []toolcall.Call{{Name: "get_weather"}, {Name: "lookup_stock"}}
	one, low := 1.0, 0.6
	for _, tc := range []struct {
		name      string
		rule      RuleConfig
		outcome   toolcall.Outcome
		threshold float64
	}{
		{"DeepEval's default 0.5", three(nil, nil), toolcall.OutcomePass, 0.5},
		{"DeepEval's threshold option", three(map[string]any{"threshold": 0.7}, nil), toolcall.OutcomeFail, 0.7},
		{"strict_mode makes it 1 (and the score 0)", three(map[string]any{"strict_mode": true}, nil), toolcall.OutcomeFail, 1},
		{"a rule's threshold decides", three(nil, &one), toolcall.OutcomeFail, 1},
		{"a rule's threshold decides over the option", three(map[string]any{"threshold": 0.9}, &low), toolcall.OutcomePass, 0.6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := scoreRule(t, tc.rule, twoCalls)
			assert.Equal(t, tc.outcome, res.Outcome)
			assert.Equal(t, tc.threshold, res.Threshold)
		})
	}

	// The other peers have no pass rule of their own: the rule's default,
	// 1, decides (MongoDB's report marks 1 "perfect", generateTestSummary.ts
	// getAccuracyClass; Mastra's runEvals has thresholds only when given).
	for _, name := range []string{"mongodb", "mastra_trajectory", "agentevals", "ragas", "native"} {
		rule := RuleConfig{Name: "r", Scorers: []ScorerConfig{{Name: name}}, Expect: ExpectConfig{Calls: []ExpectedCallConfig{{Tool: "get_weather"}}}}
		res := scoreRule(t, rule, []toolcall.Call{{Name: "get_weather"}})
		assert.Equal(t, 1.0, res.Threshold, name)
	}
}

// scoreRecorded scores calls recorded as tool spans (name and argument
// text) in a convention, as the processor does with the default
// configuration: decoded, the rule's view taken with the run's recorded
// definitions, scored by the rule's first scorer.
func scoreRecorded(t *testing.T, rule RuleConfig, conv extract.Convention, recorded *toolcall.ToolDefinitions, calls ...[2]string) toolcall.Result {
	t.Helper()
	r, err := compileRule(&rule, nopTelemetry(), nil)
	require.NoError(t, err)
	agent := pcommon.SpanID{1}
	var traj trajectory.Trajectory
	for i, c := range calls {
		traj.Calls = append(traj.Calls, trajectory.StoredCall{Name: c[0], Args: c[1], Encoding: extract.EncodingJSON, Convention: conv, Parent: agent, Start: uint64(i+1) * 1e9, End: uint64(i+1)*1e9 + 1e6})
	}
	cfg := createDefaultConfig().(*Config)
	opts := trajectory.ScoringOptions{Decode: extract.DecodeOptions{EmptyIsKnown: cfg.EmptyArguments == "empty"}}
	var res toolcall.Result
	toolcall.ScoreInto(context.Background(), r.Scorers[0].Scorer, r.Calls(trajectory.ScoringCalls(&traj, agent, &opts), recorded), nil, &res)
	return res
}

// TestEmptyArgumentsScoreAsPeers pins that a call recorded with "{}" is a
// call made without arguments wherever "{}" cannot be a placeholder, so the
// peers' own no-argument cases score as the peers score them:
//
//   - MongoDB's accuracy tests expect list-databases with parameters {}
//     (packages/accuracy-tests/src/dropDatabase.test.ts and others), and its
//     ValueMatcher scores {} against {} 1 (sdk/matcher.ts: an object with no
//     more keys than expected, every expected key matching);
//   - DeepEval's _compare_dicts returns 1.0 when the dicts are equal
//     (metrics/tool_correctness/tool_correctness.py), and DeepEval's own
//     trace reader makes arguments "{}" input_parameters {}
//     (tracing/otel/utils.py, check_pydantic_ai_tools_called).
//
// "{}" cannot be a placeholder when the rule expects it, when the tool's
// definition (configured or recorded) requires no parameter, or in a
// convention that never writes "{}" for arguments it did not capture. In
// ADK, which does, a "{}" nothing else explains stays unknown.
func TestEmptyArgumentsScoreAsPeers(t *testing.T) {
	listDatabases := [2]string{"list-databases", "{}"}
	mongo := func(args any, tools ...ToolConfig) RuleConfig {
		return RuleConfig{Name: "mongo", Scorers: []ScorerConfig{{Name: "mongodb"}}, Tools: tools,
			Expect: ExpectConfig{Calls: []ExpectedCallConfig{{Tool: "list-databases", Args: args}}}}
	}
	noParams := ToolConfig{Name: "list-databases", Parameters: map[string]any{"type": "object", "properties": map[string]any{}}}
	dbRequired := ToolConfig{Name: "list-databases", Parameters: map[string]any{"type": "object", "required": []any{"db"}}}

	// Expected with {} (MongoDB's own test case), in ADK and in OTel GenAI.
	for _, conv := range []extract.Convention{extract.ConventionADK, extract.ConventionGenAI} {
		res := scoreRecorded(t, mongo(map[string]any{}), conv, nil, listDatabases)
		assert.Equal(t, 1.0, res.Score, "convention %v: %s", conv, res.Explanation)
	}
	// Expected with other arguments: {} is no arguments where it cannot be
	// a placeholder, and MongoDB scores that 0.
	other := map[string]any{"db": "admin"}
	for _, tc := range []struct {
		name     string
		rule     RuleConfig
		conv     extract.Convention
		recorded *toolcall.ToolDefinitions
		unknown  bool
	}{
		{"OTel GenAI never writes {} for uncaptured arguments", mongo(other), extract.ConventionGenAI, nil, false},
		{"configured without required parameters", mongo(other, noParams), extract.ConventionADK, nil, false},
		{"recorded without required parameters", mongo(other), extract.ConventionADK, definitions(t, `[{"name":"list-databases","parameters":{"type":"OBJECT","properties":{}}}]`), false},
		{"ADK, nothing says: maybe a placeholder", mongo(other), extract.ConventionADK, nil, true},
		{"ADK, a definition requires a parameter", mongo(other, dbRequired), extract.ConventionADK, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := scoreRecorded(t, tc.rule, tc.conv, tc.recorded, listDatabases)
			if tc.unknown {
				assert.Equal(t, toolcall.OutcomeError, res.Outcome)
				assert.ErrorContains(t, res.Err, "arguments unavailable")
				return
			}
			require.NoError(t, res.Err)
			assert.Equal(t, 0.0, res.Score)
		})
	}

	// DeepEval with input_parameters: {} expected, {} called.
	deepeval := RuleConfig{Name: "de", Scorers: []ScorerConfig{{Name: "deepeval", Options: map[string]any{"evaluation_params": []any{"input_parameters"}}}},
		Expect: ExpectConfig{Calls: []ExpectedCallConfig{{Tool: "whoami", Args: map[string]any{}}, {Tool: "get_weather", Args: map[string]any{"city": "Paris"}}}}}
	for _, conv := range []extract.Convention{extract.ConventionADK, extract.ConventionGenAI} {
		res := scoreRecorded(t, deepeval, conv, nil, [2]string{"whoami", "{}"}, [2]string{"get_weather", `{"city":"Paris"}`})
		require.NoError(t, res.Err)
		assert.Equal(t, 1.0, res.Score, "convention %v", conv)
	}
}

// definitions reads recorded tool definitions.
func definitions(t *testing.T, text string) *toolcall.ToolDefinitions {
	t.Helper()
	defs, err := toolcall.ParseToolDefinitions(text)
	require.NoError(t, err)
	var d toolcall.ToolDefinitions
	d.Add(defs...)
	return &d
}

// TestADKRecordedDefinitionsTellEmptyArguments runs the processor on an ADK
// run (a Python ADK capture) whose lookup_stock call recorded "{}", as ADK
// does for a call without arguments and, with content capture off, for any
// call. The run's model call recorded the tool's declaration: when it
// requires no parameter, "{}" is a call without arguments (DeepEval then
// scores it, 0 against the expected symbol); when it requires one, "{}"
// may be a placeholder and the arguments stay unknown. The rule's only
// scorer reads no run context, so the definitions are captured for this.
func TestADKRecordedDefinitionsTellEmptyArguments(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	cfg.Rules = []RuleConfig{{Name: "adk_stock", Scorers: []ScorerConfig{{Name: "deepeval", Options: map[string]any{"evaluation_params": []any{"input_parameters"}}}},
		Expect: ExpectConfig{Calls: []ExpectedCallConfig{{Tool: "lookup_stock", Args: map[string]any{"symbol": "ZZZZ"}}}}}}
	for _, tc := range []struct {
		name     string
		required bool
	}{{"declared without required parameters", false}, {"declared with a required parameter", true}} {
		t.Run(tc.name, func(t *testing.T) {
			in := readTraceFile(t, filepath.Join("testdata", "traces", "captures", "constructed-google-adk-python.json"))
			for _, td := range in {
				for _, rs := range td.ResourceSpans().All() {
					for _, ss := range rs.ScopeSpans().All() {
						for _, span := range ss.Spans().All() {
							a := span.Attributes()
							if v, ok := a.Get("gcp.vertex.agent.llm_request"); ok && !tc.required {
								a.PutStr("gcp.vertex.agent.llm_request", strings.Replace(v.Str(), `"required": ["symbol"], `, "", 1))
							}
							if n, ok := a.Get("gen_ai.tool.name"); ok && n.Str() == "lookup_stock" {
								a.PutStr("gcp.vertex.agent.tool_call_args", "{}")
							}
						}
					}
				}
			}
			agent := onlyScored(t, newHarness(t, cfg).run(t, in))
			var found bool
			for _, e := range agent.Events().All() {
				if e.Name() != eventEvaluation {
					continue
				}
				found = true
				score, scored := e.Attributes().Get(attrEvalScore)
				expl, _ := e.Attributes().Get(attrEvalExplain)
				if tc.required {
					assert.False(t, scored, "arguments unknown: %s", expl.Str())
					assert.Contains(t, expl.Str(), "arguments unavailable")
					continue
				}
				require.True(t, scored, expl.Str())
				assert.Equal(t, 0.0, score.Double(), expl.Str())
			}
			assert.True(t, found)
		})
	}
}

// TestMastraKeyOrderFromConfiguration pins that a collector configuration
// can keep the key order of Mastra's expected data, which Mastra compares
// with JSON.stringify (expectedStepMatches in src/scorers/utils.ts:
// JSON.stringify(actualVal) !== JSON.stringify(expectedVal), in 1.2.0 and
// 1.10.2): a YAML map loses it, JSON text keeps it, given as the
// expected_trajectory option (written as Mastra's expectedTrajectory) or
// as an expected call's args_json. Mastra scores the expectation
// {unit, city} 1 against a call with {unit, city} and 0 against {city,
// unit} (the recorded differential case mastra/trajectory/00067 is one
// such: the configuration map made it 0.75, Mastra 1).
func TestMastraKeyOrderFromConfiguration(t *testing.T) {
	yaml := `
tool_call_accuracy/key_order:
  rules:
    - name: from_options
      scorers:
        - name: mastra_trajectory
          options:
            expected_trajectory: '[{"name": "get_weather", "stepType": "tool_call", "toolArgs": {"unit": "celsius", "city": "Paris"}}]'
    - name: from_full_defaults
      scorers:
        - name: mastra_trajectory_full
          options:
            defaults: '{"steps": [{"name": "get_weather", "stepType": "tool_call", "toolArgs": {"unit": "celsius", "city": "Paris"}}]}'
    - name: from_calls
      expect:
        calls:
          - tool: get_weather
            args_json: '{"unit": "celsius", "city": "Paris"}'
      scorers: [{name: mastra_trajectory}]
    - name: yaml_map
      expect:
        calls:
          - tool: get_weather
            args: {unit: celsius, city: Paris}
      scorers: [{name: mastra_trajectory}]
`
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o600))
	cfg := loadConfig(t, path, "key_order")
	written := toolcall.Call{Name: "get_weather", Args: mustParse(t, `{"unit": "celsius", "city": "Paris"}`)}
	sorted := toolcall.Call{Name: "get_weather", Args: mustParse(t, `{"city": "Paris", "unit": "celsius"}`)}
	for _, tc := range []struct {
		rule            string
		written, sorted float64
	}{
		{"from_options", 1, 0},
		{"from_full_defaults", 1, 0},
		{"from_calls", 1, 0},
		{"yaml_map", 0, 1}, // the map's keys come sorted
	} {
		rule := cfg.Rules[slices.IndexFunc(cfg.Rules, func(r RuleConfig) bool { return r.Name == tc.rule })]
		assert.Equal(t, tc.written, scoreRule(t, rule, []toolcall.Call{written}).Score, "%s, the written order", tc.rule)
		assert.Equal(t, tc.sorted, scoreRule(t, rule, []toolcall.Call{sorted}).Score, "%s, sorted keys", tc.rule)
	}

	// args_json and args together are an error, as is text that is not JSON.
	bad := RuleConfig{Name: "bad", Expect: ExpectConfig{Calls: []ExpectedCallConfig{{Tool: "a", Args: map[string]any{}, ArgsJSON: "{}"}, {Tool: "b", ResultJSON: "{"}}}}
	_, err := compileRule(&bad, nopTelemetry(), nil)
	assert.ErrorContains(t, err, "expect.calls[0]: give args or args_json, not both")
	assert.ErrorContains(t, err, "expect.calls[1].result_json:")
}

func mustParse(t *testing.T, text string) jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse(text)
	require.NoError(t, err)
	return v
}

// TestToolDescriptionUnsetOrEmpty pins that a configured tool's
// description keeps unset apart from "": Mastra writes
// `${tool.id}: ${tool.description}`, "whoami: undefined" for a tool
// without one and "whoami: " for an empty one (recorded from Mastra's own
// scorer in internal/judges/testdata/judge/mastra-judge-inputs.json).
func TestToolDescriptionUnsetOrEmpty(t *testing.T) {
	empty := ""
	defs, err := buildTools([]ToolConfig{{Name: "unset"}, {Name: "empty", Description: &empty}})
	require.NoError(t, err)
	assert.False(t, defs[0].EmptyDescription)
	assert.True(t, defs[1].EmptyDescription)
}
