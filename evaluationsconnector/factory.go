package evaluationsconnector // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector"

import (
	"context"
	"slices"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/consumer"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/metadata"
)

// Values of the connector telemetry's signal attribute.
const (
	signalLogs    = "logs"
	signalMetrics = "metrics"
)

// NewFactory returns the factory of the evaluations connector.
func NewFactory() connector.Factory { return newFactory(systemClock{}) }

// newFactory builds the factory over a clock; tests pass one they control.
func newFactory(clk clock) connector.Factory {
	return connector.NewFactory(
		metadata.Type,
		createDefaultConfig,
		connector.WithTracesToLogs(func(_ context.Context, set connector.Settings, cfg component.Config, next consumer.Logs) (connector.Traces, error) {
			return newLogsConnector(set, cfg.(*Config), next, clk)
		}, metadata.TracesToLogsStability),
		connector.WithTracesToMetrics(func(_ context.Context, set connector.Settings, cfg component.Config, next consumer.Metrics) (connector.Traces, error) {
			return newMetricsConnector(set, cfg.(*Config), next, clk)
		}, metadata.TracesToMetricsStability),
	)
}

func createDefaultConfig() component.Config {
	return &Config{
		Dimensions:                  []DimensionConfig{{Name: "service.name"}, {Name: "gen_ai.agent.name"}},
		Histogram:                   HistogramConfig{Buckets: slices.Clone(defaultBuckets)},
		Exemplars:                   ExemplarsConfig{Enabled: true},
		AggregationTemporality:      temporalityCumulative,
		MetricsFlushInterval:        15 * time.Second,
		AggregationCardinalityLimit: 1000,
		SeriesExpiration:            time.Hour,
		MaxExplanationLength:        1024,
	}
}

// clock is the time the connector reads and the ticker that flushes its
// metrics.
type clock interface {
	Now() time.Time
	NewTicker(d time.Duration) ticker
}

// ticker delivers flush ticks.
type ticker interface {
	C() <-chan time.Time
	Stop()
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTicker(d time.Duration) ticker { return systemTicker{time.NewTicker(d)} }

type systemTicker struct{ *time.Ticker }

func (t systemTicker) C() <-chan time.Time { return t.Ticker.C }
