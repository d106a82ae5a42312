package scoring

import (
	"errors"
	"fmt"
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
		clear(p.stack[:p.peak])
		*stack = p.stack[:0]
		stackPool.Put(stack)
	}()
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.i != len(p.s) {
		return Value{}, &SyntaxError{Offset: p.i, Msg: "unexpected text after value"}
	}
	return v, nil
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
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ',', '[', '{':
			n++
		}
	}
	return 2 * n
}

// take moves the elements collected since base into the arena and returns
// them as a container's items.
func (p *parser) take(base int) []Value {
	n := len(p.stack) - base
	if len(p.stack) > p.peak {
		p.peak = len(p.stack)
	}
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

func (p *parser) skipSpace() {
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

func (p *parser) value(depth int) (Value, error) {
	if depth > maxParseDepth {
		return Value{}, &SyntaxError{Offset: p.i, Msg: "nesting too deep"}
	}
	if p.i >= len(p.s) {
		return Value{}, ErrTruncated
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return Value{}, err
		}
		return String(s), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", Bool(true))
	case c == 'f':
		return p.literal("false", Bool(false))
	case c == 'n':
		return p.literal("null", Null())
	}
	return Value{}, p.errAt("unexpected character " + strconv.QuoteRune(rune(p.s[p.i])))
}

func (p *parser) literal(word string, v Value) (Value, error) {
	end := p.i + len(word)
	if end > len(p.s) {
		if p.s[p.i:] == word[:len(p.s)-p.i] {
			return Value{}, ErrTruncated
		}
		return Value{}, p.errAt("invalid literal")
	}
	if p.s[p.i:end] != word {
		return Value{}, p.errAt("invalid literal")
	}
	p.i = end
	return v, nil
}

func (p *parser) number() (Value, error) {
	start := p.i
	isInt := true
	if p.s[p.i] == '-' {
		p.i++
	}
	if p.i >= len(p.s) {
		return Value{}, ErrTruncated
	}
	switch {
	case p.s[p.i] == '0':
		p.i++
	case p.s[p.i] >= '1' && p.s[p.i] <= '9':
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
	default:
		return Value{}, p.errAt("invalid number")
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		isInt = false
		p.i++
		if p.i >= len(p.s) {
			return Value{}, ErrTruncated
		}
		if p.s[p.i] < '0' || p.s[p.i] > '9' {
			return Value{}, p.errAt("invalid number")
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
			return Value{}, ErrTruncated
		}
		if p.s[p.i] < '0' || p.s[p.i] > '9' {
			return Value{}, p.errAt("invalid number")
		}
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
	}
	lit := p.s[start:p.i]
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		// Out of range: JSON.parse and Python both give ±Infinity; keep the
		// literal so equality still works on the digits.
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return Value{}, &SyntaxError{Offset: start, Msg: "invalid number"}
		}
	}
	return Value{kind: KindNumber, num: f, isInt: isInt, str: lit}, nil
}

// str parses a JSON string starting at the opening quote. It returns a
// substring of the input when the string has no escapes.
func (p *parser) str() (string, error) {
	p.i++ // opening quote
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			s := p.s[start:p.i]
			p.i++
			return s, nil
		case c == '\\':
			return p.strEscaped(start)
		case c < 0x20:
			return "", &SyntaxError{Offset: p.i, Msg: "control character in string"}
		}
		p.i++
	}
	return "", ErrTruncated
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

func (p *parser) array(depth int) (Value, error) {
	p.i++ // [
	base := len(p.stack)
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return Value{kind: KindArray, items: []Value{}}, nil
	}
	for {
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			p.stack = p.stack[:base]
			return Value{}, err
		}
		p.stack = append(p.stack, v)
		p.skipSpace()
		if p.i >= len(p.s) {
			p.stack = p.stack[:base]
			return Value{}, ErrTruncated
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			continue
		case ']':
			p.i++
			return Value{kind: KindArray, items: p.take(base)}, nil
		}
		p.stack = p.stack[:base]
		return Value{}, p.errAt("expected ',' or ']'")
	}
}

func (p *parser) object(depth int) (Value, error) {
	p.i++ // {
	base := len(p.stack)
	fail := func(err error) (Value, error) {
		p.stack = p.stack[:base]
		return Value{}, err
	}
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return Value{kind: KindObject, items: []Value{}}, nil
	}
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return fail(ErrTruncated)
		}
		if p.s[p.i] != '"' {
			return fail(p.errAt("expected string key"))
		}
		key, err := p.str()
		if err != nil {
			return fail(err)
		}
		p.skipSpace()
		if p.i >= len(p.s) {
			return fail(ErrTruncated)
		}
		if p.s[p.i] != ':' {
			return fail(p.errAt("expected ':'"))
		}
		p.i++
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return fail(err)
		}
		dup := false
		for k := base; k < len(p.stack); k += 2 {
			if p.stack[k].str == key {
				p.stack[k+1] = v
				dup = true
				break
			}
		}
		if !dup {
			p.stack = append(p.stack, String(key), v)
		}
		p.skipSpace()
		if p.i >= len(p.s) {
			return fail(ErrTruncated)
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			continue
		case '}':
			p.i++
			return Value{kind: KindObject, items: p.take(base)}, nil
		}
		return fail(p.errAt("expected ',' or '}'"))
	}
}
