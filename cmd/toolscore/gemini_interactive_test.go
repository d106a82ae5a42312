package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScoreGeminiInteractive scores the interactive Gemini CLI session
// (three prompts and /quit, a trace each, one conversation id), spans and
// log records, with the out-of-the-box coding-agent rules: four runs, one
// per user_prompt, each with its own calls (refused by the user, failed by
// exit code, unknown tool), compared with
// testdata/score-gemini-interactive.golden.txt.
func TestScoreGeminiInteractive(t *testing.T) {
	const name = "gemini-cli-interactive-mock"
	code, out, errOut := toolscore(t, "score", "-calls", "-config", "../../testdata/coding-agents/rules.yaml",
		"-processor", "tool_call_accuracy/coding_agents", "../../testdata/traces/captures/"+name+".otlp.jsonl",
		"../../testdata/logs/captures/"+name+".logs.otlp.jsonl")
	assert.Equal(t, exitFailed, code, "the session has failing rules")
	assert.Empty(t, errOut)
	assert.Contains(t, out, "4 agent runs, 8 evaluations")
	assert.Contains(t, out, "[REFUSED]")
	assert.Contains(t, out, "[UNKNOWN_TOOL]")
	golden := filepath.Join("testdata", "score-gemini-interactive.golden.txt")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(out), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), out, "run go test ./cmd/toolscore -run TestScoreGeminiInteractive -update to accept a change")
}
