package toolcallaccuracyprocessor

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadata"
)

func subConfig(t *testing.T, name string) *Config {
	t.Helper()
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	sub, err := cm.Sub(component.MustNewIDWithName(metadata.Type.String(), name).String())
	require.NoError(t, err)
	cfg := createDefaultConfig().(*Config)
	require.NoError(t, sub.Unmarshal(cfg))
	return cfg
}

func TestLoadConfig(t *testing.T) {
	threshold := 0.8
	want := &Config{
		Wait:           2 * time.Second,
		WaitForMissing: 3 * time.Second,
		ScoreTimeout:   10 * time.Second,
		EmptyArguments: "empty",
		SkipTools:      []string{"(merged tools)"},
		LocalRoots:     true,
		Conversations:  ConversationsConfig{MaxOpen: defaultConversationsMaxOpen, Timeout: defaultConversationsTimeout},
		Limits:         LimitsConfig{MaxOpenTrajectories: 500, MaxHeldRuns: 300, MaxCallsPerTrajectory: 64, MaxAge: time.Minute, MaxTrackedTraces: 1000, MaxSpansPerTrace: 2000, MaxArgumentBytes: 1 << 20, MaxContextBytes: 16 << 10, MaxPendingRecords: 10_000},
		Output:         OutputConfig{Attributes: true, Events: false, MaxExplanationLength: 200, ToolCalls: ToolCallsAlways, RuleAttributes: RuleAttributesAlways},
		Rules: []RuleConfig{{
			Name: "weather",
			When: []string{
				`span.attributes["gen_ai.agent.name"] == "weather-agent"`,
				`resource.attributes["service.name"] == "travel"`,
			},
			Expect: ExpectConfig{
				Calls: []ExpectedCallConfig{
					{Tool: "get_weather", Args: map[string]any{"city": "Paris"}, Match: map[string]any{"unit": map[string]any{"one_of": []any{"celsius", "fahrenheit"}}}},
					{Tool: "lookup_stock", Optional: true, MustSucceed: true},
				},
				Order: "in_order", ExtraCalls: "penalize", ExtraCallCap: 0.5, ExtraArgs: "fail",
				ArgumentCredit: "all_or_nothing", CoerceStrings: true, ForbiddenTools: []string{"delete_portfolio"},
			},
			Scorers:   []ScorerConfig{{Name: "native"}},
			Threshold: &threshold,
		}},
	}
	got := subConfig(t, "full")
	assert.Equal(t, want, got)
	require.NoError(t, confmap.Validate(got))

	minimal := subConfig(t, "minimal")
	require.NoError(t, confmap.Validate(minimal))
	def := createDefaultConfig().(*Config)
	assert.Equal(t, def.Limits, minimal.Limits)
	assert.Equal(t, def.Output, minimal.Output)
}

