package jsonv

import (
	"fmt"
	"strconv"
	"strings"
)

// Segment is one step of a [Path]: an object key, an array index, or every
// array element.
type Segment struct {
	Key      string
	Index    int
	IsIndex  bool
	Wildcard bool
}

// Path addresses a value inside tool-call arguments.
type Path struct {
	Segs []Segment
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
	var segs []Segment
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
			segs = append(segs, Segment{Key: rest[:end]})
			rest = rest[end:]
			expectKey = false
		}
	}
	return Path{Segs: segs}, nil
}

func parseBracket(s string) (int, Segment, error) {
	if len(s) < 3 {
		return 0, Segment{}, fmt.Errorf("unterminated %q", s)
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
					return 0, Segment{}, fmt.Errorf("expected ']' after quoted key")
				}
				return i + 2, Segment{Key: sb.String()}, nil
			}
			sb.WriteByte(c)
		}
		return 0, Segment{}, fmt.Errorf("unterminated quoted key")
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return 0, Segment{}, fmt.Errorf("unterminated %q", s)
	}
	inner := s[1:end]
	if inner == "*" {
		return end + 1, Segment{Wildcard: true}, nil
	}
	n, err := strconv.Atoi(inner)
	if err != nil || n < 0 {
		return 0, Segment{}, fmt.Errorf("invalid index %q", inner)
	}
	return end + 1, Segment{Index: n, IsIndex: true}, nil
}

// IsRoot reports whether the path addresses the whole arguments value.
func (p Path) IsRoot() bool { return len(p.Segs) == 0 }

// String returns the path in canonical form ("$" for the root).
func (p Path) String() string { return appendPath("", p.Segs) }

func appendPath(prefix string, segs []Segment) string {
	var sb strings.Builder
	sb.WriteString(prefix)
	for _, seg := range segs {
		sb.WriteString(SegmentString(sb.Len() == 0, seg))
	}
	if sb.Len() == 0 {
		return "$"
	}
	return sb.String()
}

func SegmentString(first bool, seg Segment) string {
	switch {
	case seg.Wildcard:
		return "[*]"
	case seg.IsIndex:
		return "[" + strconv.Itoa(seg.Index) + "]"
	case first && !needsQuotedKey(first, seg.Key):
		return seg.Key
	}
	var buf [64]byte
	return string(AppendKeySegment(buf[:0], first, seg.Key))
}

// needsQuotedKey reports whether a key segment is written ["key"].
func needsQuotedKey(first bool, key string) bool {
	return key == "" || strings.ContainsAny(key, ".[]\"'") || (first && key == "$")
}

// AppendKeySegment appends the display segment of an object key to b: the
// key after an empty prefix (first), .key after another, or ["key"] when
// the key needs quoting.
func AppendKeySegment(b []byte, first bool, key string) []byte {
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

// JoinKey extends a display path with an object key.
func JoinKey(prefix, key string) string {
	if prefix == "$" {
		prefix = ""
	}
	var buf [64]byte
	b := append(buf[:0], prefix...)
	return string(AppendKeySegment(b, prefix == "", key))
}

// JoinIndex extends a display path with an array index.
func JoinIndex(prefix string, i int) string {
	if prefix == "$" {
		prefix = ""
	}
	return prefix + "[" + strconv.Itoa(i) + "]"
}

// Lookup returns the value at the path and whether it exists. A wildcard
// segment is not resolvable by Lookup and reports false.
func (p Path) Lookup(v Value) (Value, bool) {
	for _, seg := range p.Segs {
		switch {
		case seg.Wildcard:
			return Value{}, false
		case seg.IsIndex:
			if v.kind != KindArray || seg.Index >= len(v.items) {
				return Value{}, false
			}
			v = v.items[seg.Index]
		default:
			var ok bool
			v, ok = v.Get(seg.Key)
			if !ok {
				return Value{}, false
			}
		}
	}
	return v, true
}
