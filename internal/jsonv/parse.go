package jsonv

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrTruncated is returned by [Parse] when the text ends in the middle of a JSON
// value, which is what a span attribute cut at its length limit looks like.
var ErrTruncated = errors.New("json: unexpected end of input")

// MaxParseDepth bounds the nesting the parse builds, so hostile input cannot
// exhaust the stack: a value nested deeper is checked, without a stack, and
// read as unknown (see Value.IsUnknown).
const MaxParseDepth = 256

// MaxDepth is the deepest nesting [Parse] reads: a value nested deeper (at
// depth MaxDepth+1, the document's value being at depth 0) is read as
// unknown whatever its text, so writers of JSON for the parser may write
// anything valid in its place.
const MaxDepth = MaxParseDepth

// SyntaxError reports malformed JSON at a byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("json: %s at offset %d", e.Msg, e.Offset) }

// Parse parses one JSON document. Object members keep their written order; a
// repeated key keeps its last value, as JSON.parse does. Text that ends inside a
// value returns [ErrTruncated]; other malformed text returns a [*SyntaxError].
//
// Parsing takes two passes: the first checks the text and counts the
// elements of every container (see check), so the second writes each value
// once, in place, into one allocation holding every container's elements.
// Malformed text fails in the first pass, before any memory is reserved for
// its values.
func Parse(s string) (Value, error) { return parseIn(s, nil) }

// parseIn is [Parse], taking the document's elements from sl when it is
// not nil.
func parseIn(s string, sl *Slab) (Value, error) {
	p := parser{s: s, counting: true}
	start := SkipSpace(s, 0)
	if err := p.checkDocument(start); err != nil {
		return Value{}, err
	}
	p.counting = false
	if p.total > 0 {
		p.arena = sl.take(p.total)
	}
	if p.escaped > 0 {
		p.text.Grow(p.escaped)
	}
	var root Value
	if _, err := p.value(start, &root, 0); err != nil {
		return Value{}, err
	}
	return root, nil
}

// Valid reports whether [Parse] accepts s, without building its value: it
// allocates nothing for text nested less than 256 levels deep.
func Valid(s string) bool {
	p := parser{s: s}
	return p.checkDocument(SkipSpace(s, 0)) == nil
}

// checkDocument checks that s is one JSON value, starting at start, and
// returns the error Parse returns when it is not.
func (p *parser) checkDocument(start int) error {
	end, err := p.check(start, 0)
	if err != nil {
		return err
	}
	if end = SkipSpace(p.s, end); end != len(p.s) {
		return &SyntaxError{Offset: end, Msg: "unexpected text after value"}
	}
	return nil
}

type parser struct {
	s string
	// sizes, then more, hold the element slots of each counted container
	// (see counted) in the order the containers open; next is the next
	// container's ordinal. sizes is an array so that it stays in the
	// parser's frame.
	sizes      [16]int32
	more       []*[sizeChunk]int32
	containers int
	next       int
	// counting makes check record the containers' sizes; total is the sum
	// of them all.
	counting bool
	total    int
	// arena holds every container's elements: one allocation per document.
	arena []Value
	// escaped is the length of the strings written with escapes, counted
	// by check, quotes included: their decoded text, never longer, is
	// written to text, reserved once.
	escaped int
	text    strings.Builder
}

// measureOpenDepth is how deep containers get their element slots counted
// in advance. Deeper ones grow their elements as they are parsed.
const measureOpenDepth = 64

// counted reports whether a non-empty container at depth has its slots
// counted by check (and reserved by slots). Empty containers take none.
func counted(depth int) bool { return depth < measureOpenDepth }

