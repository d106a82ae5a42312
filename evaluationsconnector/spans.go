package evaluationsconnector // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector"

import (
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/evaluation"
)

// forEachEvaluated calls f with each span of td that may carry evaluations
// (r.Has), its resource spans and their index. Every other span costs a look
// at its events.
func forEachEvaluated(td ptrace.Traces, r evaluation.Reader, f func(i int, rs ptrace.ResourceSpans, span ptrace.Span)) {
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			spans := sss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				if span := spans.At(k); r.Has(span) {
					f(i, rs, span)
				}
			}
		}
	}
}
