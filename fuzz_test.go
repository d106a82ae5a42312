package toolcallaccuracyprocessor

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"
)

// Fuzz modes: how a fuzzed batch is bent and how the downstream behaves.
const (
	// fuzzDuplicate appends a copy of every span to the batch (repeated ids).
	fuzzDuplicate = 1 << iota
	// fuzzCycle points the spans of each trace at each other in a ring.
	fuzzCycle
	// fuzzSelfParent makes every span its own parent.
	fuzzSelfParent
	// fuzzFailHeld makes the downstream refuse held spans at first.
	fuzzFailHeld
)

// FuzzConsumeTraces feeds arbitrary OTLP JSON, bent by mode (duplicate,
// cyclic and self-parented span ids), to processors in front of a
// downstream that refuses the first attempt, and checks:
//   - nothing panics;
//   - a refused batch returns the error, and the retry delivers every span
//     of the batch with the annotations a processor that never saw the
//     failure writes (the retried batch gets the same scores);
//   - with wait, under a downstream that refuses sends at random, every span
//     comes out at least once and Shutdown reports no loss once the
//     downstream recovers.
//
// Seeds are every bundled trace, in every mode.
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
				for _, mode := range []uint8{0, fuzzDuplicate, fuzzCycle, fuzzSelfParent | fuzzFailHeld, fuzzDuplicate | fuzzFailHeld} {
					f.Add([]byte(line), mode)
				}
			}
		}
		fh.Close()
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.call.arguments","value":{"kvlistValue":{"values":[{"key":"a","value":{"arrayValue":{}}}]}}}]}]}]}]}`), uint8(0))

	cfg := loadConfig(f, filepath.Join("testdata", "golden", "config.yaml"), "paris")
	cfg.WaitForMissing = 0 // the reference scores every run at once
	held := *cfg
	held.Wait = time.Millisecond
	incomplete := *cfg
	incomplete.WaitForMissing = time.Millisecond
	var u ptrace.JSONUnmarshaler
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		td, err := u.UnmarshalTraces(data)
		if err != nil || td.SpanCount() > 10_000 {
			return
		}
		bend(td, mode)
		want := td.SpanCount()

		// A processor that never sees a failure: the reference.
		ref := newFuzzTarget(t, cfg)
		if err := ref.proc.ConsumeTraces(context.Background(), copyOf(td)); err != nil {
			t.Fatalf("ConsumeTraces: %v", err)
		}
		ref.shutdown(t)
		if got := ref.sink.spans(); got != want {
			t.Fatalf("spans in %d, out %d", want, got)
		}

		// The same batch refused once, then retried.
		flaky := newFuzzTarget(t, cfg)
		flaky.sink.refuse(1)
		err = flaky.proc.ConsumeTraces(context.Background(), copyOf(td))
		if want > 0 && !errors.Is(err, errFuzzDownstream) {
			t.Fatalf("a refused batch returned %v", err)
		}
		if err := flaky.proc.ConsumeTraces(context.Background(), copyOf(td)); err != nil {
			t.Fatalf("retry: %v", err)
		}
		flaky.shutdown(t)
		if got := flaky.sink.spans(); got != want {
			t.Fatalf("retry: spans in %d, out %d", want, got)
		}
		if diff := annotationDiff(ref.sink.out(), flaky.sink.out()); diff != "" {
			t.Fatalf("the retried batch was annotated differently: %s", diff)
		}

		// Holding agent spans (wait, and wait_for_missing while a run
		// shows spans missing), under a downstream that refuses at random:
		// the caller retries until the batch is taken.
		for _, hold := range []*Config{&held, &incomplete} {
			waiting := newFuzzTarget(t, hold)
			if mode&fuzzFailHeld != 0 {
				waiting.sink.refuse(int(mode>>4) + 1)
			}
			for attempt := 0; ; attempt++ {
				err := waiting.proc.ConsumeTraces(context.Background(), copyOf(td))
				if err == nil {
					break
				}
				if attempt > 20 {
					t.Fatalf("still refused: %v", err)
				}
			}
			waiting.shutdown(t)
			missing := spanKeys(td)
			for _, s := range allSpans(waiting.sink.out()) {
				delete(missing, runKey{s.TraceID(), s.SpanID()})
			}
			if len(missing) > 0 {
				t.Fatalf("wait %v, wait_for_missing %v: %d span ids never came out", hold.Wait, hold.WaitForMissing, len(missing))
			}
		}
	})
}

