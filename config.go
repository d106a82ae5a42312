package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"go.opentelemetry.io/collector/confmap"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgeclient"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgelimits"
)

// Config is the processor's configuration.
type Config struct {
	// Rules say which agent runs to score and what they should have done.
	// Several rules may apply to one run; each gives its own result.
	Rules []RuleConfig `mapstructure:"rules"`
	// Wait holds each agent span this long before scoring it, to collect
	// tool spans that arrive after it (out-of-order delivery). 0 (the
	// default) scores at once and never holds a span.
	Wait time.Duration `mapstructure:"wait"`
	// WaitForMissing holds an agent span while its trace shows spans of its
	// run still on their way, at most this long: nothing below the agent
	// span yet, a last model turn that asked for tools whose answer has not
	// come, a requested call without its tool span, calls or model turns
	// inside the agent's time under a parent not seen. The span is released
	// as soon as they arrive; a run with nothing missing is scored at once.
	// Exporters that send each span on its own, several exporting
	// goroutines and load-balancing tiers deliver a run's spans out of
	// order. Default 5s; 0 scores at once whatever is missing. Ignored when
	// wait is set.
	WaitForMissing time.Duration `mapstructure:"wait_for_missing"`
	// ScoreTimeout bounds asynchronous scorers (LLM judges): the agent span
	// is released with whatever results are in by then. Default 30s.
	ScoreTimeout time.Duration `mapstructure:"score_timeout"`
	// EmptyArguments says what a "{}" arguments value means where it may be
	// a placeholder: "unknown" (the default) or "empty" (the tool was
	// called without arguments; choose it when capture is known to be on).
	// "{}" is always a call without arguments where it cannot be a
	// placeholder: in conventions that never write one for arguments they
	// did not capture (all but Google ADK's), for a tool a rule expects
	// with "{}", and for a tool whose definition (the rule's tools, or the
	// run's recorded definitions) requires no parameter.
	EmptyArguments string `mapstructure:"empty_arguments"`
	// SkipTools lists framework-internal tool names that are not real tool
	// calls; an entry ending in "*" names every tool that starts with what
	// comes before it. Default: ["(merged tools)", "final_result",
	// "final_answer", "handoff to *"].
	SkipTools []string `mapstructure:"skip_tools"`
	// LocalRoots scores a run that has no agent span at its local root: a
	// span (other than a tool or agent span) whose span flags mark its
	// parent remote, such as a service's server span under a calling
	// gateway. Turn it on when the calling process's spans do not reach
	// this collector; leave it off (the default) when they do, so the
	// calls join the caller's run instead of forming one of their own.
	LocalRoots bool `mapstructure:"local_roots"`
	// Conversations assembles runs that span traces by
	// gen_ai.conversation.id (conversations.go).
	Conversations ConversationsConfig `mapstructure:"conversations"`
	// Limits bound the memory of open trajectories.
	Limits LimitsConfig `mapstructure:"limits"`
	// Output says what is written on agent spans.
	Output OutputConfig `mapstructure:"output"`

	_ struct{}
}

// LimitsConfig bounds the state the processor keeps between batches.
type LimitsConfig struct {
	// MaxOpenTrajectories bounds the agent runs holding extracted calls
	// while waiting for their agent span; the oldest is evicted (and
	// counted) when exceeded. Default 10000.
	MaxOpenTrajectories int `mapstructure:"max_open_trajectories"`
	// MaxHeldRuns bounds the runs held by wait_for_missing while their
	// traces show them incomplete. They do not count against
	// max_open_trajectories, so holding never evicts another run's calls;
	// past it the run held longest is released at once, scored on what
	// arrived, its explanation saying so (incomplete_runs{resolution=
	// over_limit}). Default 10000.
	MaxHeldRuns int `mapstructure:"max_held_runs"`
	// MaxCallsPerTrajectory bounds the calls kept per run; more are dropped
	// (and counted) and the run's explanation says it is incomplete.
	// Default 256, at most 1024.
	MaxCallsPerTrajectory int `mapstructure:"max_calls_per_trajectory"`
	// MaxAge is how long a trace's state is kept after its last span; open
	// runs older than this are evicted (and counted). Default 5m.
	MaxAge time.Duration `mapstructure:"max_age"`
	// MaxTrackedTraces bounds the traces whose span links are remembered
	// for nesting and late-span detection. Default 50000.
	MaxTrackedTraces int `mapstructure:"max_tracked_traces"`
	// MaxSpansPerTrace bounds the spans remembered per trace; calls that
	// would need more to reach their run are dropped (and counted).
	// Default 10000.
	MaxSpansPerTrace int `mapstructure:"max_spans_per_trace"`
	// MaxArgumentBytes bounds the argument text of one call that is parsed;
	// longer arguments are unknown (judged by name and order) and the
	// explanation says why. Default 1 MiB.
	MaxArgumentBytes int `mapstructure:"max_argument_bytes"`
	// MaxContextBytes caps the run context (tool definitions, request,
	// response) captured per run for rules whose scorers read it (checks);
	// text over it is not kept, and the run's explanation says so.
	// Default 16 KiB.
	MaxContextBytes int `mapstructure:"max_context_bytes"`
	// MaxPendingRecords bounds the log records (in a logs pipeline naming
	// the processor) held waiting for the span they witness; past it the
	// oldest are dropped (and counted). 0 keeps none waiting. Default
	// 10000.
	MaxPendingRecords int `mapstructure:"max_pending_records"`

	_ struct{}
}

