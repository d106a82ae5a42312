package ordinaryspan

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// TestFillIsOrdinary pins the span's shape: ten HTTP attributes, and the
// processor's classification passes it over as ordinary, so that it stays
// the span the benchmarks measure as non-GenAI.
func TestFillIsOrdinary(t *testing.T) {
	s := ptrace.NewSpan()
	Fill(s)
	if s.Name() != Name || s.Kind() != ptrace.SpanKindServer {
		t.Fatalf("name %q kind %v", s.Name(), s.Kind())
	}
	if n := s.Attributes().Len(); n != 10 {
		t.Fatalf("%d attributes, want 10", n)
	}
	if !extract.Ordinary(s) {
		t.Fatal("the ordinary span is classified as a GenAI span")
	}
}
