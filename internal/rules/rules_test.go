package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"
)

// TestReadsArguments checks which rules need call arguments decoded: only
// a native-only rule whose expected calls give neither arguments nor
// matchers can go without.
func TestReadsArguments(t *testing.T) {
	args, err := scoring.Parse(`{"city":"Paris"}`)
	require.NoError(t, err)
	tests := []struct {
		name     string
		scorers  []string
		calls    []scoring.ExpectedCall
		wantRead bool
	}{
		{"native, names only", []string{scoring.NativeName}, []scoring.ExpectedCall{{Name: "get_weather"}}, false},
		{"native, no calls", []string{scoring.NativeName}, nil, false},
		{"native, literal arguments", []string{scoring.NativeName}, []scoring.ExpectedCall{{Name: "get_weather"}, {Name: "get_time", Args: args}}, true},
		{"native, a matcher", []string{scoring.NativeName}, []scoring.ExpectedCall{{Name: "get_weather", Matchers: []scoring.PathMatcher{{Path: "city", Matcher: scoring.Present()}}}}, true},
		{"a peer profile, names only", []string{scoring.NativeName, scoring.MongoDBName}, []scoring.ExpectedCall{{Name: "get_weather"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp := scoring.Expectation{Calls: tt.calls}
			var scorers []Scorer
			for _, name := range tt.scorers {
				s, err := scoring.New(name, scoring.Settings{Expectation: exp, Threshold: 1})
				require.NoError(t, err)
				scorers = append(scorers, Scorer{Label: name, Scorer: s})
			}
			r, err := New(Spec{Name: "r", Expectation: exp, Scorers: scorers, Threshold: 1}, componenttest.NewNopTelemetrySettings())
			require.NoError(t, err)
			assert.Equal(t, tt.wantRead, r.ReadsArguments())
		})
	}
}