// check reads the value written at i, at depth, as value parses it,
// checking its syntax without building it, and returns the index after it
// or the error value would return. It holds no stack: the open containers
// are bits of a word per 64 levels, so text nested however deep is read in
// constant stack and memory of a bit a level.
//
// When p.counting is set, it records, for each container counted (see
// counted) in the order the containers open, the slots its elements take
// (an array's elements, twice an object's members), and their sum in
// p.total. A counted container takes at least two bytes of text ("[" and
// "]" or "," around its elements), so its four bytes of count take at most
// twice the text read so far, and the counts of text found malformed are
// all that reading it reserves.
func (p *parser) check(i, depth int) (int, error) {
	s := p.s
	var (
		small [4]uint64
		// objects has the bit of each open container set when it is an
		// object, by level (depth below the value checked).
		objects = small[:]
		base    = depth
		// open holds the ordinals of the counted containers open, by depth.
		open [measureOpenDepth]int32
		err  error
	)
	for {
		// A value starts at i.
		if i >= len(s) {
			return i, ErrTruncated
		}
		switch c := s[i]; {
		case c == '{' || c == '[':
			closing := byte(']')
			if c == '{' {
				closing = '}'
			}
			j := SkipSpace(s, i+1)
			if j < len(s) && s[j] == closing {
				i = j + 1 // empty
				break
			}
			level := depth - base
			if level/64 >= len(objects) {
				objects = append(objects, 0)
			}
			bit := uint64(1) << (level % 64)
			objects[level/64] &^= bit
			if c == '{' {
				objects[level/64] |= bit
			}
			if p.counting && counted(depth) {
				open[depth] = int32(p.containers)
				p.containers++
				*p.size(int(open[depth])) = 0
			}
			depth++
			if i, err = p.element(j, depth, c == '{', &open); err != nil {
				return i, err
			}
			continue
		case c == '"':
			if i, err = p.checkStr(i); err != nil {
				return i, err
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if i, _, err = p.numberEnd(i); err != nil {
				return i, err
			}
		case c == 't':
			if i, err = p.literalEnd(i, "true"); err != nil {
				return i, err
			}
		case c == 'f':
			if i, err = p.literalEnd(i, "false"); err != nil {
				return i, err
			}
		case c == 'n':
			if i, err = p.literalEnd(i, "null"); err != nil {
				return i, err
			}
		default:
			return i, p.errAt(i, "unexpected character "+strconv.QuoteRune(rune(s[i])))
		}

		// After a value: close containers, then a comma leads to the next
		// element or member, or the value ends.
		for {
			if depth == base {
				return i, nil
			}
			level := depth - 1 - base
			obj := objects[level/64]>>(level%64)&1 == 1
			closing := byte(']')
			if obj {
				closing = '}'
			}
			done := false
			if i, done, err = p.separator(i, closing); err != nil {
				return i, err
			}
			if done {
				depth--
				continue
			}
			if i, err = p.element(SkipSpace(s, i), depth, obj, &open); err != nil {
				return i, err
			}
			break
		}
	}
}

// element counts an element of the container at depth-1 (for an object,
// reading its key) and returns the index of its value.
func (p *parser) element(i, depth int, obj bool, open *[measureOpenDepth]int32) (int, error) {
	if p.counting && counted(depth-1) {
		step := int32(1)
		if obj {
			step = 2
		}
		*p.size(int(open[depth-1])) += step
		p.total += int(step)
	}
	if !obj {
		return i, nil
	}
	i, err := p.memberKey(i)
	if err != nil {
		return i, err
	}
	if i, err = p.checkStr(i); err != nil {
		return i, err
	}
	return p.colon(i)
}

// checkStr checks the string whose opening quote is at i, as str reads
// it, without decoding it, and returns the index after it.
func (p *parser) checkStr(i int) (int, error) {
	s := p.s
	j := plainStrEnd(s, i+1)
	if j < len(s) && s[j] == '"' {
		return j + 1, nil
	}
	if end, ok := escapedStrEnd(s, j); ok {
		if p.counting {
			p.escaped += end - i
		}
		return end, nil
	}
	_, j, err := p.str(i)
	return j, err
}

// size returns container ord's slot count, growing p.more as needed, by a
// chunk at a time: growing it copies nothing.
func (p *parser) size(ord int) *int32 {
	if ord < len(p.sizes) {
		return &p.sizes[ord]
	}
	k := ord - len(p.sizes)
	for k/sizeChunk >= len(p.more) {
		p.more = append(p.more, new([sizeChunk]int32))
	}
	return &p.more[k/sizeChunk][k%sizeChunk]
}

// sizeChunk is how many slot counts past the first few p.more holds a
// chunk.
const sizeChunk = 1024

// strStop marks the bytes that end the fast scan of a string's contents.
var strStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// slots returns the storage for the elements of the next container, a
// non-empty one at depth: its share of the arena, as counted by check
// (none for a container too deep to be counted).
func (p *parser) slots(depth int) []Value {
	if !counted(depth) {
		return nil
	}
	n := 0
	if p.next < p.containers {
		n = int(*p.size(p.next))
	}
	p.next++
	if n > len(p.arena) {
		return make([]Value, 0, n)
	}
	items := p.arena[:0:n]
	p.arena = p.arena[n:]
	return items
}

// SkipSpace returns the index of the first non-whitespace byte at or after i.
func SkipSpace(s string, i int) int {
	for i < len(s) && s[i] <= ' ' {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// errAt is the error for malformed text at i: ErrTruncated past the end.
func (p *parser) errAt(i int, msg string) error {
	if i >= len(p.s) {
		return ErrTruncated
	}
	return &SyntaxError{Offset: i, Msg: msg}
}

// value parses the value at i into dst and returns the index after it.
func (p *parser) value(i int, dst *Value, depth int) (int, error) {
	if depth > MaxParseDepth {
		// Too deep to build: checked, and unknown.
		j, err := p.check(i, depth)
		if err == nil {
			*dst = Value{}
			dst.unknown = true
		}
		return j, err
	}
	s := p.s
	if i >= len(s) {
		return i, ErrTruncated
	}
	switch c := s[i]; {
	case c == '"':
		str, j, err := p.str(i)
		if err != nil {
			return j, err
		}
		*dst = Value{}
		dst.kind, dst.str = KindString, str
		return j, nil
	case c == '{':
		return p.object(i, dst, depth)
	case c == '[':
		return p.array(i, dst, depth)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(i, dst)
	case c == 't':
		return p.literal(i, "true", KindBool, true, dst)
	case c == 'f':
		return p.literal(i, "false", KindBool, false, dst)
	case c == 'n':
		return p.literal(i, "null", KindNull, false, dst)
	}
	return i, p.unexpected(i)
}

// unexpected is the error of an unexpected character at i, made in a frame
// of its own. The parser's frames are on the stack once per nesting level,
// so value and object write their results field by field, not through a
// Value built in the frame and copied.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (p *parser) unexpected(i int) error {
	return p.errAt(i, "unexpected character "+strconv.QuoteRune(rune(p.s[i])))
}

// literal reads word at i into dst as a value of kind (with b, for a
// boolean).
func (p *parser) literal(i int, word string, kind Kind, b bool, dst *Value) (int, error) {
	end, err := p.literalEnd(i, word)
	if err != nil {
		return end, err
	}
	*dst = Value{}
	dst.kind, dst.b = kind, b
	return end, nil
}

// literalEnd checks that word is written at i and returns the index after it.
func (p *parser) literalEnd(i int, word string) (int, error) {
	s := p.s
	end := i + len(word)
	if end > len(s) {
		if s[i:] == word[:len(s)-i] {
			return i, ErrTruncated
		}
		return i, p.errAt(i, "invalid literal")
	}
	if s[i:end] != word {
		return i, p.errAt(i, "invalid literal")
	}
	return end, nil
}

func (p *parser) number(i int, dst *Value) (int, error) {
	start := i
	i, isInt, err := p.numberEnd(i)
	if err != nil {
		return i, err
	}
	v, ok := numberValue(p.s[start:i], isInt)
	if !ok {
		return i, &SyntaxError{Offset: start, Msg: "invalid number"}
	}
	*dst = v
	return i, nil
}

// numberEnd checks the syntax of the number written at i and returns the
// index after it, and whether it has neither fraction nor exponent.
func (p *parser) numberEnd(i int) (int, bool, error) {
	j, isInt, ok := numberEnd(p.s, i)
	if !ok {
		return j, false, p.errAt(j, "invalid number")
	}
	return j, isInt, nil
}

// numberEnd returns the index after the number written at i and whether it
// is an integer (no fraction or exponent); ok is false when the syntax
// breaks, at the returned index (past the end: the text is truncated).
func numberEnd(s string, i int) (end int, isInt, ok bool) {
	isInt = true
	if s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return i, false, false
	}
	switch {
	case s[i] == '0':
		i++
	case s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return i, false, false
	}
	if i < len(s) && s[i] == '.' {
		isInt = false
		if i, ok = digitsEnd(s, i+1); !ok {
			return i, false, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		isInt = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i, ok = digitsEnd(s, i); !ok {
			return i, false, false
		}
	}
	return i, isInt, true
}

// numberValue converts a number literal whose syntax has been checked;
// isInt says it has no fraction or exponent.
func numberValue(lit string, isInt bool) (Value, bool) {
	if isInt && len(lit) <= 15 {
		// Up to 15 digits an integer is exact in a float64.
		return Value{kind: KindNumber, num: smallInt(lit), isInt: true, str: lit}, true
	}
	if f, ok := smallDecimal(lit); ok {
		return Value{kind: KindNumber, num: f, str: lit}, true
	}
	return parsedNumber(lit, isInt)
}

// parsedNumber is numberValue by strconv.ParseFloat, whose frames (its
// slow path's decimal takes 800 bytes) are not on the stack of the
// numbers smallInt and smallDecimal convert.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func parsedNumber(lit string, isInt bool) (Value, bool) {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		// Out of range: JSON.parse and Python both give ±Infinity; keep the
		// literal so equality still works on the digits.
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return Value{}, false
		}
	}
	return Value{kind: KindNumber, num: f, isInt: isInt, str: lit}, true
}

