package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMergedConfigDropsNothing: a bare processor file merged after a
// collector configuration had its top-level rules dropped without a word.
func TestMergedConfigDropsNothing(t *testing.T) {
	code, out, errOut := toolscore(t, "score", "-config", "testdata/one-agent.yaml", "-config", "testdata/pass.yaml", demoTrace("adk-go-mock"))
	assert.Equal(t, exitFailure, code, out)
	assert.Equal(t, `toolscore score: testdata/pass.yaml: top-level "rules" would be ignored: the processor's configuration is read from processors::tool_call_accuracy; `+
		"write it there (-config files merge key by key, as the collector's --config flags do)\n", errOut)
}
