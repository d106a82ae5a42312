//go:build scaleout

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	_ "google.golang.org/grpc/encoding/gzip" // tier 1 compresses what it sends to the sink
	"google.golang.org/grpc/peer"
)

var tier1Bin = flag.String("tier1", "../_build/scaleout/otelcol-tier1", "the tier-1 collector with the load_balancing exporter (built from tools/scaleout/builder-config.yaml)")

const (
	tier1Config = "testdata/scaleout-tier1.yaml"
	tier2Config = "testdata/scaleout-tier2.yaml"
)

// TestScaleOut runs the two-tier deployment: a stock collector whose
// load_balancing exporter routes by trace id (tier 1) in front of
// instances of our collector (tier 2), fed by toolscore load with each
// run's spans in separate, interleaved requests. It checks that every run
// is scored once, on one instance, as a single collector scores it; then
// what a SIGKILLed instance and an added instance cost.
func TestScaleOut(t *testing.T) {
	if _, err := os.Stat(*tier1Bin); err != nil {
		t.Fatalf("tier-1 collector %s: %v (run make e2e-scaleout, or pass -tier1)", *tier1Bin, err)
	}
	judge := startStandin(t)
	t.Setenv("TCA_JUDGE_ENDPOINT", judge.endpoint)
	sink := startSink(t)

	d := &deployment{}
	for range 3 {
		d.addInstance(t, freePorts(t, 3))
	}
	tier1 := startTier1(t, sink.port, d.endpoints())

	t.Run("every run scored once", func(t *testing.T) {
		mark := sink.mark()
		load := runLoad(t, tier1.httpPort, "-spans", "2000", "-rate", "2000")
		require.Zero(t, load.Errors, load.FirstError)
		require.Equal(t, load.SpansSent, load.SpansAccepted)
		in := sink.waitSpans(t, mark, load.SpansAccepted)
		out := d.waitOutputs(t, in.SpanCount())
		ph := d.analyse(t, in, out)

		assert.Equal(t, spanIDs(in), spanIDs(ph.outTraces), "spans out == spans in, each once")
		assert.Empty(t, ph.spread, "traces on more than one instance")
		assert.Len(t, ph.expected, load.Runs)
		perInstance := make([]int, len(d.instances))
		for key, want := range ph.expected {
			got := ph.scored[key]
			if assert.Len(t, got, 1, "run %s scored once", key) {
				assert.Equal(t, want, got[0].run, "run %s scored as by one collector", key)
				perInstance[got[0].inst]++
			}
		}
		for i, n := range perInstance {
			assert.Positive(t, n, "instance %d scored no run", i)
		}
		for i, late := range d.counter(t, "late_spans", nil) {
			assert.Zero(t, late, "late spans on instance %d", i)
		}
		t.Logf("FIGURES steady: %d runs, %d spans sent, %d spans in at tier 1, %d spans out of tier 2; runs per instance %v",
			load.Runs, load.SpansSent, in.SpanCount(), ph.outTraces.SpanCount(), perInstance)
	})
	if t.Failed() {
		return
	}

	const victim = 2
	t.Run("an instance killed mid-traffic", func(t *testing.T) {
		mark := sink.mark()
		done := startLoad(t, tier1.httpPort, "-spans", "2400", "-rate", "600")
		time.Sleep(1500 * time.Millisecond)
		killMark := sink.mark()
		d.kill(t, victim)
		load := <-done
		// Tier 1 queues in front of the balancer: it accepts everything,
		// whatever a backend does.
		require.Zero(t, load.Errors, load.FirstError)
		require.Equal(t, load.SpansSent, load.SpansAccepted)
		in := sink.waitSpans(t, mark, load.SpansAccepted)
		tier1.waitQueueEmpty(t)
		out := d.waitStable(t)
		ph := d.analyse(t, in, out)

		assert.Empty(t, ph.spread, "the static resolver keeps every trace on one endpoint")
		survivors := []int{0, 1}
		lostRuns, lostAfterKill, scoredAfterKill, scoredOnVictim := 0, 0, 0, 0
		startedAfterKill := sink.tracesFirstSeenFrom(killMark)
		for key, want := range ph.expected {
			trace := strings.Split(key, "/")[0]
			got := ph.scored[key]
			require.LessOrEqual(t, len(got), 1, "run %s scored more than once", key)
			if len(got) == 0 {
				lostRuns++
				if startedAfterKill[trace] {
					lostAfterKill++
				}
				// Lost only where tier 1 routed it to the dead instance.
				for inst := range ph.where[trace] {
					assert.Equal(t, victim, inst, "lost run %s had spans on a survivor", key)
				}
				continue
			}
			assert.Equal(t, want, got[0].run, "run %s", key)
			if got[0].inst == victim {
				scoredOnVictim++
			} else if startedAfterKill[trace] {
				scoredAfterKill++
			}
		}
		// Traces on survivors are complete.
		lostSpans := 0
		for trace, n := range ph.inSpans {
			onSurvivors := 0
			for _, s := range survivors {
				onSurvivors += ph.where[trace][s]
			}
			if onSurvivors > 0 {
				assert.Equal(t, n, onSurvivors, "trace %s incomplete on a survivor", trace)
			}
			lostSpans += n - onSurvivors - ph.where[trace][victim]
		}
		assert.Positive(t, lostRuns, "runs routed to the dead instance are lost")
		assert.Less(t, float64(lostRuns), 0.6*float64(len(ph.expected)), "the loss is bounded to the dead instance's share of the trace ids")
		assert.Positive(t, scoredAfterKill, "the survivors keep scoring new runs")

		// Nothing else crashed.
		for i, c := range d.instances {
			if i != victim {
				c.requireRunning(t)
			}
		}
		tier1.requireRunning(t)

		// The loss is visible at tier 1.
		samples, _ := tier1.scrape(t)
		failed, _ := value(samples, "otelcol_exporter_send_failed_spans", map[string]string{"exporter": "load_balancing"})
		sent, _ := value(samples, "otelcol_exporter_sent_spans", map[string]string{"exporter": "load_balancing"})
		victimFailures, _ := value(samples, "otelcol_loadbalancer_backend_outcome", map[string]string{"endpoint": d.endpoints()[victim], "success": "false"})
		checkAlertNames(t, samples, true) // ToolCallAccuracyRoutingBackendFailing reads tier 1's metrics
		assert.Positive(t, failed, "send_failed_spans of load_balancing")
		assert.Positive(t, victimFailures, "backend_outcome{success=false} of the dead endpoint")
		for _, s := range survivors {
			f, _ := value(samples, "otelcol_loadbalancer_backend_outcome", map[string]string{"endpoint": d.endpoints()[s], "success": "false"})
			assert.Zero(t, f, "failures of survivor %d", s)
		}
		t.Logf("FIGURES kill: %d runs (%d spans) sent, instance %d killed after %d spans; %d runs lost (%d started after the kill), %d spans lost; "+
			"%d runs scored on the victim before it died, %d runs started after the kill scored on survivors; "+
			"tier 1: send_failed_spans{load_balancing}=%v sent_spans{load_balancing}=%v backend_outcome{dead,false}=%v (failed batches count whole, healthy parts included)",
			load.Runs, load.SpansSent, victim, killMark.spans-mark.spans, lostRuns, lostAfterKill, lostSpans,
			scoredOnVictim, scoredAfterKill, failed, sent, victimFailures)
	})
	if t.Failed() {
		return
	}

	t.Run("an instance added", func(t *testing.T) {
		// The dead instance comes back on its ports, and tier 1 reloads
		// (SIGHUP) so that its backend exporter reconnects at once rather
		// than after gRPC's back-off.
		d.restart(t, victim)
		tier1.reload(t, d.endpoints())
		before := d.counter(t, "evicted_trajectories", map[string]string{"reason": "max_age"})

		// Twice the batch: about 50 runs in flight at the change, so that
		// some of them (a quarter of the key space moves) surely split.
		mark := sink.mark()
		done := startLoad(t, tier1.httpPort, "-spans", "2400", "-rate", "600", "-batch", "100")
		time.Sleep(1500 * time.Millisecond)
		added := d.addInstance(t, freePorts(t, 3))
		tier1.reload(t, d.endpoints())
		load := <-done
		// The reload restarts tier 1's receiver: requests made in that
		// window fail at the sender, which counts them.
		in := sink.waitSpans(t, mark, load.SpansAccepted)
		tier1.waitQueueEmpty(t)
		// The halves of split runs are evicted after max_age (5s).
		time.Sleep(6 * time.Second)
		out := d.waitStable(t)
		ph := d.analyse(t, in, out)

		assert.Equal(t, spanIDs(in), spanIDs(ph.outTraces), "spans out == spans in, each once")
		straddling := sink.tracesAcrossConns(mark)
		splitRuns, splitAsOne, splitUnscored := 0, 0, 0
		for key, want := range ph.expected {
			trace := strings.Split(key, "/")[0]
			got := ph.scored[key]
			if len(ph.where[trace]) < 2 {
				if assert.Len(t, got, 1, "run %s scored once", key) {
					assert.Equal(t, want, got[0].run, "run %s on one instance", key)
				}
				continue
			}
			splitRuns++
			// Consistent hashing: a key moves only to the new endpoint, and
			// the agent span, sent last, went there.
			assert.Len(t, ph.where[trace], 2, "split run %s", key)
			assert.Contains(t, ph.where[trace], added, "split run %s", key)
			switch {
			case len(got) == 0:
				splitUnscored++ // its agent span alone was no run
			case assert.Len(t, got, 1, "split run %s scored once", key):
				assert.Equal(t, added, got[0].inst, "split run %s scored on the new instance", key)
				if equalRun(want, got[0].run) {
					splitAsOne++
				}
			}
		}
		// Only traces in flight at the change split, and a run scored under
		// an agent span one collector does not score is part of one.
		for trace := range ph.spread {
			assert.True(t, straddling[trace], "trace %s split but not in flight at the change", trace)
		}
		for key := range ph.scored {
			if _, ok := ph.expected[key]; !ok {
				assert.True(t, ph.spread[strings.Split(key, "/")[0]], "run %s scored, not by one collector, not split", key)
			}
		}
		assert.Positive(t, splitRuns, "runs in flight at the change split")

		// The halves left behind are evicted after max_age and counted.
		after := d.counter(t, "evicted_trajectories", map[string]string{"reason": "max_age"})
		evicted := 0.0
		for i := range added {
			evicted += after[i] - before[i]
		}
		assert.Positive(t, evicted, "max_age evictions on the old instances")
		assert.LessOrEqual(t, evicted, float64(len(straddling)), "evictions come from runs in flight at the change")
		for _, c := range d.instances {
			c.requireRunning(t)
		}
		tier1.requireRunning(t)
		t.Logf("FIGURES add: %d runs (%d spans) sent, %d spans refused during tier 1's reload (%d failed requests); "+
			"%d traces in flight at the change, %d runs split (%d traces): %d scored as one collector scores them, %d not scored; "+
			"%d evicted trajectories (max_age) on the old instances",
			load.Runs, load.SpansSent, load.SpansSent-load.SpansAccepted, load.Errors,
			len(straddling), splitRuns, len(ph.spread), splitAsOne, splitUnscored, int(evicted))
	})
}

