package scoring

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrTruncated is returned by [Parse] when the text ends in the middle of a JSON
// value, which is what a span attribute cut at its length limit looks like.
var ErrTruncated = errors.New("json: unexpected end of input")

// maxParseDepth bounds nesting so hostile input cannot exhaust the stack.
const maxParseDepth = 256

// SyntaxError reports malformed JSON at a byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("json: %s at offset %d", e.Msg, e.Offset) }

// Parse parses one JSON document. Object members keep their written order; a
// repeated key keeps its last value, as JSON.parse does. Text that ends inside a
// value returns [ErrTruncated]; other malformed text returns a [*SyntaxError].
func Parse(s string) (Value, error) {
	stack := stackPool.Get().(*[]Value)
	p := parser{s: s, stack: (*stack)[:0]}
	if n := containerBound(s); n > 0 {
		p.arena = make([]Value, n)
	}
	defer func() {
		clear(p.stack[:max(p.peak, len(p.stack))])
		*stack = p.stack[:0]
		stackPool.Put(stack)
	}()
	p.skipSpace()
	if err := p.value(0); err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.i != len(p.s) {
		return Value{}, &SyntaxError{Offset: p.i, Msg: "unexpected text after value"}
	}
	return p.stack[0], nil
}

// stackPool reuses parser stacks across parses.
var stackPool = sync.Pool{New: func() any { s := make([]Value, 0, 32); return &s }}

type parser struct {
	s string
	i int
	// stack collects container elements while they are parsed.
	stack []Value
	peak  int
	// arena holds every container's elements: one allocation per document,
	// sized by containerBound.
	arena []Value
}

// containerBound returns an upper bound on the values stored inside arrays
// and objects (keys included): each container holds at most its commas plus
// one elements, twice that for objects.
func containerBound(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch byteClass[s[i]] {
		case classPlain:
		case classQuote:
			// Skip the string: its commas and brackets are text.
			for i++; i < len(s); i++ {
				if c := s[i]; c == '"' {
					break
				} else if c == '\\' {
					i++
				}
			}
		case classCount:
			n++
		}
	}
	return 2 * n
}

// Byte classes for containerBound's scan outside strings.
const (
	classPlain uint8 = iota
	// classQuote: '"', which opens a string.
	classQuote
	// classCount: ',', '[' and '{', which containerBound counts.
	classCount
)

// byteClass classifies bytes outside strings (containerBound).
var byteClass = [256]uint8{'"': classQuote, ',': classCount, '[': classCount, '{': classCount}

// strStop marks the bytes that end the fast scan of a string's contents.
var strStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// take moves the elements collected since base into the arena and returns
// them as a container's items.
func (p *parser) take(base int) []Value {
	n := len(p.stack) - base
	p.keepPeak()
	var items []Value
	if n <= len(p.arena) {
		items = p.arena[:n:n]
		p.arena = p.arena[n:]
	} else {
		items = make([]Value, n)
	}
	copy(items, p.stack[base:])
	p.stack = p.stack[:base]
	return items
}

// skipSpace skips whitespace; the common case, none, is inlined.
func (p *parser) skipSpace() {
	if p.i < len(p.s) && p.s[p.i] > ' ' {
		return
	}
	p.skipSpaceSlow()
}

func (p *parser) skipSpaceSlow() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) errAt(msg string) error {
	if p.i >= len(p.s) {
		return ErrTruncated
	}
	return &SyntaxError{Offset: p.i, Msg: msg}
}

// value parses one value and pushes it on the stack. Values are built in
// place there, so a container's elements are copied once, into the arena.
func (p *parser) value(depth int) error {
	if depth > maxParseDepth {
		return &SyntaxError{Offset: p.i, Msg: "nesting too deep"}
	}
	if p.i >= len(p.s) {
		return ErrTruncated
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return err
		}
		p.stack = append(p.stack, Value{kind: KindString, str: s})
		return nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", Bool(true))
	case c == 'f':
		return p.literal("false", Bool(false))
	case c == 'n':
		return p.literal("null", Null())
	}
	return p.errAt("unexpected character " + strconv.QuoteRune(rune(p.s[p.i])))
}

