package jsonv

import (
	"strings"
	"testing"
)

func TestStringText(t *testing.T) {
	for v, want := range map[string]string{`"abc"`: "abc", `"a\"b"`: `a"b`, `"\u00e9"`: "é", `12`: "", `null`: "", ``: ""} {
		if got := StringText(v); got != want {
			t.Errorf("StringText(%q) = %q, want %q", v, got, want)
		}
	}
}

func TestNestedMemberTexts(t *testing.T) {
	deep := strings.Repeat("[", 70) + strings.Repeat("]", 70)
	for _, c := range []struct {
		s    string
		want [2]string
		ok   bool
	}{
		{`{"o":{"a":1,"b":"x"}}`, [2]string{`1`, `"x"`}, true},
		{` { "z" : [1,{"a":2}] , "o" : { "b" : {"a":3} } } `, [2]string{``, `{"a":3}`}, true},
		{`{"o":{"a":1,"a":2},"o":{"b":3}}`, [2]string{``, `3`}, true},
		{`{"o":{"a":1},"o":"x"}`, [2]string{``, ``}, true},
		{`{"\u006f":{"\u0061":true}}`, [2]string{`true`, ``}, true},
		{`{"a":{"o":{"a":1}}}`, [2]string{``, ``}, true},
		{`{}`, [2]string{``, ``}, true},
		{`{"o":{}}`, [2]string{``, ``}, true},
		{`[{"o":{"a":1}}]`, [2]string{}, false},
		{`{"o":{"a":1}}x`, [2]string{}, false},
		{`{"o":{"a":1,}}`, [2]string{}, false},
		{`{"o":{"a":1}`, [2]string{}, false},
		{`{"o" {"a":1}}`, [2]string{}, false},
		{`{"o":{"a":` + deep + `}}`, [2]string{}, false},
	} {
		var got [2]string
		ok := NestedMemberTexts(c.s, "o", []string{"a", "b"}, got[:])
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("NestedMemberTexts(%q) = %q, %v; want %q, %v", c.s, got, ok, c.want, c.ok)
		}
	}
}
