package extract

// fieldTableBits sizes fieldTable: 256 slots for the few dozen keys in
// fieldIDs, so that a collision-free multiplier is found at once.
const fieldTableBits = 8

// fieldTable finds the field of an attribute key without a Go map lookup
// (hashing the whole key cost about 150 instructions per attribute of
// every GenAI span): a key goes to the one slot that its length and three
// of its bytes pick, and is then compared with the key stored there. The
// multiplier is searched for when the package loads so that no two keys of
// fieldIDs share a slot.
type fieldTable struct {
	mul  uint32
	keys [1 << fieldTableBits]string
	ids  [1 << fieldTableBits]fieldID
}

var fieldTab = newFieldTable(fieldIDs)

// newFieldTable returns the table for ids, or one with mul 0, which lookup
// answers from ids itself, if no multiplier tried separates every key.
func newFieldTable(ids map[string]fieldID) *fieldTable {
	t := &fieldTable{}
	for mul := uint32(0x9E3779B1); mul < 0x9E3779B1+2*4096; mul += 2 {
		*t = fieldTable{mul: mul}
		ok := true
		for k, id := range ids {
			s := fieldSlot(k, mul)
			if t.keys[s] != "" {
				ok = false
				break
			}
			t.keys[s], t.ids[s] = k, id
		}
		if ok {
			return t
		}
	}
	return &fieldTable{}
}

// fieldSlot picks k's slot (k is at least two bytes long).
func fieldSlot(k string, mul uint32) uint32 {
	n := len(k)
	h := uint32(n) | uint32(k[n-1])<<8 | uint32(k[n-2])<<16 | uint32(k[n/2])<<24
	return (h * mul) >> (32 - fieldTableBits)
}

// lookup returns the field named by key k.
func (t *fieldTable) lookup(k string) (fieldID, bool) {
	if t.mul == 0 {
		id, ok := fieldIDs[k]
		return id, ok
	}
	if len(k) < 2 {
		return 0, false
	}
	s := fieldSlot(k, t.mul)
	if t.keys[s] != k {
		return 0, false
	}
	return t.ids[s], true
}
