package jsonv

// A Slab holds the elements of the documents [Slab.Parse] parses, so that
// many small documents (a run's tool-call arguments) share one allocation,
// reused once [Slab.Reset] says the values are no longer read. The zero
// Slab is ready to use; it is not safe for concurrent use.
type Slab struct {
	buf  []Value
	used int
}

// Slab sizes, in values: the first buffer, and the largest one a slab
// keeps (and the largest document share it lends).
const (
	slabMin = 32
	slabMax = 1024
)

// Parse is [Parse], taking the document's elements from the slab. The
// value is valid until the next Reset.
func (sl *Slab) Parse(s string) (Value, error) { return parseIn(s, sl) }

// Reset makes the memory of every value parsed from the slab reusable:
// those values must no longer be read.
func (sl *Slab) Reset() {
	clear(sl.buf[:sl.used])
	sl.used = 0
}

// take returns storage for n elements: a share of the slab's buffer,
// capped at n, or its own memory for a nil slab or a large document. A
// buffer too small is replaced by one twice as large (up to slabMax): the
// shares lent from the old one stay with the values holding them.
func (sl *Slab) take(n int) []Value {
	if sl == nil || n > slabMax/4 {
		return make([]Value, n)
	}
	if sl.used+n > len(sl.buf) {
		size := min(max(2*len(sl.buf), slabMin, n), slabMax)
		sl.buf, sl.used = make([]Value, size), 0
	}
	share := sl.buf[sl.used : sl.used+n : sl.used+n]
	sl.used += n
	return share
}
