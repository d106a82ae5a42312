// Package judgelimits bounds what a rule's LLM judges may cost: a content-hash
// cache, one request for identical requests in flight, a requests and a
// tokens budget per minute, a bound on requests in flight and on requests
// waiting for one. A request over a budget or a full queue is not sent: it
// fails at once with an error wrapping toolcall.ErrJudgeSkipped, which judge
// scorers report as not_evaluated, so the pipeline never waits on a budget.
//
// Sampling is not here: the processor decides by the trace id whether a run
// is judged at all, before anything is held.
package judgelimits // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgelimits"

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// Outcome is what became of one judge request: the judge_requests metric's
// outcome attribute.
type Outcome uint8

// The outcomes.
const (
	OutcomeOK Outcome = iota
	OutcomeError
	OutcomeTimeout
	OutcomeBudget
	OutcomeCacheHit
	NumOutcomes
)

var outcomeNames = [NumOutcomes]string{"ok", "error", "timeout", "budget", "cache_hit"}

// String returns the outcome's metric value.
func (o Outcome) String() string {
	if o < NumOutcomes {
		return outcomeNames[o]
	}
	return "unknown"
}

// Limits bound a rule's judge requests. Zero values mean no bound, except
// MaxConcurrent (at least 1).
type Limits struct {
	// MaxConcurrent bounds the requests in flight.
	MaxConcurrent int
	// QueueSize bounds the requests waiting for a slot; past it a request
	// is not sent (budget).
	QueueSize int
	// RequestsPerMinute bounds the requests sent; the whole minute's
	// quota may be spent at once.
	RequestsPerMinute int
	// TokensPerMinute bounds the tokens requests may use, estimated before
	// sending as the prompt's bytes / 4 plus the answer's max_tokens.
	TokensPerMinute int
	// CacheSize bounds the answers kept by request content.
	CacheSize int
}

// Observer hears of every request a scorer made: its outcome, how long it
// took, and the answer (with its token usage) when there is one.
type Observer func(outcome Outcome, took time.Duration, resp *toolcall.ChatResponse)

// Guard enforces a rule's limits for the judge scorers of the rule. It is
// safe for concurrent use.
type Guard struct {
	next     toolcall.Completer
	limits   Limits
	slots    chan struct{}
	waiting  atomic.Int64
	requests *rate.Limiter
	tokens   *rate.Limiter
	now      func() time.Time

	mu       sync.Mutex
	cache    map[[32]byte]*list.Element
	lru      list.List
	inflight map[[32]byte]*inflight
}

type cached struct {
	key  [32]byte
	resp toolcall.ChatResponse
}

type inflight struct {
	done chan struct{}
	resp toolcall.ChatResponse
	err  error
}

// NewGuard bounds the requests sent to next.
func NewGuard(next toolcall.Completer, l Limits) *Guard {
	g := &Guard{next: next, limits: l, now: time.Now, cache: map[[32]byte]*list.Element{}, inflight: map[[32]byte]*inflight{}}
	g.slots = make(chan struct{}, max(l.MaxConcurrent, 1))
	if l.RequestsPerMinute > 0 {
		g.requests = rate.NewLimiter(rate.Limit(float64(l.RequestsPerMinute)/60), l.RequestsPerMinute)
	}
	if l.TokensPerMinute > 0 {
		g.tokens = rate.NewLimiter(rate.Limit(float64(l.TokensPerMinute)/60), l.TokensPerMinute)
	}
	return g
}

// For returns the Completer one scorer uses: the guard's, reporting to obs.
func (g *Guard) For(obs Observer) toolcall.Completer { return observed{g: g, obs: obs} }

type observed struct {
	g   *Guard
	obs Observer
}

func (o observed) Complete(ctx context.Context, req toolcall.ChatRequest) (toolcall.ChatResponse, error) {
	start := time.Now()
	resp, outcome, err := o.g.complete(ctx, req)
	if o.obs != nil {
		var r *toolcall.ChatResponse
		if err == nil {
			r = &resp
		}
		o.obs(outcome, time.Since(start), r)
	}
	if err != nil && notJudged(outcome, err) {
		// The run was not judged: it is not_evaluated, not an error.
		err = fmt.Errorf("%w: the judge did not answer: %w", toolcall.ErrJudgeSkipped, err)
	}
	return resp, err
}

// notJudged reports a request that ended without a verdict for want of a
// judge: the wait ran out (score_timeout, Shutdown) or the judge was
// unavailable (an error with Unavailable() true: unreachable, 429, 5xx).
func notJudged(outcome Outcome, err error) bool {
	if outcome == OutcomeTimeout {
		return true
	}
	var u interface{ Unavailable() bool }
	return outcome == OutcomeError && errors.As(err, &u) && u.Unavailable()
}

