package peers

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// mastraJSONOption reads an option given as JSON text (Mastra's own
// expectedTrajectory or TrajectoryExpectation, written as in Mastra's code
// or with snake_case keys) into the form the options take, with each step's
// data values (toolArgs, toolResult, output, ...) kept as Values in their
// written key order, which JSON.stringify comparisons need and a
// configuration map loses. Any other option value is returned as it is.
func mastraJSONOption(x any) (any, error) {
	text, ok := x.(string)
	if !ok {
		return x, nil
	}
	v, err := jsonv.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("JSON text: %w", err)
	}
	return mastraFromJSON(v), nil
}

// mastraFromJSON converts JSON to option form: keys to snake_case; the
// values of step data fields (and metadata) kept as they are.
func mastraFromJSON(v jsonv.Value) any {
	switch v.Kind() {
	case jsonv.KindObject:
		m := make(map[string]any, v.Len())
		for i := 0; i < v.Len(); i++ {
			k, x := v.MemberAt(i)
			k = snakeCase(k)
			if field, known := mastraStepKeys[k]; known && (field != "" || k == "metadata") {
				m[k] = x
				continue
			}
			m[k] = mastraFromJSON(x)
		}
		return m
	case jsonv.KindArray:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = mastraFromJSON(v.Index(i))
		}
		return out
	}
	return v.Interface()
}

// snakeCase converts a camelCase name (toolArgs) to snake_case
// (tool_args); snake_case names are unchanged.
func snakeCase(s string) string {
	if strings.IndexFunc(s, unicode.IsUpper) < 0 {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
