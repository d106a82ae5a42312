package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.uber.org/zap"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	// The peer profiles and judges register their scorers with toolcall
	// (judges imports peers): rules name them.
	_ "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judges"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/rules"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// nopTelemetry is used to compile rules during validation, before the
// collector provides telemetry.
func nopTelemetry() component.TelemetrySettings {
	set := componenttest.NewNopTelemetrySettings()
	set.Logger = zap.NewNop()
	return set
}

// compileRule turns a rule's configuration into a compiled rule. Errors name
// the field with its YAML path inside the rule.
//
// judgeFor gives each judge scorer (by scorer index) the Completer it sends
// requests with; nil (validation) gives one that sends nothing.
func compileRule(r *RuleConfig, set component.TelemetrySettings, judgeFor func(scorer int) toolcall.Completer) (*rules.Rule, error) {
	// The problems of the expectation, threshold, tools and judge section
	// are reported together; the scorers and the conditions, built from a
	// valid expectation and threshold, are checked after them.
	var errs []error
	exp, err := buildExpectation(&r.Expect)
	if err == nil {
		if err = exp.Validate(); err != nil {
			err = prefixEach("expect.", err)
		}
	}
	errs = append(errs, err)
	threshold := 1.0
	if r.Threshold != nil {
		threshold = *r.Threshold
		if !(threshold >= 0 && threshold <= 1) { // NaN too
			errs = append(errs, fmt.Errorf("threshold: %v is outside [0, 1]", threshold))
		}
	}
	tools, err := buildTools(r.Tools)
	errs = append(errs, err)
	if r.Judge != nil {
		errs = append(errs, r.Judge.validate())
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	errs = nil
	scorerCfgs := r.Scorers
	if len(scorerCfgs) == 0 {
		scorerCfgs = []ScorerConfig{{Name: toolcall.NativeName}}
	}
	if exp.ChecksNothing() && slices.ContainsFunc(scorerCfgs, func(sc ScorerConfig) bool { return sc.Name == toolcall.NativeName }) {
		errs = append(errs, errNothingToCheck)
	}
	scorers := make([]rules.Scorer, 0, len(scorerCfgs))
	labels := map[string]int{}
	for i, sc := range scorerCfgs {
		label := sc.Label
		if label == "" {
			label = sc.Name
		}
		// A label defaults to the name: a misspelt name is reported as an
		// unknown scorer (below), not as a label nobody wrote.
		if sc.Label != "" && !ruleNamePattern.MatchString(label) {
			errs = append(errs, fmt.Errorf("scorers[%d].label: %q must be lower_snake_case", i, label))
			continue
		}
		if first, dup := labels[label]; dup {
			errs = append(errs, fmt.Errorf("scorers[%d]: %q is already used by scorers[%d]; give one a label", i, label, first))
			continue
		}
		labels[label] = i
		var judge toolcall.Completer
		if r.Judge != nil {
			judge = unsentJudge{}
			if judgeFor != nil {
				judge = judgeFor(i)
			}
		}
		// The processor writes scores, outcomes, breakdowns and
		// explanations, never the peers' native result fields: the peer
		// profiles need not build them.
		// A rule without a threshold leaves pass or fail to the peers
		// that have a rule of their own (DeepEval's 0.5, ...).
		s, err := toolcall.New(sc.Name, toolcall.Settings{Expectation: exp, Threshold: threshold, ThresholdSet: r.Threshold != nil, Options: sc.Options, Tools: tools, Judge: judge, OmitDetails: true})
		if err != nil {
			errs = append(errs, prefixEach(fmt.Sprintf("scorers[%d] (%s): ", i, sc.Name), err))
			continue
		}
		_, deferred := s.(toolcall.Deferred)
		scorers = append(scorers, rules.Scorer{Label: label, Scorer: s, Deferred: deferred})
	}
	if len(errs) == 0 && r.Judge != nil && !slices.ContainsFunc(scorers, func(s rules.Scorer) bool { return s.Deferred }) {
		errs = append(errs, errUnusedJudge)
	}
	source, err := callSource(r, scorerCfgs[0].Name)
	if err != nil {
		errs = append(errs, err)
	}
	rule, err := rules.New(rules.Spec{Name: r.Name, When: r.When, Expectation: exp, Scorers: scorers, Threshold: threshold, Tools: tools, Source: source}, set)
	if err := errors.Join(append(errs, err)...); err != nil {
		return nil, err
	}
	if r.Threshold != nil && *r.Threshold == 0 && set.Logger != nil {
		// Accepted as a rule that records scores without failing: said
		// at startup, as toolscore's table and summary say it.
		set.Logger.Warn("rule has threshold 0: every score is at least 0, so it passes every run (monitoring only; the Azure and MEAI judges keep their own threshold)",
			zap.String("rule", r.Name))
	}
	return rule, nil
}

var (
	// errNothingToCheck: a native scorer with nothing to check passes every
	// run at 1 (a rule written with only a name).
	errNothingToCheck = errors.New("expect: gives the native scorer nothing to check, so every run would pass at 1: " +
		"give expect.calls, forbidden_tools, forbidden_sequences or available_tools, set expect.extra_calls: fail to expect no calls, " +
		"or use another scorer (checks, an LLM judge)")
	// errUnusedJudge: a judge section no scorer of the rule would use.
	errUnusedJudge = errors.New("judge: none of the rule's scorers is an LLM judge, so this section would never be used: " +
		"add a judge scorer (meai_tool_call_accuracy, azure_tool_call_accuracy, mastra_tool_call_llm, mastra_trajectory_llm, deepeval_llm) or remove the section")
)

// unsentJudge stands in for a rule's judge while the configuration is only
// validated: nothing is sent.
type unsentJudge struct{}

func (unsentJudge) Complete(context.Context, toolcall.ChatRequest) (toolcall.ChatResponse, error) {
	return toolcall.ChatResponse{}, errJudgeNotStarted
}

// buildTools converts a rule's tool definitions, compiling each schema so
// that a bad one fails at startup naming the tool.
func buildTools(cfgs []ToolConfig) ([]toolcall.ToolDefinition, error) {
	var errs []error
	seen := map[string]int{}
	defs := make([]toolcall.ToolDefinition, 0, len(cfgs))
	for i, tc := range cfgs {
		field := fmt.Sprintf("tools[%d]", i)
		if tc.Name == "" {
			errs = append(errs, fmt.Errorf("%s.name: must not be empty", field))
			continue
		}
		if first, dup := seen[tc.Name]; dup {
			errs = append(errs, fmt.Errorf("%s.name: %q is already defined by tools[%d]", field, tc.Name, first))
			continue
		}
		seen[tc.Name] = i
		d := toolcall.ToolDefinition{Name: tc.Name}
		if tc.Description != nil {
			d.Description, d.EmptyDescription = *tc.Description, *tc.Description == ""
		}
		if tc.Parameters != nil {
			v, err := jsonv.ValueOf(tc.Parameters)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s.parameters: %w", field, err))
				continue
			}
			if _, err := toolcall.CompileArgumentSchema(v); err != nil {
				errs = append(errs, fmt.Errorf("%s.parameters: %w", field, err))
				continue
			}
			d.Parameters = v
		}
		defs = append(defs, d)
	}
	return defs, errors.Join(errs...)
}

