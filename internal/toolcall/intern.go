package toolcall

import (
	"hash/maphash"
	"sync/atomic"
)

// textTable interns the texts scorers write run after run (the checks
// scorer's explanations and finding details): a run like many before it
// gets the string made for an earlier one instead of a new copy. It is a
// fixed table of slots chosen by hash, each holding the last text that
// landed in it, read and written without locks; a text that finds its slot
// holding another is made anew and takes the slot.
type textTable struct {
	seed  maphash.Seed
	slots [textSlots]atomic.Pointer[string]
}

const (
	textSlots = 256
	// maxInternedText bounds the texts kept; longer ones are made anew.
	maxInternedText = 512
)

var texts = newTextTable()

func newTextTable() *textTable { return &textTable{seed: maphash.MakeSeed()} }

// intern returns string(b), made once for the text in b while its slot
// keeps it.
func (t *textTable) intern(b []byte) string {
	if len(b) > maxInternedText {
		return string(b)
	}
	slot := &t.slots[maphash.Bytes(t.seed, b)%textSlots]
	if p := slot.Load(); p != nil && *p == string(b) {
		return *p
	}
	s := string(b)
	slot.Store(&s)
	return s
}