func equalRun(a, b reportRun) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// loadResult is the part of toolscore load's JSON report the test reads.
type loadResult struct {
	SpansSent     int    `json:"spans_sent"`
	SpansAccepted int    `json:"spans_accepted"`
	Runs          int    `json:"runs"`
	Errors        int    `json:"errors"`
	FirstError    string `json:"first_error"`
}

// startLoad runs toolscore load on the demo captures against tier 1's
// OTLP/HTTP port: each run's spans in separate requests, its agent span
// last, runs interleaved.
func startLoad(t *testing.T, port int, args ...string) <-chan loadResult {
	t.Helper()
	demo, err := filepath.Glob("../testdata/demo/traces/*.otlp.jsonl")
	require.NoError(t, err)
	args = append([]string{"load", "-endpoint", fmt.Sprintf("http://127.0.0.1:%d", port), "-split",
		"-genai-share", "0.5", "-batch", "50", "-format", "json"}, args...)
	cmd := exec.Command(toolscoreBin, append(args, demo...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	done := make(chan loadResult, 1)
	go func() {
		out, err := cmd.Output()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 1 {
			err = nil // failed requests: in the report
		}
		var res loadResult
		if err == nil {
			err = json.Unmarshal(out, &res)
		}
		if err != nil {
			t.Errorf("toolscore load: %v: %s%s", err, out, stderr.String())
		}
		done <- res
	}()
	return done
}

func runLoad(t *testing.T, port int, args ...string) loadResult {
	t.Helper()
	res := <-startLoad(t, port, args...)
	require.False(t, t.Failed())
	return res
}

// otlpSink is an OTLP/gRPC server in the test that keeps what tier 1
// copies to it (otlp_grpc/tee), in arrival order, with the connection each
// batch came on: a tier-1 configuration reload starts a new exporter, on a
// new connection, and the old one drains its queue on its own.
type otlpSink struct {
	ptraceotlp.UnimplementedGRPCServer
	port    int
	mu      sync.Mutex
	batches []ptrace.Traces
	conns   []string
	spans   int
}

func startSink(t *testing.T) *otlpSink {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &otlpSink{port: l.Addr().(*net.TCPAddr).Port}
	srv := grpc.NewServer()
	ptraceotlp.RegisterGRPCServer(srv, s)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	return s
}

func (s *otlpSink) Export(ctx context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	td := ptrace.NewTraces()
	req.Traces().CopyTo(td)
	conn := ""
	if p, ok := peer.FromContext(ctx); ok {
		conn = p.Addr.String()
	}
	s.mu.Lock()
	s.batches = append(s.batches, td)
	s.conns = append(s.conns, conn)
	s.spans += td.SpanCount()
	s.mu.Unlock()
	return ptraceotlp.NewExportResponse(), nil
}

// sinkMark is a point in the sink's arrivals.
type sinkMark struct{ batches, spans int }

func (s *otlpSink) mark() sinkMark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sinkMark{len(s.batches), s.spans}
}

// since returns a copy of what arrived from m on.
func (s *otlpSink) since(m sinkMark) ptrace.Traces {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := ptrace.NewTraces()
	for _, b := range s.batches[m.batches:] {
		for _, rs := range b.ResourceSpans().All() {
			rs.CopyTo(out.ResourceSpans().AppendEmpty())
		}
	}
	return out
}

// waitSpans waits until n spans arrived from m on and returns them.
func (s *otlpSink) waitSpans(t *testing.T, m sinkMark, n int) ptrace.Traces {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for s.mark().spans-m.spans < n {
		require.True(t, time.Now().Before(deadline), "tier 1 passed %d of %d spans to its tee within 30s", s.mark().spans-m.spans, n)
		time.Sleep(100 * time.Millisecond)
	}
	td := s.since(m)
	require.Equal(t, n, td.SpanCount(), "spans at the tee")
	return td
}

// tracesFirstSeenFrom lists the traces whose first span arrived from m on.
func (s *otlpSink) tracesFirstSeenFrom(m sinkMark) map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	for _, b := range s.batches[:m.batches] {
		for _, id := range traceIDs(b) {
			seen[id] = true
		}
	}
	out := map[string]bool{}
	for _, b := range s.batches[m.batches:] {
		for _, id := range traceIDs(b) {
			if !seen[id] {
				out[id] = true
			}
		}
	}
	return out
}