// OutputConfig controls what is written on agent spans.
type OutputConfig struct {
	// Attributes writes the tool_call_accuracy.* span attributes. Default true.
	Attributes bool `mapstructure:"attributes"`
	// Events writes one gen_ai.evaluation.result span event per rule and
	// scorer. Default true.
	Events bool `mapstructure:"events"`
	// MaxExplanationLength truncates explanations (in bytes). Default 512.
	MaxExplanationLength int `mapstructure:"max_explanation_length"`
	// ToolCalls says when the run's tool names are listed in the
	// tool_call_accuracy.tool_calls attribute: "on_failure" (the default:
	// when tool_call_accuracy.passed is false, beside the missing and
	// unexpected tools), "always", or "never". The calls of a passing run
	// are its tool spans, already in the trace.
	ToolCalls string `mapstructure:"tool_calls"`
	// RuleAttributes says which rules get their tool_call_accuracy.<rule>.*
	// attributes: "always" (the default: every rule that scored the run),
	// or "on_failure" (only the rules that failed or errored, those listed in
	// tool_call_accuracy.failed_rules; every rule's result is still in its
	// gen_ai.evaluation.result event, so it needs Events). A passing run then
	// carries its summary alone.
	RuleAttributes string `mapstructure:"rule_attributes"`

	_ struct{}
}

// Values of OutputConfig.RuleAttributes.
const (
	RuleAttributesAlways    = "always"
	RuleAttributesOnFailure = "on_failure"
)

// Values of OutputConfig.ToolCalls.
const (
	ToolCallsOnFailure = "on_failure"
	ToolCallsAlways    = "always"
	ToolCallsNever     = "never"
)

// RuleConfig is one expectation rule.
type RuleConfig struct {
	// Name identifies the rule in attributes, events and metrics. Required,
	// unique, lower_snake_case.
	Name string `mapstructure:"name"`
	// When holds OTTL conditions on the agent span, with context-prefixed
	// paths as in the filter processor:
	//   span.attributes["gen_ai.agent.name"] == "weather-agent"
	//   resource.attributes["service.name"] == "travel"
	// The rule applies when any condition is true; no conditions means every
	// agent run.
	When []string `mapstructure:"when"`
	// Expect is what the run should have done.
	Expect ExpectConfig `mapstructure:"expect"`
	// Scorers lists the scorers to run; the first is the rule's primary
	// scorer, whose result the flat span attributes report. Default:
	// [{name: native}].
	Scorers []ScorerConfig `mapstructure:"scorers"`
	// Threshold is the pass threshold in [0, 1]. Unset, a scorer whose
	// peer has a pass rule of its own follows it (deepeval and
	// deepeval_llm: their threshold option, default 0.5, 1 with
	// strict_mode; adk: its threshold option, default 1) and every other
	// scorer passes at 1 (everything expected happened). Set, it decides
	// their pass or fail too. The Azure and Microsoft.Extensions.AI judges
	// always decide as their peers do.
	Threshold *float64 `mapstructure:"threshold"`
	// Calls says which of a run's calls the rule's scorers judge, by their
	// witnesses: "executed" (calls a tool span recorded), "requested"
	// (calls the model asked for, executed or not), "all" (both, a
	// requested call no tool span executed included), or
	// "executed_else_requested" (executed calls, or a run's requested calls
	// when it has no tool spans: apps instrumented only at the model
	// client). Default: "all" for a rule whose first scorer is checks (a
	// call the model asked for and the app refused is a call to judge),
	// "executed_else_requested" for the others.
	Calls string `mapstructure:"calls"`
	// Tools define the tools the agent is offered, for apps that record no
	// tool definitions on their spans; the checks scorer validates calls
	// against them (a configured definition wins over a recorded one).
	Tools []ToolConfig `mapstructure:"tools"`
	// Judge configures the LLM judge of the rule's judge scorers
	// (meai_tool_call_accuracy, azure_tool_call_accuracy, ...): the
	// endpoint, and what the rule may spend. Run content leaves the
	// collector only for rules with a judge.
	Judge *JudgeConfig `mapstructure:"judge"`

	_ struct{}
}

