package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/idtable"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/tracefilter"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// The delivery contract: every span that comes in goes out, or its loss is
// returned to the caller as an error. Spans of a batch go out with the
// batch, so the caller gets the downstream error and may retry; the
// processor keeps the annotations of the batch's runs, so the retried spans
// get the same scores and their runs are not counted twice. An agent span
// the processor holds back (wait, deferred scorers) has no caller left when
// it is sent: a failed send is retried on later ticks, and a span that
// still cannot be sent after limits.max_age, or at Shutdown, is counted in
// lost_spans{reason=downstream_error}, logged, and returned from Shutdown.

// holder owns every agent span the processor takes out of its batch, from
// the moment it is held until it is delivered or counted lost: runs that
// wait for late spans (wait), runs that wait for their deferred scorers
// (judges), copies of a held span (twins), held spans whose send failed
// (redelivery), and the annotations of runs whose span may come again
// (replay). The processor hands it spans with take, asks it for kept
// annotations with replayed, and drives it with tick and close; the holder
// asks the processor to score what it releases (scoreReleased,
// scoreDeferred).
type holder struct {
	p      *tcaProcessor
	next   consumer.Traces
	tel    *telemetry
	logger *zap.Logger
	now    func() time.Time
	wait   time.Duration
	maxAge time.Duration
	// scoreTimeout bounds a run's deferred scorers; maxQueued bounds the
	// runs waiting for them and the spans waiting to be sent again.
	scoreTimeout time.Duration
	maxQueued    int

	// waiting and replays are guarded by the processor's mutex, which
	// apply holds while it looks up replays as it updates the store.
	mu      *sync.Mutex
	waiting waitingRuns
	replays *replayCache
	// scored keeps the annotations of runs scored in their batch
	// (replay_scored.go), apart from replays so they never evict those.
	scored *replayCache
	// ready wakes the loop when waiting runs were made due early (their
	// traces completed).
	ready chan struct{}

	// deferred queues runs for the deferred-scorer workers; runs is their
	// context, cancelled at close.
	deferred   chan *heldRun
	runs       context.Context
	cancelRuns context.CancelFunc
	workers    sync.WaitGroup
	// emitting counts runs queued for or running their deferred scorers.
	emitting sync.WaitGroup

	// deliveryMu guards undelivered: held spans whose send failed (runs
	// released together are sent together), undeliveredSpans of them.
	deliveryMu       sync.Mutex
	undelivered      []undelivered
	undeliveredSpans int
}

func newHolder(p *tcaProcessor, cfg *Config, next consumer.Traces) *holder {
	h := &holder{
		p:            p,
		next:         next,
		tel:          p.tel,
		logger:       p.logger,
		now:          p.now,
		wait:         cfg.Wait,
		maxAge:       cfg.Limits.MaxAge,
		scoreTimeout: cfg.ScoreTimeout,
		maxQueued:    cfg.Limits.MaxOpenTrajectories,
		mu:           &p.mu,
		replays:      newReplayCache(cfg.Limits.MaxOpenTrajectories, int64(cfg.Limits.MaxAge)),
		scored:       newReplayCache(cfg.Limits.MaxOpenTrajectories, int64(cfg.Limits.MaxAge)),
		deferred:     make(chan *heldRun, cfg.Limits.MaxOpenTrajectories),
		ready:        make(chan struct{}, 1),
	}
	h.runs, h.cancelRuns = context.WithCancel(context.Background())
	return h
}

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
	copyOfHeld bool
	copies     []ptrace.Traces
	// incomplete marks a run held because its trace showed spans missing
	// (wait_for_missing); root that its span is a trace root, not an agent
	// span, scored only when calls reached it; ready a waiting run made due
	// at once.
	incomplete, root, ready bool
	// seq numbers a waiting run in its queue (see waitingRuns).
	seq uint64
	// heldFor is what a run held incomplete lacked when it was held.
	heldFor trajectory.Missing
}

// newRun copies the span at ref, with its resource and scope, into a held
// run that is due after wait.
func (h *holder) newRun(ref spanRef, rs ptrace.ResourceSpans, ss ptrace.ScopeSpans, span ptrace.Span) heldRun {
	return h.newRunFor(ref, rs, ss, span, h.wait)
}