// bend rewrites a batch's span ids as mode says.
func bend(td ptrace.Traces, mode uint8) {
	spans := allSpans(td)
	if mode&fuzzDuplicate != 0 {
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				n := ss.Spans().Len()
				for i := 0; i < n; i++ {
					ss.Spans().At(i).CopyTo(ss.Spans().AppendEmpty())
				}
			}
		}
	}
	if mode&fuzzCycle != 0 {
		byTrace := map[pcommon.TraceID][]ptrace.Span{}
		for _, s := range spans {
			byTrace[s.TraceID()] = append(byTrace[s.TraceID()], s)
		}
		for _, ring := range byTrace {
			for i, s := range ring {
				s.SetParentSpanID(ring[(i+1)%len(ring)].SpanID())
			}
		}
	}
	if mode&fuzzSelfParent != 0 {
		for _, s := range spans {
			s.SetParentSpanID(s.SpanID())
		}
	}
}

func allSpans(td ptrace.Traces) []ptrace.Span {
	var out []ptrace.Span
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				out = append(out, s)
			}
		}
	}
	return out
}

func spanKeys(td ptrace.Traces) map[runKey]bool {
	out := map[runKey]bool{}
	for _, s := range allSpans(td) {
		out[runKey{s.TraceID(), s.SpanID()}] = true
	}
	return out
}

// annotationDiff compares the tool_call_accuracy.* attributes written on
// the spans of two outputs: every copy of a span the reference annotated
// must carry the same annotations, and a span the reference left alone
// must stay unannotated.
func annotationDiff(ref, got ptrace.Traces) string {
	want := map[runKey]map[string]any{}
	for _, s := range allSpans(ref) {
		if a := ourAttributes(s); a != nil {
			want[runKey{s.TraceID(), s.SpanID()}] = a
		}
	}
	for _, s := range allSpans(got) {
		key := runKey{s.TraceID(), s.SpanID()}
		a, w := ourAttributes(s), want[key]
		switch {
		case a == nil && w == nil:
		case a == nil:
			if !annotatedIn(got, key) {
				return fmt.Sprintf("span %s %q lost its annotations", key.span, s.Name())
			}
		case w == nil:
			return fmt.Sprintf("span %s %q annotated on retry only: %v", key.span, s.Name(), a)
		case !reflect.DeepEqual(a, w):
			return fmt.Sprintf("span %s %q: want %v, got %v", key.span, s.Name(), w, a)
		}
	}
	return ""
}

// annotatedIn reports whether some copy of the span in td is annotated
// (repeated span ids within a batch: one copy carries the run's scores).
func annotatedIn(td ptrace.Traces, key runKey) bool {
	for _, s := range allSpans(td) {
		if (runKey{s.TraceID(), s.SpanID()}) == key && ourAttributes(s) != nil {
			return true
		}
	}
	return false
}

func ourAttributes(s ptrace.Span) map[string]any {
	var out map[string]any
	for k, v := range s.Attributes().All() {
		if strings.HasPrefix(k, attrPrefix) {
			if out == nil {
				out = map[string]any{}
			}
			out[k] = v.AsRaw()
		}
	}
	return out
}

// fuzzTarget is a started processor in front of a fuzzSink.
type fuzzTarget struct {
	proc processor.Traces
	sink *fuzzSink
}

func newFuzzTarget(t *testing.T, cfg *Config) *fuzzTarget {
	sink := new(fuzzSink)
	p, err := NewFactory().CreateTraces(context.Background(), processortest.NewNopSettings(NewFactory().Type()), cfg, consumer.Traces(sink))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	return &fuzzTarget{proc: p, sink: sink}
}

// shutdown stops the processor with a healthy downstream: nothing may be
// reported lost.
func (f *fuzzTarget) shutdown(t *testing.T) {
	f.sink.refuse(0)
	if err := f.proc.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

var errFuzzDownstream = errors.New("fuzz: downstream refused")

// fuzzSink keeps what it is sent, refusing the next n sends when told.
type fuzzSink struct {
	mu       sync.Mutex
	refusals int
	batches  []ptrace.Traces
	count    atomic.Int64
}

func (s *fuzzSink) refuse(n int) {
	s.mu.Lock()
	s.refusals = n
	s.mu.Unlock()
}

func (s *fuzzSink) spans() int { return int(s.count.Load()) }

func (s *fuzzSink) out() ptrace.Traces {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := ptrace.NewTraces()
	for _, td := range s.batches {
		for _, rs := range td.ResourceSpans().All() {
			rs.CopyTo(out.ResourceSpans().AppendEmpty())
		}
	}
	return out
}

func (s *fuzzSink) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (s *fuzzSink) ConsumeTraces(_ context.Context, td ptrace.Traces) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refusals > 0 {
		s.refusals--
		return errFuzzDownstream
	}
	keep := ptrace.NewTraces()
	td.CopyTo(keep)
	s.batches = append(s.batches, keep)
	s.count.Add(int64(td.SpanCount()))
	return nil
}