// JudgeConfig is a rule's LLM judge: an OpenAI-compatible chat-completions
// endpoint and the limits on what the rule's judges may spend.
type JudgeConfig struct {
	// client is the chat-completions client: endpoint, model, api_key,
	// api_version, headers, tls, auth, timeouts, retries, redact. Its keys
	// sit beside the others in the judge section. It is unexported so that
	// confmap.Validate, which walks exported fields, does not check it a
	// second time under a path of its own: validate checks it.
	client judgeclient.Config
	// SampleRatio is the share of runs judged, decided by a hash of the
	// trace id so that every collector picks the same runs. Default 1.
	SampleRatio *float64 `mapstructure:"sample_ratio"`
	// MaxConcurrent bounds the requests in flight. Default 4.
	MaxConcurrent int `mapstructure:"max_concurrent"`
	// QueueSize bounds the requests waiting for a slot; past it a run is
	// not judged (not_evaluated, budget). Default 100.
	QueueSize int `mapstructure:"queue_size"`
	// RequestsPerMinute bounds the requests sent (0: no bound); a run over
	// it is not judged.
	RequestsPerMinute int `mapstructure:"requests_per_minute"`
	// TokensPerMinute bounds the tokens requests may use, estimated before
	// sending (0: no bound).
	TokensPerMinute int `mapstructure:"tokens_per_minute"`
	// CacheSize bounds the answers kept by request content, so the same
	// run judged again sends no request. Default 1000.
	CacheSize int `mapstructure:"cache_size"`

	_ struct{}
}

// judgeOwnKeys are the judge section's keys that are not the client's.
var judgeOwnKeys = map[string]bool{"sample_ratio": true, "max_concurrent": true, "queue_size": true, "requests_per_minute": true, "tokens_per_minute": true, "cache_size": true}

// Unmarshal splits the judge section: the limits are decoded here, every
// other key by the client's configuration (from its defaults), which
// rejects keys it does not know.
func (j *JudgeConfig) Unmarshal(conf *confmap.Conf) error {
	own, client := map[string]any{}, map[string]any{}
	for k, v := range conf.ToStringMap() {
		if judgeOwnKeys[strings.ToLower(k)] {
			own[k] = v
		} else {
			client[k] = v
		}
	}
	type ownFields JudgeConfig // without this method
	if err := confmap.NewFromStringMap(own).Unmarshal((*ownFields)(j)); err != nil {
		return err
	}
	j.client = judgeclient.NewDefaultConfig()
	cc := confmap.NewFromStringMap(client)
	if u, ok := any(&j.client).(confmap.Unmarshaler); ok {
		return u.Unmarshal(cc) // it checks its keys
	}
	return cc.Unmarshal(&j.client)
}

// SetEndpoint points the judge's client at endpoint (toolscore's
// -judge-endpoint).
func (j *JudgeConfig) SetEndpoint(endpoint string) {
	j.client.ClientConfig.Endpoint = endpoint
}

func (j *JudgeConfig) sampleRatio() float64 {
	if j.SampleRatio == nil {
		return 1
	}
	return *j.SampleRatio
}