// newRunFor is newRun for a run due after d.
func (h *holder) newRunFor(ref spanRef, rs ptrace.ResourceSpans, ss ptrace.ScopeSpans, span ptrace.Span, d time.Duration) heldRun {
	td := ptrace.NewTraces()
	nrs := td.ResourceSpans().AppendEmpty()
	rs.Resource().CopyTo(nrs.Resource())
	nrs.SetSchemaUrl(rs.SchemaUrl())
	nss := nrs.ScopeSpans().AppendEmpty()
	ss.Scope().CopyTo(nss.Scope())
	nss.SetSchemaUrl(ss.SchemaUrl())
	span.CopyTo(nss.Spans().AppendEmpty())
	return heldRun{td: td, trace: span.TraceID(), span: span.SpanID(), due: h.now().Add(d).UnixNano(), ref: ref}
}

// heldSpan returns the single span of a held run's copy.
func (r *heldRun) heldSpan() (ptrace.ResourceSpans, ptrace.ScopeSpans, ptrace.Span) {
	rs := r.td.ResourceSpans().At(0)
	ss := rs.ScopeSpans().At(0)
	return rs, ss, ss.Spans().At(0)
}

// start starts the workers that run deferred scorers.
func (h *holder) start(workers int) {
	for range workers {
		h.workers.Add(1)
		go func() {
			defer h.workers.Done()
			for r := range h.deferred {
				h.finishDeferred(r, nil)
			}
		}()
	}
}

// take removes held spans from their batch and queues them: waiting runs
// until due, deferred runs to their scorers at once, twins to the run they
// copy. The waiting runs of complete are released.
func (h *holder) take(held []heldRun, td ptrace.Traces, complete []runKey) {
	remove := make(map[spanRef]bool, len(held))
	for _, r := range held {
		remove[r.ref] = true
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
		r := held[i]
		switch {
		case r.deferred != nil:
			h.queueDeferred(&r)
		case r.copyOfHeld:
			twins = append(twins, &r)
		default:
			waiting = append(waiting, &r)
		}
	}
	if len(waiting) == 0 && len(twins) == 0 && len(complete) == 0 {
		return
	}
	h.mu.Lock()
	for _, r := range waiting {
		h.waiting.push(r)
	}
	if len(complete) > 0 {
		h.releaseComplete(complete)
	}
	h.tel.held.Add(int64(len(waiting)))
	var orphans []*heldRun
	for _, t := range twins {
		if !h.join(t) {
			orphans = append(orphans, t)
		}
	}
	replays := make([]*annotations, len(orphans))
	for i, t := range orphans {
		replays[i] = h.replays.get(runKey{t.trace, t.span})
	}
	h.mu.Unlock()
	// A twin whose run was released meanwhile goes out as that run went.
	for i, t := range orphans {
		if replays[i] != nil {
			_, _, span := t.heldSpan()
			replays[i].writeTo(span)
		}
		h.emit(context.Background(), t.td)
	}
}

