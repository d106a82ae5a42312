package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"
)

// heldRun is an agent span taken out of its batch: either waiting (wait) for
// tool spans that arrive after it, or waiting for deferred scorers. The span
// is copied with its resource and scope and emitted on its own later.
type heldRun struct {
	td    ptrace.Traces
	trace pcommon.TraceID
	span  pcommon.SpanID
	// due is when a waiting run is scored (Unix nanoseconds).
	due int64
	// deferred is a run already scored by its synchronous scorers, with
	// deferred scorers still to run.
	deferred *scoredRun
	// ref is where the span was in the batch it was taken from.
	ref spanRef
	// deadline bounds the deferred scorers of the run (score_timeout).
	deadline time.Time
	// twin marks a copy of an agent span already held (a retried batch, a
	// duplicate span id), before it joins the held run in twins.
	twin  bool
	twins []ptrace.Traces
}

// heldRuns is the queue of waiting runs in due order (wait is constant, so
// arrival order is due order).
type heldRuns struct {
	runs []*heldRun
}

func (p *tcaProcessor) newHeldRun(ref spanRef, rs ptrace.ResourceSpans, ss ptrace.ScopeSpans, span ptrace.Span) heldRun {
	td := ptrace.NewTraces()
	nrs := td.ResourceSpans().AppendEmpty()
	rs.Resource().CopyTo(nrs.Resource())
	nrs.SetSchemaUrl(rs.SchemaUrl())
	nss := nrs.ScopeSpans().AppendEmpty()
	ss.Scope().CopyTo(nss.Scope())
	nss.SetSchemaUrl(ss.SchemaUrl())
	span.CopyTo(nss.Spans().AppendEmpty())
	return heldRun{td: td, trace: span.TraceID(), span: span.SpanID(), due: p.now().Add(p.cfg.Wait).UnixNano(), ref: ref}
}

// heldSpan returns the single span of a held run's copy.
func (h *heldRun) heldSpan() (ptrace.ResourceSpans, ptrace.ScopeSpans, ptrace.Span) {
	rs := h.td.ResourceSpans().At(0)
	ss := rs.ScopeSpans().At(0)
	return rs, ss, ss.Spans().At(0)
}

// hold removes held spans from the batch and queues them: waiting runs until
// due, deferred runs to their scorers at once.
func (p *tcaProcessor) hold(held []heldRun, td ptrace.Traces) {
	remove := make(map[spanRef]bool, len(held))
	for _, h := range held {
		remove[h.ref] = true
	}
	for ri, rs := range td.ResourceSpans().All() {
		for si, ss := range rs.ScopeSpans().All() {
			i := -1
			ss.Spans().RemoveIf(func(ptrace.Span) bool {
				i++
				return remove[spanRef{ri, si, i}]
			})
		}
	}
	var waiting, twins []*heldRun
	for i := range held {
		h := held[i]
		switch {
		case h.deferred != nil:
			p.runDeferred(&h)
		case h.twin:
			twins = append(twins, &h)
		default:
			waiting = append(waiting, &h)
		}
	}
	if len(waiting) == 0 && len(twins) == 0 {
		return
	}
	p.mu.Lock()
	p.held.runs = append(p.held.runs, waiting...)
	p.tel.held.Add(int64(len(waiting)))
	var orphans []*heldRun
	for _, t := range twins {
		if !p.held.join(t) {
			orphans = append(orphans, t)
		}
	}
	replays := make([]*annotations, len(orphans))
	for i, t := range orphans {
		replays[i] = p.replays.get(runKey{t.trace, t.span})
	}
	p.mu.Unlock()
	// A twin whose run was released meanwhile goes out as that run went.
	for i, t := range orphans {
		if replays[i] != nil {
			_, _, span := t.heldSpan()
			replays[i].writeTo(span)
		}
		p.emit(context.Background(), t.td)
	}
}

// join adds a copy of a held agent span to the held run it copies; it
// reports false when that run is no longer held. Called with p.mu held.
func (q *heldRuns) join(t *heldRun) bool {
	for _, h := range q.runs {
		if h.trace == t.trace && h.span == t.span {
			h.twins = append(h.twins, t.td)
			return true
		}
	}
	return false
}

