package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/peers"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// TestReadsArguments checks which rules need call arguments decoded: only
// a native-only rule whose expected calls give neither arguments nor
// matchers can go without.
func TestReadsArguments(t *testing.T) {
	args, err := jsonv.Parse(`{"city":"Paris"}`)
	require.NoError(t, err)
	tests := []struct {
		name     string
		scorers  []string
		calls    []toolcall.ExpectedCall
		wantRead bool
	}{
		{"native, names only", []string{toolcall.NativeName}, []toolcall.ExpectedCall{{Name: "get_weather"}}, false},
		{"native, no calls", []string{toolcall.NativeName}, nil, false},
		{"native, literal arguments", []string{toolcall.NativeName}, []toolcall.ExpectedCall{{Name: "get_weather"}, {Name: "get_time", Args: args}}, true},
		{"native, a matcher", []string{toolcall.NativeName}, []toolcall.ExpectedCall{{Name: "get_weather", Matchers: []toolcall.PathMatcher{{Path: "city", Matcher: toolcall.Present()}}}}, true},
		{"a peer profile, names only", []string{toolcall.NativeName, peers.MongoDBName}, []toolcall.ExpectedCall{{Name: "get_weather"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp := toolcall.Expectation{Calls: tt.calls}
			var scorers []Scorer
			for _, name := range tt.scorers {
				s, err := toolcall.New(name, toolcall.Settings{Expectation: exp, Threshold: 1})
				require.NoError(t, err)
				scorers = append(scorers, Scorer{Label: name, Scorer: s})
			}
			r, err := New(Spec{Name: "r", Expectation: exp, Scorers: scorers, Threshold: 1}, componenttest.NewNopTelemetrySettings())
			require.NoError(t, err)
			assert.Equal(t, tt.wantRead, r.ReadsArguments())
		})
	}
}
