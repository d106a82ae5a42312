package extract

import (
	"runtime"
	"strings"
	"testing"
)

// allocatedBytes returns the bytes f allocates (TotalAlloc before and after).
func allocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// checkMemory fails t when f allocated more than 4x the size of text.
func checkMemory(t *testing.T, what, text string, f func()) {
	t.Helper()
	n := allocatedBytes(f)
	t.Logf("%s: %d bytes of text, %d bytes allocated (%.2fx)", what, len(text), n, float64(n)/float64(len(text)))
	if n > 4*uint64(len(text)) {
		t.Errorf("%s allocated %d bytes for %d bytes of text; want at most 4x", what, n, len(text))
	}
}

// TestDecodeMemory checks that decoding arguments costs a small multiple of
// their size, whatever the text: malformed text is rejected before values
// are reserved for it, in the JSON parser and in the Python-literal
// fallback, and text past the size limit is not parsed at all.
func TestDecodeMemory(t *testing.T) {
	const big = 10 << 20
	invalidArray := `{"a":[1` + strings.Repeat(",", big) + `]}`
	// Not JSON (single quotes), and not a Python literal either: it breaks
	// at its very end.
	python := `{'a': [` + strings.Repeat("1, ", big/3) + `x]}`
	for _, tc := range []struct {
		name, text string
		enc        Encoding
	}{
		{"invalid array", invalidArray, EncodingJSON},
		{"invalid python literal", python, EncodingJSONOrPython},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st ArgumentState
			checkMemory(t, "DecodeArguments", tc.text, func() { _, st = DecodeArguments(tc.text, tc.enc, DecodeOptions{}) })
			if st == ArgumentsKnown {
				t.Errorf("DecodeArguments: arguments known, want unknown")
			}
		})
	}

	// Below the size limit, the parsers themselves are bounded.
	small := python[:1<<20-3] + `x]}`
	t.Run("python fallback below the limit", func(t *testing.T) {
		var st ArgumentState
		checkMemory(t, "decodeJSON", small, func() { _, st = decodeJSON(small, true) })
		if st != ArgumentsTruncated {
			t.Errorf("state %v, want truncated", st)
		}
	})
	t.Run("python literal parser", func(t *testing.T) {
		var err error
		checkMemory(t, "ParsePythonLiteral", python, func() { _, err = ParsePythonLiteral(python) })
		if err == nil {
			t.Error("ParsePythonLiteral accepted malformed text")
		}
	})
}
