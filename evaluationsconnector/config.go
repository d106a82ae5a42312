package evaluationsconnector // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector"

import (
	"errors"
	"fmt"
	"math"
	"time"

	"go.opentelemetry.io/collector/confmap"
)

// Config is the configuration of the evaluations connector.
type Config struct {
	// Dimensions are attributes every metric series carries besides the
	// evaluation's own (name, rule, scorer, label, error.type): each is
	// looked up on the evaluated span, then on its resource. A dimension
	// neither has takes its Default, or is left out when it has none.
	// Log records carry the dimensions found on the span (the resource's
	// are on the record's resource). Default: service.name and
	// gen_ai.agent.name.
	Dimensions []DimensionConfig `mapstructure:"dimensions"`
	// Histogram configures the gen_ai.evaluation.score histogram.
	Histogram HistogramConfig `mapstructure:"histogram"`
	// Exemplars configures the exemplars of the metrics.
	Exemplars ExemplarsConfig `mapstructure:"exemplars"`
	// AggregationTemporality is "cumulative" (the default: every flush
	// writes each series' total since it started, as a Prometheus exporter
	// expects) or "delta" (each flush writes the change since the last,
	// for the series that changed).
	AggregationTemporality string `mapstructure:"aggregation_temporality"`
	// MetricsFlushInterval is how often the metrics are sent on. Default
	// 15s.
	MetricsFlushInterval time.Duration `mapstructure:"metrics_flush_interval"`
	// AggregationCardinalityLimit bounds the series of each metric; once a
	// metric has that many, measurements of new series go to its overflow
	// series, whose only attribute is otel.metric.overflow=true, and are
	// counted (otelcol_connector_evaluations_overflow). Default 1000.
	AggregationCardinalityLimit int `mapstructure:"aggregation_cardinality_limit"`
	// SeriesExpiration drops a series that has had no measurement for this
	// long, freeing its place under the cardinality limit; a cumulative
	// series that comes back starts again from zero. 0 keeps every series.
	// Default 1h.
	SeriesExpiration time.Duration `mapstructure:"series_expiration"`
	// MaxExplanationLength cuts longer gen_ai.evaluation.explanation
	// values of the log records to this many bytes (at a character
	// boundary, ending in "…"). Default 1024.
	MaxExplanationLength int `mapstructure:"max_explanation_length"`
	// ProcessorAttributes also reads the tool_call_accuracy processor's
	// per-rule span attributes (tool_call_accuracy.<rule>.score, outcome,
	// scorer, explanation) as the rule's evaluation when no span event
	// reports it: turn it on when the processor writes no events
	// (output.events: false). Every span is then searched for them, a pass
	// over its attributes; off (the default), a span without evaluation
	// events costs a look at its events.
	ProcessorAttributes bool `mapstructure:"processor_attributes"`

	_ struct{}
}

// DimensionConfig is one dimension of the metrics.
type DimensionConfig struct {
	// Name is the attribute's name. Required.
	Name string `mapstructure:"name"`
	// Default is the value of a span and resource without the attribute;
	// without a Default the dimension is left out of their series.
	Default *string `mapstructure:"default"`

	_ struct{}
}

// HistogramConfig configures the gen_ai.evaluation.score histogram.
type HistogramConfig struct {
	// Buckets are the explicit bucket bounds, increasing: bucket i counts
	// scores in (Buckets[i-1], Buckets[i]]. The default suits scores in
	// [0, 1]: edges just below common thresholds (0, 0.2499, 0.4999, ...,
	// 0.7999, ..., 0.9999, 1), so le="0.7999" counts scores under 0.8.
	Buckets []float64 `mapstructure:"buckets"`

	_ struct{}
}

// ExemplarsConfig configures exemplars.
type ExemplarsConfig struct {
	// Enabled attaches to each series the trace and span id of its latest
	// measurement (for the histogram, the latest of each bucket, so that a
	// failing score's bucket points at a failing run). Default true.
	Enabled bool `mapstructure:"enabled"`

	_ struct{}
}

// Values of Config.AggregationTemporality.
const (
	temporalityCumulative = "cumulative"
	temporalityDelta      = "delta"
)

// defaultBuckets are the processor's score histogram bounds.
var defaultBuckets = []float64{0, 0.2499, 0.4999, 0.5999, 0.6999, 0.7499, 0.7999, 0.8499, 0.8999, 0.9499, 0.9899, 0.9999, 1}

var _ confmap.Validator = (*Config)(nil)

// Validate checks the configuration; every error is reported.
func (cfg *Config) Validate() error {
	var errs []error
	seen := map[string]bool{}
	for i, d := range cfg.Dimensions {
		switch {
		case d.Name == "":
			errs = append(errs, fmt.Errorf("dimensions[%d]: name must not be empty", i))
		case seen[d.Name]:
			errs = append(errs, fmt.Errorf("dimensions[%d]: %q is listed twice", i, d.Name))
		case reservedDimensions[d.Name]:
			errs = append(errs, fmt.Errorf("dimensions[%d]: %q is an attribute the connector sets itself", i, d.Name))
		}
		seen[d.Name] = true
	}
	if len(cfg.Histogram.Buckets) == 0 {
		errs = append(errs, errors.New("histogram.buckets: must not be empty"))
	}
	for i, b := range cfg.Histogram.Buckets {
		if math.IsNaN(b) || math.IsInf(b, 0) {
			errs = append(errs, fmt.Errorf("histogram.buckets[%d]: %v is not a finite number", i, b))
		} else if i > 0 && b <= cfg.Histogram.Buckets[i-1] {
			errs = append(errs, fmt.Errorf("histogram.buckets[%d]: %v must be greater than %v", i, b, cfg.Histogram.Buckets[i-1]))
		}
	}
	switch cfg.AggregationTemporality {
	case temporalityCumulative, temporalityDelta:
	default:
		errs = append(errs, fmt.Errorf("aggregation_temporality: %q must be %s or %s", cfg.AggregationTemporality, temporalityCumulative, temporalityDelta))
	}
	if cfg.MetricsFlushInterval <= 0 {
		errs = append(errs, fmt.Errorf("metrics_flush_interval: %v must be positive", cfg.MetricsFlushInterval))
	}
	if cfg.AggregationCardinalityLimit <= 0 {
		errs = append(errs, fmt.Errorf("aggregation_cardinality_limit: %d must be positive (the connector's state is bounded)", cfg.AggregationCardinalityLimit))
	}
	if cfg.SeriesExpiration < 0 {
		errs = append(errs, fmt.Errorf("series_expiration: %v must not be negative (0 keeps series)", cfg.SeriesExpiration))
	}
	if cfg.MaxExplanationLength <= 0 {
		errs = append(errs, fmt.Errorf("max_explanation_length: %d must be positive", cfg.MaxExplanationLength))
	}
	return errors.Join(errs...)
}