// releaseComplete makes the waiting runs of keys, held while their traces
// showed spans missing and now complete, due at once, and wakes the loop
// to release them: the batch that completed them does not wait for their
// scoring and sending. Called with h.mu held.
func (h *holder) releaseComplete(keys []runKey) {
	moved := false
	for _, k := range keys {
		moved = h.waiting.makeReady(k) || moved
	}
	if !moved {
		return
	}
	select {
	case h.ready <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// join adds a copy of a held agent span to the waiting run it copies; it
// reports false when that run is no longer waiting. Called with h.mu held.
func (h *holder) join(t *heldRun) bool {
	r := h.waiting.get(runKey{t.trace, t.span})
	if r == nil {
		return false
	}
	r.copies = append(r.copies, t.td)
	return true
}

// tick releases the waiting runs that are due and sends again the spans
// whose send failed and are due for another try.
func (h *holder) tick(ctx context.Context) {
	h.releaseDue(ctx, false)
	_ = h.redeliver(ctx, false) // losses are counted and logged
}

// releaseDue scores and sends the waiting runs that are due (all of them
// when all is set, at close).
func (h *holder) releaseDue(ctx context.Context, all bool) {
	now := h.now().UnixNano()
	h.mu.Lock()
	due := h.waiting.takeDue(now, all)
	h.tel.held.Add(-int64(len(due)))
	h.mu.Unlock()
	h.send(ctx, h.p.scoreReleased(ctx, due, now)...)
}

// queueDeferred queues a held run for its deferred scorers (judges). A
// fixed pool of workers runs them, each bounded by score_timeout from now
// and cut short at close; a queued run costs its held span and scored calls,
// not a goroutine. When the queue is full the run goes out at once, its
// deferred scorers not_evaluated.
func (h *holder) queueDeferred(r *heldRun) {
	r.deadline = h.now().Add(h.scoreTimeout)
	h.tel.held.Add(1)
	h.emitting.Add(1)
	select {
	case h.deferred <- r:
	default:
		h.finishDeferred(r, errDeferredQueueFull)
	}
}

// errDeferredQueueFull is the result of deferred scorers of a run that
// found the queue full.
var errDeferredQueueFull = fmt.Errorf("%w: budget: the queue of runs waiting for their judges is full", toolcall.ErrJudgeSkipped)

// finishDeferred runs a held run's deferred scorers (or, with skip, records
// them as not evaluated for that reason) and sends the annotated span.
func (h *holder) finishDeferred(r *heldRun, skip error) {
	defer h.emitting.Done()
	defer h.tel.held.Add(-1)
	ctx, cancel := context.WithDeadline(h.runs, r.deadline)
	defer cancel()
	_, _, span := r.heldSpan()
	h.p.scoreDeferred(ctx, span, r.deferred, skip)
	h.send(context.Background(), r)
}

// send emits scored held runs with their twins, keeping each run's
// annotations for copies of its span that may come later.
func (h *holder) send(ctx context.Context, runs ...*heldRun) {
	if len(runs) == 0 {
		return
	}
	kept := make([]*annotations, len(runs))
	for i, r := range runs {
		_, _, span := r.heldSpan()
		kept[i] = copyAnnotations(span)
		for _, twin := range r.copies {
			if kept[i] != nil {
				kept[i].writeTo(twin.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0))
			}
		}
	}
	now := h.now().UnixNano()
	h.mu.Lock()
	for i, r := range runs {
		h.replays.put(runKey{r.trace, r.span}, kept[i], now)
	}
	h.mu.Unlock()
	if len(runs) == 1 && len(runs[0].copies) == 0 {
		h.emit(ctx, runs[0].td)
		return
	}
	// Runs released together leave in one batch.
	out := ptrace.NewTraces()
	for _, r := range runs {
		r.td.ResourceSpans().MoveAndAppendTo(out.ResourceSpans())
		for _, twin := range r.copies {
			twin.ResourceSpans().MoveAndAppendTo(out.ResourceSpans())
		}
	}
	h.emit(ctx, out)
}

// close scores and sends every held run (deferred scorers in flight are
// cancelled, queued ones recorded with what they have), then sends the
// undelivered spans a last time; what still cannot be sent is returned.
func (h *holder) close(ctx context.Context) error {
	h.releaseDue(ctx, true)
	h.cancelRuns()
	close(h.deferred)
	h.workers.Wait()
	for r := range h.deferred { // queued before any worker started
		h.finishDeferred(r, nil)
	}
	h.emitting.Wait()
	return h.redeliver(ctx, true)
}

// replayed returns the annotations kept for a run whose span may come again,
// or nil. Called with h.mu held.
func (h *holder) replayed(trace pcommon.TraceID, span pcommon.SpanID) *annotations {
	if h.replays.len() > 0 {
		if a := h.replays.get(runKey{trace, span}); a != nil {
			return a
		}
	}
	if h.scored.len() == 0 {
		return nil
	}
	return h.scored.get(runKey{trace, span})
}

// mayReplay reports whether annotations may be kept for a run of trace;
// false is certain (see replayCache.traces). Called with h.mu held.
func (h *holder) mayReplay(trace pcommon.TraceID) bool {
	return h.replays.traces.MayHave(trace) || h.scored.traces.MayHave(trace)
}

// replaying reports whether any annotations are kept. Called with h.mu held.
func (h *holder) replaying() bool { return h.replays.len() > 0 }

// sweep drops kept annotations older than max_age. Called with h.mu held.
func (h *holder) sweep(now int64) {
	h.replays.sweep(now)
	h.scored.sweep(now)
}

// downstream is the next consumer as the processor's pipeline helper sees
// it: a batch it refuses leaves its annotations with the holder, for the
// retry.
type downstream struct {
	consumer.Traces
	h *holder
}

func (d downstream) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	err := d.Traces.ConsumeTraces(ctx, td)
	if err != nil {
		d.h.keep(td)
	}
	return err
}

