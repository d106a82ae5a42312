package extract

import (
	"errors"
	"strconv"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

var errNotPython = errors.New("not a Python literal")

// ParsePythonLiteral parses the repr of a Python dict, list, tuple, string,
// number, bool or None ("{'a': 3, 'b': True}"), which is how LangChain's
// tracer records tool inputs under OpenInference. Dict keys must be strings,
// numbers or bools (numbers and bools become their JSON text).
//
// The text is read twice: first only checked, building nothing, so that
// text that is not a literal (most text this is tried on) costs no memory
// for the values it would hold, then built.
func ParsePythonLiteral(s string) (jsonv.Value, error) {
	p := pyParser{s: s, dry: true}
	if _, err := p.literal(); err != nil {
		return jsonv.Value{}, err
	}
	p = pyParser{s: s}
	return p.literal()
}

type pyParser struct {
	s string
	i int
	// dry checks the text without building values: containers and
	// strings come back empty.
	dry bool
}

// literal reads the whole text as one literal.
func (p *pyParser) literal() (jsonv.Value, error) {
	p.space()
	v, err := p.value(0)
	if err != nil {
		return jsonv.Value{}, err
	}
	p.space()
	if p.i != len(p.s) {
		return jsonv.Value{}, errNotPython
	}
	return v, nil
}

func (p *pyParser) space() {
	for p.i < len(p.s) && isJSONSpace(p.s[p.i]) { // Python's white space between tokens is JSON's
		p.i++
	}
}

func (p *pyParser) value(depth int) (jsonv.Value, error) {
	if depth > 128 || p.i >= len(p.s) {
		return jsonv.Value{}, errNotPython
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict(depth)
	case c == '[':
		return p.seq(depth, ']')
	case c == '(':
		return p.seq(depth, ')')
	case c == '\'' || c == '"':
		s, err := p.str()
		return jsonv.String(s), err
	case c == '-' || c == '+' || (c >= '0' && c <= '9') || c == '.':
		return p.number()
	}
	for _, w := range []struct {
		word string
		v    jsonv.Value
	}{{"True", jsonv.Bool(true)}, {"False", jsonv.Bool(false)}, {"None", jsonv.Null()}} {
		if strings.HasPrefix(p.s[p.i:], w.word) {
			p.i += len(w.word)
			return w.v, nil
		}
	}
	return jsonv.Value{}, errNotPython
}

func (p *pyParser) dict(depth int) (jsonv.Value, error) {
	p.i++
	var members []jsonv.Member
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return jsonv.Object(members...), nil
		}
		k, err := p.value(depth + 1)
		if err != nil {
			return jsonv.Value{}, err
		}
		key := k.StringValue()
		if k.Kind() != jsonv.KindString {
			if k.Kind() != jsonv.KindNumber && k.Kind() != jsonv.KindBool {
				return jsonv.Value{}, errNotPython
			}
			if !p.dry {
				key = k.JSON()
			}
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return jsonv.Value{}, errNotPython
		}
		p.i++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return jsonv.Value{}, err
		}
		if !p.dry {
			members = append(members, jsonv.Member{Key: key, Value: v})
		}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return jsonv.Object(members...), nil
		}
		return jsonv.Value{}, errNotPython
	}
}

func (p *pyParser) seq(depth int, end byte) (jsonv.Value, error) {
	p.i++
	var items []jsonv.Value
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == end {
			p.i++
			return jsonv.Array(items...), nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return jsonv.Value{}, err
		}
		if !p.dry {
			items = append(items, v)
		}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == end {
			p.i++
			return jsonv.Array(items...), nil
		}
		return jsonv.Value{}, errNotPython
	}
}

// str parses a single- or double-quoted Python string with backslash escapes.
func (p *pyParser) str() (string, error) {
	q := p.s[p.i]
	p.i++
	sb := pyString{dry: p.dry}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return sb.String(), nil
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			switch e := p.s[p.i]; e {
			case 'n':
				sb.writeByte('\n')
			case 't':
				sb.writeByte('\t')
			case 'r':
				sb.writeByte('\r')
			case 'x', 'u':
				n := 2
				if e == 'u' {
					n = 4
				}
				if p.i+n >= len(p.s) {
					return "", errNotPython
				}
				r, err := strconv.ParseUint(p.s[p.i+1:p.i+1+n], 16, 32)
				if err != nil {
					return "", errNotPython
				}
				sb.writeRune(rune(r))
				p.i += n
			default:
				sb.writeByte(e)
			}
			p.i++
		default:
			sb.writeByte(c)
			p.i++
		}
	}
	return "", errNotPython
}

func (p *pyParser) number() (jsonv.Value, error) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE_", p.s[p.i]) >= 0 {
		p.i++
	}
	lit := strings.ReplaceAll(p.s[start:p.i], "_", "")
	if v, err := jsonv.Parse(strings.TrimPrefix(lit, "+")); err == nil && v.Kind() == jsonv.KindNumber {
		return v, nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return jsonv.Value{}, errNotPython
	}
	return jsonv.Number(f), nil
}

// pyString collects a string's text, unless dry.
type pyString struct {
	sb  strings.Builder
	dry bool
}

func (b *pyString) writeByte(c byte) {
	if !b.dry {
		b.sb.WriteByte(c)
	}
}

func (b *pyString) writeRune(r rune) {
	if !b.dry {
		b.sb.WriteRune(r)
	}
}

func (b *pyString) String() string { return b.sb.String() }
