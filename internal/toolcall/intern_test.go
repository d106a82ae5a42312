package toolcall

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

func TestInternText(t *testing.T) {
	tab := newTextTable()
	for _, text := range []string{"", "a", "all 2 calls passed the checks", strings.Repeat("x", maxInternedText), strings.Repeat("y", maxInternedText+1)} {
		first := tab.intern([]byte(text))
		again := tab.intern([]byte(text))
		assert.Equal(t, text, first)
		assert.Equal(t, text, again)
		if len(text) > 0 && len(text) <= maxInternedText {
			assert.Equal(t, unsafe.StringData(first), unsafe.StringData(again), "%q is made once", text)
		}
	}
	// Texts that share a slot each come back as themselves.
	tiny := newTextTable()
	for i := range 4 * textSlots {
		text := strings.Repeat("t", i%37) + string(rune('a'+i%26))
		assert.Equal(t, text, tiny.intern([]byte(text)))
	}
}

// TestInternTextKeepsNoBuffer: the interned string does not alias the
// buffer it was read from.
func TestInternTextKeepsNoBuffer(t *testing.T) {
	tab := newTextTable()
	buf := []byte("same text")
	s := tab.intern(buf)
	buf[0] = 'X'
	assert.Equal(t, "same text", s)
	assert.Equal(t, "same text", tab.intern([]byte("same text")))
}

// TestInternTextConcurrent: goroutines interning texts that share slots
// each get their own text back (run with -race).
func TestInternTextConcurrent(t *testing.T) {
	tab := newTextTable()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				text := strconv.Itoa((i*7 + g) % 600)
				if got := tab.intern([]byte(text)); got != text {
					t.Errorf("got %q for %q", got, text)
					return
				}
			}
		}()
	}
	wg.Wait()
}
