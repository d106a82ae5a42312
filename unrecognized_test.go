package toolcallaccuracyprocessor

import (
	"path/filepath"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadatatest"
)

// TestUnrecognizedSpansByService: a span that names a tool but records
// neither its id, input nor output counts in unrecognized_spans under its
// service; the captures' tool, agent, model and skipped spans do not, and
// the span still goes out.
func TestUnrecognizedSpansByService(t *testing.T) {
	h := newHarness(t, parisConfig(t))
	in := readTraceFile(t, filepath.Join("testdata", "traces", "captures", "voltagent-mock-simple.otlp.jsonl"))
	in = append(in, readTraceFile(t, filepath.Join("testdata", "traces", "captures", "adk-go-mock.otlp.jsonl"))...)
	odd := ptrace.NewTraces()
	rs := odd.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "newfw")
	for i := range 2 {
		s := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		s.SetTraceID([16]byte{1, byte(i)})
		s.SetSpanID([8]byte{1, byte(i)})
		s.SetName("call tool")
		s.Attributes().PutStr("tool.name", "get_weather")
	}
	in = append(in, odd)
	out := h.run(t, cloneAll(in))
	assertConserved(t, in, out)
	metadatatest.AssertEqualProcessorToolCallAccuracyUnrecognizedSpans(t, h.tel, []metricdata.DataPoint[int64]{
		{Value: 2, Attributes: attrs("service", "newfw")},
	}, metricdatatest.IgnoreTimestamp())
}