// keep remembers the annotations of every annotated span of td.
func (h *holder) keep(td ptrace.Traces) {
	var kept []replayEntry
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, span := range ss.Spans().All() {
				if a := copyAnnotations(span); a != nil {
					kept = append(kept, replayEntry{key: runKey{span.TraceID(), span.SpanID()}, a: a})
				}
			}
		}
	}
	h.putAll(h.replays, kept)
}

// putAll remembers kept annotations in c, now.
func (h *holder) putAll(c *replayCache, kept []replayEntry) {
	if len(kept) == 0 {
		return
	}
	now := h.now().UnixNano()
	h.mu.Lock()
	for _, e := range kept {
		c.put(e.key, e.a, now)
	}
	h.mu.Unlock()
}

// undelivered is a held span whose send failed, waiting to be sent again.
type undelivered struct {
	td ptrace.Traces
	// since is the first failure; next the earliest retry (Unix ns).
	since, next int64
	attempts    int
	err         error
}

// Backoff between sends of an undelivered span.
const (
	redeliverFirst = 100 * time.Millisecond
	redeliverMax   = 30 * time.Second
)

// emit sends a held span downstream; a failed send is retried later.
func (h *holder) emit(ctx context.Context, td ptrace.Traces) {
	if err := h.next.ConsumeTraces(ctx, td); err != nil {
		now := h.now().UnixNano()
		h.queueUndelivered(undelivered{td: td, since: now, next: now + int64(redeliverFirst), attempts: 1, err: err})
	}
}

// queueUndelivered queues a span to send again. The queue is bounded by
// limits.max_open_trajectories; past it the oldest span is lost and counted.
func (h *holder) queueUndelivered(u undelivered) {
	h.deliveryMu.Lock()
	var lost []undelivered
	n := u.td.SpanCount()
	for len(h.undelivered) > 0 && h.undeliveredSpans+n > h.maxQueued {
		lost = append(lost, h.undelivered[0])
		h.undeliveredSpans -= h.undelivered[0].td.SpanCount()
		h.tel.held.Add(-int64(h.undelivered[0].td.SpanCount()))
		h.undelivered = h.undelivered[1:]
	}
	h.undelivered = append(h.undelivered, u)
	h.undeliveredSpans += n
	h.tel.held.Add(int64(n))
	h.deliveryMu.Unlock()
	h.countLost(context.Background(), lost)
}

// redeliver sends again the undelivered spans that are due (all of them
// when final, at close). Spans failing past limits.max_age, or at all when
// final, are lost: counted, logged and returned as an error.
func (h *holder) redeliver(ctx context.Context, final bool) error {
	now := h.now().UnixNano()
	h.deliveryMu.Lock()
	var due, wait []undelivered
	for _, u := range h.undelivered {
		if final || u.next <= now {
			due = append(due, u)
		} else {
			wait = append(wait, u)
		}
	}
	h.undelivered = wait
	spans := 0
	for _, u := range due {
		spans += u.td.SpanCount()
	}
	h.undeliveredSpans -= spans
	h.tel.held.Add(-int64(spans))
	h.deliveryMu.Unlock()
	if len(due) == 0 {
		return nil
	}
	var lost []undelivered
	for _, u := range due {
		err := h.next.ConsumeTraces(ctx, u.td)
		if err == nil {
			continue
		}
		u.err = err
		u.attempts++
		if final || now-u.since > int64(h.maxAge) {
			lost = append(lost, u)
			continue
		}
		u.next = now + int64(min(redeliverFirst<<min(u.attempts, 20), redeliverMax))
		h.deliveryMu.Lock()
		h.undelivered = append(h.undelivered, u)
		h.undeliveredSpans += u.td.SpanCount()
		h.tel.held.Add(int64(u.td.SpanCount()))
		h.deliveryMu.Unlock()
	}
	return h.countLost(ctx, lost)
}

