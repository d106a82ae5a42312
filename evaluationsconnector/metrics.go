package evaluationsconnector // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector"

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/aggregate"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/evaluation"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/metadata"
)

// metricsConnector aggregates the evaluations of the spans it is given into
// series, and sends them on every metrics_flush_interval from a goroutine of
// its own. One mutex guards the series and the scratch they are read
// through; a span without evaluations is passed over without taking it.
type metricsConnector struct {
	next     consumer.Metrics
	tel      *telemetry
	logger   *zap.Logger
	reader   evaluation.Reader
	dims     []dimension
	version  string
	clock    clock
	interval time.Duration

	mu        sync.Mutex
	scores    *aggregate.Histogram
	results   *aggregate.Sum
	toolCalls *aggregate.Sum
	span      evaluation.Span
	dimAttrs  []aggregate.KeyValue
	attrs     []aggregate.KeyValue

	// life guards the flush goroutine's start and stop.
	life       sync.Mutex
	stop, done chan struct{}
	shut       bool
}

var _ connector.Traces = (*metricsConnector)(nil)

func newMetricsConnector(set connector.Settings, cfg *Config, next consumer.Metrics, clk clock) (*metricsConnector, error) {
	tel, err := newTelemetry(set.TelemetrySettings, set.ID, signalMetrics)
	if err != nil {
		return nil, err
	}
	agg := aggregate.Settings{
		Limit:      cfg.AggregationCardinalityLimit,
		Exemplars:  cfg.Exemplars.Enabled,
		Delta:      cfg.AggregationTemporality == temporalityDelta,
		Expiration: cfg.SeriesExpiration,
	}
	return &metricsConnector{
		next:      next,
		tel:       tel,
		logger:    set.Logger,
		reader:    evaluation.Reader{ProcessorAttributes: cfg.ProcessorAttributes},
		dims:      newDimensions(cfg.Dimensions),
		version:   set.BuildInfo.Version,
		clock:     clk,
		interval:  cfg.MetricsFlushInterval,
		scores:    aggregate.NewHistogram(agg, cfg.Histogram.Buckets),
		results:   aggregate.NewSum(agg),
		toolCalls: aggregate.NewSum(agg),
	}, nil
}

// Capabilities says the connector reads the spans without changing them.
func (*metricsConnector) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: false}
}

// Start starts the flush ticker.
func (c *metricsConnector) Start(context.Context, component.Host) error {
	c.life.Lock()
	defer c.life.Unlock()
	if c.stop != nil || c.shut {
		return nil
	}
	t := c.clock.NewTicker(c.interval)
	c.stop, c.done = make(chan struct{}), make(chan struct{})
	go c.flushEvery(t, c.stop, c.done)
	return nil
}

func (c *metricsConnector) flushEvery(t ticker, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C():
			c.flush(context.Background())
		}
	}
}

// Shutdown stops the ticker and sends what was measured since the last
// flush; safe without Start, and more than once.
func (c *metricsConnector) Shutdown(ctx context.Context) error {
	c.life.Lock()
	defer c.life.Unlock()
	if c.shut {
		return nil
	}
	c.shut = true
	defer c.tel.shutdown()
	if c.stop == nil {
		return nil
	}
	close(c.stop)
	select {
	case <-c.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	c.flush(ctx)
	return nil
}

// ConsumeTraces adds the batch's evaluations to the series.
func (c *metricsConnector) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	var n counts
	locked := false
	var now pcommon.Timestamp
	forEachEvaluated(td, c.reader, func(_ int, rs ptrace.ResourceSpans, span ptrace.Span) {
		if !locked {
			c.mu.Lock()
			locked = true
			now = pcommon.NewTimestampFromTime(c.clock.Now())
		}
		c.aggregate(span, rs.Resource().Attributes(), now, &n)
	})
	if locked {
		c.noteSeries()
		c.mu.Unlock()
	}
	c.tel.record(ctx, &n)
	return nil
}