func TestConfigValidationErrors(t *testing.T) {
	tests := []struct {
		name string
		err  string
	}{
		{"unknown_scorer", `rules[0]: rule "weather": scorers[0] (judge): unknown scorer "judge", expected one of [`},
		{"unknown_option", `rules[0]: rule "weather": scorers[0] (native): native: unknown option "strict"`},
		{"bad_ottl", `rules[0]: rule "weather": when[0]: condition has invalid syntax`},
		{"bad_regex", `rules[0]: rule "weather": expect.calls[0].match["city"]: regex: invalid regex "(": error parsing regexp: missing closing ): ` + "`(`"},
		{"duplicate_names", `rules[1]: rule "weather": name: duplicate of rules[0]`},
		{"threshold_out_of_range", `rules[0]: rule "weather": threshold: 1.5 is outside [0, 1]`},
		{"bad_limits", `score_timeout: 0s must be positive`},
		{"bad_limits", `limits.max_open_trajectories: 0 must be positive`},
		{"bad_limits", `limits.max_calls_per_trajectory: -1 must be in [1, 1024]`},
		{"bad_limits", `limits.max_age: 0s must be positive`},
		{"bad_limits", `limits.max_tracked_traces: 0 must be positive`},
		{"bad_limits", `limits.max_spans_per_trace: 0 must be positive`},
		{"bad_limits", `limits.max_argument_bytes: 0 must be positive`},
		{"bad_limits", `limits.max_context_bytes: 0 must be positive`},
		{"bad_limits", `output.max_explanation_length: 0 must be positive`},
		{"bad_limits", `output.tool_calls: "sometimes" must be one of on_failure, always, never`},
		{"bad_limits", `output.rule_attributes: "sometimes" must be one of always, on_failure`},
		{"rule_attributes_without_events", `output.rule_attributes: on_failure needs output.events: true`},
		{"bad_rule_name", `rules[0]: rule "Weather-Agent": name: must be lower_snake_case`},
		{"reserved_rule_name", `rules[0]: rule "score": name: "score" is reserved for a summary attribute`},
		{"empty_tool", `rules[0]: rule "weather": expect.calls[0].tool: must not be empty`},
		{"unknown_matcher", `rules[0]: rule "weather": expect.calls[0].match["city"]: unknown matcher "starts_with"`},
		{"bad_policy", `rules[0]: rule "weather": expect.order: invalid value "sorted", expected one of "any", "in_order" or "exact"`},
		{"bad_policy", `extra_calls: invalid value "sometimes", expected one of "allow", "penalize" or "fail"`},
		{"bad_path", `rules[0]: rule "weather": expect.calls[0].match: path "items[x]": invalid index "x"`},
		{"bad_empty_arguments", `empty_arguments: invalid value "maybe", expected "unknown" or "empty"`},
		{"bad_skip_tools", `skip_tools[1]: "*" would skip every tool`},
		{"bad_judge_fields", `rules[0]: rule "judged": judge.endpoint: must not be empty`},
		{"bad_judge_fields", `rules[0]: rule "judged": judge.model: must not be empty`},
		{"bad_judge_fields", `rules[0]: rule "judged": judge.sample_ratio: 2 is outside [0, 1]`},
		{"bad_judge_fields", `rules[0]: rule "judged": judge.queue_size: -1 must not be negative`},
		{"bad_tools", `rules[0]: rule "weather": tools[0].name: must not be empty`},
		{"bad_tools", `rules[0]: rule "weather": tools[1].parameters: schema does not compile`},
		{"bad_tools", `rules[0]: rule "weather": tools[3].name: "lookup_stock" is already defined by tools[2]`},
		{"bad_skip_tools", `skip_tools[2]: "handoff * to": "*" may only end an entry`},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.err[:min(len(tt.err), 40)], func(t *testing.T) {
			err := confmap.Validate(subConfig(t, tt.name))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func TestChecksConfig(t *testing.T) {
	cfg := subConfig(t, "checks")
	require.NoError(t, confmap.Validate(cfg))
	require.Len(t, cfg.Rules[0].Tools, 1)
	assert.Equal(t, "get_weather", cfg.Rules[0].Tools[0].Name)
	assert.Equal(t, []any{"city"}, cfg.Rules[0].Tools[0].Parameters["required"])
}

func TestJudgeConfig(t *testing.T) {
	cfg := subConfig(t, "judge")
	require.NoError(t, confmap.Validate(cfg))
	j := cfg.Rules[0].Judge
	require.NotNil(t, j)
	assert.Equal(t, "https://api.openai.com/v1", j.client.ClientConfig.Endpoint)
	assert.Equal(t, "gpt-4o-mini", j.client.Model)
	assert.Equal(t, "sk-test-not-a-key", string(j.client.APIKey))
	assert.Equal(t, 3, j.client.MaxRetries, "the client's defaults apply")
	assert.Equal(t, 0.25, *j.SampleRatio)
	assert.Equal(t, 60, j.RequestsPerMinute)
	assert.Len(t, j.client.Redact, 1)

	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	sub, err := cm.Sub("tool_call_accuracy/bad_judge")
	require.NoError(t, err)
	bad := createDefaultConfig().(*Config)
	err = sub.Unmarshal(bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "max_retires")
}

// TestScorersByName: a scorer may be given by its name alone, beside the
// {name, label, options} form, and a wrong name is still reported with its
// rule and field.
func TestScorersByName(t *testing.T) {
	rule := func(scorers ...any) *Config {
		conf := confmap.NewFromStringMap(map[string]any{"rules": []any{map[string]any{
			"name": "weather", "expect": map[string]any{"calls": []any{map[string]any{"tool": "get_weather"}}},
			"scorers": scorers,
		}}})
		cfg := createDefaultConfig().(*Config)
		require.NoError(t, conf.Unmarshal(cfg))
		return cfg
	}
	cfg := rule("native", map[string]any{"name": "checks", "options": map[string]any{"max_repeats": 2}}, "mongodb")
	require.Equal(t, []string{"native", "checks", "mongodb"}, []string{cfg.Rules[0].Scorers[0].Name, cfg.Rules[0].Scorers[1].Name, cfg.Rules[0].Scorers[2].Name})
	require.Equal(t, map[string]any{"max_repeats": 2}, cfg.Rules[0].Scorers[1].Options)
	require.NoError(t, confmap.Validate(cfg))
	err := confmap.Validate(rule("native", "nativ"))
	require.ErrorContains(t, err, `rules[0]: rule "weather": scorers[1]`)
	require.ErrorContains(t, err, "nativ")
}
