package toolcallaccuracyprocessor

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// validateYAML decodes a processor configuration as the collector does and
// validates it; it returns the decoding or validation error.
func validateYAML(t *testing.T, text string) error {
	t.Helper()
	retrieved, err := confmap.NewRetrievedFromYAML([]byte(text))
	require.NoError(t, err)
	raw, err := retrieved.AsConf()
	require.NoError(t, err)
	cfg := createDefaultConfig().(*Config)
	if err := raw.Unmarshal(cfg); err != nil {
		return err
	}
	return confmap.Validate(cfg)
}

// TestConfigMistakes: mistakes that were accepted, or reported badly, are
// reported in full, each line naming the rule and the field.
func TestConfigMistakes(t *testing.T) {
	// Each entry is a mistake a user made; the comment says what happened
	// to it before.
	tests := []struct {
		name string
		yaml string
		err  string // the whole error text
	}{
		{
			name: "NaN threshold", // every run failed at score 1.00
			yaml: `{rules: [{name: r, expect: {calls: [{tool: get_weather}]}, threshold: .nan}]}`,
			err:  `rules[0]: rule "r": threshold: NaN is outside [0, 1]`,
		},
		{
			name: "NaN extra_call_cap", // the penalty vanished
			yaml: `{rules: [{name: r, expect: {calls: [{tool: get_weather}], extra_calls: penalize, extra_call_cap: .nan}}]}`,
			err:  `rules[0]: rule "r": expect.extra_call_cap: NaN is outside [0, 1]`,
		},
		{
			name: "NaN option", // said "got float64"
			yaml: `{rules: [{name: r, expect: {calls: [{tool: get_weather}]}, scorers: [{name: deepeval, options: {threshold: .nan}}]}]}`,
			err:  `rules[0]: rule "r": scorers[0] (deepeval): deepeval: option "threshold": expects a number, got .nan (NaN: not a JSON number)`,
		},
		{
			name: "unknown call type", // every run failed with "missing get_weather"
			yaml: `{rules: [{name: r, expect: {calls: [{tool: get_weather, type: http}]}}]}`,
			err:  `rules[0]: rule "r": expect.calls[0].type: invalid value "http", expected "function" or "mcp"`,
		},
		{
			name: "several expect errors", // only the first line named the rule
			yaml: `{rules: [{name: r, expect: {calls: [{tool: get_weather}], extra_args: maybe, extra_calls: nope, argument_credit: some}}]}`,
			err: `rules[0]: rule "r": expect.extra_calls: invalid value "nope", expected one of "allow", "penalize" or "fail"` + "\n" +
				`rules[0]: rule "r": expect.extra_args: invalid value "maybe", expected one of "allow", "penalize" or "fail"` + "\n" +
				`rules[0]: rule "r": expect.argument_credit: invalid value "some", expected "partial" or "all_or_nothing"`,
		},
		{
			name: "several option errors of one scorer",
			yaml: `{rules: [{name: r, expect: {calls: [{tool: get_weather}]}, scorers: [{name: deepeval, options: {threshold: 2, strict_mode: maybe}}]}]}`,
			err: `rules[0]: rule "r": scorers[0] (deepeval): deepeval: option "threshold": 2 is outside [0, 1]` + "\n" +
				`rules[0]: rule "r": scorers[0] (deepeval): deepeval: option "strict_mode": expects true or false, got string "maybe"`,
		},
		{
			name: "mistakes in several parts of a rule", // only the first part's were reported
			yaml: `{rules: [{name: r, expect: {calls: [{tool: ""}]}, threshold: 2, tools: [{description: x}]}]}`,
			err: `rules[0]: rule "r": expect.calls[0].tool: must not be empty` + "\n" +
				`rules[0]: rule "r": threshold: 2 is outside [0, 1]` + "\n" +
				`rules[0]: rule "r": tools[0].name: must not be empty`,
		},
		{
			name: "judge mistakes", // were printed again under rules::0::judge::-
			yaml: `{rules: [{name: r, scorers: [{name: meai_tool_call_accuracy}], judge: {model: m}}]}`,
			err:  `rules[0]: rule "r": judge.endpoint: must not be empty`,
		},
		{
			name: "the judge's HTTP client block", // checked once, by the judge
			yaml: `{rules: [{name: r, scorers: [{name: meai_tool_call_accuracy}], judge: {model: m, endpoint: "http://judge/v1", compression: gzip, compression_params: {level: 99}}}]}`,
			err:  `rules[0]: rule "r": judge: unsupported parameters {Level:99} for compression type "gzip"`,
		},
		{
			name: "a rule with only a name", // passed every run at 1.00
			yaml: `{rules: [{name: r}]}`,
			err: `rules[0]: rule "r": expect: gives the native scorer nothing to check, so every run would pass at 1: ` +
				`give expect.calls, forbidden_tools, forbidden_sequences or available_tools, set expect.extra_calls: fail to expect no calls, ` +
				`or use another scorer (checks, an LLM judge)`,
		},
		{
			name: "a judge section no scorer uses", // was accepted silently
			yaml: `{rules: [{name: r, expect: {calls: [{tool: get_weather}]}, judge: {endpoint: "http://judge/v1", model: m}}]}`,
			err: `rules[0]: rule "r": judge: none of the rule's scorers is an LLM judge, so this section would never be used: ` +
				`add a judge scorer (meai_tool_call_accuracy, azure_tool_call_accuracy, mastra_tool_call_llm, mastra_trajectory_llm, deepeval_llm) or remove the section`,
		},
		{
			name: "durations without a unit", // were read as nanoseconds without a word
			yaml: `{wait: 5, limits: {max_age: 300}, rules: [{name: r, scorers: [{name: meai_tool_call_accuracy}], judge: {endpoint: "http://judge/v1", model: m, request_timeout: 30}}]}`,
			err: `rules[0]: rule "r": judge.request_timeout: 30ns is less than a millisecond: a number without a unit is read as nanoseconds; write the unit (30s, 30ms)` + "\n" +
				`wait: 5ns is less than a millisecond: a number without a unit is read as nanoseconds; write the unit (5s, 5ms)` + "\n" +
				`limits.max_age: 300ns is less than a millisecond: a number without a unit is read as nanoseconds; write the unit (300s, 300ms)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validateYAML(t, tt.yaml)
			require.Error(t, err)
			assert.Equal(t, tt.err, err.Error())
		})
	}
}

// TestUnusedJudgeNamesEveryJudge: the error for a judge section no scorer
// uses names every judge scorer there is, and only those.
func TestUnusedJudgeNamesEveryJudge(t *testing.T) {
	_, list, _ := strings.Cut(errUnusedJudge.Error(), "(")
	list, _, _ = strings.Cut(list, ")")
	named := strings.Split(list, ", ")
	exp := toolcall.Expectation{Calls: []toolcall.ExpectedCall{{Name: "get_weather"}}}
	var judges []string
	for _, name := range toolcall.ScorerNames() {
		if strings.HasPrefix(name, "test_") {
			continue // registered by this package's tests
		}
		s, err := toolcall.New(name, toolcall.Settings{Expectation: exp, Threshold: 1, Judge: unsentJudge{}})
		require.NoError(t, err, name)
		if _, deferred := s.(toolcall.Deferred); deferred {
			judges = append(judges, name)
		}
	}
	assert.ElementsMatch(t, judges, named)
}

// TestMisspeltScorerName: a scorer name written with a capital letter was
// reported as a label that must be lower_snake_case, though no label was
// written; it is an unknown scorer, as a misspelt lowercase name is.
func TestMisspeltScorerName(t *testing.T) {
	err := validateYAML(t, `{rules: [{name: r, expect: {calls: [{tool: get_weather}]}, scorers: [native, Mongodb]}]}`)
	assert.EqualError(t, err, `rules[0]: rule "r": scorers[1] (Mongodb): unknown scorer "Mongodb": scorer names are lowercase, write "mongodb"`)
	err = validateYAML(t, `{rules: [{name: r, expect: {calls: [{tool: get_weather}]}, scorers: [native, mongdb]}]}`)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), `rules[0]: rule "r": scorers[1] (mongdb): unknown scorer "mongdb", expected one of ["adk" `), err.Error())
	// A label the user wrote is still checked.
	err = validateYAML(t, `{rules: [{name: r, expect: {calls: [{tool: get_weather}]}, scorers: [{name: mongodb, label: Mongo}]}]}`)
	assert.EqualError(t, err, `rules[0]: rule "r": scorers[0].label: "Mongo" must be lower_snake_case`)
}

// TestDecodingErrorsNameTheRule: a misspelt key was reported as
// "'rules[0].expect.calls[0]' has invalid keys: arg", naming no rule, unlike
// every validation error.
func TestDecodingErrorsNameTheRule(t *testing.T) {
	err := validateYAML(t, `{rules: [{name: weather, expect: {calls: [{tool: get_weather, arg: {city: Paris}}]}}]}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `'rules[0]' rule "weather": expect.calls[0] has invalid keys: arg`)
}