// literal reads an expected value given as configuration data (x) or as
// JSON text (text, from the "_json" key, which keeps its key order);
// undefined when neither is given.
func literal(x any, text, call, key string) (jsonv.Value, error) {
	switch {
	case text != "" && x != nil:
		return jsonv.Value{}, fmt.Errorf("%s: give %s or %s_json, not both", call, key, key)
	case text != "":
		v, err := jsonv.Parse(text)
		if err != nil {
			return jsonv.Value{}, fmt.Errorf("%s.%s_json: %w", call, key, err)
		}
		return v, nil
	case x != nil:
		v, err := jsonv.ValueOf(x)
		if err != nil {
			return jsonv.Value{}, fmt.Errorf("%s.%s: %w", call, key, err)
		}
		return v, nil
	}
	return jsonv.Value{}, nil
}

// buildExpectation converts the expect section into a scoring expectation.
func buildExpectation(c *ExpectConfig) (toolcall.Expectation, error) {
	exp := toolcall.Expectation{
		Order:              toolcall.OrderMode(c.Order),
		ExtraCalls:         toolcall.ExtraPolicy(c.ExtraCalls),
		ExtraCallCap:       c.ExtraCallCap,
		ExtraArgs:          toolcall.ExtraPolicy(c.ExtraArgs),
		Credit:             toolcall.CreditMode(c.ArgumentCredit),
		CoerceStrings:      c.CoerceStrings,
		ForbiddenTools:     c.ForbiddenTools,
		ForbiddenSequences: c.ForbiddenSequences,
		AvailableTools:     c.AvailableTools,
	}
	opts := toolcall.MatcherOptions{CoerceStrings: c.CoerceStrings}
	var errs []error
	for i, cc := range c.Calls {
		field := fmt.Sprintf("expect.calls[%d]", i)
		call := toolcall.ExpectedCall{Name: cc.Tool, Optional: cc.Optional, MustSucceed: cc.MustSucceed, Type: cc.Type}
		var err error
		if call.Args, err = literal(cc.Args, cc.ArgsJSON, field, "args"); err != nil {
			errs = append(errs, err)
		}
		if call.Result, err = literal(cc.Result, cc.ResultJSON, field, "result"); err != nil {
			errs = append(errs, err)
		}
		paths := make([]string, 0, len(cc.Match))
		for p := range cc.Match {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			if _, err := jsonv.ParsePath(p); err != nil {
				errs = append(errs, fmt.Errorf("%s.match: %w", field, err))
				continue
			}
			m, err := toolcall.ParseMatcher(cc.Match[p], opts)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s.match[%q]: %w", field, p, err))
				continue
			}
			call.Matchers = append(call.Matchers, toolcall.PathMatcher{Path: p, Matcher: m})
		}
		exp.Calls = append(exp.Calls, call)
	}
	return exp, errors.Join(errs...)
}

// callSource is the rule's call source: as configured, else "all" for a
// rule whose primary scorer is checks and "executed_else_requested" for the
// others.
func callSource(r *RuleConfig, primary string) (rules.CallSource, error) {
	if r.Calls == "" {
		if primary == toolcall.ChecksName {
			return rules.SourceAll, nil
		}
		return rules.SourceExecutedElseRequested, nil
	}
	s, err := rules.ParseCallSource(r.Calls)
	if err != nil {
		return 0, fmt.Errorf("calls: %w", err)
	}
	return s, nil
}
