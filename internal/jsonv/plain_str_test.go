package jsonv

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPlainStrEndAgreesWithByteWise: the word-wise and long-run reads stop
// where reading a byte at a time stops, whatever the run's length and
// wherever a quote, backslash or control character is.
func TestPlainStrEndAgreesWithByteWise(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	stops := []byte{'"', '\\', 0, '\n', 0x1f}
	plain := []byte("aZ é{}[]:, \x7f\x80\xff ")
	for n := 0; n < 400; n++ {
		for trial := 0; trial < 20; trial++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = plain[rng.IntN(len(plain))]
			}
			for k := rng.IntN(3); k > 0 && n > 0; k-- {
				b[rng.IntN(n)] = stops[rng.IntN(len(stops))]
			}
			s := string(b)
			for _, j := range []int{0, min(1, n), n / 2} {
				if got, want := plainStrEnd(s, j), PlainRunEnd(s, j); got != want {
					t.Fatalf("plainStrEnd(%q, %d) = %d, want %d", s, j, got, want)
				}
			}
		}
	}
}

// BenchmarkPlainStrEnd reads a run of 6 KiB of prose.
func BenchmarkPlainStrEnd(b *testing.B) {
	s := strings.Repeat("Use the tools to answer the user. ", 200) + `"`
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if plainStrEnd(s, 0) != len(s)-1 {
			b.Fatal("wrong end")
		}
	}
}
