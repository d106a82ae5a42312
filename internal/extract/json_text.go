package extract

import (
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// jsonEscapes holds, for each byte, how scoring writes it inside a JSON
// string: "" for a byte written as it is, else its escape.
var jsonEscapes = func() (t [256]string) {
	for c := range t {
		t[c] = jsonv.JSONEscape(byte(c))
	}
	return t
}()

// jsonPlain marks the bytes written as they are inside a JSON string.
var jsonPlain = func() (t [256]bool) {
	for c := range t {
		t[c] = jsonEscapes[c] == ""
	}
	return t
}()

// jsonStringLen returns the length of s written as a JSON string by
// writeJSONString, quotes included.
func jsonStringLen(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		if c := s[i]; !jsonPlain[c] {
			n += len(jsonEscapes[c]) - 1
		}
	}
	return n
}

// writeJSONString writes s as a JSON string, byte for byte as
// jsonv.String(s).JSON() writes it, without building the string first.
// Bytes are read one at a time: the text written here (tool definitions,
// messages) is mostly JSON itself, with a quote every few bytes.
func writeJSONString(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if jsonPlain[c] {
			continue
		}
		sb.WriteString(s[start:i])
		if c == '"' || c == '\\' {
			// Escaped by a backslash before it: the byte itself opens
			// the next run.
			sb.WriteByte('\\')
			start = i
			continue
		}
		sb.WriteString(jsonEscapes[c])
		start = i + 1
	}
	sb.WriteString(s[start:])
	sb.WriteByte('"')
}
