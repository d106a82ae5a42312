package idtable

import (
	"runtime"
	"testing"
)

// churnEntries is the store's default max_tracked_traces.
const churnEntries = 50_000

type benchValue struct{ x [64]byte }

// BenchmarkChurn is the store's steady state: churnEntries ids, and per op
// one id put, the oldest deleted, the newest looked up and two absent ids
// looked up; for a Go map and for a Table.
func BenchmarkChurn(b *testing.B) {
	vals := make([]benchValue, churnEntries+1)
	b.Run("map", func(b *testing.B) {
		m := make(map[[16]byte]*benchValue)
		for n := range uint64(churnEntries) {
			m[counterID(n)] = &vals[n%uint64(len(vals))]
		}
		n := uint64(churnEntries)
		hits := 0
		for b.Loop() {
			m[counterID(n)] = &vals[n%uint64(len(vals))]
			delete(m, counterID(n-churnEntries))
			if m[counterID(n)] != nil {
				hits++
			}
			if m[counterID(n+1)] != nil || m[counterID(n+1<<40)] != nil {
				hits++
			}
			n++
		}
		sinkHits = hits
	})
	b.Run("table", func(b *testing.B) {
		t := NewSeeded[[16]byte, benchValue]()
		for n := range uint64(churnEntries) {
			t.Put(counterID(n), &vals[n%uint64(len(vals))])
		}
		n := uint64(churnEntries)
		hits := 0
		for b.Loop() {
			t.Put(counterID(n), &vals[n%uint64(len(vals))])
			t.Delete(counterID(n - churnEntries))
			if t.Get(counterID(n)) != nil {
				hits++
			}
			if t.Get(counterID(n+1)) != nil || t.Get(counterID(n+1<<40)) != nil {
				hits++
			}
			n++
		}
		sinkHits = hits
	})
}

var sinkHits int

// BenchmarkChurnGC is what a garbage collection costs with churnEntries ids
// held after churn (each op one runtime.GC): the table's slots, without
// pointers, are not scanned; a Go map's are.
func BenchmarkChurnGC(b *testing.B) {
	vals := make([]benchValue, churnEntries+1)
	val := func(n uint64) *benchValue { return &vals[n%uint64(len(vals))] }
	b.Run("map", func(b *testing.B) {
		m := make(map[[16]byte]*benchValue)
		for n := range uint64(3 * churnEntries) {
			m[counterID(n)] = val(n)
			if n >= churnEntries {
				delete(m, counterID(n-churnEntries))
			}
		}
		for b.Loop() {
			runtime.GC()
		}
		runtime.KeepAlive(m)
	})
	b.Run("table", func(b *testing.B) {
		t := NewSeeded[[16]byte, benchValue]()
		for n := range uint64(3 * churnEntries) {
			t.Put(counterID(n), val(n))
			if n >= churnEntries {
				t.Delete(counterID(n - churnEntries))
			}
		}
		for b.Loop() {
			runtime.GC()
		}
		runtime.KeepAlive(t)
	})
}
