package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
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
