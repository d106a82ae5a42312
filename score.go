package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"context"
	"errors"
	"slices"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/ottl/contexts/ottlspan"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/calltap"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/rules"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// runScratch is memory reused from run to run: the calls of the run being
// scored, its evaluations and its context.
type runScratch struct {
	calls   trajectory.Scratch
	evals   []evaluation
	context toolcall.RunContext
	// opts and run are the run's scoring options and the run handed to
	// finish, kept here rather than in score's frame (see scoreSelected).
	opts trajectory.ScoringOptions
	run  scoredRun
	// annotations are the packed annotations of the batch's runs that
	// keepAnnotations asked for, back to back (see closedRun.annotations).
	annotations []byte
}

// keepAnnotations has the next run finished with s pack its annotations
// into s.annotations as they are written; it returns where they start.
func (s *runScratch) keepAnnotations() int {
	s.run.keep = &s.annotations
	return len(s.annotations)
}

// clear drops the references the scratch holds (span strings in the calls,
// results in the evaluations) when its batch is done.
func (s *runScratch) clear() {
	s.calls.Clear()
	clear(s.evals[:cap(s.evals)])
	s.evals = s.evals[:0]
	s.context = toolcall.RunContext{}
	s.opts = trajectory.ScoringOptions{}
	s.run = scoredRun{}
	s.annotations = s.annotations[:0]
	if cap(s.annotations) > maxKeptScratch {
		s.annotations = nil // a huge batch's, not kept in the pool
	}
}

// maxKeptScratch bounds the packed annotations a pooled scratch keeps room
// for between batches (about a hundred runs').
const maxKeptScratch = 64 << 10

// evaluation is one scorer's result for one rule on one run, with the calls
// it was scored on (the rule's view: see rules.Rule.Calls), which the
// result's breakdown indexes.
type evaluation struct {
	rule, scorer int
	result       toolcall.Result
	calls        []toolcall.Call
	// text is the explanation as written on the span, once explained.
	text      string
	explained bool
}

// scoredRun is a run being scored: its calls and the evaluations so far.
type scoredRun struct {
	calls []toolcall.Call
	gaps  runGaps
	// context is the run context for scorers that read it (nil if none).
	context *toolcall.RunContext
	evals   []evaluation
	// pending lists the deferred scorers still to run, as (rule, scorer).
	pending [][2]int
	// traj, agent and opts make calls again for a run whose calls were
	// dropped while it waited for deferred scorers.
	traj  *trajectory.Trajectory
	agent pcommon.SpanID
	opts  trajectory.ScoringOptions
	// keep, when set, is where annotate appends the run's packed
	// annotations.
	keep *[]byte
}

// restoreCalls decodes a waiting run's calls again and gives its
// evaluations their rule's view of them.
func (p *tcaProcessor) restoreCalls(run *scoredRun) {
	if run.calls != nil || run.traj == nil {
		return
	}
	run.calls = trajectory.ScoringCalls(run.traj, run.agent, &run.opts)
	for i := range run.evals {
		run.evals[i].calls = p.rules[run.evals[i].rule].Calls(run.calls, recordedTools(run.context))
	}
	run.traj = nil
}

// needsResults reports whether any scorer compares tool results or step
// durations, so held calls keep their result text and calls get durations;
// otherwise the text is dropped to save memory. With judges false, judge
// scorers (which read results) are left out.
func needsResults(rs []*rules.Rule, judges bool) bool {
	for _, r := range rs {
		for _, c := range r.Expectation.Calls {
			if !c.Result.IsUndefined() {
				return true
			}
		}
		for _, s := range r.Scorers {
			if rr, ok := s.Scorer.(toolcall.ResultReader); ok && rr.ReadsResults() {
				return true
			}
			if s.Deferred && judges { // judges read results
				return true
			}
		}
	}
	return false
}

// score scores one closed run on its span. Synchronous scorers run at once
// and the span is annotated; when a selected rule has deferred scorers the
// run is returned unannotated, to be finished off the hot path. scratch, if
// not nil, is memory for the run's calls and evaluations, used when the run
// is finished here.
func (p *tcaProcessor) score(ctx context.Context, rs ptrace.ResourceSpans, ss ptrace.ScopeSpans, span ptrace.Span, agent pcommon.SpanID, traj *trajectory.Trajectory, counts *batchCounts, scratch *runScratch) *scoredRun {
	if traj == nil {
		traj = &trajectory.Trajectory{}
	}
	if traj.IsWrapper() {
		return nil
	}
	var selectedBuf [8]int
	selected := p.selectRules(ctx, rs, ss, span, selectedBuf[:0])
	if p.judges != nil {
		selected = p.dropUnjudged(selected, span.TraceID())
	}
	if len(selected) == 0 {
		if len(traj.Calls) > 0 {
			counts.noRule++
			p.logNoRule(span, len(traj.Calls))
			if p.tap != nil {
				p.tapUnselected(span.TraceID(), agent, traj)
			}
		}
		return nil
	}
	if scratch == nil {
		scratch = new(runScratch)
	}
	return p.scoreSelected(ctx, span, agent, traj, selected, counts, scratch)
}

