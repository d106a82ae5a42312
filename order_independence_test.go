package toolcallaccuracyprocessor

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// maxAllOrders is the most requests a capture may have for every order of
// them to be tried; larger captures are tried in sampledOrders seeded
// random orders.
const (
	maxAllOrders  = 6
	sampledOrders = 150
)

// TestVerdictsDoNotDependOnArrivalOrder feeds every bundled capture's
// requests, with the default configuration (wait_for_missing), in every
// order where there are few and in a seeded random sample of orders
// otherwise, with the spans of each request shuffled too, and asserts that
// every span gets the annotations it gets when the requests arrive as they
// were captured. Runs the processor releases once their spans arrived are
// released after the request that completed them (as the processor's loop
// does at once); the clock does not move until the end, when what is
// still held goes out at shutdown.
func TestVerdictsDoNotDependOnArrivalOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("many orders of every capture")
	}
	total := 0
	for _, tt := range goldenCases() {
		t.Run(tt.file, func(t *testing.T) {
			in := readTraceFile(t, filepath.Join("testdata", "traces", tt.file))
			cfg := loadConfig(t, filepath.Join("testdata", "golden", "config.yaml"), tt.config)
			want := feedInOrder(t, cfg, nil, cloneAll(in))
			// The run before: the same service's run as captured, under
			// other trace ids, from which the processor learns what the
			// service's runs record.
			before := cloneAll(in)
			for _, td := range before {
				otherTraceIDs(td)
			}
			orders := requestOrders(len(in), uint64(len(tt.file)))
			r := rand.New(rand.NewPCG(11, uint64(len(tt.file))))
			for _, order := range orders {
				batches := make([]ptrace.Traces, len(order))
				for i, k := range order {
					batches[i] = ptrace.NewTraces()
					in[k].CopyTo(batches[i])
					shuffleSpans(batches[i], r)
				}
				got := feedInOrder(t, cfg, cloneAll(before), batches)
				require.Equal(t, totalSpans(in), got.SpanCount(), "order %v", order)
				if diff := annotationDiffMovedRoots(want, got); diff != "" {
					t.Fatalf("requests in order %v: %s", order, diff)
				}
			}
			total += len(orders)
		})
	}
	t.Logf("FIGURES %d orders of %d captures gave the in-order annotations", total, len(goldenCases()))
}

// feedInOrder sends the batches of before, then batches, one by one to a
// processor with cfg, releasing after each the runs it completed, and
// returns what it sent on of batches' traces.
func feedInOrder(t *testing.T, cfg *Config, before, batches []ptrace.Traces) ptrace.Traces {
	t.Helper()
	earlier := map[pcommon.TraceID]bool{}
	for _, td := range before {
		for _, s := range allSpans(td) {
			earlier[s.TraceID()] = true
		}
	}
	c := newControlled(t, cfg)
	for _, td := range append(before, batches...) {
		c.send(t, td)
		c.release()
	}
	require.NoError(t, c.proc.Shutdown(context.Background()))
	out := mergeTraces(c.sink.AllTraces())
	for _, rs := range out.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			ss.Spans().RemoveIf(func(s ptrace.Span) bool { return earlier[s.TraceID()] })
		}
	}
	return out
}

// otherTraceIDs gives td's spans trace ids no capture uses.
func otherTraceIDs(td ptrace.Traces) {
	for _, s := range allSpans(td) {
		id := s.TraceID()
		for i := range id {
			id[i] ^= 0xff
		}
		s.SetTraceID(id)
	}
}

// requestOrders returns the orders to try n requests in: all of them when
// n is at most maxAllOrders, else the reversed order and a seeded sample.
func requestOrders(n int, seed uint64) [][]int {
	identity := make([]int, n)
	for i := range identity {
		identity[i] = i
	}
	if n <= maxAllOrders {
		var out [][]int
		permute(identity, 0, func(p []int) { out = append(out, append([]int(nil), p...)) })
		return out
	}
	reversed := make([]int, n)
	for i := range reversed {
		reversed[i] = n - 1 - i
	}
	out := [][]int{identity, reversed}
	r := rand.New(rand.NewPCG(seed, 42))
	for range sampledOrders {
		p := append([]int(nil), identity...)
		r.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
		out = append(out, p)
	}
	return out
}

// permute calls f with every permutation of p[k:] (Heap's algorithm would
// do; this is the plain recursive swap).
func permute(p []int, k int, f func([]int)) {
	if k == len(p) {
		f(p)
		return
	}
	for i := k; i < len(p); i++ {
		p[k], p[i] = p[i], p[k]
		permute(p, k+1, f)
		p[k], p[i] = p[i], p[k]
	}
}

// shuffleSpans shuffles the spans of each scope of td.
func shuffleSpans(td ptrace.Traces, r *rand.Rand) {
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			spans := ss.Spans()
			n := spans.Len()
			order := r.Perm(n)
			shuffled := ptrace.NewSpanSlice()
			for _, i := range order {
				spans.At(i).CopyTo(shuffled.AppendEmpty())
			}
			shuffled.CopyTo(spans)
		}
	}
}

// annotationDiffMovedRoots is annotationDiff where a run whose trace root
// passed before its spans carries its verdict on another span of the run,
// its explanations saying so: in such a trace the annotations are compared
// trace by trace, less that note, instead of span by span.
func annotationDiffMovedRoots(ref, got ptrace.Traces) string {
	moved := map[pcommon.TraceID]bool{}
	for _, s := range allSpans(got) {
		for _, v := range ourAttributes(s) {
			if str, ok := v.(string); ok && strings.Contains(str, rootPassedNote) {
				moved[s.TraceID()] = true
			}
		}
	}
	if len(moved) == 0 {
		return annotationDiff(ref, got)
	}
	byTrace := func(td ptrace.Traces) map[pcommon.TraceID][]string {
		out := map[pcommon.TraceID][]string{}
		for _, s := range allSpans(td) {
			if a := ourAttributes(s); a != nil && moved[s.TraceID()] {
				for k, v := range a {
					if str, ok := v.(string); ok {
						a[k] = strings.ReplaceAll(str, rootPassedNote, "")
					}
				}
				out[s.TraceID()] = append(out[s.TraceID()], fmt.Sprint(a))
			}
		}
		for _, l := range out {
			slices.Sort(l)
		}
		return out
	}
	rest := func(td ptrace.Traces) ptrace.Traces {
		c := ptrace.NewTraces()
		td.CopyTo(c)
		for _, rs := range c.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				ss.Spans().RemoveIf(func(s ptrace.Span) bool { return moved[s.TraceID()] })
			}
		}
		return c
	}
	if diff := annotationDiff(rest(ref), rest(got)); diff != "" {
		return diff
	}
	want, have := byTrace(ref), byTrace(got)
	for trace := range moved {
		if !slices.Equal(want[trace], have[trace]) {
			return fmt.Sprintf("trace %s, its root passed first: want %v, got %v", trace, want[trace], have[trace])
		}
	}
	return ""
}