// aggregate adds the evaluations of one span; the caller holds mu.
func (c *metricsConnector) aggregate(span ptrace.Span, res pcommon.Map, now pcommon.Timestamp, n *counts) {
	sp := &c.span
	sp.Reset()
	c.reader.Read(span, sp)
	n.add(sp)
	if len(sp.Evaluations) == 0 {
		return
	}
	dims := c.dimAttrs[:0]
	spanAttrs := span.Attributes()
	for d := range c.dims {
		if v, _, ok := c.dims[d].value(spanAttrs, res); ok {
			dims = append(dims, aggregate.KeyValue{Key: c.dims[d].name, Value: v})
		}
	}
	c.dimAttrs = dims

	var ex *aggregate.Exemplar
	exemplar := aggregate.Exemplar{TraceID: span.TraceID(), SpanID: span.SpanID(), Time: now}
	if !exemplar.TraceID.IsEmpty() {
		ex = &exemplar
	}
	attrs := c.attrs
	for e := range sp.Evaluations {
		ev := &sp.Evaluations[e]
		attrs = append(attrs[:0], dims...)
		attrs = append(attrs, aggregate.KeyValue{Key: evaluation.AttrName, Value: metricValue(ev.Name)})
		if ev.Rule != "" {
			attrs = append(attrs, aggregate.KeyValue{Key: evaluation.AttrRule, Value: metricValue(ev.Rule)})
		}
		if ev.Scorer != "" {
			attrs = append(attrs, aggregate.KeyValue{Key: evaluation.AttrScorer, Value: metricValue(ev.Scorer)})
		}
		if ev.HasScore {
			exemplar.Value = ev.Score
			if c.scores.Record(attrs, ev.Score, ex, now) {
				n.overflow[idxScore]++
			}
		}
		if ev.Label != "" {
			attrs = append(attrs, aggregate.KeyValue{Key: evaluation.AttrLabel, Value: metricValue(ev.Label)})
		}
		if ev.ErrorType != "" {
			attrs = append(attrs, aggregate.KeyValue{Key: evaluation.AttrErrorType, Value: metricValue(ev.ErrorType)})
		}
		exemplar.Value = 1
		if c.results.Add(attrs, 1, ex, now) {
			n.overflow[idxResults]++
		}
	}
	exemplar.Value = 1
	for t := range sp.ToolCalls {
		tc := &sp.ToolCalls[t]
		attrs = append(attrs[:0], dims...)
		attrs = append(attrs,
			aggregate.KeyValue{Key: evaluation.AttrRule, Value: metricValue(tc.Rule)},
			aggregate.KeyValue{Key: attrToolName, Value: metricValue(tc.Tool)},
			aggregate.KeyValue{Key: attrCallStatus, Value: metricValue(tc.Status)})
		if c.toolCalls.Add(attrs, 1, ex, now) {
			n.overflow[idxToolCalls]++
		}
	}
	c.attrs = attrs
}

// noteSeries updates the series counts the telemetry reports; the caller
// holds mu.
func (c *metricsConnector) noteSeries() {
	c.tel.series[idxScore].Store(int64(c.scores.Len()))
	c.tel.series[idxResults].Store(int64(c.results.Len()))
	c.tel.series[idxToolCalls].Store(int64(c.toolCalls.Len()))
}

// flush sends the series on. A refusal is logged and counted: there is no
// caller to return it to (a cumulative series' next flush carries its
// total again; a delta interval is lost).
func (c *metricsConnector) flush(ctx context.Context) {
	c.mu.Lock()
	md := c.build(pcommon.NewTimestampFromTime(c.clock.Now()))
	c.noteSeries()
	c.mu.Unlock()
	if md.DataPointCount() == 0 {
		return
	}
	if err := c.next.ConsumeMetrics(ctx, md); err != nil {
		c.tel.flushFailed(ctx)
		c.logger.Warn("the next consumer refused the evaluation metrics", zap.Error(err))
	}
}

// build writes the series as of now; the caller holds mu. Metrics without
// data points are left out.
func (c *metricsConnector) build(now pcommon.Timestamp) pmetric.Metrics {
	md := pmetric.NewMetrics()
	sm := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty()
	sm.Scope().SetName(metadata.ScopeName)
	sm.Scope().SetVersion(c.version)
	ms := sm.Metrics()
	ms.EnsureCapacity(numMetrics)

	m := newMetric(ms, metricScore, unitScore, descScore)
	c.scores.Flush(m.SetEmptyHistogram(), now)
	m = newMetric(ms, metricResults, unitResults, descResults)
	c.results.Flush(m.SetEmptySum(), now)
	m = newMetric(ms, metricToolCalls, unitToolCalls, descToolCalls)
	c.toolCalls.Flush(m.SetEmptySum(), now)

	ms.RemoveIf(func(m pmetric.Metric) bool {
		switch m.Type() {
		case pmetric.MetricTypeHistogram:
			return m.Histogram().DataPoints().Len() == 0
		case pmetric.MetricTypeSum:
			return m.Sum().DataPoints().Len() == 0
		}
		return false
	})
	return md
}

func newMetric(ms pmetric.MetricSlice, name, unit, desc string) pmetric.Metric {
	m := ms.AppendEmpty()
	m.SetName(name)
	m.SetUnit(unit)
	m.SetDescription(desc)
	return m
}
