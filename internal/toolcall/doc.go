// Package toolcall is the scoring core behind package scoring: calls,
// expectations, matchers and argument specifications, results, the native and
// checks scorers with their pairing and turn alignment, and the scorer registry.
package toolcall // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