// errBudget builds the error of a request that was not sent.
func errBudget(format string, args ...any) error {
	return fmt.Errorf("%w: budget: %s", toolcall.ErrJudgeSkipped, fmt.Sprintf(format, args...))
}

func (g *Guard) complete(ctx context.Context, req toolcall.ChatRequest) (toolcall.ChatResponse, Outcome, error) {
	key := requestKey(req)
	g.mu.Lock()
	if el, ok := g.cache[key]; ok {
		g.lru.MoveToFront(el)
		resp := el.Value.(*cached).resp
		g.mu.Unlock()
		return resp, OutcomeCacheHit, nil
	}
	if f, ok := g.inflight[key]; ok {
		g.mu.Unlock()
		select {
		case <-f.done:
			if f.err != nil {
				return toolcall.ChatResponse{}, outcomeOf(ctx, f.err), f.err
			}
			return f.resp, OutcomeCacheHit, nil
		case <-ctx.Done():
			return toolcall.ChatResponse{}, OutcomeTimeout, ctx.Err()
		}
	}
	f := &inflight{done: make(chan struct{})}
	g.inflight[key] = f
	g.mu.Unlock()

	resp, outcome, err := g.send(ctx, req)
	f.resp, f.err = resp, err
	g.mu.Lock()
	delete(g.inflight, key)
	if err == nil {
		g.store(key, resp)
	}
	g.mu.Unlock()
	close(f.done)
	return resp, outcome, err
}

// send spends the budgets, waits for a slot and sends the request. Budget
// spent on a request that is then not sent is given back.
func (g *Guard) send(ctx context.Context, req toolcall.ChatRequest) (toolcall.ChatResponse, Outcome, error) {
	now := g.now()
	var spent []*rate.Reservation
	refund := func() {
		for _, r := range spent {
			r.CancelAt(now)
		}
	}
	if g.requests != nil {
		r := g.requests.ReserveN(now, 1)
		if !r.OK() || r.DelayFrom(now) > 0 {
			r.CancelAt(now)
			return toolcall.ChatResponse{}, OutcomeBudget, errBudget("requests_per_minute (%d) spent", g.limits.RequestsPerMinute)
		}
		spent = append(spent, r)
	}
	if g.tokens != nil {
		r := g.tokens.ReserveN(now, estimateTokens(req))
		if !r.OK() || r.DelayFrom(now) > 0 {
			r.CancelAt(now)
			refund()
			return toolcall.ChatResponse{}, OutcomeBudget, errBudget("tokens_per_minute (%d) spent", g.limits.TokensPerMinute)
		}
		spent = append(spent, r)
	}
	select {
	case g.slots <- struct{}{}:
	default:
		if g.waiting.Add(1) > int64(g.limits.QueueSize) {
			g.waiting.Add(-1)
			refund()
			return toolcall.ChatResponse{}, OutcomeBudget, errBudget("%d requests in flight and the queue of %d is full", cap(g.slots), g.limits.QueueSize)
		}
		select {
		case g.slots <- struct{}{}:
			g.waiting.Add(-1)
		case <-ctx.Done():
			g.waiting.Add(-1)
			refund()
			return toolcall.ChatResponse{}, OutcomeTimeout, fmt.Errorf("waiting for a judge slot: %w", ctx.Err())
		}
	}
	defer func() { <-g.slots }()
	resp, err := g.next.Complete(ctx, req)
	if err != nil {
		return resp, outcomeOf(ctx, err), err
	}
	return resp, OutcomeOK, nil
}

func outcomeOf(ctx context.Context, err error) Outcome {
	switch {
	case errors.Is(err, toolcall.ErrJudgeSkipped):
		return OutcomeBudget
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled), ctx.Err() != nil:
		return OutcomeTimeout
	}
	return OutcomeError
}

// store caches an answer, dropping the least recently used past the size.
func (g *Guard) store(key [32]byte, resp toolcall.ChatResponse) {
	if g.limits.CacheSize <= 0 {
		return
	}
	g.cache[key] = g.lru.PushFront(&cached{key: key, resp: resp})
	for g.lru.Len() > g.limits.CacheSize {
		old := g.lru.Back()
		g.lru.Remove(old)
		delete(g.cache, old.Value.(*cached).key)
	}
}

// requestKey hashes everything a request sends, so the same context, model
// (one guard per rule and judge) and prompt give the same key.
func requestKey(req toolcall.ChatRequest) [32]byte {
	b, _ := json.Marshal(req)
	return sha256.Sum256(b)
}

// estimateTokens estimates a request's tokens: prompt bytes / 4 plus the
// answer's bound.
func estimateTokens(req toolcall.ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	return n/4 + max(req.MaxTokens, 0) + 1
}
