package extract

import (
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// skipsByList is Options.skips read as SkipTools documents it: a name is
// skipped when it is empty, equal to an entry, starts with what comes
// before an entry's "*", or is final_result_<Type> when final_result is
// skipped.
func skipsByList(list []string, name string) bool {
	if name == "" {
		return true
	}
	for _, e := range list {
		if prefix, wild := strings.CutSuffix(e, "*"); wild {
			if strings.HasPrefix(name, prefix) {
				return true
			}
		} else if e == name {
			return true
		}
	}
	if rest, ok := strings.CutPrefix(name, "final_result_"); ok && rest != "" {
		return slices.Contains(list, "final_result")
	}
	return false
}

// FuzzSkipsTool checks Options.skips, which passes over entries by their
// first byte, against the documented reading, for the default list with a
// fuzzed entry added and any tool name.
func FuzzSkipsTool(f *testing.F) {
	for _, c := range [][2]string{
		{"", "get_weather"}, {"*", "get_weather"}, {"g*", "get_weather"}, {"get_weather", "get_weather"},
		{"x", "x"}, {"", "final_result_Answer"}, {"", "final_result_"}, {"", "handoff to triage"},
		{"", "(merged tools)"}, {"", ""}, {"get*", "ge"}, {"**", "*x"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, entry, name string) {
		for _, list := range [][]string{append(DefaultSkipTools(), entry), {entry}, nil} {
			o := Options{SkipTools: list}
			if got, want := o.skips(name), skipsByList(list, name); got != want {
				t.Fatalf("skips(%q) with %q = %v, the documented reading says %v", name, list, got, want)
			}
		}
	})
}

// scopeConventionByList is scopeConvention as a list of tests in order.
func scopeConventionByList(s string) Convention {
	switch {
	case s == "gcp.vertex.agent":
		return ConventionADK
	case strings.HasPrefix(s, "strands"):
		return ConventionStrands
	case s == "pydantic-ai" || strings.HasPrefix(s, "pydantic_ai"):
		return ConventionPydanticAI
	case strings.HasPrefix(s, "@mastra"):
		return ConventionMastra
	case strings.HasPrefix(s, "com.anthropic.claude_code"):
		return ConventionClaudeCode
	case s == "gemini-cli":
		return ConventionGeminiCLI
	}
	return ConventionGenAI
}

// FuzzScopeConvention checks scopeConvention, which switches on the scope
// name's first byte, against testing the names in order.
func FuzzScopeConvention(f *testing.F) {
	for _, s := range []string{"", "gcp.vertex.agent", "gemini-cli", "strands.telemetry", "pydantic-ai", "pydantic_ai.agent",
		"@mastra/core", "com.anthropic.claude_code", "opentelemetry.instrumentation.openai", "g", "gcp.vertex.agents"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		scope := pcommon.NewInstrumentationScope()
		scope.SetName(name)
		if got, want := scopeConvention(scope), scopeConventionByList(name); got != want {
			t.Fatalf("scopeConvention(%q) = %v, in order the names say %v", name, got, want)
		}
	})
}

// TestConventionFieldsAreTheFieldsConventionReads holds conventionFields,
// the set convention passes over at once, to its cases: a span with one
// field names a convention of its own exactly when the field is in the set.
func TestConventionFieldsAreTheFieldsConventionReads(t *testing.T) {
	scope := pcommon.NewInstrumentationScope()
	for id := range fieldID(numFields) {
		f := fields{set: 1 << id}
		f.v[id] = pcommon.NewValueStr("x")
		ownConvention := f.fieldConvention(scope) != scopeConvention(scope)
		if inSet := conventionFields&(1<<id) != 0; ownConvention != inSet {
			t.Errorf("field %d: convention names its own: %v; in conventionFields: %v", id, ownConvention, inSet)
		}
	}
}