// tracesAcrossConns lists the traces that arrived from m on over more than
// one connection: with a tier-1 reload in between, the runs in flight at
// the reload, part routed by the old ring and part by the new one.
func (s *otlpSink) tracesAcrossConns(m sinkMark) map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := map[string]string{}
	out := map[string]bool{}
	for i, b := range s.batches[m.batches:] {
		conn := s.conns[m.batches+i]
		for _, id := range traceIDs(b) {
			if c, ok := first[id]; !ok {
				first[id] = conn
			} else if c != conn {
				out[id] = true
			}
		}
	}
	return out
}

// tier1Collector is the running tier-1 collector and the --config file
// naming its backends.
type tier1Collector struct {
	*collector
	backends string
}

func startTier1(t *testing.T, teePort int, endpoints []string) *tier1Collector {
	t.Helper()
	tc := &tier1Collector{backends: filepath.Join(t.TempDir(), "backends.yaml")}
	tc.writeBackends(t, endpoints)
	tc.collector = launchCollector(t, *tier1Bin, []string{tier1Config, tc.backends}, freePorts(t, 3), fmt.Sprintf("TCA_TEE_PORT=%d", teePort))
	return tc
}

func (tc *tier1Collector) writeBackends(t *testing.T, endpoints []string) {
	t.Helper()
	doc := "exporters:\n  load_balancing:\n    resolver:\n      static:\n        hostnames: [" + strings.Join(endpoints, ", ") + "]\n"
	require.NoError(t, os.WriteFile(tc.backends, []byte(doc), 0o644))
}

