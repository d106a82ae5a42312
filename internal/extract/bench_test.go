package extract

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/ordinaryspan"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

// ordinaryBenchSpan is an HTTP server span with ten ordinary attributes,
// like the end-to-end benchmark's ordinary spans.
func ordinaryBenchSpan() (ptrace.Span, ptrace.ScopeSpans) {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	s := ss.Spans().AppendEmpty()
	ordinaryspan.Fill(s)
	return s, ss
}

// BenchmarkClassifyOrdinarySpan measures the cost of rejecting a span with
// ten ordinary attributes, the work done on every non-GenAI span.
func BenchmarkClassifyOrdinarySpan(b *testing.B) {
	s, ss := ordinaryBenchSpan()
	opts := &Options{}
	b.ReportAllocs()
	for b.Loop() {
		if Classify(s, ss.Scope(), opts).GenAI {
			b.Fatal("classified as GenAI")
		}
	}
}

// BenchmarkOrdinary measures Ordinary on a span with ten ordinary
// attributes: the processor's whole classification of such a span.
func BenchmarkOrdinary(b *testing.B) {
	s, _ := ordinaryBenchSpan()
	b.ReportAllocs()
	for b.Loop() {
		if !Ordinary(s) {
			b.Fatal("not ordinary")
		}
	}
}

// captureSpan is a span of the demo captures with its scope.
type captureSpan struct {
	span  ptrace.Span
	scope pcommon.InstrumentationScope
}

// demoCaptureSpans reads every span of the demo captures (the load
// benchmark's GenAI traffic).
func demoCaptureSpans(tb testing.TB) []captureSpan {
	tb.Helper()
	files, err := filepath.Glob("../../testdata/demo/traces/*.otlp.jsonl")
	require.NoError(tb, err)
	require.NotEmpty(tb, files)
	docs, err := otlpjson.ReadFiles(files...)
	require.NoError(tb, err)
	var spans []captureSpan
	for _, td := range otlpjson.Traces(docs) {
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					spans = append(spans, captureSpan{s, ss.Scope()})
				}
			}
		}
	}
	return spans
}

// BenchmarkClassifyCaptures classifies every span of the demo captures as
// the processor does (Ordinary, then ClassifyWithContext reading the
// context of model calls, agents and GenAI roots); one op is one span.
func BenchmarkClassifyCaptures(b *testing.B) {
	spans := demoCaptureSpans(b)
	opts := &Options{SkipTools: DefaultSkipTools()}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := &spans[i%len(spans)]
		if Ordinary(s.span) {
			continue
		}
		var part ContextPart
		ClassifyWithContext(s.span, s.scope, opts, s.span.ParentSpanID().IsEmpty(), &part)
	}
}
