package peers

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// The peers' own serializations of JSON values, which their texts (reasons,
// prompts) are built with.

// JSONStringStyle is how a peer's JSON serializer writes strings: the
// printable ASCII characters it writes as \uXXXX besides the control
// characters and non-ASCII, and the case of the hex digits.
type JSONStringStyle struct {
	unicodeEscaped string
	hex            string // a \u escape's format
	// keepNonASCII writes DEL and non-ASCII characters as they are.
	keepNonASCII bool
}

var (
	// DotnetStrings is System.Text.Json's default encoder: HTML-sensitive
	// characters and the quote escaped, upper-case hex.
	DotnetStrings = JSONStringStyle{unicodeEscaped: `"&'+<>` + "`", hex: `\u%04X`}
	// PythonStrings is json.dumps with ensure_ascii: lower-case hex.
	PythonStrings = JSONStringStyle{hex: `\u%04x`}
	// PythonUnicodeStrings is json.dumps with ensure_ascii=False: only
	// the quote, the backslash and control characters escaped.
	PythonUnicodeStrings = JSONStringStyle{hex: `\u%04x`, keepNonASCII: true}
)

// AppendPeerJSONString writes s as a JSON string in style; invalid UTF-8 is
// read as U+FFFD, as both peers decode it.
func AppendPeerJSONString(sb *strings.Builder, s string, style *JSONStringStyle) {
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r < 0x7f && strings.ContainsRune(style.unicodeEscaped, r):
			fmt.Fprintf(sb, style.hex, r)
		case r == '"':
			sb.WriteString(`\"`)
		case r == '\\':
			sb.WriteString(`\\`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\b':
			sb.WriteString(`\b`)
		case r == '\f':
			sb.WriteString(`\f`)
		case r >= 0x20 && r < 0x7f, r >= 0x7f && style.keepNonASCII:
			sb.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16Pair(r)
			fmt.Fprintf(sb, style.hex+style.hex, r1, r2)
		default:
			fmt.Fprintf(sb, style.hex, r)
		}
	}
	sb.WriteByte('"')
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// Python (DeepEval, Azure AI Evaluation).

// PyJSONDumps writes v as Python's json.dumps(v, indent=indent) does with its
// defaults: ensure_ascii (every non-ASCII character as \uxxxx, lower-case
// hex, astral characters as surrogate pairs), ", " and ": " separators, and
// with an indent one item a line; Python's repr for floats.
func PyJSONDumps(v jsonv.Value, indent int) string {
	var sb strings.Builder
	appendPyJSON(&sb, v, indent, 0, &PythonStrings)
	return sb.String()
}

// PyJSONDumpsUnicode is PyJSONDumps with ensure_ascii=False: non-ASCII
// characters written as they are.
func PyJSONDumpsUnicode(v jsonv.Value, indent int) string {
	var sb strings.Builder
	appendPyJSON(&sb, v, indent, 0, &PythonUnicodeStrings)
	return sb.String()
}

func appendPyJSON(sb *strings.Builder, v jsonv.Value, indent, depth int, style *JSONStringStyle) {
	newline := func(d int) {
		sb.WriteByte('\n')
		sb.WriteString(strings.Repeat(" ", indent*d))
	}
	switch v.Kind() {
	case jsonv.KindUndefined, jsonv.KindNull:
		sb.WriteString("null")
	case jsonv.KindBool:
		sb.WriteString(strconv.FormatBool(v.BoolValue()))
	case jsonv.KindNumber:
		if math.IsNaN(v.NumberValue()) || math.IsInf(v.NumberValue(), 0) {
			sb.WriteString("null")
			return
		}
		sb.WriteString(PyNumberRepr(&v))
	case jsonv.KindString:
		AppendPeerJSONString(sb, v.StringValue(), style)
	case jsonv.KindArray:
		if v.Len() == 0 {
			sb.WriteString("[]")
			return
		}
		sb.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				sb.WriteByte(',')
				if indent == 0 {
					sb.WriteByte(' ')
				}
			}
			if indent > 0 {
				newline(depth + 1)
			}
			appendPyJSON(sb, v.Index(i), indent, depth+1, style)
		}
		if indent > 0 {
			newline(depth)
		}
		sb.WriteByte(']')
	case jsonv.KindObject:
		n := 0
		for i := 0; i < v.Len(); i++ {
			if _, m := v.MemberAt(i); !m.IsUndefined() {
				n++
			}
		}
		if n == 0 {
			sb.WriteString("{}")
			return
		}
		sb.WriteByte('{')
		first := true
		for i := 0; i < v.Len(); i++ {
			k, m := v.MemberAt(i)
			if m.IsUndefined() {
				continue
			}
			if !first {
				sb.WriteByte(',')
				if indent == 0 {
					sb.WriteByte(' ')
				}
			}
			first = false
			if indent > 0 {
				newline(depth + 1)
			}
			AppendPeerJSONString(sb, k, style)
			sb.WriteString(": ")
			appendPyJSON(sb, m, indent, depth+1, style)
		}
		if indent > 0 {
			newline(depth)
		}
		sb.WriteByte('}')
	}
}

// PyRepr is Python's repr() of a JSON-decoded value.
func PyRepr(v jsonv.Value) string { return string(AppendPyRepr(nil, &v)) }
