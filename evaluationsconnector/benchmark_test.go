package evaluationsconnector

import (
	"context"
	"fmt"
	"testing"

	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/evaluation"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/metadata"
)

// benchBatch is 100 spans of a GenAI service, as a batch reaches the
// connector: each with a dozen attributes and an exception event, and one
// span in every evaluated (1 in 100 by default) an agent span annotated by
// the processor (two rules, events and attributes).
func benchBatch(evaluated int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "travel")
	rs.Resource().Attributes().PutStr("deployment.environment.name", "prod")
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	for i := range 100 {
		s := spans.AppendEmpty()
		s.SetName("chat gpt-4o")
		s.SetTraceID(pcommon.TraceID{byte(i + 1)})
		s.SetSpanID(pcommon.SpanID{byte(i + 1)})
		a := s.Attributes()
		for k := range 10 {
			a.PutStr(fmt.Sprintf("app.attribute_%d", k), "value")
		}
		a.PutStr("gen_ai.operation.name", "chat")
		a.PutStr("gen_ai.request.model", "gpt-4o")
		e := s.Events().AppendEmpty()
		e.SetName("exception")
		if evaluated > 0 && i%evaluated == 0 {
			annotate(s)
		}
	}
	return td
}

// annotate makes s an agent span as the processor annotates it.
func annotate(s ptrace.Span) {
	a := s.Attributes()
	a.PutStr("gen_ai.agent.name", "weather")
	for _, rule := range []string{"paris_trip", "stock"} {
		p := "tool_call_accuracy." + rule + "."
		a.PutStr(p+"scorer", "native")
		a.PutStr(p+"outcome", "fail")
		a.PutDouble(p+"score", 0.5)
		a.PutStr(p+"explanation", "score 0.5: 1 of 2 expected calls matched; missing lookup_stock")
		st := a.PutEmptyMap(p + "call_statuses")
		st.PutEmptySlice("matched").AppendEmpty().SetStr("get_weather")
		st.PutEmptySlice("missing").AppendEmpty().SetStr("lookup_stock")
		e := s.Events().AppendEmpty()
		e.SetName(evaluation.EventName)
		e.Attributes().PutStr(evaluation.AttrName, rule+"/native")
		e.Attributes().PutStr(evaluation.AttrRule, rule)
		e.Attributes().PutStr(evaluation.AttrScorer, "native")
		e.Attributes().PutDouble(evaluation.AttrScore, 0.5)
		e.Attributes().PutStr(evaluation.AttrLabel, "fail")
		e.Attributes().PutStr(evaluation.AttrExplanation, "score 0.5: 1 of 2 expected calls matched; missing lookup_stock")
	}
}

// BenchmarkConsumeTraces: a batch of 100 spans through each connector,
// reported per span; "none" has no evaluation (the cost every other span
// pays), "1%" one agent span in 100, "all" every span.
func BenchmarkConsumeTraces(b *testing.B) {
	for _, signal := range []string{"logs", "metrics"} {
		for _, mix := range []struct {
			name      string
			evaluated int
			attrs     bool
		}{
			{"none", 0, false},
			{"none/processor_attributes", 0, true},
			{"1%", 100, false},
			{"all", 1, false},
		} {
			b.Run(signal+"/"+mix.name, func(b *testing.B) {
				cfg := createDefaultConfig().(*Config)
				cfg.ProcessorAttributes = mix.attrs
				f := NewFactory()
				set := connectortest.NewNopSettings(metadata.Type)
				var c connector.Traces
				var err error
				if signal == "logs" {
					c, err = f.CreateTracesToLogs(context.Background(), set, cfg, consumertest.NewNop())
				} else {
					c, err = f.CreateTracesToMetrics(context.Background(), set, cfg, consumertest.NewNop())
				}
				if err != nil {
					b.Fatal(err)
				}
				td := benchBatch(mix.evaluated)
				spans := td.SpanCount()
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if err := c.ConsumeTraces(ctx, td); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*spans), "ns/span")
				if err := c.Shutdown(ctx); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}
