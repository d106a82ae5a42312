package extract

import "strings"

// jsonEscapes holds, for each byte, how scoring writes it inside a JSON
// string: "" for a byte written as it is, else its escape.
var jsonEscapes = func() (t [256]string) {
	const hex = "0123456789abcdef"
	for c := 0; c < 0x20; c++ {
		t[c] = `\u00` + string(hex[c>>4]) + string(hex[c&0xf])
	}
	t['"'], t['\\'] = `\"`, `\\`
	t['\n'], t['\r'], t['\t'], t['\b'], t['\f'] = `\n`, `\r`, `\t`, `\b`, `\f`
	return t
}()

// jsonStringLen returns the length of s written as a JSON string by
// writeJSONString, quotes included.
func jsonStringLen(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		if e := jsonEscapes[s[i]]; e != "" {
			n += len(e) - 1
		}
	}
	return n
}

// writeJSONString writes s as a JSON string, byte for byte as
// scoring.String(s).JSON() writes it, without building the string first.
func writeJSONString(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		e := jsonEscapes[s[i]]
		if e == "" {
			continue
		}
		sb.WriteString(s[start:i])
		sb.WriteString(e)
		start = i + 1
	}
	sb.WriteString(s[start:])
	sb.WriteByte('"')
}
