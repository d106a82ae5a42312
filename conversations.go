package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// ConversationsConfig assembles runs that span traces: some agents start a
// new trace for every step (Gemini CLI's non-interactive mode: no root
// span, one trace per model call and one per batch of tool calls), tied
// together only by gen_ai.conversation.id. With it on, a run closed by a
// trace root that is not an agent span and carries a conversation id is a
// step: its calls are kept by conversation instead of being scored alone.
// The conversation is one run, scored when a model call that is a trace
// root of the conversation answered without asking for tools and every
// call its request answered has arrived, on the span whose arrival
// completed it (that final model call, or a late step's root). The steps
// may arrive in any order.
type ConversationsConfig struct {
	// Enabled turns conversation assembly on. Default false: a root run
	// with a conversation id is scored on its own.
	Enabled bool `mapstructure:"enabled"`
	// MaxOpen bounds the conversations waiting for their end; past it the
	// oldest is dropped, unscored, and counted in evicted_trajectories
	// (reason max_open_trajectories). Default 1000.
	MaxOpen int `mapstructure:"max_open"`
	// Timeout is how long a conversation waits for its next step; one idle
	// longer is dropped, unscored, and counted in evicted_trajectories
	// (reason max_age). Default 5m.
	Timeout time.Duration `mapstructure:"timeout"`

	_ struct{}
}

func (c *ConversationsConfig) validate() error {
	var errs []error
	if c.MaxOpen < 0 {
		errs = append(errs, fmt.Errorf("conversations.max_open: %d must not be negative", c.MaxOpen))
	}
	if c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("conversations.timeout: %v must not be negative", c.Timeout))
	}
	return errors.Join(errs...)
}

// Defaults of ConversationsConfig.
const (
	defaultConversationsMaxOpen = 1000
	defaultConversationsTimeout = 5 * time.Minute
)

// conversations holds the steps of open conversations. It has its own
// lock: it is used after the store's apply, outside the processor's mutex.
type conversations struct {
	mu       sync.Mutex
	maxOpen  int
	timeout  int64
	maxCalls int
	open     map[string]*conversation
}

// conversation is what has arrived of one: the calls of its steps (each
// step's root span once, so a retried batch adds nothing), and, once its
// final model call arrived, how many calls that call's request answered.
type conversation struct {
	calls    []trajectory.StoredCall
	steps    map[pcommon.SpanID]bool
	final    bool
	answered int
	dropped  int32
	last     int64
}

func newConversations(cfg ConversationsConfig, maxCalls int) *conversations {
	if !cfg.Enabled {
		return nil
	}
	c := &conversations{maxOpen: cfg.MaxOpen, timeout: int64(cfg.Timeout), maxCalls: maxCalls, open: map[string]*conversation{}}
	if c.maxOpen <= 0 {
		c.maxOpen = defaultConversationsMaxOpen
	}
	if c.timeout <= 0 {
		c.timeout = int64(defaultConversationsTimeout)
	}
	return c
}

// assemble takes the steps out of runs (the runs closed by the batch td),
// adds them and the batch's final model calls (root model-call entries) to
// their conversations, and returns runs with the steps left out and the
// conversations the batch completed added, each on the span of the batch
// that completed it. Evictions are added to st.
func (c *conversations) assemble(td ptrace.Traces, entries []entry, runs []closedRun, now int64, st *trajectory.Stats) []closedRun {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now, st)
	touched := map[string]spanRef{}
	out := runs[:0]
	for i := range runs {
		r := runs[i]
		if r.traj == nil || r.hold || r.replay != nil || r.copyOfHeld {
			out = append(out, r)
			continue
		}
		id, ok := stepOf(td, r.ref)
		if !ok {
			out = append(out, r)
			continue
		}
		conv := c.get(id, now, st)
		if !conv.steps[r.agent] {
			conv.steps[r.agent] = true
			conv.add(r.traj, c.maxCalls)
		}
		touched[id] = r.ref
	}
	for i := range entries {
		e := &entries[i]
		if e.modelStart == 0 || !e.parent.IsEmpty() || e.kind != extract.KindOther {
			continue
		}
		_, _, span := e.ref.in(td)
		id := extract.ConversationID(span)
		if id == "" {
			continue
		}
		final, answered, ok := extract.FinalAnswer(span)
		if !ok || !final {
			continue
		}
		conv := c.get(id, now, st)
		conv.final, conv.answered = true, answered
		touched[id] = e.ref
	}
	// In order of conversation id, so that a batch that completes several
	// adds them in the same order whatever the map's.
	ids := make([]string, 0, len(touched))
	for id := range touched {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		conv := c.open[id]
		if conv == nil || !conv.final || len(conv.calls)+int(conv.dropped) < conv.answered {
			continue
		}
		delete(c.open, id)
		ref := touched[id]
		_, _, span := ref.in(td)
		out = append(out, closedRun{ref: ref, agent: span.SpanID(), traj: conv.trajectory()})
	}
	return out
}

// stepOf reports whether the run closed on the span at ref is a step of a
// conversation: its span is a trace root with a conversation id and is not
// an agent span (an agent run is whole in its trace).
func stepOf(td ptrace.Traces, ref spanRef) (string, bool) {
	_, ss, span := ref.in(td)
	if !span.ParentSpanID().IsEmpty() {
		return "", false
	}
	id := extract.ConversationID(span)
	if id == "" {
		return "", false
	}
	if extract.Classify(span, ss.Scope(), &extract.Options{}).Kind == extract.KindAgent {
		return "", false
	}
	return id, true
}

// get returns the open conversation id, opened now when it is not,
// dropping the oldest when maxOpen are open.
func (c *conversations) get(id string, now int64, st *trajectory.Stats) *conversation {
	if conv := c.open[id]; conv != nil {
		conv.last = now
		return conv
	}
	if len(c.open) >= c.maxOpen {
		oldest, at := "", int64(0)
		for k, v := range c.open {
			if oldest == "" || v.last < at || v.last == at && k < oldest {
				oldest, at = k, v.last
			}
		}
		delete(c.open, oldest)
		st.Evicted[trajectory.EvictMaxOpen]++
	}
	conv := &conversation{steps: map[pcommon.SpanID]bool{}, last: now}
	c.open[id] = conv
	return conv
}

// expire drops the conversations idle for longer than the timeout.
func (c *conversations) expire(now int64, st *trajectory.Stats) {
	for id, conv := range c.open {
		if now-conv.last > c.timeout {
			delete(c.open, id)
			st.Evicted[trajectory.EvictMaxAge]++
		}
	}
}

// add keeps a step's calls, at most maxCalls in all; the rest are counted.
func (conv *conversation) add(t *trajectory.Trajectory, maxCalls int) {
	for _, call := range t.Calls {
		if maxCalls > 0 && len(conv.calls) >= maxCalls {
			conv.dropped++
			continue
		}
		conv.calls = append(conv.calls, call)
	}
	conv.dropped += t.Dropped
}

// trajectory is the conversation's run: its calls by start time (then span
// id), whatever order its steps arrived in.
func (conv *conversation) trajectory() *trajectory.Trajectory {
	slices.SortStableFunc(conv.calls, func(a, b trajectory.StoredCall) int {
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		return slices.Compare(a.Span[:], b.Span[:])
	})
	return &trajectory.Trajectory{Calls: conv.calls, Dropped: conv.dropped}
}
