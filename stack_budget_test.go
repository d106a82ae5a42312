package toolcallaccuracyprocessor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap/confmaptest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/loadgen"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadata"
)

// The OTLP/gRPC receiver consumes each request on a goroutine of its own,
// whose stack has grown to 8 KiB by the time the processor is called. A
// goroutine's stack is copied to twice its size whenever a call needs more
// than is left; past 8 KiB less the runtime's guard (928 bytes) that is one
// more copy per request, tens of thousands of instructions. The paths below
// processTraces are kept within what is left (docs/architecture.md, "A
// batch"); this test holds them there.
const (
	// budgetDepth is the receiver's depth and a margin: the benchmark's
	// rules are scored 192 bytes deeper than the receiver calls the
	// processor, so that a change that eats the margin fails here first. (A
	// processor before this one in the pipeline, memory_limiter, takes about
	// 300 bytes more: processorhelper's wrappers.) The peer profiles' rule
	// is held at the receiver's depth itself: their rare branches (an
	// error built with fmt, a deeply nested tool result) have less to
	// spare.
	budgetDepth = loadgen.ReceiverDepth + 192
	// receiverStack is the receiver goroutine's stack when it calls the
	// processor.
	receiverStack = 8 << 10
	stackChildEnv = "TOOL_CALL_ACCURACY_STACK_BUDGET_CHILD"
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
// path (refilling a span) takes a few hundred bytes below any allocation,
// so the processor's own frames have less than the 4.4 KiB. The child runs
// with the garbage collector off: the sweeper's frames, up to 900 bytes more
// under an allocation, come and go with the collector's timing (on a
// loaded machine the same commit failed a third of its runs), while the
// test is about the processor's own frames.
func TestStackBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's frames are not the production build's: run without -race (make unit does)")
	}
	if os.Getenv(stackChildEnv) != "" {
		stackBudgetChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStackBudget$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), stackChildEnv+"=1", "GOTRACEBACK=system", "GOGC=off")
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
	templates, groups := demoTraffic(t)
	for _, run := range []struct {
		cfg   *Config
		depth uintptr
	}{
		{stackBudgetConfig(t, filepath.Join("tools", "bench", "pipelines.yaml")), budgetDepth},
		{stackBudgetConfig(t, filepath.Join("testdata", "stack-budget-peers.yaml")), loadgen.ReceiverDepth},
	} {
		for _, share := range []float64{0.1, 1} {
			sendAtReceiverDepth(t, run.cfg, run.depth, templates, groups, share)
		}
	}
	t.Log("stack budget held")
}

// stackBudgetConfig reads the processor's configuration from a collector
// configuration file.
func stackBudgetConfig(t *testing.T, path string) *Config {
	t.Helper()
	cm, err := confmaptest.LoadConf(path)
	require.NoError(t, err)
	sub, err := cm.Sub("processors::" + metadata.Type.String())
	require.NoError(t, err)
	cfg := createDefaultConfig().(*Config)
	require.NoError(t, sub.Unmarshal(cfg))
	require.NoError(t, cfg.Validate())
	return cfg
}

// demoTraffic is the load generator's traffic: the demo's captured runs
// and the ordinary span of its mix.
func demoTraffic(t *testing.T) ([]*loadgen.Template, []loadgen.SpanGroup) {
	t.Helper()
	return demoTemplates(t, loadgen.ShapeFull)
}

// sendAtReceiverDepth sends 2,100 requests of the benchmark's traffic with
// share of GenAI spans through a processor made from cfg, each on a new
// goroutine called depth bytes deep, the process's stacks limited to
// receiverStack after the first warmRequests.
func sendAtReceiverDepth(t *testing.T, cfg *Config, depth uintptr, templates []*loadgen.Template, groups []loadgen.SpanGroup, share float64) {
	ctx := context.Background()
	proc, err := NewFactory().CreateTraces(ctx, processortest.NewNopSettings(metadata.Type), cfg, consumertest.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Start(ctx, componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	tr := loadgen.NewTraffic(loadgen.Config{Batch: 100, Share: share}, templates, groups, 1)
	// The first requests fill the caches (tool definitions read once
	// per text); the budget is for the steady state after them.
	var old int
	for i := range 2100 {
		if i == warmRequests {
			old = debug.SetMaxStack(receiverStack)
		}
		rb, state := tr.Next(0, 0)
		if state != loadgen.NextRequest {
			t.Fatalf("traffic stopped: %v", state)
		}
		done := make(chan error, 1)
		go func() {
			var top byte
			loadgen.AtDepth(&top, depth, func() { done <- proc.ConsumeTraces(ctx, rb.TD) })
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