// releaseDue scores and emits the waiting runs that are due (all of them
// when all is set, at shutdown), and drops idle traces.
func (p *tcaProcessor) releaseDue(ctx context.Context, all bool) {
	now := p.now().UnixNano()
	p.mu.Lock()
	n := 0
	for n < len(p.held.runs) && (all || p.held.runs[n].due <= now) {
		n++
	}
	due := p.held.runs[:n:n]
	p.held.runs = p.held.runs[n:]
	trajs := make([]*heldTraj, len(due))
	for i, h := range due {
		trajs[i] = &heldTraj{h: h, traj: p.store.Release(h.trace, h.span)}
	}
	p.store.Sweep(now)
	st := p.store.TakeStats()
	p.publishSizes()
	p.tel.held.Add(-int64(n))
	p.mu.Unlock()
	counts := p.tel.newCounts()
	counts.store = st
	var sent []*heldRun
	for _, t := range trajs {
		rs, ss, span := t.h.heldSpan()
		if deferred := p.score(ctx, rs, ss, span, t.h.span, t.traj, counts, nil); deferred != nil {
			t.h.deferred = deferred
			p.runDeferred(t.h)
			continue
		}
		sent = append(sent, t.h)
	}
	p.tel.record(ctx, counts)
	p.send(ctx, sent...)
}

// send emits scored held runs with their twins, keeping each run's
// annotations for copies of its span that may come later.
func (p *tcaProcessor) send(ctx context.Context, runs ...*heldRun) {
	if len(runs) == 0 {
		return
	}
	kept := make([]*annotations, len(runs))
	for i, h := range runs {
		_, _, span := h.heldSpan()
		kept[i] = copyAnnotations(span)
		for _, twin := range h.twins {
			if kept[i] != nil {
				kept[i].writeTo(twin.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0))
			}
		}
	}
	now := p.now().UnixNano()
	p.mu.Lock()
	for i, h := range runs {
		p.replays.put(runKey{h.trace, h.span}, kept[i], now)
	}
	p.mu.Unlock()
	for _, h := range runs {
		p.emit(ctx, h.td)
		for _, twin := range h.twins {
			p.emit(ctx, twin)
		}
	}
}

// heldTraj pairs a released run with the trajectory the store returned.
type heldTraj struct {
	h    *heldRun
	traj *trajectory.Trajectory
}

// runDeferred queues a held run for its deferred scorers (judges). A fixed
// pool of workers runs them, each bounded by score_timeout from now and cut
// short at Shutdown; a queued run costs its held span and scored calls, not
// a goroutine. When the queue is full the run goes out at once, its
// deferred scorers not_evaluated.
func (p *tcaProcessor) runDeferred(h *heldRun) {
	h.deadline = p.now().Add(p.cfg.ScoreTimeout)
	p.tel.held.Add(1)
	p.emitting.Add(1)
	select {
	case p.deferredQ <- h:
	default:
		p.finishDeferred(h, errDeferredQueueFull)
	}
}

// errDeferredQueueFull is the result of deferred scorers of a run that
// found the queue full.
var errDeferredQueueFull = fmt.Errorf("%w: budget: the queue of runs waiting for their judges is full", scoring.ErrJudgeSkipped)

// deferredWorker runs queued runs until the queue is closed.
func (p *tcaProcessor) deferredWorker() {
	for h := range p.deferredQ {
		p.finishDeferred(h, nil)
	}
}

// finishDeferred runs a held run's deferred scorers (or, with skip, records
// them as not evaluated for that reason), then annotates and sends the span
// with every result.
func (p *tcaProcessor) finishDeferred(h *heldRun, skip error) {
	defer p.emitting.Done()
	defer p.tel.held.Add(-1)
	ctx, cancel := context.WithDeadline(p.runs, h.deadline)
	defer cancel()
	run := h.deferred
	p.restoreCalls(run)
	for _, rs := range run.pending {
		r := p.rules[rs[0]]
		calls := r.Calls(run.calls, recordedTools(run.context))
		var res scoring.Result
		if skip != nil {
			res = scoring.Result{Scorer: r.Scorers[rs[1]].Name(), Outcome: scoring.OutcomeNotEvaluated, Explanation: skip.Error()}
		} else {
			scoring.ScoreInto(ctx, r.Scorers[rs[1]].Scorer, calls, run.context, &res)
		}
		run.evals = append(run.evals, evaluation{rule: rs[0], scorer: rs[1], result: res, calls: calls})
	}
	run.pending = nil
	sortEvaluations(run.evals)
	counts := p.tel.newCounts()
	_, _, span := h.heldSpan()
	p.finish(span, run, counts)
	p.tel.record(context.Background(), counts)
	p.send(context.Background(), h)
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

// sortEvaluations orders evaluations by rule, then scorer, as configured.
func sortEvaluations(evals []evaluation) {
	slices.SortStableFunc(evals, func(a, b evaluation) int {
		if a.rule != b.rule {
			return a.rule - b.rule
		}
		return a.scorer - b.scorer
	})
}
