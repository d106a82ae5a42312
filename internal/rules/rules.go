// Package rules holds compiled expectation rules: the OTTL conditions that
// select agent runs, the expectation, and the scorers to run.
package rules // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/rules"

import (
	"context"
	"fmt"
	"slices"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/ottl"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/ottl/contexts/ottlspan"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/ottl/ottlfuncs"
	"go.opentelemetry.io/collector/component"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// Scorer is one scorer of a rule.
type Scorer struct {
	// Label names the scorer's results (the scorer name unless configured).
	Label string
	toolcall.Scorer
	// Deferred marks a slow scorer that runs off the hot path.
	Deferred bool
}

// Rule is a compiled rule. It is immutable and safe for concurrent use.
type Rule struct {
	// Name is the rule's name.
	Name string
	// Expectation is what the run should have done.
	Expectation toolcall.Expectation
	// Scorers run in order; the first is the primary scorer.
	Scorers []Scorer
	// Threshold is the pass threshold.
	Threshold float64
	// Source says which of a run's calls the scorers judge.
	Source CallSource
	// empty decides which "{}" arguments are empty (see Calls).
	empty       toolcall.EmptyArguments
	when        *ottl.ConditionSequence[*ottlspan.TransformContext]
	aligner     *toolcall.TurnAligner
	readsArgs   bool
	nativeOnly  bool
	hasDeferred bool
}

// Spec is what a rule is compiled from.
type Spec struct {
	Name        string
	When        []string
	Expectation toolcall.Expectation
	Scorers     []Scorer
	Threshold   float64
	Source      CallSource
	// Tools are the rule's configured tool definitions.
	Tools []toolcall.ToolDefinition
}

// New compiles a rule: it parses the OTTL conditions with context-prefixed
// paths (span.attributes[...], resource.attributes[...]).
func New(spec Spec, set component.TelemetrySettings) (*Rule, error) {
	r := &Rule{Name: spec.Name, Expectation: spec.Expectation, Scorers: spec.Scorers, Threshold: spec.Threshold, Source: spec.Source}
	aligner, err := toolcall.NewTurnAligner(spec.Expectation)
	if err != nil {
		return nil, err
	}
	r.aligner = aligner
	scorers := make([]toolcall.Scorer, len(spec.Scorers))
	for i := range spec.Scorers {
		scorers[i] = spec.Scorers[i].Scorer
	}
	r.empty = toolcall.NewEmptyArguments(spec.Expectation, spec.Tools, scorers...)
	r.nativeOnly = nativeOnly(r)
	r.readsArgs = readsArguments(r)
	r.hasDeferred = slices.ContainsFunc(r.Scorers, func(s Scorer) bool { return s.Deferred })
	if len(spec.When) == 0 {
		return r, nil
	}
	parser, err := ottlspan.NewParser(ottlfuncs.StandardConverters[*ottlspan.TransformContext](), set, ottlspan.EnablePathContextNames())
	if err != nil {
		return nil, fmt.Errorf("when: %w", err)
	}
	conds := make([]*ottl.Condition[*ottlspan.TransformContext], 0, len(spec.When))
	for i, text := range spec.When {
		c, err := parser.ParseCondition(text)
		if err != nil {
			return nil, fmt.Errorf("when[%d]: %w", i, err)
		}
		conds = append(conds, c)
	}
	seq := ottlspan.NewConditionSequence(conds, set,
		ottlspan.WithConditionSequenceErrorMode(ottl.IgnoreError))
	r.when = &seq
	return r, nil
}

// Applies reports whether the rule selects the run whose agent (or root)
// span tCtx holds. A condition that fails to evaluate counts as false and is
// logged by OTTL at debug level.
func (r *Rule) Applies(ctx context.Context, tCtx *ottlspan.TransformContext) bool {
	if r.when == nil {
		return true
	}
	ok, err := r.when.Eval(ctx, tCtx)
	return err == nil && ok
}

// Unconditional reports whether the rule has no `when` conditions: it
// applies to every run, and Applies needs no transform context for it.
func (r *Rule) Unconditional() bool { return r.when == nil }

// Calls returns the run's calls as the rule's scorers see them: those its
// call source judges; calls recorded with "{}" that cannot be a placeholder
// for this rule (expected with "{}", or defined without required
// parameters by the rule's tools or the run's recorded definitions,
// recorded; nil when none) have empty arguments (see
// [toolcall.EmptyArguments]); and the calls of each model turn follow the
// expectation's order (see [toolcall.AlignTurns]). calls is not modified.
func (r *Rule) Calls(calls []toolcall.Call, recorded *toolcall.ToolDefinitions) []toolcall.Call {
	return r.aligner.Align(r.empty.Resolve(r.Source.filter(calls), recorded))
}

// CallsInto is [Rule.Calls] writing the calls it reorders into *buf's
// memory, kept there for the next run (see [toolcall.TurnAligner.AlignInto]);
// a nil buf gets new memory.
func (r *Rule) CallsInto(buf *[]toolcall.Call, calls []toolcall.Call, recorded *toolcall.ToolDefinitions) []toolcall.Call {
	return r.aligner.AlignInto(buf, r.empty.Resolve(r.Source.filter(calls), recorded))
}

// ReadsArguments reports whether any of the rule's scorers can read call
// arguments. Only the native scorer is known not to when no expected call
// gives arguments or matchers (it then judges names, order and policies);
// every other scorer is assumed to read them.
func (r *Rule) ReadsArguments() bool { return r.readsArgs }

func readsArguments(r *Rule) bool {
	if !r.nativeOnly {
		return true
	}
	for _, c := range r.Expectation.Calls {
		if !c.Args.IsUndefined() || len(c.Matchers) > 0 {
			return true
		}
	}
	return false
}

// NativeOnly reports whether the native scorer is the rule's only scorer.
// It reads arguments in place (toolcall.Call.ArgsDoc); every other scorer
// would decode them into trees again.
func (r *Rule) NativeOnly() bool { return r.nativeOnly }

func nativeOnly(r *Rule) bool {
	for _, s := range r.Scorers {
		if s.Name() != toolcall.NativeName {
			return false
		}
	}
	return true
}

// HasDeferred reports whether any of the rule's scorers is deferred.
func (r *Rule) HasDeferred() bool { return r.hasDeferred }
