package extract

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// oldStringListJSON is how contextText wrote a string list before
// stringListJSON: the reference it must match byte for byte.
func oldStringListJSON(list pcommon.Slice) string {
	items := make([]jsonv.Value, 0, list.Len())
	for _, it := range list.All() {
		if it.Type() == pcommon.ValueTypeStr {
			items = append(items, jsonv.String(it.Str()))
		}
	}
	return jsonv.Array(items...).JSON()
}

var jsonTextCases = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr\bbs\fff",
	"\x00\x01\x1f\x7f", "é ü \u2028 \u2029 😀", "\xff\xfe invalid utf-8", `{"type":"function","name":"get_weather"}`,
}

func TestWriteJSONString(t *testing.T) {
	for _, s := range jsonTextCases {
		checkJSONString(t, s)
	}
}

func checkJSONString(t *testing.T, s string) {
	t.Helper()
	want := jsonv.String(s).JSON()
	var sb strings.Builder
	writeJSONString(&sb, s)
	if got := sb.String(); got != want {
		t.Errorf("writeJSONString(%q) = %q, want %q", s, got, want)
	}
	if n := jsonStringLen(s); n != len(want) {
		t.Errorf("jsonStringLen(%q) = %d, want %d", s, n, len(want))
	}
}

func TestStringListJSON(t *testing.T) {
	for _, items := range [][]any{
		{},
		{"one"},
		{"a", "b\n", `c"`},
		{1, "a", true, "b", 2.5},
		{1, 2},
		{map[string]any{"k": "v"}, "x", []any{"y"}},
		{"", "", ""},
	} {
		list := pcommon.NewSlice()
		if err := list.FromRaw(items); err != nil {
			t.Fatal(err)
		}
		want := oldStringListJSON(list)
		got := stringListJSON(list)
		if got != want {
			t.Errorf("stringListJSON(%v) = %q, want %q", items, got, want)
		}
		v := pcommon.NewValueSlice()
		list.CopyTo(v.Slice())
		if got := contextText(v); got != want {
			t.Errorf("contextText(%v) = %q, want %q", items, got, want)
		}
	}
}

func FuzzWriteJSONString(f *testing.F) {
	for _, s := range jsonTextCases {
		f.Add(s, "x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		checkJSONString(t, a)
		list := pcommon.NewSlice()
		list.AppendEmpty().SetStr(a)
		list.AppendEmpty().SetInt(int64(len(b)))
		list.AppendEmpty().SetStr(b)
		if got, want := stringListJSON(list), oldStringListJSON(list); got != want {
			t.Errorf("stringListJSON(%q, %q) = %q, want %q", a, b, got, want)
		}
	})
}
