package scoring

import (
	"fmt"
	"strconv"
	"strings"
)

// segment is one step of a [Path]: an object key, an array index, or every
// array element.
type segment struct {
	key      string
	index    int
	isIndex  bool
	wildcard bool
}

// Path addresses a value inside tool-call arguments.
type Path struct {
	segs []segment
}

// ParsePath parses an argument path. Accepted forms: "city", "filter.age",
// "items[0].name", "items[*]", `filter["a.b"]`, `filter['$gte']`, and an
// optional leading "$" or "$." for the root; "$" alone is the whole
// arguments value. Keys may start with "$" ("filter.age.$gte"), since only a
// leading "$" followed by ".", "[" or the end means the root.
func ParsePath(s string) (Path, error) {
	rest := s
	if rest == "$" {
		return Path{}, nil
	}
	if strings.HasPrefix(rest, "$.") {
		rest = rest[2:]
	} else if strings.HasPrefix(rest, "$[") {
		rest = rest[1:]
	}
	if rest == "" {
		return Path{}, fmt.Errorf("path %q is empty", s)
	}
	var segs []segment
	expectKey := true
	for len(rest) > 0 {
		switch rest[0] {
		case '[':
			end, seg, err := parseBracket(rest)
			if err != nil {
				return Path{}, fmt.Errorf("path %q: %w", s, err)
			}
			segs = append(segs, seg)
			rest = rest[end:]
			expectKey = false
		case '.':
			if expectKey {
				return Path{}, fmt.Errorf("path %q: empty key", s)
			}
			rest = rest[1:]
			expectKey = true
			if rest == "" {
				return Path{}, fmt.Errorf("path %q: ends with '.'", s)
			}
		default:
			if !expectKey {
				return Path{}, fmt.Errorf("path %q: expected '.' or '[' before %q", s, rest)
			}
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			segs = append(segs, segment{key: rest[:end]})
			rest = rest[end:]
			expectKey = false
		}
	}
	return Path{segs: segs}, nil
}

func parseBracket(s string) (int, segment, error) {
	if len(s) < 3 {
		return 0, segment{}, fmt.Errorf("unterminated %q", s)
	}
	switch q := s[1]; q {
	case '"', '\'':
		var sb strings.Builder
		for i := 2; i < len(s); i++ {
			c := s[i]
			if c == '\\' && i+1 < len(s) {
				sb.WriteByte(s[i+1])
				i++
				continue
			}
			if c == q {
				if i+1 >= len(s) || s[i+1] != ']' {
					return 0, segment{}, fmt.Errorf("expected ']' after quoted key")
				}
				return i + 2, segment{key: sb.String()}, nil
			}
			sb.WriteByte(c)
		}
		return 0, segment{}, fmt.Errorf("unterminated quoted key")
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return 0, segment{}, fmt.Errorf("unterminated %q", s)
	}
	inner := s[1:end]
	if inner == "*" {
		return end + 1, segment{wildcard: true}, nil
	}
	n, err := strconv.Atoi(inner)
	if err != nil || n < 0 {
		return 0, segment{}, fmt.Errorf("invalid index %q", inner)
	}
	return end + 1, segment{index: n, isIndex: true}, nil
}

// IsRoot reports whether the path addresses the whole arguments value.
func (p Path) IsRoot() bool { return len(p.segs) == 0 }

// String returns the path in canonical form ("$" for the root).
func (p Path) String() string { return appendPath("", p.segs) }

func appendPath(prefix string, segs []segment) string {
	var sb strings.Builder
	sb.WriteString(prefix)
	for _, seg := range segs {
		sb.WriteString(segmentString(sb.Len() == 0, seg))
	}
	if sb.Len() == 0 {
		return "$"
	}
	return sb.String()
}

func segmentString(first bool, seg segment) string {
	switch {
	case seg.wildcard:
		return "[*]"
	case seg.isIndex:
		return "[" + strconv.Itoa(seg.index) + "]"
	case first && !needsQuotedKey(first, seg.key):
		return seg.key
	}
	var buf [64]byte
	return string(appendKeySegment(buf[:0], first, seg.key))
}

// needsQuotedKey reports whether a key segment is written ["key"].
func needsQuotedKey(first bool, key string) bool {
	return key == "" || strings.ContainsAny(key, ".[]\"'") || (first && key == "$")
}

// appendKeySegment appends the display segment of an object key to b: the
// key after an empty prefix (first), .key after another, or ["key"] when
// the key needs quoting.
func appendKeySegment(b []byte, first bool, key string) []byte {
	switch {
	case needsQuotedKey(first, key):
		b = append(b, '[')
		b = strconv.AppendQuote(b, key)
		return append(b, ']')
	case first:
		return append(b, key...)
	}
	b = append(b, '.')
	return append(b, key...)
}

// joinKey extends a display path with an object key.
func joinKey(prefix, key string) string {
	if prefix == "$" {
		prefix = ""
	}
	var buf [64]byte
	b := append(buf[:0], prefix...)
	return string(appendKeySegment(b, prefix == "", key))
}

// joinIndex extends a display path with an array index.
func joinIndex(prefix string, i int) string {
	if prefix == "$" {
		prefix = ""
	}
	return prefix + "[" + strconv.Itoa(i) + "]"
}

// Lookup returns the value at the path and whether it exists. A wildcard
// segment is not resolvable by Lookup and reports false.
func (p Path) Lookup(v Value) (Value, bool) {
	for _, seg := range p.segs {
		switch {
		case seg.wildcard:
			return Value{}, false
		case seg.isIndex:
			if v.kind != KindArray || seg.index >= len(v.items) {
				return Value{}, false
			}
			v = v.items[seg.index]
		default:
			var ok bool
			v, ok = v.Get(seg.key)
			if !ok {
				return Value{}, false
			}
		}
	}
	return v, true
}