// reload rewrites the backends and sends SIGHUP: the collector rereads its
// configuration and restarts its pipelines (the static resolver does not
// watch anything).
func (tc *tier1Collector) reload(t *testing.T, endpoints []string) {
	t.Helper()
	const ready = "Everything is ready"
	n := tc.logCount(t, ready)
	tc.writeBackends(t, endpoints)
	require.NoError(t, tc.cmd.Process.Signal(syscall.SIGHUP))
	deadline := time.Now().Add(30 * time.Second)
	for tc.logCount(t, ready) <= n {
		tc.requireRunning(t)
		require.True(t, time.Now().Before(deadline), "tier 1 did not restart within 30s of SIGHUP")
		time.Sleep(50 * time.Millisecond)
	}
	tc.waitListening(t)
}

func (c *collector) logCount(t *testing.T, s string) int {
	data, err := os.ReadFile(c.log)
	require.NoError(t, err)
	return strings.Count(string(data), s)
}

// waitQueueEmpty waits until tier 1's queue in front of the balancer is
// empty.
func (tc *tier1Collector) waitQueueEmpty(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		samples, _ := tc.scrape(t)
		if v, ok := value(samples, "otelcol_exporter_queue_size", map[string]string{"exporter": "load_balancing"}); ok && v == 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "tier 1's queue did not empty within 30s")
		time.Sleep(200 * time.Millisecond)
	}
}

