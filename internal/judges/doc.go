// Package judges holds the LLM-judged scorers (Microsoft.Extensions.AI, Azure, Mastra,
// DeepEval): each renders its peer's prompt, asks the judge and parses its answer.
package judges // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judges"
