package evaluationsconnector // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector"

import (
	"context"
	"sync/atomic"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/evaluation"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/metadata"
)

// Indexes of the metrics the connector writes, for its own telemetry.
const (
	idxScore = iota
	idxResults
	idxToolCalls
	numMetrics
)

var metricNames = [numMetrics]string{metricScore, metricResults, metricToolCalls}

// telemetry records the connector's own metrics with attribute sets built
// once, at creation.
type telemetry struct {
	tb        *metadata.TelemetryBuilder
	read      [evaluation.NumSources][]metric.AddOption
	invalid   [evaluation.NumIssues][]metric.AddOption
	plain     []metric.AddOption
	overflow  [numMetrics][]metric.AddOption
	seriesObs [numMetrics][]metric.ObserveOption
	// series are the current series counts the gauge reports.
	series [numMetrics]atomic.Int64
}

// counts are one batch's counts, recorded at once.
type counts struct {
	read      [evaluation.NumSources]int64
	invalid   [evaluation.NumIssues]int64
	truncated int64
	overflow  [numMetrics]int64
}

// add adds what reading one span found.
func (c *counts) add(s *evaluation.Span) {
	for i, n := range s.Read {
		c.read[i] += n
	}
	for i, n := range s.Issues {
		c.invalid[i] += n
	}
}

// newTelemetry builds the connector's instruments; signal is "logs" or
// "metrics", and only the metrics connector reports its series.
func newTelemetry(set component.TelemetrySettings, id component.ID, signal string) (*telemetry, error) {
	tb, err := metadata.NewTelemetryBuilder(set)
	if err != nil {
		return nil, err
	}
	conn := attribute.String("connector", id.String())
	sig := attribute.String("signal", signal)
	t := &telemetry{tb: tb, plain: addOpts(conn)}
	for s := range t.read {
		t.read[s] = addOpts(conn, sig, attribute.String("source", evaluation.Source(s).String()))
	}
	for i := range t.invalid {
		t.invalid[i] = addOpts(conn, sig, attribute.String("reason", evaluation.Issue(i).String()))
	}
	for m, name := range metricNames {
		set := attribute.NewSet(conn, attribute.String("metric", name))
		t.overflow[m] = []metric.AddOption{metric.WithAttributeSet(set)}
		t.seriesObs[m] = []metric.ObserveOption{metric.WithAttributeSet(set)}
	}
	if signal == signalMetrics {
		err = tb.RegisterConnectorEvaluationsSeriesCallback(func(_ context.Context, o metric.Int64Observer) error {
			for m := range t.series {
				o.Observe(t.series[m].Load(), t.seriesObs[m]...)
			}
			return nil
		})
		if err != nil {
			tb.Shutdown()
			return nil, err
		}
	}
	return t, nil
}

func addOpts(attrs ...attribute.KeyValue) []metric.AddOption {
	return []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attrs...))}
}

// record adds a batch's counts to the instruments, one call per non-zero
// series.
func (t *telemetry) record(ctx context.Context, c *counts) {
	for s, n := range c.read {
		if n > 0 {
			t.tb.ConnectorEvaluationsRead.Add(ctx, n, t.read[s]...)
		}
	}
	for i, n := range c.invalid {
		if n > 0 {
			t.tb.ConnectorEvaluationsInvalid.Add(ctx, n, t.invalid[i]...)
		}
	}
	if c.truncated > 0 {
		t.tb.ConnectorEvaluationsExplanationsTruncated.Add(ctx, c.truncated, t.plain...)
	}
	for m, n := range c.overflow {
		if n > 0 {
			t.tb.ConnectorEvaluationsOverflow.Add(ctx, n, t.overflow[m]...)
		}
	}
}

// flushFailed counts a flush the next consumer refused.
func (t *telemetry) flushFailed(ctx context.Context) {
	t.tb.ConnectorEvaluationsFlushFailures.Add(ctx, 1, t.plain...)
}

func (t *telemetry) shutdown() { t.tb.Shutdown() }
