package main

import (
	"context"
	"strconv"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/loadgen"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadata"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

// BenchmarkProcessorUnderLoad is the processor's share of the end-to-end
// benchmark (tools/bench/e2e.sh) without the collector around it: the
// traffic `toolscore load` sends there (the demo captures under fresh ids
// among ordinary HTTP spans, requests of 100 spans, runs whole) through
// the processor configured as tools/bench/pipelines.yaml configures it,
// into a consumer that drops everything. One op is one request; ns/span
// (elapsed) and cpu-ns/span (the process's CPU time, every thread's) are
// what the processor takes per span, garbage collection of what it
// allocated included. The requests are built with the timer
// stopped.
//
// The goroutine-per-request cases consume each request on a goroutine of
// its own, as the OTLP receiver's gRPC server does, and as deep as it
// calls the processor: a new goroutine starts with a small stack, so what
// the processor's calls need beyond what is left is grown (copied) per
// request, a cost the cases on one long-lived goroutine never see.
func BenchmarkProcessorUnderLoad(b *testing.B) {
	for _, bc := range []struct {
		share     float64
		goroutine bool
	}{{0.1, false}, {1, false}, {0.1, true}, {1, true}} {
		name := "genai=" + strconv.FormatFloat(bc.share, 'g', -1, 64)
		if bc.goroutine {
			name = "goroutine-per-request," + name
		}
		share := bc.share
		b.Run(name, func(b *testing.B) {
			cfg, templates, groups := benchTraffic(b)
			ctx := context.Background()
			set := processortest.NewNopSettings(metadata.Type)
			proc, err := toolcallaccuracyprocessor.NewFactory().CreateTraces(ctx, set, cfg, consumertest.NewNop())
			if err != nil {
				b.Fatal(err)
			}
			if err := proc.Start(ctx, componenttest.NewNopHost()); err != nil {
				b.Fatal(err)
			}
			defer func() { _ = proc.Shutdown(ctx) }()
			tr := loadgen.NewTraffic(loadgen.Config{Batch: 100, Share: share}, templates, groups, 1)
			const chunk = 64
			reqs := make([]ptrace.Traces, 0, chunk)
			var spans int64
			var timed, cpu time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			b.StopTimer()
			for done := 0; done < b.N; done += chunk {
				reqs = reqs[:0]
				for len(reqs) < min(chunk, b.N-done) {
					rb, state := tr.Next(0, 0)
					if state != loadgen.NextRequest {
						b.Fatalf("traffic stopped: %v", state)
					}
					reqs = append(reqs, rb.TD)
					spans += int64(rb.Spans)
				}
				b.StartTimer()
				start, startCPU := time.Now(), processCPU(b)
				for _, td := range reqs {
					if err := consume(ctx, proc, td, bc.goroutine); err != nil {
						b.Fatal(err)
					}
				}
				timed += time.Since(start)
				cpu += processCPU(b) - startCPU
				b.StopTimer()
			}
			b.ReportMetric(float64(timed.Nanoseconds())/float64(spans), "ns/span")
			if cpu > 0 { // not measured where processCPU cannot read it
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(spans), "cpu-ns/span")
			}
		})
	}
}

// benchTraffic is the end-to-end benchmark's processor configuration
// (tools/bench/pipelines.yaml) and its traffic's templates: the demo
// captures among ordinary HTTP spans.
func benchTraffic(tb testing.TB) (*toolcallaccuracyprocessor.Config, []*loadgen.Template, []loadgen.SpanGroup) {
	tb.Setenv("BENCH_GRPC_PORT", "14317")
	_, cfg, err := loadProcessorConfig([]string{"../../tools/bench/pipelines.yaml"}, "")
	if err != nil {
		tb.Fatal(err)
	}
	docs, err := otlpjson.ReadFiles(demoTraces(tb)...)
	if err != nil {
		tb.Fatal(err)
	}
	groups := []loadgen.SpanGroup{loadgen.OrdinaryGroup()}
	templates, err := loadgen.ReadTemplates(docs, &groups)
	if err != nil {
		tb.Fatal(err)
	}
	return cfg, templates, groups
}

// consume has proc consume td, on a goroutine of its own when fresh is set,
// called as deep as the OTLP receiver calls it (see TestStackBudget).
func consume(ctx context.Context, proc consumer.Traces, td ptrace.Traces, fresh bool) error {
	if !fresh {
		return proc.ConsumeTraces(ctx, td)
	}
	done := make(chan error, 1)
	go func() {
		var top byte
		loadgen.AtDepth(&top, loadgen.ReceiverDepth, func() { done <- proc.ConsumeTraces(ctx, td) })
	}()
	return <-done
}
