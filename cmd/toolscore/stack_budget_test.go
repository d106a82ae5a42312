package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadata"
)

// The OTLP/gRPC receiver consumes each request on a goroutine of its own,
// whose stack has grown to 8 KiB by the time the processor is called
// (measured in the running collector with gdb: processTraces is entered
// 2,744 bytes deep; the test enters it at 2,768, a frame's rounding below). A goroutine's stack is copied to twice its size whenever a
// call needs more than is left; past 8 KiB less the runtime's guard (928
// bytes) that is one more copy per request, tens of thousands of
// instructions (docs/performance.md, "Stack growth").
const (
	// receiverDepth is how deep atDepth pads the stack so that
	// processTraces is entered where the receiver calls it: 2,768 bytes
	// deep (processorhelper's wrappers take 352 bytes above it; checked on
	// the traceback of an overflow).
	receiverDepth = 2210
	// budgetDepth is receiverDepth and a margin: the test calls the
	// processor 192 bytes deeper than the receiver does, so that a change
	// that eats the margin fails here first. (A processor before this one
	// in the pipeline, memory_limiter, takes about 300 bytes more:
	// processorhelper's wrappers. With the benchmark's rules the paths
	// have about 500 to spare: they fail from 576 bytes deeper, under an
	// allocation that takes the allocator's slow path, and always from
	// 672. The peer profiles' rule is held at receiverDepth itself: 192
	// bytes deeper it fails in about one run of ten, in rare branches (an
	// error built with fmt, the allocator's slow path under a mismatch
	// list, the parse of a deeply nested tool result).)
	budgetDepth = receiverDepth + 192
	// receiverStack is the receiver goroutine's stack when it calls the
	// processor.
	receiverStack = 8 << 10
	stackChildEnv = "TOOLSCORE_STACK_BUDGET_CHILD"
	// warmRequests are sent before the stack is limited.
	warmRequests = 100
)

// TestStackBudget sends the end-to-end benchmark's traffic (both mixes,
// 2,000 requests of 100 spans each after 100 that fill the caches) through
// the processor configured as tools/bench/pipelines.yaml does, each request
// consumed on a new goroutine called at the receiver's depth, with the
// process's stacks limited to the receiver's 8 KiB: a path that would grow
// the receiver's stack once more aborts the child process, and its
// traceback names the path and each frame's size. The allocator's slow
// path (refilling a span, sweeping) takes up to about 900 bytes below any
// allocation, so the processor's own frames have less than the 4.4 KiB.
func TestStackBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's frames are not the production build's: run without -race (make unit does)")
	}
	if os.Getenv(stackChildEnv) != "" {
		stackBudgetChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStackBudget$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), stackChildEnv+"=1", "GOTRACEBACK=system")
	out, err := cmd.CombinedOutput()
	if err != nil && !strings.Contains(string(out), "goroutine stack exceeds") {
		t.Fatalf("the child failed, not on its stack (%v):\n%s", err, out)
	}
	if err != nil {
		t.Fatalf("a goroutine needed more stack than the OTLP receiver leaves (%v): a path below ConsumeTraces, unless its frames say otherwise; deepest frames first, depth and frame size in bytes:\n%s",
			err, overflowChain(string(out)))
	}
	if !strings.Contains(string(out), "stack budget held") {
		t.Fatalf("the child did not run:\n%s", out)
	}
}

func stackBudgetChild(t *testing.T) {
	benchCfg, templates, groups := benchTraffic(t)
	_, peersCfg, err := loadProcessorConfig([]string{"testdata/stack-budget-peers.yaml"}, "")
	if err != nil {
		t.Fatal(err)
	}
	// The benchmark's rules are held with budgetDepth's margin; the peer
	// profiles' rule at the receiver's depth itself: their paths have
	// about 200 bytes to spare, and their rare branches (an error built
	// with fmt, the allocator's slow path under a mismatch list) sometimes
	// take more.
	for _, run := range []struct {
		cfg   *toolcallaccuracyprocessor.Config
		depth uintptr
	}{{benchCfg, budgetDepth}, {peersCfg, receiverDepth}} {
		for _, share := range []float64{0.1, 1} {
			sendAtReceiverDepth(t, run.cfg, run.depth, templates, groups, share)
		}
	}
	t.Log("stack budget held")
}

// sendAtReceiverDepth sends 2,100 requests of the benchmark's traffic with
// share of GenAI spans through a processor made from cfg, each on a new
// goroutine called depth bytes deep, the process's stacks limited to
// receiverStack after the first warmRequests.
func sendAtReceiverDepth(t *testing.T, cfg *toolcallaccuracyprocessor.Config, depth uintptr, templates []*loadTemplate, groups []spanGroup, share float64) {
	ctx := context.Background()
	proc, err := toolcallaccuracyprocessor.NewFactory().CreateTraces(ctx, processortest.NewNopSettings(metadata.Type), cfg, consumertest.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Start(ctx, componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	tr := newTraffic(trafficConfig{batch: 100, share: share}, templates, groups, 1)
	// The first requests fill the caches (tool definitions read once
	// per text); the budget is for the steady state after them.
	var old int
	for i := range 2100 {
		if i == warmRequests {
			old = debug.SetMaxStack(receiverStack)
		}
		rb, state := tr.next(0, 0)
		if state != nextRequest {
			t.Fatalf("traffic stopped: %v", state)
		}
		done := make(chan error, 1)
		go func() {
			var top byte
			atDepth(&top, depth, func() { done <- proc.ConsumeTraces(ctx, rb.td) })
		}()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	debug.SetMaxStack(old)
	if err := proc.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// atDepth calls f once the stack is depth bytes below top. (top is a
// pointer, not an address: the stack may move while it grows.)
//
//go:noinline
func atDepth(top *byte, depth uintptr, f func()) {
	var here [64]byte
	if uintptr(unsafe.Pointer(top))-uintptr(unsafe.Pointer(&here[0])) >= depth {
		f()
		return
	}
	atDepth(top, depth, f)
	here[0]++ // keeps here on the stack
}

var (
	frameLine  = regexp.MustCompile(`fp=(0x[0-9a-f]+) sp=(0x[0-9a-f]+)`)
	stackRange = regexp.MustCompile(`stack=\[0x[0-9a-f]+, (0x[0-9a-f]+)\]`)
)

// overflowChain lists the frames of the goroutine that overflowed, from a
// GOTRACEBACK=system traceback: depth below its stack's top, frame size,
// function.
func overflowChain(out string) string {
	m := stackRange.FindStringSubmatch(out)
	i := strings.Index(out, "[running]:")
	if m == nil || i < 0 {
		return out
	}
	hi, _ := strconv.ParseUint(m[1], 0, 64)
	var b strings.Builder
	var fn string
	for _, line := range strings.Split(out[i:], "\n")[1:] {
		if line == "" {
			break
		}
		if !strings.HasPrefix(line, "\t") {
			fn, _, _ = strings.Cut(line, "(0x")
			continue
		}
		if f := frameLine.FindStringSubmatch(line); f != nil {
			fp, _ := strconv.ParseUint(f[1], 0, 64)
			sp, _ := strconv.ParseUint(f[2], 0, 64)
			b.WriteString(strconv.FormatUint(hi-sp, 10) + "\t" + strconv.FormatUint(fp-sp, 10) + "\t" + fn + "\n")
		}
	}
	return b.String()
}
