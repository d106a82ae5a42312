package toolcall

import "math/bits"

// NameTable finds names (tool names, step names) among a fixed list of
// distinct names, as scorers do for every actual call of a run. Names of
// one agent's tools often share their length and prefix (search_flights,
// search_hotels; tool_1, tool_2), so comparing a name with each in turn
// mostly compares equal prefixes. Up to 64 names, the table instead keeps
// the set of names ending in each byte (by its low six bits, which tell
// digits and letters apart) and compares a name only with those; beyond
// that it uses a map.
type NameTable struct {
	Names []string
	last  *[64]uint64
	index map[string]int
}

// NewNameTable indexes names, which must be distinct.
func NewNameTable(names []string) NameTable {
	t := NameTable{Names: names}
	if len(names) > 64 {
		t.index = make(map[string]int, len(names))
		for k, name := range names {
			t.index[name] = k
		}
		return t
	}
	t.last = new([64]uint64)
	for k, name := range names {
		if name != "" {
			t.last[name[len(name)-1]&63] |= 1 << k
		}
	}
	return t
}

// Lookup returns the index of name in the table, or -1.
func (t *NameTable) Lookup(name string) int {
	if t.index != nil {
		if k, ok := t.index[name]; ok {
			return k
		}
		return -1
	}
	if name == "" {
		for k, n := range t.Names {
			if n == "" {
				return k
			}
		}
		return -1
	}
	for m := t.last[name[len(name)-1]&63]; m != 0; m &= m - 1 {
		if k := bits.TrailingZeros64(m); t.Names[k] == name {
			return k
		}
	}
	return -1
}
