package extract

import (
	"strings"
	"testing"
)

// asksToolsLowered is asksTools as it reads every finish reason:
// lower-cased as Unicode, then compared.
func asksToolsLowered(s string) bool {
	s = strings.ToLower(s)
	return strings.HasPrefix(s, "tool") || s == "function_call"
}

// TestAsksToolsReadsFinishReasons holds asksTools to the finish reasons the
// conventions record, in any case, and to what lower-cases to them.
func TestAsksToolsReadsFinishReasons(t *testing.T) {
	for s, want := range map[string]bool{
		"tool_calls": true, "tool_call": true, "tool-calls": true, "toolUse": true, "tool_use": true,
		"TOOL_CALLS": true, "Function_Call": true, "function_call": true, "tool": true,
		"stop": false, "length": false, "": false, "too": false, "function_calls": false, "end_turn": false,
		"functİon_call": true, // U+0130 lower-cases to 'i'
		"ＴOOL":          false,
	} {
		if got := asksTools(s); got != want || got != asksToolsLowered(s) {
			t.Errorf("asksTools(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzAsksTools checks asksTools, which reads ASCII text in place, against
// the same test on the Unicode lower-cased text.
func FuzzAsksTools(f *testing.F) {
	for _, s := range []string{"tool_calls", "TOOLUSE", "function_call", "FUNCTION_CALL", "stop", "STOP", "end_turn", "functİon_call", "toOl\xff", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := asksTools(s), asksToolsLowered(s); got != want {
			t.Fatalf("asksTools(%q) = %v, lower-cased it says %v", s, got, want)
		}
	})
}
