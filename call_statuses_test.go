package toolcallaccuracyprocessor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"gopkg.in/yaml.v3"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
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

// TestPutCallStatuses: each status lists its calls in breakdown order, a
// pair named as called else as expected, missing calls as expected, an
// index out of range as "", findings by their check's status (undefined
// tools are not a status of their own); the packed form is the map's.
func TestPutCallStatuses(t *testing.T) {
	calls := []toolcall.Call{{Name: "a"}, {Name: "b"}, {Name: "c\xff"}, {Name: "d"}}
	expected := []toolcall.ExpectedCall{{Name: "x"}, {Name: "y"}}
	ev := &evaluation{calls: calls, result: toolcall.Result{Breakdown: toolcall.Breakdown{
		Pairs:        []toolcall.Pair{{Expected: 0, Actual: 1, Score: 1}, {Expected: 1, Actual: -1, Score: 0.5}, {Expected: 0, Actual: 0, Score: 1}},
		Missing:      []int{1, 7},
		OutOfOrder:   []toolcall.Pair{{Actual: 3}},
		Unexpected:   []int{2, 0},
		Forbidden:    []int{3},
		Hallucinated: []int{9},
		Findings: []toolcall.Finding{{Call: 1, Check: toolcall.CheckRepeated}, {Call: 0, Check: toolcall.CheckUndefinedTool},
			{Call: 3, Check: toolcall.CheckInvalidArguments}, {Call: 0, Check: toolcall.CheckRepeated}},
	}}}
	key := ruleKey("r", fieldCallStatuses)
	span := ptrace.NewSpan()
	w := annotationWriter{pack: true}
	at := w.begin()
	putCallStatuses(&w, span.Attributes(), &key, ev, expected)
	w.end(at, span.Attributes().Len())
	w.end(w.begin(), 0) // no events
	v, ok := span.Attributes().Get(key.name)
	require.True(t, ok)
	assert.Equal(t, map[string]any{
		"matched":           []any{"b", "a"},
		"mismatched":        []any{"y"},
		"missing":           []any{"y", ""},
		"out_of_order":      []any{"d"},
		"unexpected":        []any{"c\uFFFD", "a"},
		"forbidden":         []any{"d"},
		"hallucinated":      []any{""},
		"invalid_arguments": []any{"d"},
		"repeated":          []any{"b", "a"},
	}, v.Map().AsRaw())
	var order []string
	for k := range v.Map().All() {
		order = append(order, k)
	}
	assert.Equal(t, []string{"matched", "mismatched", "missing", "unexpected", "out_of_order", "forbidden", "hallucinated", "invalid_arguments", "repeated"}, order, "in status order")
	assert.Equal(t, packAnnotations(nil, span), w.buf)

	empty := ptrace.NewSpan()
	putCallStatuses(&annotationWriter{}, empty.Attributes(), &key, &evaluation{result: toolcall.Result{Breakdown: toolcall.Breakdown{
		Findings: []toolcall.Finding{{Check: toolcall.CheckUndefinedTool}}}}}, expected)
	assert.Zero(t, empty.Attributes().Len(), "no status, no attribute")
}
