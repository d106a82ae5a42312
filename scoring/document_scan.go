package scoring

// scanDepth is how deeply the one-pass scan nests containers; deeper text
// is left to the checking parser.
const scanDepth = 32

// docScan indexes a document in one pass, without recursion. It covers the
// documents arguments are in practice: well-formed, nested less than
// scanDepth, every key written without escapes and unique, at most
// dupScanLimit members per object. It gives up on anything else, malformed text included, and the
// checking parser (docParser) then reads the text and reports the error
// Parse reports; on the text it covers, it builds the same tokens.
type docScan struct {
	parser // its number reader
	toks   []docToken
	// open holds the tokens of the containers being read, innermost last;
	// members counts the members read so far of each open object.
	open    [scanDepth]int32
	members [scanDepth]uint8
	depth   int
}

// run indexes the text, reporting whether the scan covers it.
func (d *docScan) run() bool {
	s := d.s
	i := skipSpace(s, 0)
	for {
		// A value starts at i.
		if i >= len(s) {
			return false
		}
		var ok bool
		if c := s[i]; c == '{' || c == '[' {
			var opened bool
			if i, opened, ok = d.openContainer(i, c); !ok {
				return false
			}
			if opened {
				continue // its first element or member's value follows
			}
		} else if i, ok = d.scalar(i); !ok {
			return false
		}
		var more bool
		if i, more, ok = d.afterValue(i); !ok || !more {
			return ok
		}
	}
}

// scalar indexes the string, number, boolean or null at i.
func (d *docScan) scalar(i int) (int, bool) {
	s := d.s
	at := int32(len(d.toks))
	tok := docToken{start: int32(i), next: at + 1}
	switch c := s[i]; {
	case c == '"':
		j, escaped, ok := d.strEnd(i)
		if !ok {
			return j, false
		}
		tok.kind, tok.end = KindString, int32(j)
		if escaped {
			tok.flags = tokEscaped
		}
	case c == '-' || (c >= '0' && c <= '9'):
		j, isInt, err := d.numberEnd(i)
		if err != nil {
			return j, false
		}
		tok.kind, tok.end = KindNumber, int32(j)
		if isInt {
			tok.flags = tokInt
		}
	default:
		kind, n := literalAt(s, i)
		if n == 0 {
			return i, false
		}
		tok.kind, tok.end = kind, int32(i+n)
	}
	d.toks = append(d.toks, tok)
	return int(tok.end), true
}

// strEnd returns the index after the string whose quote is at i, and
// whether it is written with escapes. It checks escapes as Parse decodes
// them: a character escape, or \u and four hex digits (a surrogate without
// its pair decodes to U+FFFD, so any four are valid).
func (d *docScan) strEnd(i int) (end int, escaped, ok bool) {
	s := d.s
	j := i + 1
	for {
		for j < len(s) && !strStop[s[j]] {
			j++
		}
		if j >= len(s) {
			return j, escaped, false
		}
		switch s[j] {
		case '"':
			return j + 1, escaped, true
		case '\\':
		default:
			return j, escaped, false // a control character
		}
		escaped = true
		if j+1 >= len(s) {
			return j, escaped, false
		}
		switch s[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j += 2
		case 'u':
			if j+6 > len(s) || !isHex(s[j+2]) || !isHex(s[j+3]) || !isHex(s[j+4]) || !isHex(s[j+5]) {
				return j, escaped, false
			}
			j += 6
		default:
			return j, escaped, false
		}
	}
}

// literalAt returns the kind and length of the true, false or null written
// at i (length 0 if none is).
func literalAt(s string, i int) (Kind, int) {
	rest := s[i:]
	switch {
	case len(rest) >= 4 && rest[:4] == "true":
		return KindBool, 4
	case len(rest) >= 5 && rest[:5] == "false":
		return KindBool, 5
	case len(rest) >= 4 && rest[:4] == "null":
		return KindNull, 4
	}
	return KindUndefined, 0
}

// openContainer reads the opening of the object or array whose bracket c
// is at i. An empty container is indexed whole; otherwise it is opened
// (opened set) and the index of its first value returned, after the first
// key for an object.
func (d *docScan) openContainer(i int, c byte) (next int, opened, ok bool) {
	if d.depth == scanDepth {
		return i, false, false
	}
	kind, closing := KindArray, byte(']')
	if c == '{' {
		kind, closing = KindObject, '}'
	}
	at := int32(len(d.toks))
	s := d.s
	j := skipSpace(s, i+1)
	if j < len(s) && s[j] == closing {
		d.toks = append(d.toks, docToken{start: int32(i), end: int32(j + 1), next: at + 1, kind: kind})
		return j + 1, false, true
	}
	d.toks = append(d.toks, docToken{start: int32(i), kind: kind})
	d.open[d.depth], d.members[d.depth] = at, 0
	d.depth++
	if kind == KindArray {
		return j, true, true
	}
	j, ok = d.key(j)
	return j, true, ok
}

// afterValue reads what follows a value ending at i: the separators and
// closing brackets up to the next value, whose index it returns with more
// set, or the end of the text.
func (d *docScan) afterValue(i int) (next int, more, ok bool) {
	s := d.s
	for {
		i = skipSpace(s, i)
		if d.depth == 0 {
			return i, false, i == len(s)
		}
		if i >= len(s) {
			return i, false, false
		}
		top := d.open[d.depth-1]
		obj := d.toks[top].kind == KindObject
		switch c := s[i]; {
		case c == ',':
			i = skipSpace(s, i+1)
			if obj {
				i, ok = d.key(i)
				return i, ok, ok
			}
			return i, true, true
		case (c == '}' && obj) || (c == ']' && !obj):
			d.toks[top].end, d.toks[top].next = int32(i+1), int32(len(d.toks))
			d.depth--
			i++
		default:
			return i, false, false
		}
	}
}

// key reads the key at i of the innermost open object and the colon after
// it, returning the index of the member's value.
func (d *docScan) key(i int) (int, bool) {
	s := d.s
	if i >= len(s) || s[i] != '"' {
		return i, false
	}
	j, escaped, ok := d.strEnd(i)
	if !ok || escaped {
		return j, false
	}
	obj := d.open[d.depth-1]
	if d.members[d.depth-1]++; d.members[d.depth-1] > dupScanLimit || d.repeated(obj, s[i+1:j-1]) {
		return j, false
	}
	d.toks = append(d.toks, docToken{start: int32(i), end: int32(j), next: int32(len(d.toks) + 1), kind: KindString})
	j = skipSpace(s, j)
	if j >= len(s) || s[j] != ':' {
		return j, false
	}
	return skipSpace(s, j+1), true
}

// repeated reports whether the open object at token obj already has a
// member named key.
func (d *docScan) repeated(obj int32, key string) bool {
	for k := obj + 1; int(k) < len(d.toks); k = d.toks[k+1].next {
		if d.toks[k].inner(d.s) == key {
			return true
		}
	}
	return false
}
