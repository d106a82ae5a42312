// Package tracefilter answers "might this set hold this trace?" without a
// lookup in the set's map: a counting Bloom filter of trace ids, for the
// maps of traces whose misses, on the path of every ordinary span, cost a
// cache miss each (the store's traces, the replay caches' runs).
package tracefilter // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/tracefilter"

import (
	"encoding/binary"
	"math/bits"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Filter geometry: filterBitsPer bits of the query table per trace of
// capacity, filterProbes bits per trace, all in one 64-bit word (the word
// index takes the hash's top bits, the bits in it its low ten). With a
// byte of counts per bit, a trace of capacity costs 9 bytes: 144 KiB at
// 13,000 traces. Twice the bits cut false positives from 2.4% to 0.6% but
// doubled the bytes the filter allocates as it grows.
const (
	filterBitsPer = 8
	filterProbes  = 4
	// filterCountMax is where a bit's count saturates.
	filterCountMax = 255
)

// Filter answers "might this trace be in the set?" from one word of a
// small table, so that the ordinary spans of untracked traces (most spans,
// each of its own trace) are passed over without a lookup in the set's
// map, whose misses cost cache misses once it holds thousands of traces.
//
// It is a counting Bloom filter blocked to one 64-bit word: a trace id's
// hash picks a word and filterProbes bits in it, and the trace may be
// in the set only if all of them are set. A false "maybe" only costs the map
// lookup: that happens for about 2.4% of untracked traces
// (trajectory's TestTraceFilterFalsePositives), where a count per value of the id's
// last two bytes passed 18% at 13,000 traces. Removal stays
// exact: each bit keeps a count of the traces that set it, and the
// bit is cleared when its count drops to zero. The counts are touched only
// when a trace is added or removed; a count that reaches its limit stays
// there, and its bit set, for good (never a false "no").
type Filter struct {
	// words are the query table; bit b of words[w] is set while the
	// count of bit w*64+b is not zero.
	words []uint64
	// counts holds a count per bit of words: the 64 of a word are one
	// cache line.
	counts []uint8
	// shift takes a hash to its word: the hash's top bits.
	shift uint8
	// capacity is how many traces the filter is sized for.
	capacity int
}

// Capacity is how many traces the filter is sized for: past it, false
// positives grow.
func (f *Filter) Capacity() int { return f.capacity }

// New returns an empty filter sized for at least capacity
// traces (and fewer than twice as many, or 16 at the least). It has two
// words at the least: the word index is the hash's top lg bits, a shift
// by 64-lg, and one word (lg 0) would make it a shift by 64, which
// (shift & 63) turns into no shift at all.
func New(capacity int) *Filter {
	words := max((capacity*filterBitsPer+63)/64, 2)
	lg := bits.Len(uint(words - 1))
	words = 1 << lg
	return &Filter{
		words:    make([]uint64, words),
		counts:   make([]uint8, words*64),
		shift:    uint8(64 - lg),
		capacity: words * 64 / filterBitsPer,
	}
}

// Hash mixes every bit of a trace id into every bit of the hash, so
// that ids that are not random (counters, or ids varying in a few bytes)
// spread over a table too: the filter's word index takes the hash's top
// bits and the mask its low ones (internal/idtable's tables of traces
// take its top bits too). A multiplication alone carries a bit only upward,
// so the low bits of a counter written big-endian (the high bits of the
// word read) never reached the mask, and every such id had one pattern.
// The halves are combined unevenly (equal halves do not cancel), then
// splitmix64's finalizer mixes them.
func Hash(id pcommon.TraceID) uint64 {
	return mix(binary.LittleEndian.Uint64(id[:8]) + binary.LittleEndian.Uint64(id[8:])*0x9E3779B97F4A7C15)
}

// mix is splitmix64's finalizer: every bit of z reaches every bit of
// the result.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// filterMasks are the bit patterns a hash's low bits pick within its word,
// each of filterProbes distinct bits: one table read rather than a shift
// per bit keeps MayHave a few instructions.
var filterMasks = func() (t [1 << 10]uint64) {
	x := uint64(0x243F6A8885A308D3)
	for i := range t {
		for bits.OnesCount64(t[i]) < filterProbes {
			x += 0x9E3779B97F4A7C15 // splitmix64's sequence
			t[i] |= 1 << (mix(x) & 63)
		}
	}
	return t
}()

// filterMask is the bits of its word a hash sets.
func filterMask(h uint64) uint64 { return filterMasks[h&(uint64(len(filterMasks))-1)] }

// Add counts a trace in.
func (f *Filter) Add(id pcommon.TraceID) {
	h := Hash(id)
	w := h >> (f.shift & 63)
	m := filterMask(h)
	counts := f.counts[w*64 : w*64+64]
	for b := m; b != 0; b &= b - 1 {
		if c := &counts[bits.TrailingZeros64(b)]; *c < filterCountMax {
			*c++
		}
	}
	f.words[w] |= m
}

// Remove takes a trace that was added out of the filter.
func (f *Filter) Remove(id pcommon.TraceID) {
	h := Hash(id)
	w := h >> (f.shift & 63)
	counts := f.counts[w*64 : w*64+64]
	for b := filterMask(h); b != 0; b &= b - 1 {
		bit := bits.TrailingZeros64(b)
		c := &counts[bit]
		if *c == filterCountMax {
			continue // saturated: set for good
		}
		if *c--; *c == 0 {
			f.words[w] &^= 1 << bit
		}
	}
}

// MayHave reports whether the trace may have been added: false only if it
// certainly was not.
func (f *Filter) MayHave(id pcommon.TraceID) bool {
	h := Hash(id)
	m := filterMask(h)
	return f.words[h>>(f.shift&63)]&m == m
}

// Bytes is the filter's memory.
func (f *Filter) Bytes() int { return len(f.words)*8 + len(f.counts) }
