package toolcallaccuracyprocessor

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"
)

// FuzzConsumeTraces feeds arbitrary OTLP JSON to started processors (one
// scoring at once, one holding agent spans) and checks that nothing panics
// and that every span that goes in comes out. Seeds are every bundled trace.
func FuzzConsumeTraces(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "traces", "*", "*"))
	for _, file := range files {
		fh, err := os.Open(file)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				f.Add([]byte(line))
			}
		}
		fh.Close()
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.call.arguments","value":{"kvlistValue":{"values":[{"key":"a","value":{"arrayValue":{}}}]}}}]}]}]}]}`))

	cfg := loadConfig(f, filepath.Join("testdata", "golden", "config.yaml"), "paris")
	held := *cfg
	held.Wait = time.Millisecond
	type target struct {
		proc interface {
			ConsumeTraces(context.Context, ptrace.Traces) error
		}
		sink *spanCounter
	}
	var targets []target
	for _, c := range []*Config{cfg, &held} {
		sink := new(spanCounter)
		p, err := NewFactory().CreateTraces(context.Background(), processortest.NewNopSettings(NewFactory().Type()), c, sink)
		if err != nil {
			f.Fatal(err)
		}
		if err := p.Start(context.Background(), componenttest.NewNopHost()); err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { _ = p.Shutdown(context.Background()) })
		targets = append(targets, target{proc: p, sink: sink})
	}
	var u ptrace.JSONUnmarshaler
	f.Fuzz(func(t *testing.T, data []byte) {
		td, err := u.UnmarshalTraces(data)
		if err != nil {
			return
		}
		want := td.SpanCount()
		// The immediate processor must pass every span on in the same call.
		in := ptrace.NewTraces()
		td.CopyTo(in)
		before := targets[0].sink.spans.Load()
		if err := targets[0].proc.ConsumeTraces(context.Background(), in); err != nil {
			t.Fatalf("ConsumeTraces: %v", err)
		}
		if got := int(targets[0].sink.spans.Load() - before); got != want {
			t.Fatalf("spans in %d, out %d", want, got)
		}
		// The holding processor may keep agent spans back; it must not fail.
		if err := targets[1].proc.ConsumeTraces(context.Background(), td); err != nil {
			t.Fatalf("ConsumeTraces (wait): %v", err)
		}
	})
}

// spanCounter is a consumer that counts spans and keeps nothing, so long
// fuzzing runs do not accumulate memory.
type spanCounter struct {
	spans atomic.Int64
}

func (c *spanCounter) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (c *spanCounter) ConsumeTraces(_ context.Context, td ptrace.Traces) error {
	c.spans.Add(int64(td.SpanCount()))
	return nil
}
