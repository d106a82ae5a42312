package jsonv

import (
	"strings"
	"testing"

	"unsafe"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/memtest"
)

// allocatedBytes returns the bytes f allocates.
func allocatedBytes(f func()) uint64 { return memtest.AllocatedBytes(f) }

// TestParseMemoryInvalidText checks that malformed text is rejected before
// memory is reserved for its values: a parse of text that fails costs no
// more than a small multiple of its size.
func TestParseMemoryInvalidText(t *testing.T) {
	const size = 4 << 20
	texts := map[string]string{
		// Commas without values: a slot each for a counting pass.
		"empty elements": `{"a":[1` + strings.Repeat(",", size) + `]}`,
		// Valid up to the very end.
		"bad last element": `{"a":[` + strings.Repeat("1,", size/2) + `x]}`,
		"truncated":        `{"a":[` + strings.Repeat("1,", size/2),
		"bad object end":   `{"a":[` + strings.Repeat(`{"k":1},`, size/8) + `{"k":1,}]}`,
		// A container every two bytes: their slot counts are kept.
		"nested containers": `[` + strings.Repeat(`[[[[1]]]],`, size/10) + `x]`,
	}
	for name, s := range texts {
		t.Run(name, func(t *testing.T) {
			var err error
			n := allocatedBytes(func() { _, err = Parse(s) })
			if err == nil {
				t.Fatal("Parse accepted malformed text")
			}
			t.Logf("%d bytes of text: %d bytes allocated (%.1fx)", len(s), n, float64(n)/float64(len(s)))
			if n > 4*uint64(len(s)) {
				t.Errorf("Parse allocated %d bytes for %d bytes of malformed text; want at most 4x", n, len(s))
			}
			var dp DocumentParser
			n = allocatedBytes(func() { _, err = dp.Parse(s) })
			if err == nil {
				t.Fatal("DocumentParser.Parse accepted malformed text")
			}
			if n > 4*uint64(len(s)) {
				t.Errorf("DocumentParser.Parse allocated %d bytes for %d bytes of malformed text; want at most 4x", n, len(s))
			}
		})
	}
}

// TestParseMemoryValidArray checks that a valid document takes the memory
// of its tree and no more: one reservation of exactly its values, nothing
// grown. (The tree itself is unsafe.Sizeof(Value{}) bytes a value: an
// array of ones takes that for every two bytes of text, which is why
// arguments larger than extract's size limit are not parsed at all.)
func TestParseMemoryValidArray(t *testing.T) {
	const ones = 1 << 20
	s := `{"a":[` + strings.Repeat("1,", ones-1) + `1]}`
	var v Value
	var err error
	n := allocatedBytes(func() { v, err = Parse(s) })
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := v.Get("a"); got.Len() != ones {
		t.Fatalf("parsed %d elements, want %d", got.Len(), ones)
	}
	tree := uint64(unsafe.Sizeof(Value{})) * (ones + 2)
	t.Logf("%d bytes of text: %d bytes allocated (tree %d)", len(s), n, tree)
	if n > tree+4*uint64(len(s)) {
		t.Errorf("Parse allocated %d bytes; want the tree's %d and at most 4x the text more", n, tree)
	}
}