// digitsEnd skips the one or more digits a fraction or an exponent needs,
// starting at i; ok is false if there are none.
func digitsEnd(s string, i int) (end int, ok bool) {
	if i >= len(s) || s[i] < '0' || s[i] > '9' {
		return i, false
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i, true
}

// pow10 holds the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// smallDecimal converts a validated literal with a fraction and no
// exponent whose digits, all together, are at most 15: its digits as an
// integer are exact in a float64, as is the power of ten it is divided by,
// and the division is correctly rounded, so the result is ParseFloat's (the
// fast path strconv takes first). ok is false for other literals.
func smallDecimal(lit string) (f float64, ok bool) {
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	var m uint64
	digits, frac := 0, -1
	for i := 0; i < len(lit); i++ {
		switch c := lit[i]; {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
		case c == '.' && frac < 0:
			frac = len(lit) - i - 1
		default:
			return 0, false // an exponent
		}
	}
	if frac < 0 || digits > 15 {
		return 0, false
	}
	f = float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// smallInt converts a validated integer literal of at most 15 digits.
func smallInt(lit string) float64 {
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	var n int64
	for i := 0; i < len(lit); i++ {
		n = n*10 + int64(lit[i]-'0')
	}
	if neg {
		if n == 0 {
			return math.Copysign(0, -1)
		}
		return -float64(n)
	}
	return float64(n)
}

// str parses the JSON string whose opening quote is at i and returns it
// with the index after its closing quote. Without escapes it is a substring
// of the input.
func (p *parser) str(i int) (string, int, error) {
	s := p.s
	i++ // opening quote
	start := i
	i = PlainRunEnd(s, i)
	if i >= len(s) {
		return "", i, ErrTruncated
	}
	switch s[i] {
	case '"':
		return s[start:i], i + 1, nil
	case '\\':
		return p.strEscaped(start, i)
	}
	return "", i, &SyntaxError{Offset: i, Msg: "control character in string"}
}

// strEnd checks the JSON string whose opening quote is at i and returns the
// index after its closing quote, and whether it is written with escapes.
func (p *parser) strEnd(i int) (int, bool, error) {
	s := p.s
	j := PlainRunEnd(s, i+1)
	if j < len(s) && s[j] == '"' {
		return j + 1, false, nil
	}
	_, j, err := p.str(i)
	return j, true, err
}

// strEscaped decodes a string with escapes; start is its first byte, i its
// first backslash. A document's escaped strings share one buffer, reserved
// by Parse (see parser.escaped); other strings get their own, sized to
// their text.
func (p *parser) strEscaped(start, i int) (string, int, error) {
	if !p.counting && p.escaped > 0 {
		mark := p.text.Len()
		j, err := p.unescape(&p.text, start, i)
		if err != nil {
			return "", j, err
		}
		return p.text.String()[mark:], j, nil
	}
	var sb strings.Builder
	if end, ok := escapedStrEnd(p.s, i); ok {
		sb.Grow(end - 1 - start) // decoded text is never longer than written
	}
	j, err := p.unescape(&sb, start, i)
	if err != nil {
		return "", j, err
	}
	return sb.String(), j, nil
}

// unescape writes to sb the string with escapes whose first byte is start
// and first backslash i, and returns the index after its closing quote.
// Runs between escapes are copied whole.
func (p *parser) unescape(sb *strings.Builder, start, i int) (int, error) {
	s := p.s
	sb.WriteString(s[start:i])
	for i < len(s) {
		run := i
		i = PlainRunEnd(s, i)
		sb.WriteString(s[run:i])
		if i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, nil
		case c < 0x20:
			return i, &SyntaxError{Offset: i, Msg: "control character in string"}
		}
		i++ // backslash
		if i >= len(s) {
			return i, ErrTruncated
		}
		e := s[i]
		i++
		switch e {
		case '"', '\\', '/':
			sb.WriteByte(e)
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r, j, err := p.hex4(i)
			if err != nil {
				return j, err
			}
			i = j
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
					low, j, err := p.hex4(i + 2)
					if err != nil {
						return j, err
					}
					if dec := utf16.DecodeRune(r, low); dec != utf8.RuneError {
						r2 = dec
						i = j
					}
				} else if i >= len(s) || (s[i] == '\\' && i+1 >= len(s)) {
					// The text ends where the low surrogate may follow.
					return i, ErrTruncated
				}
				r = r2
			}
			sb.WriteRune(r)
		default:
			return i - 1, &SyntaxError{Offset: i - 1, Msg: "invalid escape"}
		}
	}
	return i, ErrTruncated
}

