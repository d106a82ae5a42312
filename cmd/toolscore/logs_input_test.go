package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	contribCaptures = "../../testdata/traces/captures/openai-sdk-otel-contrib-"
	contribLogs     = "../../testdata/logs/captures/openai-sdk-otel-contrib-"
)

// TestScoreReadsLogRecords: a manual tool loop under the OTel contrib
// OpenAI instrumentation is scored from its log records given beside its
// traces (either order), scored as the same loop is under OpenInference
// (book_flight hallucinated), and -calls names the record that witnessed
// each call. Without the logs file, nothing is scored.
func TestScoreReadsLogRecords(t *testing.T) {
	for _, name := range []string{"manual-batch", "manual-simple", "responses-simple"} {
		t.Run(name, func(t *testing.T) {
			traces, logs := contribCaptures+name+".otlp.jsonl", contribLogs+name+".otlp.jsonl"
			args := []string{"score", "-no-judges", "-calls", "-config", "../../testdata/golden/config.yaml", "-processor", "tool_call_accuracy/two_turns"}
			code, out, errOut := toolscore(t, append(args, logs, traces)...)
			require.Empty(t, errOut)
			assert.Equal(t, exitFailed, code, "retry_after_error fails: book_flight was hallucinated")
			assert.Contains(t, out, "weather-loop")
			assert.Contains(t, out, "hallucinated book_flight")
			_, swapped, _ := toolscore(t, append(args, traces, logs)...)
			assert.Equal(t, out, swapped, "files in either order")
			_, alone, _ := toolscore(t, append(args, traces)...)
			assert.Contains(t, alone, "No scored agent runs")
		})
	}
	_, out, _ := toolscore(t, "score", "-calls", "-config", "testdata/pass.yaml", contribCaptures+"manual-batch.otlp.jsonl", contribLogs+"manual-batch.otlp.jsonl")
	assert.Contains(t, out, `4. book_flight {"from":"London","to":"Paris"} -> - [FAILED]  seen by requested, outcome (id call_book_flight); failed per outcome; app answered error: unknown tool book_flight; log records ../../testdata/logs/captures/openai-sdk-otel-contrib-manual-batch.otlp.jsonl:1#3 gen_ai.choice (requested), ../../testdata/logs/captures/openai-sdk-otel-contrib-manual-batch.otlp.jsonl:1#10 gen_ai.tool.message (outcome)`)
}
