package evaluationsconnector

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/metadata"
)

// loadConfig reads the named instance of testdata/config.yaml over the
// defaults.
func loadConfig(t *testing.T, name string) *Config {
	t.Helper()
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	sub, err := cm.Sub(component.NewIDWithName(metadata.Type, name).String())
	require.NoError(t, err)
	require.NoError(t, sub.Unmarshal(cfg))
	return cfg
}

func TestLoadConfig(t *testing.T) {
	unknown := "unknown"
	tests := []struct {
		name string
		want *Config
	}{
		{"defaults", &Config{
			Dimensions:                  []DimensionConfig{{Name: "service.name"}, {Name: "gen_ai.agent.name"}},
			Histogram:                   HistogramConfig{Buckets: []float64{0, 0.2499, 0.4999, 0.5999, 0.6999, 0.7499, 0.7999, 0.8499, 0.8999, 0.9499, 0.9899, 0.9999, 1}},
			Exemplars:                   ExemplarsConfig{Enabled: true},
			AggregationTemporality:      "cumulative",
			MetricsFlushInterval:        15 * time.Second,
			AggregationCardinalityLimit: 1000,
			SeriesExpiration:            time.Hour,
			MaxExplanationLength:        1024,
		}},
		{"full", &Config{
			Dimensions: []DimensionConfig{
				{Name: "service.name"}, {Name: "gen_ai.agent.name", Default: &unknown},
				{Name: "gen_ai.request.model"}, {Name: "deployment.environment.name"},
			},
			Histogram:                   HistogramConfig{Buckets: []float64{1, 2, 3, 4, 5}},
			Exemplars:                   ExemplarsConfig{Enabled: false},
			AggregationTemporality:      "delta",
			MetricsFlushInterval:        time.Minute,
			AggregationCardinalityLimit: 50,
			SeriesExpiration:            0,
			MaxExplanationLength:        200,
			ProcessorAttributes:         true,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := loadConfig(t, tt.name)
			assert.Equal(t, tt.want, cfg)
			assert.NoError(t, confmap.Validate(cfg))
		})
	}
}

func TestValidate(t *testing.T) {
	err := confmap.Validate(loadConfig(t, "invalid"))
	require.Error(t, err)
	for _, want := range []string{
		`dimensions[1]: name must not be empty`,
		`dimensions[2]: "gen_ai.agent.name" is listed twice`,
		`dimensions[3]: "gen_ai.evaluation.name" is an attribute the connector sets itself`,
		`histogram.buckets[1]: 0.5 must be greater than 0.5`,
		`histogram.buckets[2]: 0.2 must be greater than 0.5`,
		`aggregation_temporality: "sideways" must be cumulative or delta`,
		`metrics_flush_interval: 0s must be positive`,
		`aggregation_cardinality_limit: 0 must be positive (the connector's state is bounded)`,
		`series_expiration: -1s must not be negative (0 keeps series)`,
		`max_explanation_length: 0 must be positive`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	assert.EqualError(t, confmap.Validate(loadConfig(t, "no_buckets")), "histogram.buckets: must not be empty")
}

func TestValidateBucketsFinite(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	cfg.Histogram.Buckets = []float64{math.Inf(-1), 0, math.NaN()}
	assert.EqualError(t, cfg.Validate(), "histogram.buckets[0]: -Inf is not a finite number\nhistogram.buckets[2]: NaN is not a finite number")
}
