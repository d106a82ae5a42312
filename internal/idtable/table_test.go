package idtable

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

// smallHash sends every key to one of four homes, so that runs are long,
// wrap round the end of a small table, and deletion shifts entries.
func smallHash(k uint16) uint64 { return uint64(k%4) << 62 }

// FuzzTableAgainstMap: any sequence of puts, deletes and lookups leaves the
// table answering as a Go map given the same operations, with its
// invariants kept (every key reachable from its home without crossing an
// empty slot, at least half the slots empty).
func FuzzTableAgainstMap(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 1, 2, 2, 0, 3}, false)
	f.Add([]byte{0, 5, 0, 9, 0, 13, 0, 17, 1, 5, 2, 9, 1, 13, 2, 17}, true)
	f.Fuzz(func(t *testing.T, ops []byte, clustered bool) {
		hash := func(k uint16) uint64 { return uint64(k) * 0x9E3779B97F4A7C15 }
		if clustered {
			hash = smallHash
		}
		tb := New[uint16, int](hash)
		model := map[uint16]*int{}
		for len(ops) >= 2 {
			op, k := ops[0]%3, uint16(ops[1]%64)
			ops = ops[2:]
			switch op {
			case 0:
				v := new(int)
				*v = len(ops)
				require.Equal(t, model[k], tb.Put(k, v), "put %d", k)
				model[k] = v
			case 1:
				require.Equal(t, model[k], tb.Delete(k), "delete %d", k)
				delete(model, k)
			default:
				require.Equal(t, model[k], tb.Get(k), "get %d", k)
			}
			checkTable(t, tb, model)
		}
	})
}

func checkTable[K comparable, V any](t *testing.T, tb *Table[K, V], model map[K]*V) {
	t.Helper()
	require.Equal(t, len(model), tb.Len())
	require.GreaterOrEqual(t, tb.Slots(), 2*tb.Len())
	seen := 0
	for k, v := range tb.All() {
		require.Same(t, model[k], v)
		seen++
	}
	require.Equal(t, len(model), seen)
	require.Equal(t, len(tb.vals), tb.Len()+len(tb.free), "every val is in a slot or free")
	refs := map[int32]bool{}
	for _, s := range tb.slots {
		if s.ref != 0 {
			require.False(t, refs[s.ref], "ref %d in two slots", s.ref)
			refs[s.ref] = true
			require.NotNil(t, tb.vals[s.ref-1])
		}
	}
	for _, f := range tb.free {
		require.Nil(t, tb.vals[f], "freed val %d kept", f)
	}
	mask := len(tb.slots) - 1
	for i, s := range tb.slots {
		if s.ref == 0 {
			continue
		}
		for j := tb.home(tb.hash(s.key)); j != i; j = (j + 1) & mask {
			require.NotZero(t, tb.slots[j].ref, "empty slot %d between %v's home and its slot %d", j, s.key, i)
		}
	}
	for k, v := range model {
		require.Same(t, v, tb.Get(k))
	}
}

// TestTableChurnAtSize: the processor's pattern, tens of thousands of
// 16-byte ids each put once and deleted oldest first, with ids that are
// counters, keeps answering as the map and stops growing at its size.
func TestTableChurnAtSize(t *testing.T) {
	const size = 5000
	tb := NewSeeded[[16]byte, int]()
	model := map[[16]byte]*int{}
	slots := 0
	for n := uint64(0); n < 6*size; n++ {
		v := new(int)
		tb.Put(counterID(n), v)
		model[counterID(n)] = v
		if n >= size {
			require.Same(t, model[counterID(n-size)], tb.Delete(counterID(n-size)))
			delete(model, counterID(n-size))
		}
		require.Nil(t, tb.Get(counterID(n+1)))
		if n == 2*size {
			slots = tb.Slots()
		}
	}
	require.Equal(t, slots, tb.Slots(), "grew at a steady size")
	checkTable(t, tb, model)
}

// counterID is an id whose last eight bytes count, as the benchmarks' and
// many tracers' trace ids.
func counterID(n uint64) [16]byte {
	var id [16]byte
	id[0] = 1
	binary.BigEndian.PutUint64(id[8:], n)
	return id
}
