package toolcallaccuracyprocessor

import (
	"context"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"
)

// BenchmarkLogsPipeline is the logs side of the processor per record: a
// batch of 100 application records that witness nothing (no event name,
// four attributes), and the contrib instrumentation's 21 records of one
// run under fresh trace ids (their spans never arrive: each waits in the
// pending table, the oldest dropped past max_pending_records: the cost of
// reading, copying and keeping them); and Codex's log requests of one run
// (codex.tool_result and codex.tool_decision among its other records), the
// same way: its calls' records wait in the call table.
func BenchmarkLogsPipeline(b *testing.B) {
	app := plog.NewLogs()
	sl := app.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty()
	for range 100 {
		lr := sl.LogRecords().AppendEmpty()
		lr.Body().SetStr("GET /health 200")
		for _, k := range []string{"http.route", "http.method", "user.id", "code.function"} {
			lr.Attributes().PutStr(k, "x")
		}
	}
	_, lds := readLogCapture(b, "openai-sdk-otel-contrib-manual-batch")
	runs := make([]plog.Logs, 1024)
	for i := range runs {
		runs[i] = plog.NewLogs()
		lds[0].CopyTo(runs[i])
		for _, rl := range runs[i].ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					id := lr.TraceID()
					id[0], id[1] = byte(i), byte(i>>8)
					lr.SetTraceID(id)
				}
			}
		}
	}
	codex := codingLogs(b, "codex-exec-mock")
	codexRuns := make([]plog.Logs, 1024)
	for i := range codexRuns {
		codexRuns[i] = plog.NewLogs()
		for _, ld := range codex {
			c := plog.NewLogs()
			ld.CopyTo(c)
			c.ResourceLogs().MoveAndAppendTo(codexRuns[i].ResourceLogs())
		}
		for _, rl := range codexRuns[i].ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					id := lr.TraceID()
					id[0], id[1] = byte(i), byte(i>>8)
					lr.SetTraceID(id)
				}
			}
		}
	}
	for _, c := range []struct {
		name string
		lds  []plog.Logs
	}{{"app_records", []plog.Logs{app}}, {"contrib_openai_run", runs}, {"codex_run", codexRuns}} {
		b.Run(c.name, func(b *testing.B) {
			cfg := benchConfig()
			set := processortest.NewNopSettings(NewFactory().Type())
			p, err := NewFactory().CreateLogs(context.Background(), set, cfg, consumertest.NewNop())
			if err != nil {
				b.Fatal(err)
			}
			if err := p.Start(context.Background(), componenttest.NewNopHost()); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = p.Shutdown(context.Background()) })
			n := c.lds[0].LogRecordCount()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := p.ConsumeLogs(context.Background(), c.lds[i%len(c.lds)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
		})
	}
}