func (c *collector) requireRunning(t *testing.T) {
	t.Helper()
	select {
	case err := <-c.exited:
		c.exited <- err
		data, _ := os.ReadFile(c.log)
		t.Fatalf("%s exited: %v\n%s", c.cmd.Path, err, data)
	default:
	}
}

// kill stops instance i at once (SIGKILL), as a crash would.
func (d *deployment) kill(t *testing.T, i int) {
	t.Helper()
	c := d.instances[i]
	require.NoError(t, c.cmd.Process.Kill())
	<-c.exited
	for j := range d.outputs {
		if d.outputs[j].inst == i {
			d.outputs[j].final = true
		}
	}
}

// deployment is tier 2: instances of our collector, and every file their
// file exporters wrote (a restarted instance writes a new one).
type deployment struct {
	instances []*collector
	outputs   []output
}

type output struct {
	inst int
	path string
	// final: its collector was killed, and a line it was writing stays
	// half written.
	final bool
}

func (d *deployment) addInstance(t *testing.T, ports []int) int {
	t.Helper()
	c := launchCollector(t, *collectorBin, []string{demoConfig, tier2Config}, ports)
	d.instances = append(d.instances, c)
	d.outputs = append(d.outputs, output{inst: len(d.instances) - 1, path: c.out})
	return len(d.instances) - 1
}

// restart starts instance i again on its ports.
func (d *deployment) restart(t *testing.T, i int) {
	t.Helper()
	old := d.instances[i]
	c := launchCollector(t, *collectorBin, []string{demoConfig, tier2Config}, []int{old.grpcPort, old.httpPort, old.promPort})
	d.instances[i] = c
	d.outputs = append(d.outputs, output{inst: i, path: c.out})
}

func (d *deployment) endpoints() []string {
	var out []string
	for _, c := range d.instances {
		out = append(out, fmt.Sprintf("127.0.0.1:%d", c.grpcPort))
	}
	return out
}

// readOutputs reads every output file; complete is false while one is
// half written.
func (d *deployment) readOutputs(t *testing.T) (outs []ptrace.Traces, complete bool) {
	complete = true
	for _, o := range d.outputs {
		td, ok := readExported(t, o.path)
		if !ok && !o.final && td.SpanCount() > 0 {
			complete = false
		}
		outs = append(outs, td)
	}
	return outs, complete
}

// waitOutputs waits until the outputs hold n spans in all.
func (d *deployment) waitOutputs(t *testing.T, n int) []ptrace.Traces {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		outs, complete := d.readOutputs(t)
		total := 0
		for _, td := range outs {
			total += td.SpanCount()
		}
		if complete && total >= n {
			return outs
		}
		require.True(t, time.Now().Before(deadline), "tier 2 wrote %d of %d spans within 30s", total, n)
		time.Sleep(200 * time.Millisecond)
	}
}

