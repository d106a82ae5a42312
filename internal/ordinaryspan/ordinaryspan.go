// Package ordinaryspan builds the ordinary (non-GenAI) span of the load
// generator's mix: an HTTP server span with ten attributes of the HTTP
// semantic conventions. The micro-benchmarks measure the processor on the
// same span, so that their figures and the end-to-end ones describe one
// traffic.
package ordinaryspan // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/ordinaryspan"

import "go.opentelemetry.io/collector/pdata/ptrace"

// Name is the ordinary span's name.
const Name = "GET /api/orders"

// Fill sets s's name, kind and attributes to the ordinary span's. It does
// not touch the ids.
func Fill(s ptrace.Span) {
	s.SetName(Name)
	s.SetKind(ptrace.SpanKindServer)
	a := s.Attributes()
	a.EnsureCapacity(10)
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
}
