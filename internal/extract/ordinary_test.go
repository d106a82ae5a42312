package extract

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// FuzzHasGenAIKey checks hasGenAIKey, which passes over keys the two-byte
// table stops and settles gen_ai.* keys in its first pass, against reading
// every key whole: keys are the fuzzed text split at newlines.
func FuzzHasGenAIKey(f *testing.F) {
	for _, s := range []string{
		"http.request.method\nurl.path\nserver.address",
		"http.route\ngen_ai.operation.name",
		"gen_ai.\ngen_ai",
		"code.function\ncodex.tool.name",
		"tool.name",
		"tool.names\nspring.ai\nspring.ai.kind",
		"ai\nai.toolCall.name\nge\n\n",
		"llm.request.type",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, keys string) {
		attrs := pcommon.NewMap()
		want := false
		for k := range strings.SplitSeq(keys, "\n") {
			attrs.PutStr(k, "")
			want = want || isMarkerKey(k)
		}
		if got := hasGenAIKey(attrs); got != want {
			t.Fatalf("hasGenAIKey(%q) = %v, reading each key says %v", keys, got, want)
		}
	})
}