func (p *parser) literal(word string, v Value) error {
	end := p.i + len(word)
	if end > len(p.s) {
		if p.s[p.i:] == word[:len(p.s)-p.i] {
			return ErrTruncated
		}
		return p.errAt("invalid literal")
	}
	if p.s[p.i:end] != word {
		return p.errAt("invalid literal")
	}
	p.i = end
	p.stack = append(p.stack, v)
	return nil
}

func (p *parser) number() error {
	start := p.i
	isInt := true
	if p.s[p.i] == '-' {
		p.i++
	}
	if p.i >= len(p.s) {
		return ErrTruncated
	}
	switch {
	case p.s[p.i] == '0':
		p.i++
	case p.s[p.i] >= '1' && p.s[p.i] <= '9':
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
	default:
		return p.errAt("invalid number")
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		isInt = false
		p.i++
		if p.i >= len(p.s) {
			return ErrTruncated
		}
		if p.s[p.i] < '0' || p.s[p.i] > '9' {
			return p.errAt("invalid number")
		}
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		isInt = false
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if p.i >= len(p.s) {
			return ErrTruncated
		}
		if p.s[p.i] < '0' || p.s[p.i] > '9' {
			return p.errAt("invalid number")
		}
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
	}
	lit := p.s[start:p.i]
	if isInt && len(lit) <= 15 {
		// Up to 15 digits an integer is exact in a float64.
		p.stack = append(p.stack, Value{kind: KindNumber, num: smallInt(lit), isInt: true, str: lit})
		return nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		// Out of range: JSON.parse and Python both give ±Infinity; keep the
		// literal so equality still works on the digits.
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return &SyntaxError{Offset: start, Msg: "invalid number"}
		}
	}
	p.stack = append(p.stack, Value{kind: KindNumber, num: f, isInt: isInt, str: lit})
	return nil
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

// str parses a JSON string starting at the opening quote. It returns a
// substring of the input when the string has no escapes.
func (p *parser) str() (string, error) {
	p.i++ // opening quote
	start := p.i
	s := p.s
	i := p.i
	for i < len(s) && !strStop[s[i]] {
		i++
	}
	p.i = i
	if i >= len(s) {
		return "", ErrTruncated
	}
	switch s[i] {
	case '"':
		p.i++
		return s[start:i], nil
	case '\\':
		return p.strEscaped(start)
	}
	return "", &SyntaxError{Offset: i, Msg: "control character in string"}
}

func (p *parser) strEscaped(start int) (string, error) {
	buf := make([]byte, 0, p.i-start+16)
	buf = append(buf, p.s[start:p.i]...)
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(buf), nil
		case c < 0x20:
			return "", &SyntaxError{Offset: p.i, Msg: "control character in string"}
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(p.s) {
			return "", ErrTruncated
		}
		e := p.s[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, err := p.hex4()
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					low, err := p.hex4()
					if err != nil {
						return "", err
					}
					if dec := utf16.DecodeRune(r, low); dec != utf8.RuneError {
						r2 = dec
					} else {
						p.i = save
					}
				} else if p.i+1 >= len(p.s) {
					return "", ErrTruncated
				}
				r = r2
			}
			buf = utf8.AppendRune(buf, r)
		default:
			p.i--
			return "", &SyntaxError{Offset: p.i, Msg: "invalid escape"}
		}
	}
	return "", ErrTruncated
}

