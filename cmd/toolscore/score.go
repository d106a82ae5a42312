package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
	"io"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/calltap"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgeclient"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadata"
)

const runsWithoutRuleMetric = "otelcol_processor_tool_call_accuracy_runs_without_rule"

// newFlagSet returns a flag set that reports errors on stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("toolscore "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseArgs parses flags placed before, between or after the file
// arguments and returns the files.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errUsage
		}
		args = fs.Args()
		if len(args) == 0 {
			return files, nil
		}
		if args[0] == "--" {
			return append(files, args[1:]...), nil
		}
		files = append(files, args[0])
		args = args[1:]
	}
}

func runScore(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("score", stderr)
	var configFiles configFlags
	fs.Var(&configFiles, "config", "collector or processor configuration `file` (required; repeat to merge several in order, like the collector's --config)")
	id := fs.String("processor", "", "processor `id` to use when the file configures several (e.g. tool_call_accuracy/ci)")
	format := fs.String("format", "table", "output `format`: table or json")
	calls := fs.Bool("calls", false, "list each run's tool calls (arguments, result, failure) after the table")
	verbose := fs.Bool("v", false, "print the processor's log on stderr")
	outFile := fs.String("out", "", "also write the annotated spans to `file` (OTLP JSON, one request per line, like the file exporter)")
	noJudges := fs.Bool("no-judges", false, "run no LLM judge: rules' judge scorers are skipped (nothing is sent)")
	judgeEndpoint := fs.String("judge-endpoint", "", "send every rule's judge requests to `url` instead of the configured endpoint")
	gate := gateFlags(fs)
	files, err := parseArgs(fs, args)
	if err != nil {
		return 0, err
	}
	if len(configFiles) == 0 || len(files) == 0 {
		fmt.Fprintln(stderr, "toolscore score: -config and at least one trace file are required")
		fs.Usage()
		return 0, errUsage
	}
	if err := checkFormat(*format); err != nil {
		return 0, err
	}
	if *judgeEndpoint != "" {
		if err := judgeclient.ValidateEndpoint(*judgeEndpoint); err != nil {
			return 0, fmt.Errorf("-judge-endpoint: %w", err)
		}
	}
	cid, cfg, err := loadProcessorConfig(configFiles, *id)
	if err != nil {
		return 0, err
	}
	overrideJudges(cfg, *noJudges, *judgeEndpoint)
	// The report is read from the attributes and events the processor
	// writes, whatever the collector's output settings.
	cfg.Output.Attributes, cfg.Output.Events = true, true
	docs, logs, err := otlpjson.ReadSignals(files...)
	if err != nil {
		return 0, err
	}
	if otlpjson.SpanCount(docs) == 0 {
		return 0, fmt.Errorf("no spans in %s", strings.Join(files, ", "))
	}
	logger := zap.NewNop()
	if *verbose {
		logger = newStderrLogger(stderr)
	}
	res, err := scoreOffline(context.Background(), cid, cfg, docs, logs, logger)
	if err != nil {
		return 0, err
	}
	if *outFile != "" {
		if err := writeTraceFile(*outFile, res.out); err != nil {
			return 0, err
		}
	}
	var names []string
	for _, r := range cfg.Rules {
		if *noJudges && r.Judge != nil {
			continue // its judges were skipped: it need not score a run
		}
		names = append(names, r.Name)
	}
	rep := buildReport(res.out, names, cfg.SkipTools)
	rep.MonitoringOnly = monitoringOnly(cfg.Rules)
	res.calls.attach(rep)
	res.calls.attachUnselected(rep, res.out)
	attachRecords(rep, logs)
	for i := range rep.Runs {
		rep.Runs[i].Source = res.sources[rep.Runs[i].TraceID]
	}
	rep.Summary.RunsWithoutRule = &res.runsWithoutRule
	rep.setGate(*gate)
	if err := rep.write(stdout, *format, *calls); err != nil {
		return 0, err
	}
	return rep.exitCode(), nil
}

// overrideJudges applies -no-judges (sampling every judge rule at 0, so
// its judge scorers run on no run) and -judge-endpoint.
func overrideJudges(cfg *toolcallaccuracyprocessor.Config, none bool, endpoint string) {
	zero := 0.0
	for i := range cfg.Rules {
		j := cfg.Rules[i].Judge
		if j == nil {
			continue
		}
		if none {
			j.SampleRatio = &zero
		}
		if endpoint != "" {
			j.SetEndpoint(endpoint)
		}
	}
}

