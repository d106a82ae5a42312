package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// annotations are what the processor wrote on one span: its
// tool_call_accuracy.* attributes and evaluation events. A copy is kept for
// runs whose span may come again (a batch refused downstream, a held span),
// so that the retried span gets the same scores without scoring, or
// counting, its run twice. Annotations are not changed once made.
type annotations struct {
	attrs  pcommon.Map
	events ptrace.SpanEventSlice
}

// copyAnnotations copies the processor's annotations of span, or returns nil
// when the span carries none.
func copyAnnotations(span ptrace.Span) *annotations {
	if _, ok := span.Attributes().Get(attrRules); !ok {
		return nil
	}
	a := &annotations{attrs: pcommon.NewMap(), events: ptrace.NewSpanEventSlice()}
	for k, v := range span.Attributes().All() {
		if strings.HasPrefix(k, attrPrefix) {
			v.CopyTo(a.attrs.PutEmpty(k))
		}
	}
	for _, e := range span.Events().All() {
		if e.Name() == eventEvaluation {
			e.CopyTo(a.events.AppendEmpty())
		}
	}
	return a
}

// writeTo annotates span as the run was annotated before, unless the span
// already carries annotations (the same pdata sent again).
func (a *annotations) writeTo(span ptrace.Span) {
	if _, ok := span.Attributes().Get(attrRules); ok {
		return
	}
	attrs := span.Attributes()
	attrs.EnsureCapacity(attrs.Len() + a.attrs.Len())
	for k, v := range a.attrs.All() {
		v.CopyTo(attrs.PutEmpty(k))
	}
	for _, e := range a.events.All() {
		e.CopyTo(span.Events().AppendEmpty())
	}
}

// runKey names an agent (or root) span.
type runKey struct {
	trace pcommon.TraceID
	span  pcommon.SpanID
}

// replayCache keeps the annotations of recent runs whose span may come
// again, first in first out: at most limit entries, each for at most ttl.
// The processor's mutex guards it.
type replayCache struct {
	limit   int
	ttl     int64
	byRun   map[runKey]*annotations
	entries []replayEntry
	head    int
}

type replayEntry struct {
	key   runKey
	added int64
	a     *annotations
}

func newReplayCache(limit int, ttl int64) *replayCache {
	return &replayCache{limit: limit, ttl: ttl, byRun: make(map[runKey]*annotations)}
}

// len returns how many runs the cache holds.
func (c *replayCache) len() int { return len(c.byRun) }

// put remembers a run's annotations, dropping the oldest past the limit.
func (c *replayCache) put(key runKey, a *annotations, now int64) {
	if a == nil || c.limit <= 0 {
		return
	}
	c.byRun[key] = a
	c.entries = append(c.entries, replayEntry{key: key, added: now, a: a})
	for len(c.byRun) > c.limit {
		c.dropOldest()
	}
}

// get returns a run's annotations, or nil.
func (c *replayCache) get(key runKey) *annotations { return c.byRun[key] }

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
	if c.byRun[e.key] == e.a {
		delete(c.byRun, e.key)
	}
	if c.head > 1024 && c.head > len(c.entries)/2 {
		c.entries = append(c.entries[:0], c.entries[c.head:]...)
		c.head = 0
	}
	if c.head == len(c.entries) {
		c.entries, c.head = c.entries[:0], 0
	}
}