// waitStable waits until the outputs stop growing for a second.
func (d *deployment) waitStable(t *testing.T) []ptrace.Traces {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	last, stableSince := -1, time.Now()
	for {
		outs, complete := d.readOutputs(t)
		total := 0
		for _, td := range outs {
			total += td.SpanCount()
		}
		if total != last || !complete {
			last, stableSince = total, time.Now()
		} else if time.Since(stableSince) >= time.Second {
			return outs
		}
		require.True(t, time.Now().Before(deadline), "tier 2's output did not settle within 60s")
		time.Sleep(250 * time.Millisecond)
	}
}

// counter returns each instance's value of one of our metrics.
func (d *deployment) counter(t *testing.T, name string, labels map[string]string) []float64 {
	t.Helper()
	want := map[string]string{"processor": processor}
	maps.Copy(want, labels)
	var out []float64
	for _, c := range d.instances {
		samples, _ := c.scrape(t)
		v, _ := value(samples, ourPrefix+name, want)
		out = append(out, v)
	}
	return out
}

// scoredRun is a run as one tier-2 instance scored it.
type scoredRun struct {
	inst int
	run  reportRun
}

// phase is what one phase sent through tier 1 and where it came out.
type phase struct {
	// outTraces holds every span of the phase's traces in the outputs.
	outTraces ptrace.Traces
	// inSpans counts the spans of each trace tier 1 accepted; where, the
	// spans of each trace on each instance.
	inSpans map[string]int
	where   map[string]map[int]int
	// spread lists the traces found on more than one instance.
	spread map[string]bool
	// expected holds the runs as toolscore scores what tier 1 accepted
	// (one collector); scored, as the instances scored them. Keyed by
	// trace/span id of the agent span.
	expected map[string]reportRun
	scored   map[string][]scoredRun
}

// analyse relates what tier 1 accepted in a phase (in) to the outputs.
func (d *deployment) analyse(t *testing.T, in ptrace.Traces, outs []ptrace.Traces) *phase {
	t.Helper()
	ph := &phase{outTraces: ptrace.NewTraces(), inSpans: map[string]int{}, where: map[string]map[int]int{},
		spread: map[string]bool{}, expected: map[string]reportRun{}, scored: map[string][]scoredRun{}}
	for _, id := range traceIDs(in) {
		ph.inSpans[id]++
	}
	dir := t.TempDir()
	for i, td := range outs {
		inst := d.outputs[i].inst
		// Only this phase's traces.
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				ss.Spans().RemoveIf(func(s ptrace.Span) bool { return ph.inSpans[s.TraceID().String()] == 0 })
			}
		}
		for _, id := range traceIDs(td) {
			if ph.where[id] == nil {
				ph.where[id] = map[int]int{}
			}
			ph.where[id][inst]++
		}
		// The runs this output scored: toolscore reads the annotations.
		path := filepath.Join(dir, fmt.Sprintf("out-%d.jsonl", i))
		writeTraces(t, path, td)
		td.ResourceSpans().MoveAndAppendTo(ph.outTraces.ResourceSpans())
		rep, _ := toolscore(t, "report", "-format", "json", path)
		for _, r := range rep.Runs {
			if ph.inSpans[r.TraceID] > 0 {
				key := r.TraceID + "/" + r.SpanID
				ph.scored[key] = append(ph.scored[key], scoredRun{inst, r})
			}
		}
	}
	for id, w := range ph.where {
		if len(w) > 1 {
			ph.spread[id] = true
		}
	}
	path := filepath.Join(dir, "in.jsonl")
	writeTraces(t, path, in)
	rep, _ := toolscore(t, "score", "-format", "json", "-config", demoConfig, "-config", tier2Config, "-processor", processor, path)
	for _, r := range rep.Runs {
		ph.expected[r.TraceID+"/"+r.SpanID] = r
	}
	require.NotEmpty(t, ph.expected)
	return ph
}

func writeTraces(t *testing.T, path string, td ptrace.Traces) {
	t.Helper()
	var m ptrace.JSONMarshaler
	data, err := m.MarshalTraces(td)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(data, '\n'), 0o644))
}
