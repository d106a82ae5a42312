package toolcallaccuracyprocessor

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPeerProfilesOnTraces runs every peer profile beside the native scorer
// on real captures of the paris scenario, where both calls are made with the
// expected arguments: every profile must score the run 1 (lookup_stock's
// failure matters to none of these options).
func TestPeerProfilesOnTraces(t *testing.T) {
	files := []string{
		"emitters/vercel-ai-v6-mock.otlp.jsonl",
		"emitters/mastra-otel-mock.otlp.jsonl",
		"captures/adk-go-mock.otlp.jsonl",
		"captures/genkit-go-mock.otlp.jsonl",
		"captures/vercel-ai-v7-otel-mock.otlp.jsonl",
		"captures/openllmetry-langchain-mock.otlp.jsonl",
		"captures/constructed-strands-agents.json",
		"captures/constructed-pydantic-ai.json",
	}
	scorers := []string{"native", "mongodb", "mastra_tool_call", "mastra_trajectory", "mastra_trajectory_full", "deepeval", "agentevals", "adk", "ragas"}
	type run struct{ file, config string }
	var runs []run
	for _, f := range files {
		runs = append(runs, run{f, "peers"})
	}
	// MCP calls are typed "mcp": DeepEval and Mastra compare the type.
	runs = append(runs, run{"captures/constructed-mcp.json", "peers_mcp"})
	for _, r := range runs {
		file := r.file
		t.Run(file, func(t *testing.T) {
			in := readTraceFile(t, filepath.Join("testdata", "traces", file))
			cfg := loadConfig(t, filepath.Join("testdata", "golden", "config.yaml"), r.config)
			out := newHarness(t, cfg).run(t, cloneAll(in))
			assertConserved(t, in, out)
			agent := onlyScored(t, out)
			scores := map[string]float64{}
			for _, e := range agent.Events().All() {
				if e.Name() != eventEvaluation {
					continue
				}
				scorer, _ := e.Attributes().Get(attrEventScorer)
				v, ok := e.Attributes().Get(attrEvalScore)
				expl, _ := e.Attributes().Get(attrEvalExplain)
				require.True(t, ok, "%s gave no score: %s", scorer.Str(), expl.Str())
				scores[scorer.Str()] = v.Double()
			}
			for _, s := range scorers {
				if assert.Contains(t, scores, s) {
					assert.InDelta(t, 1.0, scores[s], 1e-9, "%s", s)
				}
			}
		})
	}
}