// logNoRule explains at debug level why a run with calls was not scored.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (p *tcaProcessor) logNoRule(span ptrace.Span, calls int) {
	if ce := p.logger.Check(zap.DebugLevel, "agent run not scored: no rule selects it"); ce != nil {
		ce.Write(zap.Stringer("trace_id", span.TraceID()), zap.Stringer("span_id", span.SpanID()), zap.String("span_name", span.Name()), zap.Int("tool_calls", calls))
	}
}

// tapUnselected shows the tap (toolscore -calls) a run no rule selected,
// with its calls as every witness recorded them.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (p *tcaProcessor) tapUnselected(trace pcommon.TraceID, agent pcommon.SpanID, traj *trajectory.Trajectory) {
	calls := trajectory.ScoringCalls(traj, agent, &trajectory.ScoringOptions{Decode: p.decodeOpts})
	p.tap(calltap.Run{Trace: trace, Agent: agent, Recorded: traj.Calls, Scored: calls, Unselected: true})
}

// scoreSelected is score for a run the selected rules apply to.
func (p *tcaProcessor) scoreSelected(ctx context.Context, span ptrace.Span, agent pcommon.SpanID, traj *trajectory.Trajectory, selected []int, counts *batchCounts, scratch *runScratch) *scoredRun {
	// The options and evaluations live in the scratch, not in this frame:
	// the OTLP receiver calls each batch on a new goroutine, whose stack
	// grows by copying whenever a frame on the way down to the scorers is
	// large.
	opts := &scratch.opts
	opts.Decode, opts.Durations, opts.SkipArguments, opts.Documents, opts.Scratch = p.decodeOpts, p.keepsResults(span.TraceID()), true, true, &scratch.calls
	for _, ri := range selected {
		r := p.rules[ri]
		opts.SkipArguments = opts.SkipArguments && !r.ReadsArguments()
		opts.Documents = opts.Documents && r.NativeOnly()
		if r.HasDeferred() {
			// The run outlives this call: its calls get their own memory.
			opts.Scratch = nil
		}
	}
	var rc *toolcall.RunContext
	if p.captureContext && p.wantsContext(span.TraceID()) || p.placeholderDefinitions && traj.Context != nil {
		var into *toolcall.RunContext
		if opts.Scratch != nil { // the run is finished here
			into = &scratch.context
		}
		rc = p.runContext(span, traj.Context, counts, into)
	}
	trace := span.TraceID()
	calls, pending := p.evaluate(ctx, trace, traj, agent, opts, selected, scratch, rc)
	if opts.Documents && invalidDocument(scratch.evals) {
		// An argument text read as a document is not JSON: score the run
		// again from decoded arguments, as if documents were off.
		opts.Documents = false
		calls, pending = p.evaluate(ctx, trace, traj, agent, opts, selected, scratch, rc)
	}
	if len(pending) > 0 {
		return p.waitForDeferred(traj, agent, opts, rc, scratch.evals, pending)
	}
	run := &scratch.run // run.keep as keepAnnotations left it
	run.calls, run.gaps, run.context, run.evals = calls, gapsOf(traj), rc, scratch.evals
	p.finish(span, run, counts)
	*run = scoredRun{}
	return nil
}

// waitForDeferred is the run that waits for its judges. It keeps its raw
// calls, not the decoded ones (several times larger): the worker decodes
// them again, which gives the same calls.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (p *tcaProcessor) waitForDeferred(traj *trajectory.Trajectory, agent pcommon.SpanID, opts *trajectory.ScoringOptions, rc *toolcall.RunContext, evals []evaluation, pending [][2]int) *scoredRun {
	kept := slices.Clone(evals) // the scratch is reused
	for i := range kept {
		kept[i].calls = nil
	}
	return &scoredRun{traj: traj, agent: agent, opts: *opts, gaps: gapsOf(traj), context: rc, evals: kept, pending: pending}
}

