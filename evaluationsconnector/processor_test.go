package evaluationsconnector_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"
	"gopkg.in/yaml.v3"

	toolcallaccuracyprocessor "github.com/toolcallaccuracy/toolcallaccuracyprocessor"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

// processorRules are two rules, the first with a second scorer, over the
// captured agent runs.
const processorRules = `
rules:
  - name: paris_trip
    expect:
      calls:
        - tool: get_weather
          args: {city: Paris}
        - tool: lookup_stock
    scorers: [{name: native}, {name: deepeval}]
  - name: stock_succeeds
    expect:
      calls:
        - tool: lookup_stock
          must_succeed: true
`

// annotate runs the captured traces through the real processor, with or
// without its evaluation events, and returns what it sent on.
func annotate(t *testing.T, events bool) []ptrace.Traces {
	t.Helper()
	var raw map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(processorRules), &raw))
	f := toolcallaccuracyprocessor.NewFactory()
	cfg := f.CreateDefaultConfig().(*toolcallaccuracyprocessor.Config)
	require.NoError(t, confmap.NewFromStringMap(raw).Unmarshal(cfg))
	cfg.Output.Events = events
	require.NoError(t, cfg.Validate())
	sink := new(consumertest.TracesSink)
	p, err := f.CreateTraces(context.Background(), processortest.NewNopSettings(f.Type()), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), nil))
	files, err := filepath.Glob(filepath.Join("..", "testdata", "traces", "emitters", "*.otlp.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	docs, err := otlpjson.ReadFiles(files...)
	require.NoError(t, err)
	for _, td := range otlpjson.Traces(docs) {
		require.NoError(t, p.ConsumeTraces(context.Background(), td))
	}
	require.NoError(t, p.Shutdown(context.Background()))
	return sink.AllTraces()
}

// records runs traces through the logs connector and returns its records
// by trace, span and evaluation name, as their attributes.
func records(t *testing.T, traces []ptrace.Traces, processorAttributes bool) map[string]map[string]any {
	t.Helper()
	f := evaluationsconnector.NewFactory()
	cfg := f.CreateDefaultConfig().(*evaluationsconnector.Config)
	cfg.ProcessorAttributes = processorAttributes
	sink := new(consumertest.LogsSink)
	c, err := f.CreateTracesToLogs(context.Background(), connectortest.NewNopSettings(f.Type()), cfg, sink)
	require.NoError(t, err)
	for _, td := range traces {
		require.NoError(t, c.ConsumeTraces(context.Background(), td))
	}
	require.NoError(t, c.Shutdown(context.Background()))
	out := map[string]map[string]any{}
	for _, ld := range sink.AllLogs() {
		for _, rl := range ld.ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					attrs := lr.Attributes().AsRaw()
					key := lr.TraceID().String() + "/" + lr.SpanID().String() + "/" + attrs["gen_ai.evaluation.name"].(string)
					attrs["severity"] = lr.SeverityNumber().String()
					attrs["timestamp"] = lr.Timestamp().String()
					out[key] = attrs
					assert.Equal(t, "gen_ai.evaluation.result", lr.EventName())
					assert.Greater(t, lr.SeverityNumber(), plog.SeverityNumberUnspecified)
				}
			}
		}
	}
	return out
}

// TestProcessorWithoutEvents: the real processor with output.events: false
// and the connector with processor_attributes give, for each rule's primary
// scorer, the records the processor's events give.
func TestProcessorWithoutEvents(t *testing.T) {
	fromEvents := records(t, annotate(t, true), false)
	fromAttrs := records(t, annotate(t, false), true)
	require.NotEmpty(t, fromAttrs)

	primary, second := 0, 0
	for key, rec := range fromEvents {
		if rec["tool_call_accuracy.scorer"] == "deepeval" {
			assert.NotContains(t, fromAttrs, key, "a second scorer reports through events only")
			second++
			continue
		}
		primary++
		assert.Equal(t, rec, fromAttrs[key], key)
	}
	assert.Len(t, fromAttrs, primary)
	// Three emitters' runs, each scored by two rules and a second scorer.
	assert.Equal(t, 6, primary)
	assert.Equal(t, 3, second)
	assert.Len(t, records(t, annotate(t, false), false), 0, "without processor_attributes, no events, no records")
}
