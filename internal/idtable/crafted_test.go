package idtable

import (
	"encoding/binary"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/tracefilter"
)

// craftedIDs returns n trace ids that tracefilter.Hash takes to one value:
// it mixes lo + hi*0x9E3779B97F4A7C15 of the id's halves, and a sender
// that knows so picks hi and then the lo that keeps the sum.
func craftedIDs(n int) []pcommon.TraceID {
	const golden = 0x9E3779B97F4A7C15
	ids := make([]pcommon.TraceID, n)
	for i := range ids {
		hi := uint64(i + 1)
		binary.LittleEndian.PutUint64(ids[i][8:], hi)
		binary.LittleEndian.PutUint64(ids[i][:8], 12345-hi*golden)
	}
	return ids
}

// longestRun returns the longest run of occupied slots: what a probe for
// an absent key among them walks.
func longestRun[K comparable, V any](t *Table[K, V]) int {
	longest, run := 0, 0
	for _, s := range append(t.slots, t.slots...) { // runs wrap round the end
		if s.ref == 0 {
			run = 0
			continue
		}
		run++
		longest = max(longest, min(run, len(t.slots)))
	}
	return longest
}

// Trace ids come from senders: a table keyed by them must not let a sender
// choose ids that share a slot, or each put, lookup and delete walks all of
// them (4,096 ids: 4,096 slots a probe). NewSeeded hashes with a seed of
// its own, which a sender cannot know.
func TestSeededTableSpreadsCraftedIDs(t *testing.T) {
	ids := craftedIDs(4096)
	h := tracefilter.Hash(ids[0])
	for _, id := range ids {
		if tracefilter.Hash(id) != h {
			t.Fatalf("the crafted ids do not collide under tracefilter.Hash")
		}
	}
	v := 1
	unseeded := New[pcommon.TraceID, int](tracefilter.Hash)
	seeded := NewSeeded[pcommon.TraceID, int]()
	for _, id := range ids {
		unseeded.Put(id, &v)
		seeded.Put(id, &v)
	}
	if got := longestRun(unseeded); got < len(ids) {
		t.Fatalf("unseeded: longest run %d, want the %d crafted ids in one", got, len(ids))
	}
	if got := longestRun(seeded); got > 64 {
		t.Errorf("seeded: longest run of occupied slots %d among %d ids at half load, want at most 64", got, len(ids))
	}
}
