package jsonv

import (
	"math/bits"
	"strings"
)

// ScanDepth is how deeply scanDocument nests containers; deeper text is
// left to the checking parser.
const ScanDepth = 32

// scanDocument indexes s in one pass, appending its tokens to toks. It
// covers the documents arguments are in practice: well formed, nested less
// than scanDepth, every key written without escapes and unique, at most
// dupScanLimit members per object. On anything else, malformed text
// included, it gives up (ok false) and the checking parser (docParser) reads
// the text and reports the error Parse reports; on the text it covers, it
// builds the same tokens.
//
// It is one loop over the text, holding its state in locals: a value starts
// at i at the top of the loop (after a member's key, read first when
// wantKey is set); what follows the value (closing brackets, then a comma
// or the end) is read at the bottom.
func scanDocument(s string, toks []DocToken) (_ []DocToken, ok bool) {
	return scan(s, toks, 0, -1)
}

// scanArrayTail is scanDocument on s, an array that opens at start, from
// at, the index after a comma that follows one of its elements: the
// array's token is followed by the tokens of the elements from at only.
// The text before at is not read.
func scanArrayTail(s string, toks []DocToken, start, at int) (_ []DocToken, ok bool) {
	return scan(s, toks, at, start)
}

// scan is scanDocument from i; with tailOf >= 0, from inside the array
// that opens at tailOf, where i starts an element.
func scan(s string, toks []DocToken, i, tailOf int) (_ []DocToken, ok bool) {
	var (
		// open holds the tokens of the containers being read, innermost
		// last; for an object, keys is a set of its keys' hashes (see
		// keyBit) and members how many it has so far.
		open    [ScanDepth]int32
		keys    [ScanDepth]uint64
		members [ScanDepth]uint8
		depth   int
		wantKey bool
	)
	if tailOf >= 0 {
		open[0], depth = int32(len(toks)), 1
		toks = append(toks, DocToken{Start: int32(tailOf), Kind: KindArray})
	}
	i = SkipSpace(s, i)
	for {
		if wantKey {
			if i >= len(s) || s[i] != '"' {
				return toks, false
			}
			j := PlainRunEnd(s, i+1)
			if j >= len(s) || s[j] != '"' {
				return toks, false // an escaped key, or no key
			}
			key, top := s[i+1:j], depth-1
			if members[top]++; members[top] > dupScanLimit {
				return toks, false
			}
			if bit := keyBit(key); keys[top]&bit == 0 {
				keys[top] |= bit
			} else if repeatedKey(s, toks, open[top], key) {
				return toks, false
			}
			toks = append(toks, DocToken{Start: int32(i), End: int32(j + 1), Next: int32(len(toks) + 1), Kind: KindString})
			i = SkipSpace(s, j+1)
			if i >= len(s) || s[i] != ':' {
				return toks, false
			}
			i = SkipSpace(s, i+1)
			wantKey = false
		}

		// A value starts at i.
		if i >= len(s) {
			return toks, false
		}
		at := int32(len(toks))
		tok := DocToken{Start: int32(i), Next: at + 1}
		switch c := s[i]; {
		case c == '{' || c == '[':
			if depth == ScanDepth {
				return toks, false
			}
			kind, closing := KindArray, byte(']')
			if c == '{' {
				kind, closing = KindObject, '}'
			}
			j := SkipSpace(s, i+1)
			if j < len(s) && s[j] == closing {
				tok.Kind, tok.End = kind, int32(j+1)
				break // empty: indexed whole, like a scalar
			}
			toks = append(toks, DocToken{Start: int32(i), Kind: kind})
			open[depth], keys[depth], members[depth] = at, 0, 0
			depth++
			i, wantKey = j, kind == KindObject
			continue
		default:
			if !ScalarToken(s, i, &tok) {
				return toks, false
			}
		}
		toks = append(toks, tok)
		i = int(tok.End)

		// After a value: close containers, then a comma leads to the next
		// element or member, or the text ends.
		for {
			i = SkipSpace(s, i)
			if depth == 0 {
				return toks, i == len(s)
			}
			if i >= len(s) {
				return toks, false
			}
			top := open[depth-1]
			obj := toks[top].Kind == KindObject
			c := s[i]
			if c == ',' {
				i, wantKey = SkipSpace(s, i+1), obj
				break
			}
			if (c == '}' && obj) || (c == ']' && !obj) {
				toks[top].End, toks[top].Next = int32(i+1), int32(len(toks))
				depth--
				i++
				continue
			}
			return toks, false
		}
	}
}

