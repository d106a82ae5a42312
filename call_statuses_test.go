package toolcallaccuracyprocessor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"gopkg.in/yaml.v3"
)

// TestCallStatusesMatchToolCallsMetric: the call_statuses attributes of every
// scored run add up, by rule and status, to the tool_calls metric, for every
// trace file under each configuration with expectations and checks (the
// evaluations connector counts per tool what the processor counts per rule).
func TestCallStatusesMatchToolCallsMetric(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "traces", "*", "*.json*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, config := range []string{"paris", "peers", "cities", "checks"} {
		t.Run(config, func(t *testing.T) {
			var cfg *Config
			if config == "checks" {
				cfg = checksConfig(t)
			} else {
				cfg = loadConfig(t, filepath.Join("testdata", "golden", "config.yaml"), config)
			}
			h := newHarness(t, cfg)
			var in = cloneAll(readTraceFile(t, files[0]))
			for _, f := range files[1:] {
				in = append(in, cloneAll(readTraceFile(t, f))...)
			}
			out := h.run(t, in)

			fromSpans := map[[2]string]int64{}
			for _, span := range allSpans(out) {
				for k, v := range span.Attributes().All() {
					rule, ok := strings.CutSuffix(strings.TrimPrefix(k, attrPrefix), ".call_statuses")
					if !ok {
						continue
					}
					require.Equal(t, pcommon.ValueTypeMap, v.Type(), k)
					for status, names := range v.Map().All() {
						require.Equal(t, pcommon.ValueTypeSlice, names.Type(), k)
						require.Positive(t, names.Slice().Len(), "%s: an empty list is left out", k)
						for _, n := range names.Slice().All() {
							assert.NotEmpty(t, n.Str(), "%s.%s", k, status)
						}
						fromSpans[[2]string{rule, status}] += int64(names.Slice().Len())
					}
				}
			}
			require.NotEmpty(t, fromSpans)

			m, err := h.tel.GetMetric("otelcol_processor_tool_call_accuracy_tool_calls")
			require.NoError(t, err)
			fromMetric := map[[2]string]int64{}
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				rule, _ := dp.Attributes.Value("rule")
				status, _ := dp.Attributes.Value("status")
				fromMetric[[2]string{rule.AsString(), status.AsString()}] += dp.Value
			}
			assert.Equal(t, fromMetric, fromSpans)
			if config == "checks" {
				assert.Positive(t, fromSpans[[2]string{"tool_checks", "invalid_arguments"}], "the checks' findings are named")
			}
		})
	}
}

// checksConfig is a rule scored by the checks scorer, whose findings give
// the invalid_arguments, repeated, unrecovered_failure and over_budget
// statuses.
func checksConfig(t *testing.T) *Config {
	var raw map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(`
rules:
  - name: tool_checks
    scorers:
      - name: checks
        options: {max_repeats: 1, max_calls: 1}
    tools:
      - name: get_weather
        parameters:
          type: object
          properties: {city: {type: string}}
          required: [city, country]
`), &raw))
	cfg := createDefaultConfig().(*Config)
	require.NoError(t, confmap.NewFromStringMap(raw).Unmarshal(cfg))
	require.NoError(t, cfg.Validate())
	return cfg
}
