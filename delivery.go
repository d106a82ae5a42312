package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"
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

// errShutDown refuses batches that arrive after Shutdown: nothing could
// send what the processor would hold back.
var errShutDown = errors.New("tool_call_accuracy processor is shut down")

// downstream is the next consumer as the processor's pipeline helper sees
// it: a batch it refuses leaves its annotations with the processor, for
// the retry.
type downstream struct {
	consumer.Traces
	p *tcaProcessor
}

func (d downstream) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	err := d.Traces.ConsumeTraces(ctx, td)
	if err != nil {
		d.p.keepAnnotations(td)
	}
	return err
}

// keepAnnotations remembers the annotations of every annotated span of td.
func (p *tcaProcessor) keepAnnotations(td ptrace.Traces) {
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
	if len(kept) == 0 {
		return
	}
	now := p.now().UnixNano()
	p.mu.Lock()
	for _, e := range kept {
		p.replays.put(e.key, e.a, now)
	}
	p.mu.Unlock()
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
func (p *tcaProcessor) emit(ctx context.Context, td ptrace.Traces) {
	if err := p.next.ConsumeTraces(ctx, td); err != nil {
		now := p.now().UnixNano()
		p.queueUndelivered(undelivered{td: td, since: now, next: now + int64(redeliverFirst), attempts: 1, err: err})
	}
}

// queueUndelivered queues a span to send again. The queue is bounded by
// limits.max_open_trajectories; past it the oldest span is lost and counted.
func (p *tcaProcessor) queueUndelivered(u undelivered) {
	p.deliveryMu.Lock()
	var lost []undelivered
	if len(p.undelivered) >= p.cfg.Limits.MaxOpenTrajectories {
		lost = append(lost, p.undelivered[0])
		p.undelivered = p.undelivered[1:]
	}
	p.undelivered = append(p.undelivered, u)
	p.tel.held.Add(1)
	p.deliveryMu.Unlock()
	p.countLost(context.Background(), lost)
}

// redeliver sends again the undelivered spans that are due (all of them
// when final, at Shutdown). Spans failing past limits.max_age, or at all
// when final, are lost: counted, logged and returned as an error.
func (p *tcaProcessor) redeliver(ctx context.Context, final bool) error {
	now := p.now().UnixNano()
	p.deliveryMu.Lock()
	var due, wait []undelivered
	for _, u := range p.undelivered {
		if final || u.next <= now {
			due = append(due, u)
		} else {
			wait = append(wait, u)
		}
	}
	p.undelivered = wait
	p.tel.held.Add(-int64(len(due)))
	p.deliveryMu.Unlock()
	if len(due) == 0 {
		return nil
	}
	var lost []undelivered
	for _, u := range due {
		err := p.next.ConsumeTraces(ctx, u.td)
		if err == nil {
			continue
		}
		u.err = err
		u.attempts++
		if final || now-u.since > int64(p.cfg.Limits.MaxAge) {
			lost = append(lost, u)
			continue
		}
		u.next = now + int64(min(redeliverFirst<<min(u.attempts, 20), redeliverMax))
		p.deliveryMu.Lock()
		p.undelivered = append(p.undelivered, u)
		p.tel.held.Add(1)
		p.deliveryMu.Unlock()
	}
	return p.countLost(ctx, lost)
}

// countLost counts and logs held spans that could not be delivered, and
// returns the error that says so.
func (p *tcaProcessor) countLost(ctx context.Context, lost []undelivered) error {
	if len(lost) == 0 {
		return nil
	}
	p.tel.tb.ProcessorToolCallAccuracyLostSpans.Add(ctx, int64(len(lost)), p.tel.lostDownstream.add...)
	last := lost[len(lost)-1]
	err := fmt.Errorf("%d held agent span(s) could not be delivered downstream after %d attempt(s): %w", len(lost), last.attempts, last.err)
	p.logger.Error("held agent spans lost", zap.Int("spans", len(lost)), zap.Error(err))
	return err
}
