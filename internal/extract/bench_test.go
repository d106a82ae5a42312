package extract

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// ordinaryBenchSpan is an HTTP server span with ten ordinary attributes,
// like the end-to-end benchmark's ordinary spans.
func ordinaryBenchSpan() (ptrace.Span, ptrace.ScopeSpans) {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	s := ss.Spans().AppendEmpty()
	s.SetName("GET /api/orders")
	a := s.Attributes()
	a.PutStr("http.request.method", "GET")
	a.PutStr("url.path", "/api/orders")
	a.PutInt("http.response.status_code", 200)
	a.PutStr("server.address", "orders.internal")
	a.PutInt("server.port", 8080)
	a.PutStr("network.protocol.version", "1.1")
	a.PutStr("user_agent.original", "curl/8.5.0")
	a.PutStr("client.address", "10.0.0.12")
	a.PutStr("http.route", "/api/orders")
	a.PutStr("url.scheme", "https")
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
