package judgelimits

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// countingJudge answers every request, after release is closed when set.
type countingJudge struct {
	sent    atomic.Int64
	release chan struct{}
	started chan struct{}
}

func (j *countingJudge) Complete(ctx context.Context, req toolcall.ChatRequest) (toolcall.ChatResponse, error) {
	j.sent.Add(1)
	if j.started != nil {
		j.started <- struct{}{}
	}
	if j.release != nil {
		select {
		case <-j.release:
		case <-ctx.Done():
			return toolcall.ChatResponse{}, ctx.Err()
		}
	}
	return toolcall.ChatResponse{Content: "answer to " + req.Messages[0].Content, InputTokens: 10, OutputTokens: 2}, nil
}

func request(i int) toolcall.ChatRequest {
	return toolcall.ChatRequest{Messages: []toolcall.ChatMessage{{Role: "user", Content: fmt.Sprintf("run %d", i)}}, MaxTokens: 100}
}

type outcomes struct {
	mu sync.Mutex
	n  [NumOutcomes]int
}

func (o *outcomes) observe(out Outcome, _ time.Duration, _ *toolcall.ChatResponse) {
	o.mu.Lock()
	o.n[out]++
	o.mu.Unlock()
}

// TestRequestBudget: 1,000 runs against a budget of 50 requests a minute:
// exactly 50 requests go out; the rest are not sent and count as budget.
func TestRequestBudget(t *testing.T) {
	judge := &countingJudge{}
	g := NewGuard(judge, Limits{MaxConcurrent: 4, QueueSize: 1000, RequestsPerMinute: 50})
	var o outcomes
	c := g.For(o.observe)
	skipped := 0
	for i := 0; i < 1000; i++ {
		_, err := c.Complete(context.Background(), request(i))
		if err != nil {
			require.ErrorIs(t, err, toolcall.ErrJudgeSkipped)
			assert.Contains(t, err.Error(), "requests_per_minute (50) spent")
			skipped++
		}
	}
	assert.Equal(t, int64(50), judge.sent.Load())
	assert.Equal(t, 950, skipped)
	assert.Equal(t, [NumOutcomes]int{OutcomeOK: 50, OutcomeBudget: 950}, o.n)
}

func TestTokenBudget(t *testing.T) {
	judge := &countingJudge{}
	g := NewGuard(judge, Limits{MaxConcurrent: 1, TokensPerMinute: 250})
	c := g.For(nil)
	_, err := c.Complete(context.Background(), request(1)) // ~102 tokens
	require.NoError(t, err)
	_, err = c.Complete(context.Background(), request(2))
	require.NoError(t, err)
	_, err = c.Complete(context.Background(), request(3))
	require.ErrorIs(t, err, toolcall.ErrJudgeSkipped)
	assert.Contains(t, err.Error(), "tokens_per_minute (250) spent")
	assert.Equal(t, int64(2), judge.sent.Load())
}

// TestSameRequestSentOnce: the same run twice sends one request; identical
// requests in flight at once share one.
func TestSameRequestSentOnce(t *testing.T) {
	judge := &countingJudge{release: make(chan struct{})}
	g := NewGuard(judge, Limits{MaxConcurrent: 4, QueueSize: 4, CacheSize: 16})
	var o outcomes
	c := g.For(o.observe)
	var wg sync.WaitGroup
	answers := make([]string, 3)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Complete(context.Background(), request(7))
			assert.NoError(t, err)
			answers[i] = resp.Content
		}()
	}
	require.Eventually(t, func() bool { return judge.sent.Load() == 1 }, time.Second, time.Millisecond)
	time.Sleep(10 * time.Millisecond)
	close(judge.release)
	wg.Wait()
	resp, err := c.Complete(context.Background(), request(7))
	require.NoError(t, err)
	assert.Equal(t, "answer to run 7", resp.Content)
	assert.Equal(t, []string{"answer to run 7", "answer to run 7", "answer to run 7"}, answers)
	assert.Equal(t, int64(1), judge.sent.Load())
	assert.Equal(t, [NumOutcomes]int{OutcomeOK: 1, OutcomeCacheHit: 3}, o.n)
}

func TestCacheIsBounded(t *testing.T) {
	judge := &countingJudge{}
	g := NewGuard(judge, Limits{CacheSize: 2})
	c := g.For(nil)
	for _, i := range []int{1, 2, 3, 1} {
		_, err := c.Complete(context.Background(), request(i))
		require.NoError(t, err)
	}
	assert.Equal(t, int64(4), judge.sent.Load(), "run 1 was dropped from a cache of 2")
	assert.Len(t, g.cache, 2)
}

// TestQueueBound: with one slot and a queue of one, a third request at
// once is not sent; a queued request that outlives its context times out.
func TestQueueBound(t *testing.T) {
	judge := &countingJudge{release: make(chan struct{}), started: make(chan struct{}, 4)}
	g := NewGuard(judge, Limits{MaxConcurrent: 1, QueueSize: 1})
	var o outcomes
	c := g.For(o.observe)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _, _ = c.Complete(context.Background(), request(1)) }()
	<-judge.started
	go func() { defer wg.Done(); _, _ = c.Complete(context.Background(), request(2)) }()
	require.Eventually(t, func() bool { return g.waiting.Load() == 1 }, time.Second, time.Millisecond)
	_, err := c.Complete(context.Background(), request(3))
	require.ErrorIs(t, err, toolcall.ErrJudgeSkipped)
	assert.Contains(t, err.Error(), "queue of 1 is full")
	close(judge.release)
	wg.Wait()
	assert.Equal(t, int64(2), judge.sent.Load())

	slow := &countingJudge{release: make(chan struct{}), started: make(chan struct{}, 4)}
	g = NewGuard(slow, Limits{MaxConcurrent: 1, QueueSize: 1})
	c = g.For(o.observe)
	go func() { _, _ = c.Complete(context.Background(), request(1)) }()
	<-slow.started
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = c.Complete(ctx, request(2))
	require.True(t, errors.Is(err, context.DeadlineExceeded))
	close(slow.release)
	assert.Equal(t, 1, o.n[OutcomeTimeout])
}