// countLost counts and logs held spans that could not be delivered, and
// returns the error that says so.
func (h *holder) countLost(ctx context.Context, lost []undelivered) error {
	if len(lost) == 0 {
		return nil
	}
	spans := 0 // runs released together are sent, and lost, together
	for _, u := range lost {
		spans += u.td.SpanCount()
	}
	h.tel.tb.ProcessorToolCallAccuracyLostSpans.Add(ctx, int64(spans), h.tel.lostDownstream.add...)
	last := lost[len(lost)-1]
	err := fmt.Errorf("%d held agent span(s) could not be delivered downstream after %d attempt(s): %w", spans, last.attempts, last.err)
	h.logger.Error("held agent spans lost", zap.Int("spans", spans), zap.Error(err))
	return err
}

// errShutDown refuses batches that arrive after Shutdown: nothing could
// send what the processor would hold back.
var errShutDown = errors.New("tool_call_accuracy processor is shut down")

// runKey names an agent (or root) span.
type runKey struct {
	trace pcommon.TraceID
	span  pcommon.SpanID
}

// replayCache keeps the annotations of recent runs whose span may come
// again, first in first out: at most limit entries, each for at most ttl.
// A run put again (rare) leaves its older entry stale; stale counts those,
// so that dropping an entry while none is stale is one map operation.
type replayCache struct {
	limit   int
	ttl     int64
	byRun   *idtable.Table[runKey, annotations]
	entries []replayEntry
	head    int
	stale   int
	// traces holds byRun's traces: the roots of untracked traces, looked
	// for here while held runs' annotations are kept (keepLinks), are
	// passed over without a miss in byRun.
	traces *tracefilter.Filter
}

type replayEntry struct {
	key   runKey
	added int64
	a     *annotations
}

func newReplayCache(limit int, ttl int64) *replayCache {
	return &replayCache{limit: limit, ttl: ttl, byRun: idtable.NewSeeded[runKey, annotations](), traces: tracefilter.New(limit)}
}

// len returns how many runs the cache holds.
func (c *replayCache) len() int { return c.byRun.Len() }

// put remembers a run's annotations, dropping the oldest past the limit.
func (c *replayCache) put(key runKey, a *annotations, now int64) {
	if a == nil || c.limit <= 0 {
		return
	}
	if c.byRun.Put(key, a) != nil {
		c.stale++ // the run's older entry
	} else {
		c.traces.Add(key.trace)
	}
	c.entries = append(c.entries, replayEntry{key: key, added: now, a: a})
	for c.byRun.Len() > c.limit {
		c.dropOldest()
	}
}

// get returns a run's annotations, or nil.
func (c *replayCache) get(key runKey) *annotations {
	if !c.traces.MayHave(key.trace) {
		return nil
	}
	return c.byRun.Get(key)
}

// sweep drops entries older than the ttl.
func (c *replayCache) sweep(now int64) {
	for c.head < len(c.entries) && now-c.entries[c.head].added > c.ttl {
		c.dropOldest()
	}
}

func (c *replayCache) dropOldest() {
	e := c.entries[c.head]
	c.entries[c.head] = replayEntry{}
	c.head++
	switch {
	case c.stale == 0, c.byRun.Get(e.key) == e.a:
		c.byRun.Delete(e.key)
		c.traces.Remove(e.key.trace)
	default:
		c.stale--
	}
	if c.head > 1024 && c.head > len(c.entries)/2 {
		c.entries = append(c.entries[:0], c.entries[c.head:]...)
		c.head = 0
	}
	if c.head == len(c.entries) {
		c.entries, c.head = c.entries[:0], 0
	}
}