// limits returns the judge limits with defaults applied.
func (j *JudgeConfig) limits() judgelimits.Limits {
	l := judgelimits.Limits{MaxConcurrent: j.MaxConcurrent, QueueSize: j.QueueSize, RequestsPerMinute: j.RequestsPerMinute, TokensPerMinute: j.TokensPerMinute, CacheSize: j.CacheSize}
	if l.MaxConcurrent == 0 {
		l.MaxConcurrent = 4
	}
	if l.QueueSize == 0 {
		l.QueueSize = 100
	}
	if l.CacheSize == 0 {
		l.CacheSize = 1000
	}
	return l
}

// validate checks the judge section; errors name the field under judge.
func (j *JudgeConfig) validate() error {
	var errs []error
	if err := j.client.Validate(); err != nil {
		errs = append(errs, prefixEach("judge.", err))
	}
	// The HTTP client block's own checks (compression, TLS).
	if err := confmap.Validate(&j.client.ClientConfig); err != nil {
		errs = append(errs, prefixEach("judge: ", err))
	}
	if r := j.sampleRatio(); r < 0 || r > 1 || math.IsNaN(r) {
		errs = append(errs, fmt.Errorf("judge.sample_ratio: %v is outside [0, 1]", r))
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"max_concurrent", j.MaxConcurrent}, {"queue_size", j.QueueSize}, {"requests_per_minute", j.RequestsPerMinute}, {"tokens_per_minute", j.TokensPerMinute}, {"cache_size", j.CacheSize}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("judge.%s: %d must not be negative", f.name, f.v))
		}
	}
	return errors.Join(errs...)
}

// ToolConfig defines one tool the agent is offered.
type ToolConfig struct {
	// Name is the tool name as the model sees it. Required, unique.
	Name string `mapstructure:"name"`
	// Description is the tool's description (shown to LLM judges). Unset
	// and empty differ where a peer tells them apart: Mastra's judge
	// prompt writes an unset description "undefined".
	Description *string `mapstructure:"description"`
	// Parameters is the JSON Schema of the tool's arguments.
	Parameters map[string]any `mapstructure:"parameters"`

	_ struct{}
}

// ExpectConfig is the expectation of a rule.
type ExpectConfig struct {
	// Calls are the expected calls, in expected order.
	Calls []ExpectedCallConfig `mapstructure:"calls"`
	// Order is "any" (default), "in_order" (a subsequence; other calls may
	// come between) or "exact".
	Order string `mapstructure:"order"`
	// ExtraCalls is "allow" (default; "fail" under order exact), "penalize"
	// (score capped at extra_call_cap) or "fail".
	ExtraCalls string `mapstructure:"extra_calls"`
	// ExtraCallCap is the cap under extra_calls: penalize. Default 0.75.
	ExtraCallCap float64 `mapstructure:"extra_call_cap"`
	// ExtraArgs is "allow" (default), "penalize" (each extra argument counts
	// as a failed check) or "fail" (the call scores 0).
	ExtraArgs string `mapstructure:"extra_args"`
	// ArgumentCredit is "partial" (default: the share of argument checks
	// that pass) or "all_or_nothing".
	ArgumentCredit string `mapstructure:"argument_credit"`
	// CoerceStrings compares numeric strings with numbers by value.
	CoerceStrings bool `mapstructure:"coerce_strings"`
	// ForbiddenTools must never be called; a call scores the run 0.
	ForbiddenTools []string `mapstructure:"forbidden_tools"`
	// ForbiddenSequences must never appear as consecutive calls.
	ForbiddenSequences [][]string `mapstructure:"forbidden_sequences"`
	// AvailableTools, when set, lists every real tool; calls to others are
	// hallucinated and score the run 0.
	AvailableTools []string `mapstructure:"available_tools"`

	_ struct{}
}

// ExpectedCallConfig is one expected call.
type ExpectedCallConfig struct {
	// Tool is the tool name. Required.
	Tool string `mapstructure:"tool"`
	// Args are the literal expected arguments, compared by typed deep
	// equality (1 equals 1.0, key order ignored). Keys starting with "$" are
	// plain keys. Omit to leave arguments unchecked.
	Args any `mapstructure:"args"`
	// ArgsJSON gives Args as JSON text instead, which keeps the key order
	// as written (a YAML map loses it): the peer profiles whose comparisons
	// or reasons depend on it (Mastra's JSON.stringify, DeepEval's printed
	// ToolCalls) see the arguments as the peer would.
	ArgsJSON string `mapstructure:"args_json"`
	// Match maps argument paths ("city", "filter.age", "items[0]",
	// "items[*].id", "$") to matchers: {regex: "^Par"}, {one_of: [a, b]},
	// {range: {gte: 1}}, present, absent, ... A matcher replaces the literal
	// at its path.
	Match map[string]any `mapstructure:"match"`
	// Optional marks a call that may be made but need not be.
	Optional bool `mapstructure:"optional"`
	// MustSucceed scores the call 0 when it failed.
	MustSucceed bool `mapstructure:"must_succeed"`
	// Type, when set, must equal the call's tool type ("function", "mcp").
	Type string `mapstructure:"type"`
	// Result is the expected tool result, for peer profiles that compare
	// results (DeepEval's OUTPUT, Mastra's toolResult).
	Result any `mapstructure:"result"`
	// ResultJSON gives Result as JSON text, keeping its key order (see
	// ArgsJSON).
	ResultJSON string `mapstructure:"result_json"`

	_ struct{}
}

