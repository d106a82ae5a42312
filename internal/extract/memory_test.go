package extract

import (
	"strings"
	"testing"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/memtest"

	"github.com/stretchr/testify/assert"
)

// allocatedBytes returns the bytes f allocates.
func allocatedBytes(f func()) uint64 { return memtest.AllocatedBytes(f) }

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
	ones := `{"a":[` + strings.Repeat("1,", big/2) + `1]}`
	// Not JSON (single quotes), and not a Python literal either: it breaks
	// at its very end.
	python := `{'a': [` + strings.Repeat("1, ", big/3) + `x]}`
	for _, tc := range []struct {
		name, text string
		enc        Encoding
	}{
		{"invalid array", invalidArray, EncodingJSON},
		// Valid: its tree would take 28 bytes a byte; past the size limit,
		// it is not parsed.
		{"array of ones", ones, EncodingJSON},
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
		checkMemory(t, "decodeJSON", small, func() { _, st = decodeJSON(small, true, nil) })
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

// TestArgumentSizeLimit checks that argument text past the size limit is
// unknown, and says why, without being parsed, on every path that decodes
// arguments or guesses whether they will decode.
func TestArgumentSizeLimit(t *testing.T) {
	at := func(n int) string { return `{"a":"` + strings.Repeat("x", n-8) + `"}` }
	for _, tc := range []struct {
		name  string
		opts  DecodeOptions
		limit int
	}{
		{"default", DecodeOptions{}, DefaultMaxArgumentBytes},
		{"configured", DecodeOptions{MaxArgumentBytes: 4 << 10}, 4 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			within, past := at(tc.limit), at(tc.limit+1)
			if len(within) != tc.limit {
				t.Fatalf("test text of %d bytes", len(within))
			}
			for _, enc := range []Encoding{EncodingJSON, EncodingJSONOrPython, EncodingTraceloop, EncodingLangChainWrapper, EncodingText} {
				_, st := DecodeArguments(within, enc, tc.opts)
				assert.Equal(t, ArgumentsKnown, st, "within the limit, encoding %v", enc)
				_, st = DecodeArguments(past, enc, tc.opts)
				assert.Equal(t, ArgumentsTooLarge, st, "past the limit, encoding %v", enc)
				assert.False(t, ArgumentsLikelyKnown(past, enc, tc.opts))
				assert.True(t, ArgumentsLikelyKnown(within, enc, tc.opts))
			}
			_, ok := DeferredArgumentsDocument(within, EncodingJSON, tc.opts)
			assert.True(t, ok)
			_, ok = DeferredArgumentsDocument(past, EncodingJSON, tc.opts)
			assert.False(t, ok, "a document past the limit would be parsed by the scorer")
		})
	}
	assert.Equal(t, "arguments larger than the 1 MiB limit", DecodeOptions{}.Reason(ArgumentsTooLarge))
	assert.Equal(t, "arguments larger than the 4 KiB limit", DecodeOptions{MaxArgumentBytes: 4 << 10}.Reason(ArgumentsTooLarge))
	assert.Empty(t, DecodeOptions{}.Reason(ArgumentsKnown))
	assert.Equal(t, "arguments truncated or malformed", DecodeOptions{}.Reason(ArgumentsTruncated))
}
