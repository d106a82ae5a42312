package extract

// fieldTableBits sizes a keyTable: 256 slots for a few dozen keys, so that
// a collision-free multiplier is found at once.
const fieldTableBits = 8

// keyTable finds what an attribute key stands for without hashing the whole
// key, as a Go map lookup would for every attribute of every GenAI span: a
// key goes to the one slot that its length and three of its bytes pick, and
// is then compared with the key stored there. The
// multiplier is searched for when the package loads so that no two keys
// share a slot.
type keyTable[T any] struct {
	mul  uint32
	keys [1 << fieldTableBits]string
	vals [1 << fieldTableBits]T
}

// keyTab finds what an attribute key stands for to the classifier and to
// CaptureContext.
var keyTab = newKeyTable(spanKeys)

// newKeyTable returns the table for m. The keys are the package's own
// constants, so a set of keys that no multiplier tried separates is a
// programming error, caught by the tests when the package loads: it panics.
// (Keeping a map to fall back on made lookup too big to be inlined.)
func newKeyTable[T any](m map[string]T) *keyTable[T] {
	t := &keyTable[T]{}
	for mul := uint32(0x9E3779B1); mul < 0x9E3779B1+2*4096; mul += 2 {
		*t = keyTable[T]{mul: mul}
		ok := true
		for k, v := range m {
			s := fieldSlot(k, mul)
			if t.keys[s] != "" {
				ok = false
				break
			}
			t.keys[s], t.vals[s] = k, v
		}
		if ok {
			return t
		}
	}
	panic("extract: no multiplier separates the keys of a keyTable")
}

// fieldSlot picks k's slot (k is at least two bytes long).
func fieldSlot(k string, mul uint32) uint32 {
	n := len(k)
	h := uint32(n) | uint32(k[n-1])<<8 | uint32(k[n-2])<<16 | uint32(k[n/2])<<24
	return (h * mul) >> (32 - fieldTableBits)
}

// lookup returns what key k stands for. It is small enough to be inlined
// into the loops over a span's attributes.
func (t *keyTable[T]) lookup(k string) (v T, ok bool) {
	if len(k) >= 2 {
		if s := fieldSlot(k, t.mul); t.keys[s] == k {
			return t.vals[s], true
		}
	}
	return v, false
}
