package toolcallaccuracyprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestThresholdZeroIsSaidAtStartup: a rule with threshold 0 passes every
// run (every score is at least 0). It is accepted as a monitoring-only
// rule, and the collector says so at startup, naming the rule; before, it
// was accepted without a word. A rule that can fail says nothing.
func TestThresholdZeroIsSaidAtStartup(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	set := processortest.NewNopSettings(NewFactory().Type())
	set.Logger = zap.New(core)
	cfg := weatherConfig()
	zero, one := 0.0, 1.0
	cfg.Rules[0].Threshold = &zero
	cfg.Rules = append(cfg.Rules, RuleConfig{Name: "strict", Threshold: &one, Expect: cfg.Rules[0].Expect})
	require.NoError(t, cfg.Validate())
	p, err := NewFactory().CreateTraces(context.Background(), set, cfg, new(consumertest.TracesSink))
	require.NoError(t, err)
	require.NoError(t, p.Shutdown(context.Background()))
	warned := logs.FilterMessageSnippet("threshold 0").All()
	require.Len(t, warned, 1)
	assert.Equal(t, "weather", warned[0].ContextMap()["rule"])
	assert.Contains(t, warned[0].Message, "passes every run (monitoring only")
}