// evaluate decodes a run's calls and runs the selected rules' scorers,
// writing their results to scratch.evals; the deferred scorers are listed
// in pending instead. Decoding and scoring are functions of their own, so
// that neither's frame is on the stack below the other (see scoreClosed).
func (p *tcaProcessor) evaluate(ctx context.Context, trace pcommon.TraceID, traj *trajectory.Trajectory, agent pcommon.SpanID, opts *trajectory.ScoringOptions,
	selected []int, scratch *runScratch, rc *toolcall.RunContext,
) (calls []toolcall.Call, pending [][2]int) {
	calls = trajectory.ScoringCalls(traj, agent, opts)
	if p.tap != nil {
		p.tap(calltap.Run{Trace: trace, Agent: agent, Recorded: traj.Calls, Scored: calls})
	}
	return calls, p.runScorers(ctx, trace, calls, opts, selected, scratch, rc)
}

// runScorers runs the selected rules' scorers on calls (see evaluate).
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (p *tcaProcessor) runScorers(ctx context.Context, trace pcommon.TraceID, calls []toolcall.Call, opts *trajectory.ScoringOptions,
	selected []int, scratch *runScratch, rc *toolcall.RunContext,
) (pending [][2]int) {
	evals := scratch.evals[:0]
	for _, ri := range selected {
		ruleCalls := p.rules[ri].CallsInto(opts.Scratch.Aligned(ri), calls, recordedTools(rc))
		for si, s := range p.rules[ri].Scorers {
			if s.Deferred {
				if p.judged(ri, trace) {
					pending = append(pending, [2]int{ri, si})
				}
				continue
			}
			evals = growEvals(evals)
			ev := &evals[len(evals)-1]
			ev.rule, ev.scorer, ev.calls, ev.text, ev.explained = ri, si, ruleCalls, "", false
			toolcall.ScoreInto(ctx, s.Scorer, ruleCalls, rc, &ev.result) // overwrites all of the result
		}
	}
	scratch.evals = evals
	return pending
}

// recordedTools are the tool definitions a run recorded (nil when its
// context was not captured).
func recordedTools(rc *toolcall.RunContext) *toolcall.ToolDefinitions {
	if rc == nil {
		return nil
	}
	return &rc.Tools
}

// growEvals returns evals one longer. The new evaluation is not cleared:
// it may hold an earlier run's, every field of which runScorers sets
// (toolcall.ScoreInto overwrites all of the result), which spares clearing
// a Result per evaluation.
func growEvals(evals []evaluation) []evaluation {
	evals = slices.Grow(evals, 1)
	return evals[:len(evals)+1]
}

// readsContext reports whether a rule's scorer reads the run context, so
// that it is captured. With judges false, judge scorers (captured only in
// the traces they sample) are left out.
func readsContext(rs []*rules.Rule, judges bool) bool {
	for _, r := range rs {
		for _, s := range r.Scorers {
			if _, ok := s.Scorer.(toolcall.ContextScorer); ok && (judges || !s.Deferred) {
				return true
			}
		}
	}
	return false
}

// invalidDocument reports an evaluation that found a deferred argument
// document was not JSON (jsonv.ErrInvalidDocument).
func invalidDocument(evals []evaluation) bool {
	for i := range evals {
		if errors.Is(evals[i].result.Err, jsonv.ErrInvalidDocument) {
			return true
		}
	}
	return false
}

// finish annotates the span with a run's evaluations and counts them.
func (p *tcaProcessor) finish(span ptrace.Span, run *scoredRun, counts *batchCounts) {
	for i := range run.evals {
		p.count(span, &run.evals[i], run, counts)
	}
	annotate(span, run, p.rules, p.outputs, &p.cfg.Output)
}

// count adds one evaluation to the batch's metrics and logs what could not
// be scored.
func (p *tcaProcessor) count(span ptrace.Span, ev *evaluation, run *scoredRun, counts *batchCounts) {
	res := &ev.result
	counts.eval[ev.rule][ev.scorer][res.Outcome]++
	switch res.Outcome {
	case toolcall.OutcomePass, toolcall.OutcomeFail:
		counts.scoreCalls = append(counts.scoreCalls, scoreSample{rule: ev.rule, scorer: ev.scorer, value: res.Score})
	case toolcall.OutcomeError:
		if ce := p.logger.Check(zap.DebugLevel, "agent run could not be scored"); ce != nil {
			ce.Write(zap.String("rule", p.rules[ev.rule].Name), zap.String("scorer", p.rules[ev.rule].Scorers[ev.scorer].Label),
				zap.Stringer("trace_id", span.TraceID()), zap.Stringer("span_id", span.SpanID()), zap.Error(res.Err))
		}
	}
	if ev.scorer != 0 {
		return
	}
	b := &res.Breakdown
	c := &counts.calls[ev.rule]
	for _, pr := range b.Pairs {
		if pr.Score >= 1 {
			c[statusMatched]++
		} else {
			c[statusMismatched]++
		}
	}
	c[statusMissing] += int64(len(b.Missing))
	c[statusUnexpected] += int64(len(b.Unexpected))
	c[statusOutOfOrder] += int64(len(b.OutOfOrder))
	c[statusForbidden] += int64(len(b.Forbidden))
	c[statusHallucinated] += int64(len(b.Hallucinated))
	for _, f := range b.Findings {
		if st, ok := findingStatus(f.Check); ok {
			c[st]++
		}
	}
}

