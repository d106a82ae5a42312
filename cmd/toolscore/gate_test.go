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

// TestInputMistakes: each input mistake exits 2 with one line that names the
// file, the line and the fault in the user's terms (no library internals).
func TestInputMistakes(t *testing.T) {
	allok := demoTrace("adk-go-mock-allok")
	tests := []struct {
		name string
		args []string
		err  string // the whole of stderr
	}{
		{"a JSON array", []string{"testdata/input-array.json"}, // said ReadObject: expect { or , or } or n, but found [ ...
			"testdata/input-array.json:1: not an OTLP ExportTraceServiceRequest: expected a JSON object, got an array"},
		{"a malformed trace id", []string{"testdata/input-bad-id.jsonl"}, // said ID.UnmarshalJSONIter: length mismatch ...
			`testdata/input-bad-id.jsonl:2: traceId "abc": want 32 hex digits`},
		{"a malformed id in an indented document", []string{"testdata/input-bad-id-indented.json"}, // said line 1
			`testdata/input-bad-id-indented.json:12: parentSpanId "cc57aa868df81c9": want 16 hex digits`},
		{"JSON that is not OTLP beside real files", []string{allok, "testdata/input-other-json.json"}, // was ignored
			`testdata/input-other-json.json:1: not an OTLP ExportTraceServiceRequest: unknown top-level keys "hello" (expected "resourceSpans")`},
		{"an OTLP logs file", []string{"testdata/input-logs.json", allok},
			`testdata/input-logs.json:1: an OTLP logs request ("resourceLogs"), not traces`},
		{"no spans", []string{"testdata/empty.jsonl"}, // printed a Go slice
			"no spans in testdata/empty.jsonl"},
		{"a judge endpoint that is not a URL", []string{"-judge-endpoint", "notaurl", allok}, // named judge.endpoint, not the flag
			"-judge-endpoint: must start with http:// or https://"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := toolscore(t, append([]string{"score", "-config", "testdata/pass.yaml"}, tt.args...)...)
			assert.Equal(t, exitFailure, code, out)
			assert.Equal(t, "toolscore score: "+tt.err+"\n", errOut)
		})
	}

	// wait: 5 was read as 5ns without a word.
	code, _, errOut := toolscore(t, "score", "-config", "testdata/wait-no-unit.yaml", allok)
	assert.Equal(t, exitFailure, code)
	assert.Equal(t, "toolscore score: testdata/wait-no-unit.yaml: processor configuration: invalid configuration:\n"+
		"  wait: 5ns is less than a millisecond: a number without a unit is read as nanoseconds; write the unit (5s, 5ms)\n", errOut)
}