// offlineResult is the output of one offline scoring.
type offlineResult struct {
	out             ptrace.Traces
	sources         map[string]string // trace id -> first file holding it
	runsWithoutRule int64
	// calls are the calls each run was scored on.
	calls *scoredCalls
}

// scoreOffline runs the spans of docs, one batch per trace in a canonical
// order (see traceBatches), through a processor created by the processor's
// own factory, as the collector does, then shuts it down so that held runs
// are released, and returns everything it emitted. Each trace arrives
// whole, so nothing is waited for: wait_for_missing is off.
func scoreOffline(ctx context.Context, id component.ID, cfg *toolcallaccuracyprocessor.Config, docs []otlpjson.Doc, logs []otlpjson.LogDoc, logger *zap.Logger) (*offlineResult, error) {
	whole := *cfg
	whole.WaitForMissing = 0
	// Every log record goes in before any span (see feedLogs): none is
	// dropped waiting for its span.
	whole.Limits.MaxPendingRecords = max(whole.Limits.MaxPendingRecords, otlpjson.RecordCount(logs))
	cfg = &whole
	docs = traceBatches(docs)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(context.Background()) }()

	set := processortest.NewNopSettings(metadata.Type)
	set.ID = id
	set.TelemetrySettings = componenttest.NewNopTelemetrySettings()
	set.Logger = logger
	set.MeterProvider = mp

	calls := new(scoredCalls)
	defer calltap.Set(id, calls.tap)()
	sink := new(consumertest.TracesSink)
	factory := toolcallaccuracyprocessor.NewFactory()
	proc, err := factory.CreateTraces(ctx, set, cfg, sink)
	if err != nil {
		return nil, fmt.Errorf("create processor: %w", err)
	}
	if err := proc.Start(ctx, componenttest.NewNopHost()); err != nil {
		return nil, fmt.Errorf("start processor: %w", err)
	}
	// The same processor in a logs pipeline (one instance per ID, as in a
	// collector whose traces and logs pipelines name it).
	logsProc, err := factory.CreateLogs(ctx, set, cfg, consumertest.NewNop())
	if err != nil {
		return nil, fmt.Errorf("create processor: %w", err)
	}
	if err := logsProc.Start(ctx, componenttest.NewNopHost()); err != nil {
		return nil, fmt.Errorf("start processor: %w", err)
	}
	defer func() { _ = logsProc.Shutdown(context.Background()) }()
	res := &offlineResult{sources: map[string]string{}, calls: calls}
	total := otlpjson.SpanCount(docs) // before the processor takes held spans out
	consumeErr := feedLogs(ctx, logsProc, logs)
	if consumeErr == nil {
		consumeErr = consumeTraces(ctx, proc, docs, res)
	}
	if consumeErr == nil {
		// Held runs (wait, judges) go out on their own; Shutdown would cut
		// judges short, so wait until every span is out or the deadline.
		deadline := time.Now().Add(cfg.Wait + cfg.ScoreTimeout + time.Second)
		for sink.SpanCount() < total && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	shutdownCtx, cancel := context.WithTimeout(ctx, cfg.ScoreTimeout+10*time.Second)
	defer cancel()
	if err := errors.Join(consumeErr, proc.Shutdown(shutdownCtx)); err != nil {
		return nil, err
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		return nil, fmt.Errorf("read processor metrics: %w", err)
	}
	res.runsWithoutRule = sumCounter(&rm, runsWithoutRuleMetric)
	res.out = ptrace.NewTraces()
	for _, td := range sink.AllTraces() {
		td.ResourceSpans().MoveAndAppendTo(res.out.ResourceSpans())
	}
	return res, nil
}

// sumCounter adds up every data point of an int64 sum.
func sumCounter(rm *metricdata.ResourceMetrics, name string) int64 {
	var total int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			if s, ok := m.Data.(metricdata.Sum[int64]); ok {
				for _, dp := range s.DataPoints {
					total += dp.Value
				}
			}
		}
	}
	return total
}

func newStderrLogger(stderr io.Writer) *zap.Logger {
	enc := zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig())
	return zap.New(zapcore.NewCore(enc, zapcore.AddSync(stderr), zapcore.DebugLevel))
}

// writeTraceFile writes td as one ExportTraceServiceRequest JSON line.
func writeTraceFile(path string, td ptrace.Traces) error {
	var m ptrace.JSONMarshaler
	data, err := m.MarshalTraces(td)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