// ScorerConfig selects a scorer for a rule.
type ScorerConfig struct {
	// Name is "native" or a peer profile: mongodb, mastra_tool_call,
	// mastra_trajectory, mastra_trajectory_full, deepeval, agentevals, adk,
	// ragas.
	Name string `mapstructure:"name"`
	// Label names this scorer's results in attributes and metrics when a
	// rule runs the same profile twice with different options. Default: Name.
	Label string `mapstructure:"label"`
	// Options are the profile's own options, snake_cased
	// (mastra_tool_call: {strict_mode: true}).
	Options map[string]any `mapstructure:"options"`

	_ struct{}
}

// UnmarshalText reads a scorer given by its name alone (scorers: [native,
// checks]), the short form of {name: native}.
func (s *ScorerConfig) UnmarshalText(text []byte) error {
	*s = ScorerConfig{Name: string(text)}
	return nil
}

var _ confmap.Validator = (*Config)(nil)

// ruleNamePattern keeps rule names usable inside attribute keys.
var ruleNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// reservedRuleNames are attribute names under tool_call_accuracy.* that a
// rule's name must not shadow.
var reservedRuleNames = map[string]bool{"score": true, "passed": true, "rules": true, "failed_rules": true, "tool_calls": true, "error": true}

// Validate checks the configuration. Every problem is reported, each naming
// the rule and the field.
func (cfg *Config) Validate() error {
	var errs []error
	seen := map[string]int{}
	for i := range cfg.Rules {
		r := &cfg.Rules[i]
		if err := validateRule(r); err != nil {
			errs = append(errs, prefixEach(fmt.Sprintf("rules[%d]: ", i), err))
		}
		if first, dup := seen[r.Name]; dup && r.Name != "" {
			errs = append(errs, fmt.Errorf("rules[%d]: rule %q: name: duplicate of rules[%d]", i, r.Name, first))
		} else {
			seen[r.Name] = i
		}
	}
	switch cfg.EmptyArguments {
	case "", "unknown", "empty":
	default:
		errs = append(errs, fmt.Errorf("empty_arguments: invalid value %q, expected \"unknown\" or \"empty\"", cfg.EmptyArguments))
	}
	for i, name := range cfg.SkipTools {
		if err := validateSkipTool(name); err != nil {
			errs = append(errs, fmt.Errorf("skip_tools[%d]: %w", i, err))
		}
	}
	if cfg.WaitForMissing < 0 {
		errs = append(errs, fmt.Errorf("wait_for_missing: %v must not be negative", cfg.WaitForMissing))
	}
	if err := cfg.Conversations.validate(); err != nil {
		errs = append(errs, err)
	}
	if cfg.Wait < 0 {
		errs = append(errs, fmt.Errorf("wait: %v must not be negative", cfg.Wait))
	}
	for _, d := range []struct {
		key string
		d   time.Duration
	}{{"wait", cfg.Wait}, {"score_timeout", cfg.ScoreTimeout}, {"limits.max_age", cfg.Limits.MaxAge}} {
		if err := judgeclient.CheckDurationUnit(d.key, d.d); err != nil {
			errs = append(errs, err)
		}
	}
	if cfg.ScoreTimeout <= 0 {
		errs = append(errs, fmt.Errorf("score_timeout: %v must be positive", cfg.ScoreTimeout))
	}
	l := cfg.Limits
	if l.MaxOpenTrajectories <= 0 {
		errs = append(errs, fmt.Errorf("limits.max_open_trajectories: %d must be positive", l.MaxOpenTrajectories))
	}
	if l.MaxHeldRuns <= 0 {
		errs = append(errs, fmt.Errorf("limits.max_held_runs: %d must be positive", l.MaxHeldRuns))
	}
	if l.MaxCallsPerTrajectory <= 0 || l.MaxCallsPerTrajectory > maxCallsLimit {
		errs = append(errs, fmt.Errorf("limits.max_calls_per_trajectory: %d must be in [1, %d]", l.MaxCallsPerTrajectory, maxCallsLimit))
	}
	if l.MaxAge <= 0 {
		errs = append(errs, fmt.Errorf("limits.max_age: %v must be positive", l.MaxAge))
	}
	if l.MaxTrackedTraces <= 0 {
		errs = append(errs, fmt.Errorf("limits.max_tracked_traces: %d must be positive", l.MaxTrackedTraces))
	}
	if l.MaxPendingRecords < 0 {
		errs = append(errs, fmt.Errorf("limits.max_pending_records: %d must not be negative", l.MaxPendingRecords))
	}
	if l.MaxContextBytes <= 0 {
		errs = append(errs, fmt.Errorf("limits.max_context_bytes: %d must be positive", l.MaxContextBytes))
	}
	if l.MaxArgumentBytes <= 0 {
		errs = append(errs, fmt.Errorf("limits.max_argument_bytes: %d must be positive", l.MaxArgumentBytes))
	}
	if l.MaxSpansPerTrace <= 0 {
		errs = append(errs, fmt.Errorf("limits.max_spans_per_trace: %d must be positive", l.MaxSpansPerTrace))
	}
	if cfg.Output.MaxExplanationLength <= 0 {
		errs = append(errs, fmt.Errorf("output.max_explanation_length: %d must be positive", cfg.Output.MaxExplanationLength))
	}
	switch cfg.Output.ToolCalls {
	case ToolCallsOnFailure, ToolCallsAlways, ToolCallsNever:
	default:
		errs = append(errs, fmt.Errorf("output.tool_calls: %q must be one of %s, %s, %s", cfg.Output.ToolCalls, ToolCallsOnFailure, ToolCallsAlways, ToolCallsNever))
	}
	switch cfg.Output.RuleAttributes {
	case RuleAttributesAlways:
	case RuleAttributesOnFailure:
		if cfg.Output.Attributes && !cfg.Output.Events {
			errs = append(errs, errors.New("output.rule_attributes: on_failure needs output.events: true, or the results of the rules that passed are written nowhere"))
		}
	default:
		errs = append(errs, fmt.Errorf("output.rule_attributes: %q must be one of %s, %s", cfg.Output.RuleAttributes, RuleAttributesAlways, RuleAttributesOnFailure))
	}
	return errors.Join(errs...)
}

