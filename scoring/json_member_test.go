package scoring

import (
	"strings"
	"testing"
)

func TestMemberText(t *testing.T) {
	deep := strings.Repeat("[", 70) + strings.Repeat("]", 70)
	for _, c := range []struct {
		s, key, want string
		ok           bool
	}{
		{`{"a":1,"b":{"c":[2]}}`, "b", `{"c":[2]}`, true},
		{` { "a" : "x" } `, "a", `"x"`, true},
		{`{"a":1,"a":2}`, "a", `2`, true},
		{`{"\u0061":true}`, "a", `true`, true},
		{`{"a":1}`, "b", ``, true},
		{`{}`, "a", ``, true},
		{`[{"a":1}]`, "a", ``, true},
		{`"a"`, "a", ``, true},
		{`{"d":` + deep + `,"a":1}`, "a", ``, false},
	} {
		got, ok := MemberText(c.s, c.key)
		if got != c.want || ok != c.ok {
			t.Errorf("MemberText(%q, %q) = %q, %v; want %q, %v", c.s, c.key, got, ok, c.want, c.ok)
		}
	}
}

func TestStringText(t *testing.T) {
	for v, want := range map[string]string{`"abc"`: "abc", `"a\"b"`: `a"b`, `"\u00e9"`: "é", `12`: "", `null`: "", ``: ""} {
		if got := StringText(v); got != want {
			t.Errorf("StringText(%q) = %q, want %q", v, got, want)
		}
	}
}
