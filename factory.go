package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadata"
)

// maxCallsLimit is the largest max_calls_per_trajectory (the scorers' bound).
const maxCallsLimit = 1024

// NewFactory returns the factory of the tool_call_accuracy processor.
func NewFactory() processor.Factory { return newFactory() }

// newFactory builds the factory; tests pass options that inject a clock and
// a tick, or capture the processor.
func newFactory(opts ...processorOption) processor.Factory {
	shared := &sharedInstances{}
	return processor.NewFactory(
		metadata.Type,
		createDefaultConfig,
		processor.WithTraces(func(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Traces) (processor.Traces, error) {
			return createTraces(ctx, set, cfg, next, shared, opts...)
		}, metadata.TracesStability),
		processor.WithLogs(func(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Logs) (processor.Logs, error) {
			return createLogs(ctx, set, cfg, next, shared, opts...)
		}, metadata.LogsStability),
	)
}

func createDefaultConfig() component.Config {
	return &Config{
		ScoreTimeout:   30 * time.Second,
		WaitForMissing: 5 * time.Second,
		EmptyArguments: "unknown",
		SkipTools:      extract.DefaultSkipTools(),
		Conversations:  ConversationsConfig{MaxOpen: defaultConversationsMaxOpen, Timeout: defaultConversationsTimeout},
		Limits: LimitsConfig{
			MaxOpenTrajectories:   10_000,
			MaxHeldRuns:           10_000,
			MaxCallsPerTrajectory: 256,
			MaxAge:                5 * time.Minute,
			MaxTrackedTraces:      50_000,
			MaxSpansPerTrace:      10_000,
			MaxArgumentBytes:      extract.DefaultMaxArgumentBytes,
			MaxContextBytes:       16 << 10,
			MaxPendingRecords:     10_000,
		},
		Output: OutputConfig{
			Attributes:           true,
			Events:               true,
			MaxExplanationLength: 512,
			ToolCalls:            ToolCallsOnFailure,
			RuleAttributes:       RuleAttributesAlways,
		},
	}
}

func createTraces(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Traces, shared *sharedInstances, opts ...processorOption) (processor.Traces, error) {
	sp, err := shared.forTraces(set, cfg.(*Config), next, opts)
	if err != nil {
		return nil, err
	}
	p := sp.p
	return processorhelper.NewTraces(ctx, set, cfg, downstream{Traces: next, h: p.holder}, p.processTraces,
		processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: true}),
		processorhelper.WithStart(sp.start),
		processorhelper.WithShutdown(sp.shutdown(shared)),
	)
}

// createLogs makes the logs side of the processor: records pass through
// unchanged, and what they witness joins the runs of the traces pipeline
// that names the same ID (see shared_instances.go).
func createLogs(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Logs, shared *sharedInstances, opts ...processorOption) (processor.Logs, error) {
	sp, err := shared.forLogs(set, cfg.(*Config), opts)
	if err != nil {
		return nil, err
	}
	return processorhelper.NewLogs(ctx, set, cfg, next, sp.p.processLogs,
		processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: false}),
		processorhelper.WithStart(sp.start),
		processorhelper.WithShutdown(sp.shutdown(shared)),
	)
}
