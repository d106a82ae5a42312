package trajectory

import (
	"math/rand"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestOrderNumbersTurnsByFirstAppearance checks, on random runs (calls
// under the agent, under steps and beside model calls, overlapping or
// not), that Order numbers the turns 1, 2, 3... in the order they first
// appear along the sorted calls.
func TestOrderNumbersTurnsByFirstAppearance(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	agent := pcommon.SpanID{1}
	parents := []pcommon.SpanID{agent, {}, {2}, {3}, {4}}
	for range 20000 {
		calls := make([]StoredCall, rng.Intn(12))
		for i := range calls {
			start := uint64(rng.Intn(20))
			calls[i] = StoredCall{Start: start, End: start + uint64(rng.Intn(6)), Parent: parents[rng.Intn(len(parents))]}
		}
		var models []ModelStarts
		for _, p := range parents[2:] {
			if rng.Intn(2) == 0 {
				starts := make([]uint64, rng.Intn(12))
				next := uint64(0)
				for k := range starts {
					next += uint64(rng.Intn(4))
					starts[k] = next
				}
				models = append(models, ModelStarts{Parent: p, Starts: starts})
			}
		}
		turns := Order(calls, agent, models)
		seen := 0
		for i, turn := range turns {
			if turn < 1 || turn > seen+1 {
				t.Fatalf("%+v %+v: call %d in turn %d after %d turns: %v", calls, models, i, turn, seen, turns)
			}
			seen = max(seen, turn)
		}
	}
}