func (p *parser) hex4() (rune, error) {
	if p.i+4 > len(p.s) {
		for _, c := range []byte(p.s[p.i:]) {
			if !isHex(c) {
				return 0, &SyntaxError{Offset: p.i, Msg: "invalid unicode escape"}
			}
		}
		return 0, ErrTruncated
	}
	var r rune
	for k := 0; k < 4; k++ {
		c := p.s[p.i+k]
		if !isHex(c) {
			return 0, &SyntaxError{Offset: p.i + k, Msg: "invalid unicode escape"}
		}
		r = r<<4 | rune(hexVal(c))
	}
	p.i += 4
	return r, nil
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

func (p *parser) array(depth int) error {
	p.i++ // [
	base := len(p.stack)
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		p.stack = append(p.stack, Value{kind: KindArray, items: []Value{}})
		return nil
	}
	for {
		p.skipSpace()
		if err := p.value(depth + 1); err != nil {
			return p.fail(base, err)
		}
		p.skipSpace()
		if p.i >= len(p.s) {
			return p.fail(base, ErrTruncated)
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			continue
		case ']':
			p.i++
			p.closeContainer(base, KindArray)
			return nil
		}
		return p.fail(base, p.errAt("expected ',' or ']'"))
	}
}

// fail drops a container's partial elements and returns err.
func (p *parser) fail(base int, err error) error {
	p.keepPeak()
	p.stack = p.stack[:base]
	return err
}

// keepPeak records the stack's high-water mark, which Parse clears.
func (p *parser) keepPeak() {
	if len(p.stack) > p.peak {
		p.peak = len(p.stack)
	}
}

// closeContainer replaces the elements pushed since base by the container
// holding them.
func (p *parser) closeContainer(base int, kind Kind) {
	items := p.take(base)
	p.stack = append(p.stack, Value{kind: kind, items: items})
}

// dupScanLimit is the member count up to which an object's keys are checked
// for repeats by scanning; larger objects index their keys in a map, so a
// hostile object with many keys costs linear time, not quadratic.
const dupScanLimit = 16

func (p *parser) object(depth int) error {
	p.i++ // {
	base := len(p.stack)
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		p.stack = append(p.stack, Value{kind: KindObject, items: []Value{}})
		return nil
	}
	var index map[string]int // key -> stack position, past dupScanLimit
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return p.fail(base, ErrTruncated)
		}
		if p.s[p.i] != '"' {
			return p.fail(base, p.errAt("expected string key"))
		}
		key, err := p.str()
		if err != nil {
			return p.fail(base, err)
		}
		p.skipSpace()
		if p.i >= len(p.s) {
			return p.fail(base, ErrTruncated)
		}
		if p.s[p.i] != ':' {
			return p.fail(base, p.errAt("expected ':'"))
		}
		p.i++
		p.skipSpace()
		at := len(p.stack)
		p.stack = append(p.stack, Value{kind: KindString, str: key})
		if err := p.value(depth + 1); err != nil {
			return p.fail(base, err)
		}
		// A repeated key keeps its first position and its last value.
		if prev := p.findKey(base, at, key, &index); prev >= 0 {
			p.keepPeak()
			p.stack[prev+1] = p.stack[at+1]
			p.stack = p.stack[:at]
		}
		p.skipSpace()
		if p.i >= len(p.s) {
			return p.fail(base, ErrTruncated)
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			continue
		case '}':
			p.i++
			p.closeContainer(base, KindObject)
			return nil
		}
		return p.fail(base, p.errAt("expected ',' or '}'"))
	}
}

// findKey returns the stack position of an earlier member of the object at
// base named key, or -1; at is the new member's position. Past dupScanLimit
// members it keeps *index, a map of the object's keys.
func (p *parser) findKey(base, at int, key string, index *map[string]int) int {
	members := (at - base) / 2
	if members < dupScanLimit {
		for k := base; k < at; k += 2 {
			if p.stack[k].str == key {
				return k
			}
		}
		return -1
	}
	if *index == nil {
		*index = make(map[string]int, 2*members)
		for k := base; k < at; k += 2 {
			(*index)[p.stack[k].str] = k
		}
	}
	if k, ok := (*index)[key]; ok {
		return k
	}
	(*index)[key] = at
	return -1
}
