// Package idtable is a hash table for the processor's maps of trace and
// span ids that hold tens of thousands of entries and, under load, lose one
// entry for every one put (a trace store's least recently touched trace, a
// replay cache's oldest run). Go's maps pay for that churn with tombstones
// and periodic rehashing; this table deletes without tombstones and, once
// grown to its working size, never rehashes. Its slots hold no pointers,
// so the garbage collector passes over them.
package idtable // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/idtable"

import (
	"hash/maphash"
	"iter"
	"math/bits"
)

// minSlots is the size of a table's first slots.
const minSlots = 16

// Table maps keys to non-nil pointers by open addressing with linear
// probing. The slots hold keys and indices into vals, not pointers: with
// keys without pointers (ids), the garbage collector does not scan them,
// only vals, one word per key. Its invariants:
//   - a slot is empty exactly when its ref is 0; else vals[ref-1] is its
//     value, never nil, and no other slot has that ref;
//   - vals[i] is nil exactly when i is in free (vals never shrinks);
//   - len(slots) is a power of two, 1<<(64-shift), and at least twice n, so
//     there is always an empty slot to end a probe: a table doubles before
//     an insert would make it more than half full, and never shrinks, so a
//     table at a steady size never rehashes;
//   - every key sits at its home slot (its hash's top bits) or after it, with
//     no empty slot between home and key (wrapping round the end): a lookup
//     stops at the first empty slot. Delete keeps this true by shifting later
//     entries of the run back (backward-shift deletion), so there are no
//     tombstones and no rehash after deletions.
//
// The hash must spread keys over its top bits, and keys that come from
// senders (trace and span ids) must be hashed with a seed they cannot know
// (NewSeeded): with a fixed hash a sender can choose keys that share a
// slot, and every probe walks all of them. Iteration order follows the
// slots, so it depends on the hash, the seed included, and on the order of
// puts and deletes.
type Table[K comparable, V any] struct {
	slots []slot[K]
	vals  []*V
	free  []int32
	shift uint8
	n     int
	hash  func(K) uint64
}

type slot[K comparable] struct {
	key K
	ref int32
}

// New returns an empty table hashing keys with hash.
func New[K comparable, V any](hash func(K) uint64) *Table[K, V] {
	t := &Table[K, V]{hash: hash}
	t.resize(minSlots)
	return t
}

// NewSeeded returns an empty table hashing keys with a random seed of its
// own (hash/maphash, the hash of Go's maps), so that no sender can choose
// keys that collide: the table for keys that come from outside.
func NewSeeded[K comparable, V any]() *Table[K, V] {
	seed := maphash.MakeSeed()
	return New[K, V](func(k K) uint64 { return maphash.Comparable(seed, k) })
}

// Len returns the number of keys in the table.
func (t *Table[K, V]) Len() int { return t.n }

// Slots returns the table's size in slots (for memory accounting).
func (t *Table[K, V]) Slots() int { return len(t.slots) }

// home is the slot a hash probes first: its top bits.
func (t *Table[K, V]) home(h uint64) int { return int(h >> (t.shift & 63)) }

// Get returns the key's value, or nil.
func (t *Table[K, V]) Get(k K) *V {
	mask := len(t.slots) - 1
	for i := t.home(t.hash(k)); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.ref == 0 {
			return nil
		}
		if s.key == k {
			return t.vals[s.ref-1]
		}
	}
}

// Put sets the key's value and returns the value it replaced, or nil when
// the key is new. v must not be nil.
func (t *Table[K, V]) Put(k K, v *V) *V {
	if v == nil {
		panic("idtable: Put of a nil value")
	}
	if 2*(t.n+1) > len(t.slots) {
		t.resize(2 * len(t.slots))
	}
	mask := len(t.slots) - 1
	for i := t.home(t.hash(k)); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.ref == 0 {
			s.key, s.ref = k, t.store(v)
			t.n++
			return nil
		}
		if s.key == k {
			old := t.vals[s.ref-1]
			t.vals[s.ref-1] = v
			return old
		}
	}
}

// Delete removes the key and returns its value, or nil when it was absent.
func (t *Table[K, V]) Delete(k K) *V {
	mask := len(t.slots) - 1
	i := t.home(t.hash(k))
	for ; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.ref == 0 {
			return nil
		}
		if s.key == k {
			break
		}
	}
	old := t.vals[t.slots[i].ref-1]
	t.vals[t.slots[i].ref-1] = nil
	t.free = append(t.free, t.slots[i].ref-1)
	// Backward shift: i is the hole. An entry later in the run moves into
	// the hole when its home is not in (hole, its slot], cyclically, i.e.
	// when the hole lies between its home and its slot; the hole then moves
	// to where it was. The run ends at an empty slot.
	for j := (i + 1) & mask; t.slots[j].ref != 0; j = (j + 1) & mask {
		home := t.home(t.hash(t.slots[j].key))
		if (j-home)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = slot[K]{}
	t.n--
	return old
}

// All yields the table's keys and values in slot order. The table must not
// be changed during the iteration.
func (t *Table[K, V]) All() iter.Seq2[K, *V] {
	return func(yield func(K, *V) bool) {
		for i := range t.slots {
			if s := &t.slots[i]; s.ref != 0 && !yield(s.key, t.vals[s.ref-1]) {
				return
			}
		}
	}
}

// resize moves the entries into a table of size slots (a power of two).
func (t *Table[K, V]) resize(size int) {
	old := t.slots
	t.slots = make([]slot[K], size)
	t.shift = uint8(64 - bits.TrailingZeros(uint(size)))
	mask := size - 1
	for i := range old {
		s := &old[i]
		if s.ref == 0 {
			continue
		}
		j := t.home(t.hash(s.key))
		for t.slots[j].ref != 0 {
			j = (j + 1) & mask
		}
		t.slots[j] = *s
	}
}

// store puts v in vals, at a freed index if there is one, and returns its
// ref (index+1). A table holds fewer than 1<<31 values (refs are int32):
// far more than memory would allow of the processor's traces or runs.
func (t *Table[K, V]) store(v *V) int32 {
	if n := len(t.free); n > 0 {
		i := t.free[n-1]
		t.free = t.free[:n-1]
		t.vals[i] = v
		return i + 1
	}
	t.vals = append(t.vals, v)
	return int32(len(t.vals))
}
