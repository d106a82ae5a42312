package toolcallaccuracyprocessor

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// stableApplyOrder is applyOrder as a stable sort of the indexes by trace
// bytes, rank and end time: the order applyOrder must give.
func stableApplyOrder(entries []entry) []int {
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ea, eb := &entries[a], &entries[b]
		if c := bytes.Compare(ea.trace[:], eb.trace[:]); c != 0 {
			return c
		}
		if c := cmp.Compare(entryRank(ea), entryRank(eb)); c != 0 {
			return c
		}
		return cmp.Compare(ea.end, eb.end)
	})
	return order
}

// TestApplyOrderIsStable checks applyOrder against a stable sort on random
// batches full of ties: few traces (differing in their first or last
// bytes), every kind, roots and local roots, few end times; and batches of
// up to twice as many traces as applyOrder groups, runs of a trace's
// entries together or not.
func TestApplyOrderIsStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	few := []pcommon.TraceID{{}, {1}, {15: 1}, {0xff}, {0x80, 15: 0xff}, {7, 8: 1}}
	kinds := []extract.Kind{extract.KindOther, extract.KindTool, extract.KindAgent}
	var order []int
	var scratch orderScratch
	for round := range 1000 {
		traces := few
		if round%2 == 1 {
			traces = make([]pcommon.TraceID, 1+rng.IntN(2*groupedTraces))
			for i := range traces {
				traces[i] = few[rng.IntN(len(few))]
				traces[i][rng.IntN(16)] = byte(i)
			}
		}
		together := rng.IntN(2) == 0
		entries := make([]entry, rng.IntN(200))
		for i := range entries {
			e := &entries[i]
			e.trace = traces[rng.IntN(len(traces))]
			if together && i > 0 && rng.IntN(4) > 0 {
				e.trace = entries[i-1].trace
			}
			e.kind = kinds[rng.IntN(len(kinds))]
			if rng.IntN(3) > 0 {
				e.parent = pcommon.SpanID{byte(rng.IntN(4) + 1)}
			}
			e.localRoot = rng.IntN(5) == 0
			e.end = pcommon.Timestamp(rng.Uint64N(4)) << (rng.IntN(2) * 63)
			e.span = pcommon.SpanID{byte(i)}
		}
		order = applyOrder(entries, order, &scratch)
		want := stableApplyOrder(entries)
		if len(want) == 0 {
			require.Empty(t, order)
			continue
		}
		require.Equal(t, want, order)
	}
}

// toolEntries counts the tool entries its trace starts the order with.
func TestToolEntries(t *testing.T) {
	a, b := pcommon.TraceID{1}, pcommon.TraceID{2}
	tool := func(tr pcommon.TraceID) entry { return entry{trace: tr, kind: extract.KindTool} }
	link := func(tr pcommon.TraceID) entry { return entry{trace: tr, kind: extract.KindOther} }
	for _, tc := range []struct {
		name    string
		entries []entry
		want    int
	}{
		{"one", []entry{tool(a)}, 1},
		{"up to the links", []entry{tool(a), tool(a), link(a), tool(a)}, 2},
		{"up to the next trace", []entry{tool(a), tool(a), tool(b)}, 2},
		{"not a tool", []entry{link(a), tool(a)}, 0},
	} {
		order := make([]int, len(tc.entries))
		for i := range order {
			order[i] = i
		}
		require.Equal(t, tc.want, toolEntries(tc.entries, order), tc.name)
	}
}

// BenchmarkApplyOrder orders a batch shaped like the end-to-end traffic's:
// 100 spans, runs of 5 to 12 spans each in its own trace, children before
// parents.
func BenchmarkApplyOrder(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	entries := make([]entry, 0, 100)
	for len(entries) < 100 {
		var trace pcommon.TraceID
		binary.BigEndian.PutUint64(trace[8:], rng.Uint64())
		spans := 5 + rng.IntN(8)
		for s := range min(spans, 100-len(entries)) {
			e := entry{trace: trace, end: pcommon.Timestamp(1000 + s), parent: pcommon.SpanID{1}}
			switch {
			case s == spans-1:
				e.kind, e.parent = extract.KindAgent, pcommon.SpanID{}
			case s%2 == 0:
				e.kind = extract.KindTool
			}
			entries = append(entries, e)
		}
	}
	var order []int
	var scratch orderScratch
	b.ReportAllocs()
	for b.Loop() {
		order = applyOrder(entries, order, &scratch)
	}
}

// TestApplyOrderOneLargeTrace: a batch of one trace's many spans (a long
// agent session) is ordered as a stable sort orders it, and in time
// proportional to n log n: an insertion sort of the trace's entries, in
// reverse order or with tool spans after the links in the batch, took
// quadratic time (100,000 entries: seconds, under the store's lock when
// the batch has other spans).
func TestApplyOrderOneLargeTrace(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	kinds := []extract.Kind{extract.KindOther, extract.KindTool, extract.KindAgent}
	var scratch orderScratch
	for _, n := range []int{33, 100, 2000} {
		entries := make([]entry, n)
		for i := range entries {
			entries[i] = entry{trace: pcommon.TraceID{9}, kind: kinds[rng.IntN(3)], parent: pcommon.SpanID{1},
				end: pcommon.Timestamp(rng.Uint64N(8))}
		}
		require.Equal(t, stableApplyOrder(entries), applyOrder(entries, nil, &scratch), "%d entries", n)
	}
	const n = 100_000
	entries := make([]entry, n)
	for i := range entries {
		entries[i] = entry{trace: pcommon.TraceID{1}, end: pcommon.Timestamp(n - i), parent: pcommon.SpanID{1}}
	}
	start := time.Now()
	order := applyOrder(entries, nil, &scratch)
	elapsed := time.Since(start)
	require.Equal(t, n-1, order[0])
	require.Less(t, elapsed, time.Second, "ordering %d entries of one trace", n)
}
