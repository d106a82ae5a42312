package jsonv

import (
	"encoding/json"
	"testing"
)

// Every byte written inside a JSON string reads back as itself, control
// bytes, quote and backslash escaped (the short forms where JSON has them),
// every other byte as it is; JSONEscape says the same as the writer.
func TestJSONStringEscapesEveryByte(t *testing.T) {
	short := map[byte]string{'"': `\"`, '\\': `\\`, '\n': `\n`, '\r': `\r`, '\t': `\t`, '\b': `\b`, '\f': `\f`}
	for c := 0; c < 256; c++ {
		b := byte(c)
		s := "a" + string([]byte{b}) + "z"
		got := String(s).JSON()
		want := string([]byte{b})
		switch e, ok := short[b]; {
		case ok:
			want = e
		case b < 0x20:
			want = `\u00` + string("0123456789abcdef"[b>>4]) + string("0123456789abcdef"[b&0xf])
		}
		if got != `"a`+want+`z"` {
			t.Fatalf("byte %#x written %s, want %q", b, got, `"a`+want+`z"`)
		}
		if e := JSONEscape(b); (e == "") != (want == string([]byte{b})) || (e != "" && e != want) {
			t.Fatalf("JSONEscape(%#x) = %q, the writer writes %q", b, e, want)
		}
		if b < 0x80 {
			var back string
			if err := json.Unmarshal([]byte(got), &back); err != nil || back != s {
				t.Fatalf("byte %#x: %s reads back as %q (%v)", b, got, back, err)
			}
		}
	}
}
