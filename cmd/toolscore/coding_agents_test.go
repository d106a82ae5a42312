package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScoreCodingAgents scores the captures of Claude Code, Gemini CLI
// (-p: a trace per step, one run by conversation) and Codex, their spans and
// log records given together, with the out-of-the-box coding-agent rules,
// as a CI gate would, and compares the report and each run's calls with
// testdata/score-coding-agents.golden.txt.
func TestScoreCodingAgents(t *testing.T) {
	var all strings.Builder
	for _, name := range []string{"claude-code-mock", "gemini-cli-p-mock", "codex-exec-mock"} {
		code, out, errOut := toolscore(t, "score", "-calls", "-config", "../../testdata/coding-agents/rules.yaml",
			"-processor", "tool_call_accuracy/coding_agents", "../../testdata/traces/captures/"+name+".otlp.jsonl",
			"../../testdata/logs/captures/"+name+".logs.otlp.jsonl")
		assert.Equal(t, exitFailed, code, "%s: every capture has a failing rule", name)
		assert.Empty(t, errOut)
		all.WriteString("== " + name + "\n" + out)
	}
	golden := filepath.Join("testdata", "score-coding-agents.golden.txt")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(all.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), all.String(), "run go test ./cmd/toolscore -run TestScoreCodingAgents -update to accept a change")
}
