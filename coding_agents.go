package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// addUnexecuted adds, for a span whose output lists calls that never ran
// (Gemini CLI's schedule_tool_calls: calls refused by its policy or naming
// no tool), one tool entry per such call, as if each had a tool span of its
// own under that span (extract.UnexecutedCallSpanID): the calls join the
// run the span belongs to like the calls that ran, which have tool_call
// spans under the same span.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (p *tcaProcessor) addUnexecuted(b *batch, ref spanRef, span ptrace.Span) {
	for k, c := range extract.UnexecutedCalls(span) {
		if p.extractOpts.SkipsTool(c.Name) {
			continue
		}
		e := spanEntry(ref, span)
		e.span, e.parent = extract.UnexecutedCallSpanID(span.SpanID(), k), span.SpanID()
		e.kind, e.genai = extract.KindTool, true
		e.call = int32(len(b.calls))
		b.calls = append(b.calls, c)
		b.entries = append(b.entries, e)
	}
}

// addKeyed completes the entry just added, of a span that names its run by
// run key (Codex: turn.id): a call is attached to the key's span id instead
// of its parent, an agent span gets a link entry from the key's span id to
// itself (applied before it: links rank before agents), and the trace is
// marked keyed, so that its ordinary spans are not kept as links.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func addKeyed(b *batch, span ptrace.Span) {
	res := &b.classified
	key := extract.RunKey(span, res)
	if key == "" {
		return
	}
	e := &b.entries[len(b.entries)-1]
	b.keyed.add(e.trace)
	switch {
	case res.Kind == extract.KindTool:
		e.parent = trajectory.RunKeySpan(key)
	case res.Kind == extract.KindAgent:
		link := *e
		link.kind, link.span, link.parent = extract.KindOther, trajectory.RunKeySpan(key), e.span
		link.context, link.turn, link.modelStart, link.localRoot = 0, 0, 0, false
		b.entries = append(b.entries, link)
	}
}

// markKeyed marks in the store the batch's keyed traces, so that their
// ordinary spans in later batches are not kept as links either. Called
// with p.mu held.
func (p *tcaProcessor) markKeyed(b *batch, now int64) {
	for _, t := range b.keyed.list {
		p.store.MarkKeyed(t, now)
	}
	for t := range b.keyed.index {
		p.store.MarkKeyed(t, now)
	}
}

// keyedTrace reports whether a trace's calls reach their runs by run key:
// its ordinary spans link nothing. Called with p.mu held.
func (p *tcaProcessor) keyedTrace(b *batch, t pcommon.TraceID) bool {
	return b.keyed.has(t) || p.store.Keyed(t)
}
