package toolcallaccuracyprocessor

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// orphanRun is a root agent span whose get_weather calls all sit under
// spans never exported: the first to end asks for Paris, the rest for
// London. With more than two orphans the trace has more spans than the
// store keeps inline.
func orphanRun(orphans int) ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := range orphans {
		city := "London"
		if i == 0 {
			city = "Paris"
		}
		s := ss.Spans().AppendEmpty()
		toolSpan(s, "get_weather", `{"city":"`+city+`"}`)
		s.SetTraceID(traceID(1))
		s.SetSpanID(spanID(uint64(10 + i)))
		s.SetParentSpanID(spanID(uint64(50 + i))) // never exported
		s.SetEndTimestamp(pcommon.Timestamp(2_000_000 + i))
	}
	agent := ss.Spans().AppendEmpty()
	agentSpan(agent, "weather-agent", 500_000, 9_000_000)
	agent.SetTraceID(traceID(1))
	agent.SetSpanID(spanID(1))
	return td
}

// TestOrphanAdoptionIsDeterministic: a root adopting orphaned calls over
// max_calls_per_trajectory keeps the first to arrive, every time, whether
// its trace is small or large: the agent span's annotations are the same
// in every repetition, and the kept call (Paris) passes.
func TestOrphanAdoptionIsDeterministic(t *testing.T) {
	cfg := weatherConfig()
	cfg.Limits.MaxCallsPerTrajectory = 1
	for _, orphans := range []int{2, 5} {
		t.Run(fmt.Sprintf("%d orphans", orphans), func(t *testing.T) {
			var first map[string]any
			for rep := range 30 {
				out := newHarness(t, cfg).run(t, []ptrace.Traces{orphanRun(orphans)})
				agent := spansByID(out)[spanID(1)]
				got := ourAttributes(agent)
				require.Equal(t, 1.0, got[attrPrefix+"weather.score"], "repetition %d kept a London call", rep)
				if rep == 0 {
					first = got
				}
				require.Equal(t, first, got, "repetition %d", rep)
			}
		})
	}
}
