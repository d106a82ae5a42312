package toolcall

import (
	"math"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// A literal-only specification (arguments given as a literal object of
// scalars, arrays of scalars and objects, no path matchers) is also
// compiled into a flat list of steps, which evaluate runs first: when the
// arguments pass every step, the evaluation's outcome is known (every
// check passed, no extra member, nothing to report) and eval is not run.
// The steps check, depth first, every key and value the specification
// names, each at its own position among the members (where arguments
// written in the expected order have it, and where eval looks first), in
// one loop without calls, tallies or member searches. Any other outcome is
// left to eval: the steps only confirm the common case.

// literalMode is what a literalStep checks besides the value's kind.
type literalMode uint8

const (
	// literalObject enters an object, whose members' steps follow;
	// literalArray an array, whose elements' steps follow.
	literalObject literalMode = iota
	literalArray
	literalString
	// literalNumber compares a number below 2^53 in magnitude by value.
	literalNumber
	literalBool
	// literalNull checks the kind alone.
	literalNull
)

// maxLiteralDepth bounds how deep a literal-only specification nests
// objects and arrays below its root; deeper ones are left to eval.
const maxLiteralDepth = 6

// literalStep checks one member (its key, then its value) or one array
// element of the arguments: the next one of the object or array being
// walked.
type literalStep struct {
	member bool
	kind   jsonv.Kind
	mode   literalMode
	b      bool // literalBool
	// depth is how deep the object or array being walked is (0: the
	// root), at most maxLiteralDepth.
	depth uint8
	// at is where the step's member (its key) or element is among the
	// items of the object or array being walked; count is an object's
	// members or an array's elements (0 for other steps).
	at, count int
	key       wordString // a member's
	str       wordString // literalString
	num       float64    // literalNumber
}

// literalCheck is a literal object's checks compiled into steps, for
// arguments given as a literal (no path matchers): nil steps when the
// literal is not an object of scalars (numbers below 2^53), arrays of
// them and such objects, nested at most maxLiteralDepth deep.
type literalCheck struct {
	steps []literalStep
	// members is the root object's.
	members int
}

// literalStepCount returns how many steps check the literal object v, or
// -1 when steps cannot check it (see literalCheck).
func literalStepCount(v *jsonv.Value, depth int) int {
	if v.Kind() != jsonv.KindObject || v.Unread() || depth > maxLiteralDepth {
		return -1
	}
	steps := len(v.Items()) / 2
	for i := 1; i < len(v.Items()); i += 2 {
		switch c := &v.Items()[i]; {
		case c.Kind() == jsonv.KindObject:
			k := literalStepCount(c, depth+1)
			if k < 0 {
				return -1
			}
			steps += k
		case c.Unread():
			return -1
		case c.Kind() == jsonv.KindArray:
			if depth+1 > maxLiteralDepth {
				return -1
			}
			for e := range c.Items() {
				if !literalScalar(&c.Items()[e]) {
					return -1
				}
			}
			steps += len(c.Items())
		case !literalScalar(c):
			return -1
		}
	}
	return steps
}

// newLiteralCheck compiles the checks of the literal object v (its steps
// taken from slab when it has room), or returns an empty check when steps
// cannot check it.
func newLiteralCheck(v *jsonv.Value, slab []literalStep) (literalCheck, []literalStep) {
	n := literalStepCount(v, 0)
	if n <= 0 {
		return literalCheck{}, slab
	}
	start := len(slab)
	slab = appendLiteralSteps(slab, v, 0)
	return literalCheck{steps: slab[start:len(slab):len(slab)], members: len(v.Items()) / 2}, slab
}

// literalScalar reports whether a step compares v as eval does: null, a
// boolean, a string or a number below 2^53 in magnitude (larger ones eval
// compares as written).
func literalScalar(v *jsonv.Value) bool {
	switch v.Kind() {
	case jsonv.KindNull, jsonv.KindBool, jsonv.KindString:
		return true
	case jsonv.KindNumber:
		return math.Abs(v.NumberValue()) < 1<<53
	}
	return false
}

// appendLiteralSteps appends the steps that check the members of v, a
// literal object steps can check, depth deep below the root.
func appendLiteralSteps(steps []literalStep, v *jsonv.Value, depth uint8) []literalStep {
	for i := 0; i < len(v.Items()); i += 2 {
		key := newWordString(v.Items()[i].Literal())
		switch c := &v.Items()[i+1]; c.Kind() {
		case jsonv.KindObject:
			steps = append(steps, literalStep{member: true, depth: depth, at: i, key: key, kind: jsonv.KindObject, mode: literalObject, count: len(c.Items()) / 2})
			steps = appendLiteralSteps(steps, c, depth+1)
		case jsonv.KindArray:
			steps = append(steps, literalStep{member: true, depth: depth, at: i, key: key, kind: jsonv.KindArray, mode: literalArray, count: len(c.Items())})
			for e := range c.Items() {
				st := scalarStep(&c.Items()[e])
				st.depth, st.at = depth+1, e
				steps = append(steps, st)
			}
		default:
			st := scalarStep(c)
			st.member, st.depth, st.at, st.key = true, depth, i, key
			steps = append(steps, st)
		}
	}
	return steps
}

// scalarStep returns the step that checks a value against literalScalar v.
func scalarStep(v *jsonv.Value) literalStep {
	st := literalStep{kind: v.Kind()}
	switch v.Kind() {
	case jsonv.KindNull:
		st.mode = literalNull
	case jsonv.KindBool:
		st.mode, st.b = literalBool, v.BoolValue()
	case jsonv.KindString:
		st.mode, st.str = literalString, newWordString(v.Literal())
	default:
		st.mode, st.num = literalNumber, v.NumberValue()
	}
	return st
}

// passesAll reports whether v passes every check of s, a literal-only
// specification (see literalCheck), with every member at its own
// position. It decides nothing when it reports false.
//
// Every value compared is one eval compares: eval reads a member at its
// own position first (memberNear), and compares scalars of the same kind
// by value, arrays element by element (equalPtr, or equalValuesPtr with
// coercion, which agrees with it on values of the same kinds).
func (s *argSpec) passesAll(v *jsonv.Value) bool {
	return s.literal.passes(v, s.extra != ExtraAllow)
}

// passes reports whether v has every member of c's literal at its own
// position with an equal value (scalars of the same kind and value,
// arrays of as many such elements, objects likewise) and, when exact, no
// other member in any of these objects: then the two are the same JSON
// but for numbers written differently. It decides nothing when it
// reports false.
func (c *literalCheck) passes(v *jsonv.Value, exact bool) bool {
	n := c.members
	if v.Kind() != jsonv.KindObject || len(v.Items()) < 2*n || (exact && len(v.Items()) != 2*n) {
		return false
	}
	// levels[d] holds the items of the object or array being walked at
	// depth d (0: the root): the step's own, set when its container's
	// step entered it. Reading them afresh at each step, rather than
	// keeping a stack, leaves one value of them live across the loop.
	var levels [literalLevels]*[]jsonv.Value
	levels[0] = v.ItemsRef()
	steps := c.steps
	for k := range steps {
		st := &steps[k]
		items := *levels[st.depth&(literalLevels-1)]
		// The object or array has a value here: an object was entered
		// with a key and a value for each member, an array with its
		// length. Strings are compared inline as words (see wordString),
		// the key's and a string value's alike.
		i := st.at
		if st.member {
			t, w := items[i].Literal(), &st.key
			i++
			m := len(t)
			if m != len(w.s) {
				return false
			}
			switch {
			case m >= 8:
				for j := 0; j < m-8; j += 8 {
					if load64(t, j) != load64(w.s, j) {
						return false
					}
				}
				if load64(t, m-8) != w.word {
					return false
				}
			case m >= 4:
				if uint64(load32(t, 0))|uint64(load32(t, m-4))<<32 != w.word {
					return false
				}
			case m > 0:
				if uint64(t[0])|uint64(t[m>>1])<<8|uint64(t[m-1])<<16 != w.word {
					return false
				}
			}
		}
		val := &items[i]
		if val.Kind() != st.kind {
			return false
		}
		switch st.mode {
		case literalString:
			// As the key above.
			t, w := val.Literal(), &st.str
			m := len(t)
			if m != len(w.s) {
				return false
			}
			switch {
			case m >= 8:
				for j := 0; j < m-8; j += 8 {
					if load64(t, j) != load64(w.s, j) {
						return false
					}
				}
				if load64(t, m-8) != w.word {
					return false
				}
			case m >= 4:
				if uint64(load32(t, 0))|uint64(load32(t, m-4))<<32 != w.word {
					return false
				}
			case m > 0:
				if uint64(t[0])|uint64(t[m>>1])<<8|uint64(t[m-1])<<16 != w.word {
					return false
				}
			}
		case literalNumber:
			if val.NumberValue() != st.num {
				return false
			}
		case literalBool:
			if val.BoolValue() != st.b {
				return false
			}
		case literalObject:
			if m := st.count; len(val.Items()) < 2*m || (exact && len(val.Items()) != 2*m) {
				return false
			}
			// Enter the object: its members' steps follow.
			levels[(st.depth+1)&(literalLevels-1)] = val.ItemsRef()
		case literalArray:
			// eval finds a partly unread array not evaluable.
			if val.IsUnknown() || val.Partial() || len(val.Items()) != st.count {
				return false
			}
			// Enter the array: its elements' steps follow.
			levels[(st.depth+1)&(literalLevels-1)] = val.ItemsRef()
		}
	}
	return true
}

// literalLevels is the size of passes' table of the objects and arrays
// being walked: a power of two above maxLiteralDepth, so that a depth
// masked to it needs no bounds check.
const literalLevels = 8

// A step's depth is at most maxLiteralDepth, the depth of what it enters
// one more: both must index passes' table.
var _ [literalLevels - 1 - maxLiteralDepth]struct{}

// wordString is a string prepared to be compared as words rather than
// through the runtime's comparison, a call that costs more than the
// comparison itself for the short keys and values arguments hold (and
// makes its caller save its registers). A string of the same length is
// equal when its words are: from 8 bytes on, its 8-byte words from the
// start and its last 8 bytes (overlapping the others), those kept in
// word; for 4 to 7 bytes, its first and last 4, both kept in word; for 1
// to 3, its first, middle and last byte, kept in word. passesAll compares
// them inline.
type wordString struct {
	s    string
	word uint64
}

// newWordString prepares s.
func newWordString(s string) wordString {
	w := wordString{s: s}
	switch n := len(s); {
	case n >= 8:
		w.word = load64(s, n-8)
	case n >= 4:
		w.word = uint64(load32(s, 0)) | uint64(load32(s, n-4))<<32
	case n > 0:
		w.word = uint64(s[0]) | uint64(s[n>>1])<<8 | uint64(s[n-1])<<16
	}
	return w
}

// load64 returns the 8 bytes of s from i as a little-endian word (one
// load).
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// load32 returns the 4 bytes of s from i as a little-endian word (one
// load).
func load32(s string, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
