// Package peers reproduces other evaluators' tool-call scorers exactly (MongoDB's MCP
// accuracy scorer, Mastra, DeepEval, agentevals, Google ADK, Ragas), one file each.
package peers // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/peers"