// selectRules appends to selected the indexes of the rules that apply to
// the run whose agent (or root) span is span.
func (p *tcaProcessor) selectRules(ctx context.Context, rs ptrace.ResourceSpans, ss ptrace.ScopeSpans, span ptrace.Span, selected []int) []int {
	var tCtx *ottlspan.TransformContext
	for i, r := range p.rules {
		if r.Unconditional() {
			selected = append(selected, i)
			continue
		}
		if tCtx == nil {
			tCtx = ottlspan.NewTransformContext(rs, ss, span)
		}
		if r.Applies(ctx, tCtx) {
			selected = append(selected, i)
		}
	}
	if tCtx != nil {
		tCtx.Close()
	}
	return selected
}

// scoreReleased scores waiting runs released by the holder: the store gives
// up each run's trajectory (and drops idle traces) under the lock, then each
// run is scored on its held span. Runs with deferred scorers go to the
// holder's queue; the others are returned, to be sent.
func (p *tcaProcessor) scoreReleased(ctx context.Context, due []*heldRun, now int64) []*heldRun {
	trajs := make([]*trajectory.Trajectory, len(due))
	p.mu.Lock()
	var learned []runKey
	for i, h := range due {
		trajs[i] = p.store.Release(h.trace, h.span)
		if h.incomplete {
			p.toolServices.released(serviceOfSpan(h), trajs[i])
			learned = p.learnFrom(h, trajs[i], learned)
		}
	}
	p.holder.releaseComplete(learned)
	if p.store.HoldsIncomplete() {
		// A released run may have been what a held root waited for.
		var complete []runKey
		for _, h := range due {
			complete = p.appendComplete(complete, h.trace)
		}
		p.holder.releaseComplete(p.releasedEarly(complete))
	}
	p.store.Sweep(now)
	st := p.store.TakeStats()
	p.publishSizes()
	p.mu.Unlock()
	counts := p.tel.newCounts()
	counts.store = st
	var sent []*heldRun
	for i, h := range due {
		if trajs[i] == nil && h.root {
			sent = append(sent, h) // no call reached the root
			continue
		}
		rs, ss, span := h.heldSpan()
		if deferred := p.score(ctx, rs, ss, span, h.span, trajs[i], counts, nil); deferred != nil {
			h.deferred = deferred
			p.holder.queueDeferred(h)
			continue
		}
		sent = append(sent, h)
	}
	p.tel.record(ctx, counts)
	return sent
}

// scoreDeferred runs a held run's deferred scorers (or, with skip, records
// them as not evaluated for that reason) and annotates its span with every
// result.
func (p *tcaProcessor) scoreDeferred(ctx context.Context, span ptrace.Span, run *scoredRun, skip error) {
	p.restoreCalls(run)
	for _, rs := range run.pending {
		r := p.rules[rs[0]]
		calls := r.Calls(run.calls, recordedTools(run.context))
		var res toolcall.Result
		if skip != nil {
			res = toolcall.Result{Scorer: r.Scorers[rs[1]].Name(), Outcome: toolcall.OutcomeNotEvaluated, Explanation: skip.Error()}
		} else {
			toolcall.ScoreInto(ctx, r.Scorers[rs[1]].Scorer, calls, run.context, &res)
		}
		run.evals = append(run.evals, evaluation{rule: rs[0], scorer: rs[1], result: res, calls: calls})
	}
	run.pending = nil
	sortEvaluations(run.evals)
	counts := p.tel.newCounts()
	p.finish(span, run, counts)
	p.tel.record(context.Background(), counts)
}

// sortEvaluations orders evaluations by rule, then scorer, as configured.
func sortEvaluations(evals []evaluation) {
	slices.SortStableFunc(evals, func(a, b evaluation) int {
		if a.rule != b.rule {
			return a.rule - b.rule
		}
		return a.scorer - b.scorer
	})
}

// deferredWorkers is how many runs' deferred scorers run at once: the
// judges' max_concurrent summed (a rule's judge waits for its own slots),
// at least 4, at most 256.
func deferredWorkers(cfg *Config) int {
	n := 0
	for _, r := range cfg.Rules {
		if r.Judge != nil {
			n += r.Judge.limits().MaxConcurrent
		}
	}
	return min(max(n, 4), 256)
}
