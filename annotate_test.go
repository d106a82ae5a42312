package toolcallaccuracyprocessor

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestToolCallsOutput checks when the run's tool names are listed: the
// mastra capture's run passes paris_trip and fails stock_must_succeed, so
// with only paris_trip it passes and with both it does not.
func TestToolCallsOutput(t *testing.T) {
	calls := []string{"get_weather", "lookup_stock"}
	tests := []struct {
		mode      string
		bothRules bool
		want      []string
	}{
		{ToolCallsOnFailure, true, calls},
		{ToolCallsOnFailure, false, nil},
		{ToolCallsAlways, true, calls},
		{ToolCallsAlways, false, calls},
		{ToolCallsNever, true, nil},
		{ToolCallsNever, false, nil},
	}
	for _, tt := range tests {
		name := tt.mode + "/passing"
		if tt.bothRules {
			name = tt.mode + "/failing"
		}
		t.Run(name, func(t *testing.T) {
			cfg := parisConfig(t)
			cfg.Output.ToolCalls = tt.mode
			if !tt.bothRules {
				cfg.Rules = cfg.Rules[:1]
			}
			in := readTraceFile(t, filepath.Join("testdata", "traces", "emitters", "mastra-otel-mock.otlp.jsonl"))
			out := newHarness(t, cfg).run(t, cloneAll(in))
			assertConserved(t, in, out)
			agent := onlyScored(t, out)
			passed, ok := agent.Attributes().Get(attrPassed)
			require.True(t, ok)
			require.Equal(t, !tt.bothRules, passed.Bool())
			_, listed := agent.Attributes().Get(attrToolCalls)
			assert.Equal(t, tt.want != nil, listed)
			assert.Equal(t, tt.want, stringSlice(agent.Attributes(), attrToolCalls))
		})
	}
}