// ScalarToken completes tok, started at i, as the string, number, true,
// false or null written there; it reports false for anything else (a
// container, malformed text).
func ScalarToken(s string, i int, tok *DocToken) bool {
	switch c := s[i]; {
	case c == '"':
		j := plainStrEnd(s, i+1)
		if j < len(s) && s[j] == '"' {
			j++
		} else if end, ok := escapedStrEnd(s, j); ok {
			j, tok.flags = end, tokEscaped
		} else {
			return false
		}
		tok.Kind, tok.End = KindString, int32(j)
	case c == '-' || (c >= '0' && c <= '9'):
		j, isInt, valid := numberEnd(s, i)
		if !valid {
			return false
		}
		tok.Kind, tok.End = KindNumber, int32(j)
		if isInt {
			tok.flags = tokInt
		}
	default:
		kind, n := literalAt(s, i)
		if n == 0 {
			return false
		}
		tok.Kind, tok.End = kind, int32(i+n)
	}
	return true
}

// plainStrEnd returns the index of the first byte from j that ends a run
// of plain string text: a quote, a backslash, a control character or the
// end of s. It reads eight bytes at a time, for values; keys, short, are
// read by plainRunEnd. A run longer than a few words (prose in a recorded
// conversation, instructions of many kilobytes) is read by longStrEnd.
func plainStrEnd(s string, j int) int {
	for k := 0; j+8 <= len(s); j += 8 {
		if k++; k > shortWords {
			return longStrEnd(s, j)
		}
		if m := stopBytes(word(s, j)); m != 0 {
			return j + bits.TrailingZeros64(m)/8
		}
	}
	return PlainRunEnd(s, j)
}

// shortWords is how many eight-byte words plainStrEnd reads before it
// takes the run for a long one.
const shortWords = 4