// validateRule checks one rule by compiling it, so that validation and
// processor creation cannot disagree.
func validateRule(r *RuleConfig) error {
	if r.Name == "" {
		return errors.New("name: must not be empty")
	}
	if !ruleNamePattern.MatchString(r.Name) {
		return fmt.Errorf("rule %q: name: must be lower_snake_case (letters, digits, _; starting with a letter)", r.Name)
	}
	if reservedRuleNames[r.Name] {
		return fmt.Errorf("rule %q: name: %q is reserved for a summary attribute", r.Name, r.Name)
	}
	if _, err := compileRule(r, nopTelemetry(), nil); err != nil {
		return prefixEach(fmt.Sprintf("rule %q: ", r.Name), err)
	}
	return nil
}

// prefixEach prefixes every error joined in err, so that each line of a
// multi-error names the rule.
func prefixEach(prefix string, err error) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs := joined.Unwrap()
		out := make([]error, len(errs))
		for i, e := range errs {
			out[i] = prefixEach(prefix, e)
		}
		return errors.Join(out...)
	}
	return fmt.Errorf("%s%w", prefix, err)
}

// validateSkipTool checks a skip_tools entry: a name, or a prefix and a
// final "*"; a "*" alone would skip every tool span.
func validateSkipTool(name string) error {
	prefix, _ := strings.CutSuffix(name, "*")
	switch {
	case name == "*":
		return errors.New(`"*" would skip every tool`)
	case strings.Contains(prefix, "*"):
		return fmt.Errorf("%q: \"*\" may only end an entry", name)
	}
	return nil
}
