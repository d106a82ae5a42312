package toolcallaccuracyprocessor

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/rules"
)

// TestResultsKeptForScorersThatReadThem checks which rules keep the tool
// results of their runs (and calls' durations): those whose scorers declare
// they read them, or whose expected calls name a result.
func TestResultsKeptForScorersThatReadThem(t *testing.T) {
	calls := []ExpectedCallConfig{{Tool: "get_weather", Args: map[string]any{"city": "Paris"}}}
	for _, tt := range []struct {
		name    string
		rule    RuleConfig
		results bool
	}{
		{"native", RuleConfig{Name: "r", Expect: ExpectConfig{Calls: calls}}, false},
		{"native with an expected result", RuleConfig{Name: "r", Expect: ExpectConfig{Calls: []ExpectedCallConfig{{Tool: "get_weather", Result: "sunny"}}}}, true},
		{"checks", RuleConfig{Name: "r", Scorers: []ScorerConfig{{Name: "checks"}}}, false},
		{"mongodb", RuleConfig{Name: "r", Expect: ExpectConfig{Calls: calls}, Scorers: []ScorerConfig{{Name: "mongodb"}}}, false},
		{"deepeval", RuleConfig{Name: "r", Expect: ExpectConfig{Calls: calls}, Scorers: []ScorerConfig{{Name: "deepeval"}}}, true},
		{"mastra_trajectory", RuleConfig{Name: "r", Expect: ExpectConfig{Calls: calls}, Scorers: []ScorerConfig{{Name: "native"}, {Name: "mastra_trajectory"}}}, true},
		{"mastra_trajectory_full", RuleConfig{Name: "r", Expect: ExpectConfig{Calls: calls}, Scorers: []ScorerConfig{{Name: "mastra_trajectory_full"}}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := compileRule(&tt.rule, nopTelemetry(), nil)
			require.NoError(t, err)
			require.Equal(t, tt.results, needsResults([]*rules.Rule{r}, true))
			require.Equal(t, tt.results, needsResults([]*rules.Rule{r}, false))
		})
	}
}
