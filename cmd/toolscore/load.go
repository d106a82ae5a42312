package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"golang.org/x/time/rate"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/loadgen"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

// loadReport is what toolscore load prints at the end.
type loadReport struct {
	Protocol string `json:"protocol"`
	Target   string `json:"target"`
	// SpansSent counts the spans of every request made, answered or not.
	SpansSent int64 `json:"spans_sent"`
	// SpansAccepted counts the spans of answered requests less those the
	// collector said it rejected (partial success).
	SpansAccepted int64 `json:"spans_accepted"`
	SpansRejected int64 `json:"spans_rejected"`
	GenAISpans    int64 `json:"genai_spans"`
	Runs          int   `json:"runs"`
	// HeldSpans are the agent spans held back and sent at the end;
	// DroppedSpans those held back and never sent (-drop-held).
	HeldSpans      int64   `json:"held_spans"`
	DroppedSpans   int64   `json:"dropped_spans"`
	Requests       int64   `json:"requests"`
	Errors         int64   `json:"errors"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	// SpansPerSecond is the achieved rate: spans sent over the elapsed time.
	SpansPerSecond float64 `json:"spans_per_second"`
	TargetRate     float64 `json:"target_rate"`
	FirstError     string  `json:"first_error,omitempty"`
}

func runLoad(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("load", stderr)
	endpoint := fs.String("endpoint", "", "OTLP endpoint: a URL for http (default http://127.0.0.1:4318), host:port for grpc (default 127.0.0.1:4317)")
	protocol := fs.String("protocol", "http", "`protocol`: http (OTLP/HTTP protobuf) or grpc")
	timeout := fs.Duration("timeout", 10*time.Second, "timeout of each request")
	spansPerSecond := fs.Float64("rate", 1000, "spans per second (0: as fast as the receiver accepts)")
	duration := fs.Duration("duration", 10*time.Second, "stop after this long (0: no time limit)")
	limit := fs.Int64("spans", 0, "stop after this many spans (0: no limit)")
	batch := fs.Int("batch", 100, "spans per request")
	workers := fs.Int("workers", 4, "concurrent requests")
	share := fs.Float64("genai-share", 0.1, "share of the spans that belong to GenAI runs replayed from TRACES; the rest are ordinary HTTP server spans")
	shape := fs.String("shape", loadgen.ShapeFull, "how the captured runs are replayed: full; ends_on_tools (without what came after the last tool call: runs that end on a tool call); agents_alone (only the agent spans: runs that recorded nothing below them)")
	split := fs.Bool("split", false, "send each run's spans in separate requests, its agent span after the others were answered, runs interleaved")
	hold := fs.Int("hold", 0, "hold back the agent spans of the first `N` runs and send them after everything else, keeping those runs open")
	dropHeld := fs.Bool("drop-held", false, "never send the held agent spans")
	format := fs.String("format", "text", "report `format`: text or json")
	files, err := parseArgs(fs, args)
	if err != nil {
		return 0, err
	}
	switch {
	case *batch < 1:
		err = fmt.Errorf("-batch %d: expected at least 1", *batch)
	case *workers < 1:
		err = fmt.Errorf("-workers %d: expected at least 1", *workers)
	case *spansPerSecond < 0 || math.IsNaN(*spansPerSecond) || math.IsInf(*spansPerSecond, 0):
		err = fmt.Errorf("-rate %v: expected spans per second, 0 for no limit", *spansPerSecond)
	case !(*share >= 0 && *share <= 1):
		err = fmt.Errorf("-genai-share %v: expected a share between 0 and 1", *share)
	case *duration < 0 || *limit < 0 || *hold < 0:
		err = errors.New("-duration, -spans and -hold cannot be negative")
	case *duration == 0 && *limit == 0:
		err = errors.New("-duration 0 and no -spans: the load would never end")
	case *format != "text" && *format != "json":
		err = fmt.Errorf("-format %q: expected text or json", *format)
	case *share > 0 && len(files) == 0:
		fmt.Fprintln(stderr, "toolscore load: trace files are required for GenAI runs (or -genai-share 0)")
		fs.Usage()
		return 0, errUsage
	}
	if err != nil {
		return 0, err
	}
	docs, err := otlpjson.ReadFiles(files...)
	if err != nil {
		return 0, err
	}
	groups := []loadgen.SpanGroup{loadgen.OrdinaryGroup()}
	templates, err := loadgen.ReadTemplates(docs, &groups)
	if err != nil {
		return 0, err
	}
	if templates, err = loadgen.ShapeTemplates(templates, groups, *shape); err != nil {
		return 0, fmt.Errorf("-shape: %w", err)
	}
	if *share > 0 && len(templates) == 0 {
		return 0, errors.New("the trace files hold no spans")
	}
	exp, err := newExporter(*protocol, *endpoint, *timeout)
	if err != nil {
		return 0, err
	}
	defer exp.close()

	tr := loadgen.NewTraffic(loadgen.Config{Batch: *batch, Share: *share, Split: *split, Hold: *hold, DropHeld: *dropHeld, Limit: *limit},
		templates, groups, uint64(time.Now().UnixNano()))
	lim := rate.NewLimiter(rate.Inf, *batch)
	if *spansPerSecond > 0 {
		lim = rate.NewLimiter(rate.Limit(*spansPerSecond), *batch)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep := generateLoad(ctx, tr, exp, lim, *duration, *workers)
	rep.Protocol = *protocol
	rep.Target = exp.target()
	rep.TargetRate = *spansPerSecond

	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return 0, err
		}
	} else {
		writeLoadText(stdout, rep)
	}
	if rep.Errors > 0 || rep.SpansRejected > 0 {
		return exitFailed, nil
	}
	return exitOK, nil
}

// loadRequest is one request for the senders.
type loadRequest struct {
	seq   uint64
	req   ptraceotlp.ExportRequest
	spans int
	genai int
}

// loadStats adds up the senders' results.
type loadStats struct {
	mu                              sync.Mutex
	sent, accepted, rejected, genai int64
	requests, errors                int64
	firstError                      string
}

func (s *loadStats) record(r loadRequest, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	s.sent += int64(r.spans)
	s.genai += int64(r.genai)
	var rejected *rejectedError
	switch {
	case err == nil:
		s.accepted += int64(r.spans)
		return
	case errors.As(err, &rejected):
		n := min(rejected.spans, int64(r.spans))
		s.rejected += n
		s.accepted += int64(r.spans) - n
	default:
		s.errors++
	}
	if s.firstError == "" {
		s.firstError = err.Error()
	}
}

// ackTracker follows which requests were answered.
type ackTracker struct {
	mu        sync.Mutex
	watermark uint64 // every request up to it was answered
	done      map[uint64]bool
	changed   chan struct{}
}

func newAckTracker() *ackTracker {
	return &ackTracker{done: map[uint64]bool{}, changed: make(chan struct{}, 1)}
}

func (a *ackTracker) answered(seq uint64) {
	a.mu.Lock()
	a.done[seq] = true
	for a.done[a.watermark+1] {
		delete(a.done, a.watermark+1)
		a.watermark++
	}
	a.mu.Unlock()
	select {
	case a.changed <- struct{}{}:
	default:
	}
}

func (a *ackTracker) answeredUpTo() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.watermark
}

// waitFor waits until every request up to seq was answered or ctx ends.
func (a *ackTracker) waitFor(ctx context.Context, seq uint64) bool {
	for a.answeredUpTo() < seq {
		select {
		case <-a.changed:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// generateLoad sends the traffic until it ends, the duration passes or ctx
// is cancelled, then the held agent spans, and reports.
func generateLoad(ctx context.Context, tr *loadgen.Traffic, exp exporter, lim *rate.Limiter, duration time.Duration, workers int) *loadReport {
	start := time.Now()
	runCtx := ctx
	if duration > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, duration)
		defer cancel()
	}
	stats := &loadStats{}
	acks := newAckTracker()
	queue := make(chan loadRequest, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for r := range queue {
				// A request under way when the duration ends still gets its
				// answer: the counts stay exact.
				err := exp.export(context.WithoutCancel(ctx), r.req)
				stats.record(r, err)
				acks.answered(r.seq)
			}
		})
	}
	var seq uint64
	send := func(ctx context.Context, b *loadgen.RequestBuilder) bool {
		if err := lim.WaitN(ctx, b.Spans); err != nil {
			return false // the duration ends before the tokens come
		}
		seq++
		select {
		case queue <- loadRequest{seq: seq, req: ptraceotlp.NewExportRequestFromTraces(b.TD), spans: b.Spans, genai: b.GenAI}:
			return true
		case <-ctx.Done():
			seq--
			return false
		}
	}
	for runCtx.Err() == nil {
		acked := acks.answeredUpTo()
		b, state := tr.Next(seq+1, acked)
		if state == loadgen.NextDone {
			break
		}
		if state == loadgen.NextWait {
			// Agent spans wait for their runs' requests under way.
			acks.waitFor(runCtx, acked+1)
			continue
		}
		if !send(runCtx, b) {
			break
		}
	}
	// The held agent spans go last, once everything before them was
	// answered, whether the load ended by its duration or its span count.
	held, dropped := int64(len(tr.Held)), tr.Dropped
	if len(tr.Held) > 0 && acks.waitFor(ctx, seq) {
		for _, b := range tr.HeldRequests() {
			if !send(ctx, b) {
				break
			}
		}
	}
	close(queue)
	wg.Wait()
	elapsed := time.Since(start)
	stats.mu.Lock()
	defer stats.mu.Unlock()
	rep := &loadReport{
		SpansSent: stats.sent, SpansAccepted: stats.accepted, SpansRejected: stats.rejected,
		GenAISpans: stats.genai, Runs: tr.Runs, HeldSpans: held, DroppedSpans: dropped,
		Requests: stats.requests, Errors: stats.errors, ElapsedSeconds: elapsed.Seconds(),
		FirstError: stats.firstError,
	}
	if elapsed > 0 {
		rep.SpansPerSecond = float64(stats.sent) / elapsed.Seconds()
	}
	return rep
}

func writeLoadText(w io.Writer, rep *loadReport) {
	fmt.Fprintf(w, "toolscore load: %s to %s (%s)\n", plural(int(rep.SpansSent), "span"), rep.Target, rep.Protocol)
	fmt.Fprintf(w, "  accepted   %d\n", rep.SpansAccepted)
	if rep.SpansRejected > 0 {
		fmt.Fprintf(w, "  rejected   %d\n", rep.SpansRejected)
	}
	fmt.Fprintf(w, "  GenAI      %d spans in %s\n", rep.GenAISpans, plural(rep.Runs, "run"))
	if rep.HeldSpans > 0 || rep.DroppedSpans > 0 {
		fmt.Fprintf(w, "  held       %d agent spans sent at the end, %d never sent\n", rep.HeldSpans, rep.DroppedSpans)
	}
	fmt.Fprintf(w, "  requests   %d\n", rep.Requests)
	fmt.Fprintf(w, "  errors     %d\n", rep.Errors)
	fmt.Fprintf(w, "  elapsed    %.2fs\n", rep.ElapsedSeconds)
	target := "unlimited"
	if rep.TargetRate > 0 {
		target = fmt.Sprintf("%g", rep.TargetRate)
	}
	fmt.Fprintf(w, "  rate       %.0f spans/s (target %s)\n", rep.SpansPerSecond, target)
	if rep.FirstError != "" {
		fmt.Fprintf(w, "  first error: %s\n", rep.FirstError)
	}
}