// hex4 reads the four hex digits of a \u escape at i.
func (p *parser) hex4(i int) (rune, int, error) {
	s := p.s
	if i+4 > len(s) {
		for k := i; k < len(s); k++ {
			if !isHex(s[k]) {
				return 0, k, &SyntaxError{Offset: i, Msg: "invalid unicode escape"}
			}
		}
		return 0, len(s), ErrTruncated
	}
	var r rune
	for k := 0; k < 4; k++ {
		c := s[i+k]
		if !isHex(c) {
			return 0, i + k, &SyntaxError{Offset: i + k, Msg: "invalid unicode escape"}
		}
		r = r<<4 | rune(hexVal(c))
	}
	return r, i + 4, nil
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// array parses the array whose '[' is at i into dst.
func (p *parser) array(i int, dst *Value, depth int) (int, error) {
	s := p.s
	i = SkipSpace(s, i+1)
	if i < len(s) && s[i] == ']' {
		*dst = Value{kind: KindArray, items: []Value{}}
		return i + 1, nil
	}
	items := p.slots(depth)
	partial := false
	for {
		i = SkipSpace(s, i)
		items = append(items, Value{})
		var err error
		if i, err = p.value(i, &items[len(items)-1], depth+1); err != nil {
			return i, err
		}
		partial = partial || items[len(items)-1].Unread()
		done := false
		if i, done, err = p.separator(i, ']'); err != nil || done {
			*dst = Value{}
			dst.kind, dst.items, dst.partial = KindArray, items[:len(items):len(items)], partial
			return i, err
		}
	}
}

// separator reads what follows a container's element at i: a comma, when
// more elements follow, or the container's closing byte (done). It returns
// the index after it.
func (p *parser) separator(i int, closing byte) (next int, done bool, err error) {
	s := p.s
	i = SkipSpace(s, i)
	if i >= len(s) {
		return i, false, ErrTruncated
	}
	switch s[i] {
	case ',':
		return i + 1, false, nil
	case closing:
		return i + 1, true, nil
	}
	return i, false, p.errAt(i, "expected ',' or '"+string(closing)+"'")
}

// memberKey checks that an object member's key starts at i, after space,
// and returns the index of its opening quote.
func (p *parser) memberKey(i int) (int, error) {
	return p.expect(i, '"', "expected string key")
}

// colon reads the ':' after a member's key, which ends at i, and returns
// the index of the member's value.
func (p *parser) colon(i int) (int, error) {
	i, err := p.expect(i, ':', "expected ':'")
	if err != nil {
		return i, err
	}
	return SkipSpace(p.s, i+1), nil
}

// expect returns the index of c, the next byte after space from i, or an
// error with msg (ErrTruncated if the text ends first).
func (p *parser) expect(i int, c byte, msg string) (int, error) {
	i = SkipSpace(p.s, i)
	if i >= len(p.s) || p.s[i] != c {
		return i, p.errAt(i, msg)
	}
	return i, nil
}

// dupScanLimit is the member count up to which an object's keys are checked
// for repeats by scanning; larger objects index their keys in a map, so a
// hostile object with many keys costs linear time, not quadratic.
const dupScanLimit = 16

// object parses the object whose '{' is at i into dst.
func (p *parser) object(i int, dst *Value, depth int) (int, error) {
	s := p.s
	i = SkipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		*dst = Value{kind: KindObject, items: []Value{}}
		return i + 1, nil
	}
	items := p.slots(depth)
	var index map[string]int // key -> position in items, past dupScanLimit
	partial := false
	for {
		var err error
		if i, err = p.memberKey(i); err != nil {
			return i, err
		}
		key, j, err := p.str(i)
		if err != nil {
			return j, err
		}
		if i, err = p.colon(j); err != nil {
			return i, err
		}
		// The member's key and an empty value, written in place (see
		// unexpected).
		at := len(items)
		if cap(items)-at < 2 {
			items = slices.Grow(items, 2)
		}
		items = items[:at+2]
		clear(items[at:])
		items[at].kind, items[at].str = KindString, key
		if i, err = p.value(i, &items[at+1], depth+1); err != nil {
			return i, err
		}
		// A repeated key's earlier value may have been the unknown one:
		// the object stays partial, which only means it is not compared
		// whole.
		partial = partial || items[at+1].Unread()
		// A repeated key keeps its first position and its last value.
		if prev := findKey(items, at, key, &index); prev >= 0 {
			items[prev+1] = items[at+1]
			clear(items[at : at+2])
			items = items[:at]
		}
		done := false
		if i, done, err = p.separator(i, '}'); err != nil || done {
			*dst = Value{}
			dst.kind, dst.items, dst.partial = KindObject, items[:len(items):len(items)], partial
			return i, err
		}
	}
}

// findKey returns the position in items of an earlier member named key, or
// -1; at is the new member's position. Past dupScanLimit members it keeps
// *index, a map of the object's keys.
func findKey(items []Value, at int, key string, index *map[string]int) int {
	members := at / 2
	if members < dupScanLimit {
		for k := 0; k < at; k += 2 {
			if items[k].str == key {
				return k
			}
		}
		return -1
	}
	if *index == nil {
		*index = make(map[string]int, 2*members)
		for k := 0; k < at; k += 2 {
			(*index)[items[k].str] = k
		}
	}
	if k, ok := (*index)[key]; ok {
		return k
	}
	(*index)[key] = at
	return -1
}
