package toolcallaccuracyprocessor

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// verdicts lists what the annotated spans of td say of each rule (score,
// outcome, missing and unexpected tools), wherever the verdict is written.
func verdicts(td ptrace.Traces) []string {
	var out []string
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				rules, ok := s.Attributes().Get(attrRules)
				if !ok {
					continue
				}
				for _, r := range rules.Slice().All() {
					prefix := attrPrefix + r.Str() + "."
					score, _ := s.Attributes().Get(prefix + "score")
					outcome, _ := s.Attributes().Get(prefix + "outcome")
					out = append(out, fmt.Sprintf("%s %s %s missing=%v unexpected=%v", r.Str(), score.AsString(), outcome.Str(),
						stringSlice(s.Attributes(), prefix+"missing_tools"), stringSlice(s.Attributes(), prefix+"unexpected_tools")))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// modelClientCaptures are apps instrumented only at their model client: an
// ordinary request span above the model calls, no agent span. The captured
// request-span apps, and the agent-span captures of the same loop with
// their root made an app's request span (asRequest).
var modelClientCaptures = []struct {
	file      string
	asRequest bool
}{
	{"captures/openai-sdk-openllmetry-request-simple.otlp.jsonl", false},
	{"captures/openai-sdk-openinference-request-simple.otlp.jsonl", false},
	{"captures/openai-sdk-openllmetry-manual-simple.otlp.jsonl", true},
	{"captures/openai-sdk-openinference-manual-simple.otlp.jsonl", true},
}

// asRequestSpan makes the trace roots of batches ordinary app spans (no
// GenAI or OpenInference attributes), as an app's own request span is.
func asRequestSpan(batches []ptrace.Traces) {
	for _, td := range batches {
		for _, s := range allSpans(td) {
			if s.ParentSpanID().IsEmpty() {
				s.SetName("handle_request")
				s.Attributes().Clear()
				s.Attributes().PutStr("http.route", "/ask")
			}
		}
	}
}

// TestModelClientRunsScoredWhateverTheOrder: a model-client-only app's
// spans, each exported on its own, arrive in any order, the root first
// among them: every run is scored, with the verdict of in-order delivery,
// written on the root when it comes last and on a span of the run when the
// root passed first.
func TestModelClientRunsScoredWhateverTheOrder(t *testing.T) {
	orders := 0
	rootFirst := 0
	for _, c := range modelClientCaptures {
		file := c.file
		t.Run(file, func(t *testing.T) {
			in := cloneAll(readTraceFile(t, filepath.Join("testdata", "traces", file)))
			if c.asRequest {
				asRequestSpan(in)
			}
			spans := splitSpans(in)
			cfg := parisConfig(t)
			want := verdicts(feedInOrder(t, cfg, nil, cloneAll(spans)))
			require.NotEmpty(t, want, "scored in order")
			before := cloneAll(in)
			for _, td := range before {
				otherTraceIDs(td)
			}
			r := rand.New(rand.NewPCG(37, uint64(len(file))))
			for range 60 {
				order := r.Perm(len(spans))
				batches := make([]ptrace.Traces, len(order))
				for i, k := range order {
					batches[i] = cloneAll(spans[k : k+1])[0]
				}
				if batches[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).ParentSpanID().IsEmpty() {
					rootFirst++
				}
				got := feedInOrder(t, cfg, cloneAll(before), batches)
				require.Equal(t, len(spans), got.SpanCount(), "every span goes out once")
				require.Equal(t, want, verdicts(got), "order %v", order)
				orders++
			}
		})
	}
	t.Logf("FIGURES %d span orders of %d model-client captures (%d with the root first) gave the in-order verdicts", orders, len(modelClientCaptures), rootFirst)
}