// word returns the eight bytes of s at j, the first lowest.
func word(s string, j int) uint64 {
	w := s[j : j+8]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// longStrEnd is plainStrEnd for a long run: the next quote and the next
// backslash before it are found by strings.IndexByte (many bytes at a
// time), and only the text before them is read for a control character,
// which takes a third of stopBytes's work per word.
func longStrEnd(s string, j int) int {
	end := len(s)
	if q := strings.IndexByte(s[j:], '"'); q >= 0 {
		end = j + q
	}
	if b := strings.IndexByte(s[j:end], '\\'); b >= 0 {
		end = j + b
	}
	// Four words at a time while none holds a control character (a word
	// is marked only if it holds one: a borrow starts at such a byte),
	// then word by word to the first.
	for ; j+32 <= end; j += 32 {
		if controlBytes(word(s, j))|controlBytes(word(s, j+8))|controlBytes(word(s, j+16))|controlBytes(word(s, j+24)) != 0 {
			break
		}
	}
	for ; j+8 <= end; j += 8 {
		if m := controlBytes(word(s, j)); m != 0 {
			return j + bits.TrailingZeros64(m)/8
		}
	}
	for ; j < end; j++ {
		if s[j] < 0x20 {
			return j
		}
	}
	return end
}

// PlainRunEnd is plainStrEnd reading a byte at a time, which is faster for
// the few bytes of a key; both parsers read strings with it.
func PlainRunEnd(s string, j int) int {
	for j < len(s) && !strStop[s[j]] {
		j++
	}
	return j
}

// Byte-wise constants for stopBytes.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// stopBytes marks, with its high bit, each byte of x (eight bytes of text,
// the first lowest) that is a quote, a backslash or a control character.
// A byte above a marked one may be marked wrongly (a borrow carries into
// it); the lowest mark is always right, and only it is used.
func stopBytes(x uint64) uint64 {
	quote := x ^ (lowBits * '"')
	backslash := x ^ (lowBits * '\\')
	zero := func(v uint64) uint64 { return (v - lowBits) & ^v & highBits }
	return zero(quote) | zero(backslash) | (x-lowBits*0x20)&^x&highBits
}

// controlBytes marks, as stopBytes does, each byte of x that is a control
// character (the lowest mark is always right).
func controlBytes(x uint64) uint64 {
	return (x - lowBits*0x20) &^ x & highBits
}

// escapedStrEnd returns the index after the string whose plain text stops
// at j, checking escapes as Parse decodes them: a character escape, or \u
// and four hex digits (a surrogate without its pair decodes to U+FFFD, so
// any four are valid). ok is false for a bad escape, a control character or
// a string the text ends in.
func escapedStrEnd(s string, j int) (end int, ok bool) {
	for {
		if j >= len(s) {
			return j, false
		}
		switch s[j] {
		case '"':
			return j + 1, true
		case '\\':
		default:
			return j, false // a control character
		}
		if j+1 >= len(s) {
			return j, false
		}
		switch s[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j += 2
		case 'u':
			if j+6 > len(s) || !isHex(s[j+2]) || !isHex(s[j+3]) || !isHex(s[j+4]) || !isHex(s[j+5]) {
				return j, false
			}
			j += 6
		default:
			return j, false
		}
		j = plainStrEnd(s, j)
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

// keyBit hashes a key to one of 64 bits, so that most keys of an object
// are known to be new without comparing them with the others.
func keyBit(key string) uint64 {
	h := uint(len(key))
	if len(key) > 0 {
		h = h*31 + uint(key[0])*7 + uint(key[len(key)-1])
	}
	return 1 << (h & 63)
}

// repeatedKey reports whether the object at token obj, still being
// indexed, already has a member named key.
func repeatedKey(s string, toks []DocToken, obj int32, key string) bool {
	for k := obj + 1; int(k) < len(toks); k = toks[k+1].Next {
		if toks[k].Inner(s) == key {
			return true
		}
	}
	return false
}

// skipDepth is how deeply skipValue nests containers, one bit each.
const skipDepth = 64

// SkipValue returns the index after the value written at i, checking its
// syntax as Parse does; ok is false for malformed text and for containers
// nested skipDepth deep. It is scanDocument's loop without an index: the
// open containers are bits of one word (set for an object).
func SkipValue(s string, i int) (end int, ok bool) {
	var objects uint64
	depth := 0
	wantKey := false
	for {
		if wantKey {
			if i >= len(s) || s[i] != '"' {
				return i, false
			}
			var key DocToken
			if !ScalarToken(s, i, &key) {
				return i, false
			}
			if i = SkipSpace(s, int(key.End)); i >= len(s) || s[i] != ':' {
				return i, false
			}
			i = SkipSpace(s, i+1)
			wantKey = false
		}

		// A value starts at i.
		if i >= len(s) {
			return i, false
		}
		if c := s[i]; c == '{' || c == '[' {
			closing := byte(']')
			if c == '{' {
				closing = '}'
			}
			j := SkipSpace(s, i+1)
			if j < len(s) && s[j] == closing {
				i = j + 1 // empty
			} else if depth == skipDepth {
				return i, false
			} else {
				objects &^= 1 << depth
				if c == '{' {
					objects |= 1 << depth
				}
				depth++
				i, wantKey = j, c == '{'
				continue
			}
		} else {
			var tok DocToken
			if !ScalarToken(s, i, &tok) {
				return i, false
			}
			i = int(tok.End)
		}

		// After a value: close containers, then a comma leads to the next
		// element or member, or the value ends.
		for {
			if depth == 0 {
				return i, true
			}
			if i = SkipSpace(s, i); i >= len(s) {
				return i, false
			}
			obj := objects>>(depth-1)&1 == 1
			c := s[i]
			if c == ',' {
				i, wantKey = SkipSpace(s, i+1), obj
				break
			}
			if (c == '}' && obj) || (c == ']' && !obj) {
				depth--
				i++
				continue
			}
			return i, false
		}
	}
}
