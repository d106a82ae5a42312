package ordinaryspan

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestFillHoldsNoGenAIKey pins the span's shape: ten HTTP attributes, none
// of a GenAI convention's namespaces, so that it stays the ordinary span the
// processor passes through.
func TestFillHoldsNoGenAIKey(t *testing.T) {
	s := ptrace.NewSpan()
	Fill(s)
	if s.Name() != Name || s.Kind() != ptrace.SpanKindServer {
		t.Fatalf("name %q kind %v", s.Name(), s.Kind())
	}
	if n := s.Attributes().Len(); n != 10 {
		t.Fatalf("%d attributes, want 10", n)
	}
	for k := range s.Attributes().All() {
		for _, p := range []string{"gen_ai.", "llm.", "openinference.", "traceloop.", "ai.", "langsmith.", "input.", "output."} {
			if len(k) >= len(p) && k[:len(p)] == p {
				t.Errorf("attribute %q is in the GenAI namespace %q", k, p)
			}
		}
	}
}
