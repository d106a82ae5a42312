package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		{"an OTLP logs file alone", []string{"testdata/input-logs.json"}, // logs files are read beside traces files
			"no spans in testdata/input-logs.json"},
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

// TestGateJudgeDown: a judge rule whose judge cannot be reached, beside a
// passing rule, exited 0 with its runs not_evaluated, no reason in the
// table, and a summary that did not count them.
func TestGateJudgeDown(t *testing.T) {
	code, out, errOut := toolscore(t, "score", "-config", "testdata/judge-unreachable.yaml", demoTrace("langchain-openinference-mock"), demoTrace("adk-go-mock-allok"))
	assert.Equal(t, exitFailed, code, out)
	assert.Empty(t, errOut)
	assert.Contains(t, out, "2 agent runs, 4 evaluations: 2 passed, 0 failed, 2 not evaluated.\n")
	assert.Contains(t, out, "  judged   2 runs  0 passed  0 failed  2 not evaluated  mean score -\n")
	assert.Contains(t, out, "Rule judged scored no run: it was not evaluated on any of the runs it selected.\n")
	assert.Contains(t, out, "\nWhy evaluations were not evaluated:\n")
	assert.Contains(t, out, "\n  judged, 1 run: judge not asked: the judge did not answer: ")
	assert.Contains(t, out, "connection refused")

	_, out, _ = toolscore(t, "score", "-format", "json", "-config", "testdata/judge-unreachable.yaml", demoTrace("langchain-openinference-mock"))
	rep := decodeReport(t, out)
	assert.Equal(t, []string{"judged"}, rep.NotEvaluated)
	assert.False(t, rep.Summary.OK)
	assert.Equal(t, 1, rep.Summary.NotEvaluated)
	assert.Contains(t, ruleOf(t, rep, "langchain-openinference-mock", "judged").Explanation, "connection refused",
		"the reason is on the rule's result too, not only on its event")
}

// TestGateSecondaryScorers: a rule's second scorer failed while the gate
// passed with "1 evaluation: 1 passed"; its result was in no row.
func TestGateSecondaryScorers(t *testing.T) {
	allok := demoTrace("adk-go-mock-allok")
	code, out, _ := toolscore(t, "score", "-config", "testdata/secondary-scorer.yaml", allok)
	assert.Equal(t, exitFailed, code, out)
	assert.Regexp(t, `\nadk-go-mock-allok\s+invoke_agent weather_agent\s+trip/agentevals\s+0\.00\s+FAIL\s`, out)
	assert.Contains(t, out, "1 agent run, 2 evaluations: 1 passed, 1 failed.\n")
	assert.Contains(t, out, "  trip/agentevals  1 run  0 passed  1 failed  mean score 0.00\n")
	assert.Contains(t, out, "adk-go-mock-allok / invoke_agent weather_agent / trip/agentevals: false: trajectory_strict_match failed")

	code, out, _ = toolscore(t, "score", "-primary-only", "-config", "testdata/secondary-scorer.yaml", allok)
	assert.Equal(t, exitOK, code, out)
	assert.Contains(t, out, "  trip/agentevals  1 run  0 passed  1 failed  mean score 0.00  (does not gate: -primary-only)\n")

	_, out, _ = toolscore(t, "score", "-format", "json", "-config", "testdata/secondary-scorer.yaml", allok)
	rep := decodeReport(t, out)
	require.Len(t, rep.Rules, 1)
	assert.Equal(t, []ScorerSummary{{Scorer: "agentevals", Tally: Tally{Runs: 1, Failed: 1, MeanScore: ptr(0.0)}}}, rep.Rules[0].Scorers)
	assert.Equal(t, Gate{}, rep.Gate)
}

// TestGateFailNotEvaluated: runs not evaluated pass the gate unless
// -fail-not-evaluated; the judge rule evaluated one of the two runs.
func TestGateFailNotEvaluated(t *testing.T) {
	files := []string{demoTrace("adk-go-mock-allok"), demoTrace("genkit-go-mock")}
	code, out, _ := toolscore(t, append([]string{"score", "-config", demoConfig}, files...)...)
	assert.Equal(t, exitOK, code, out)
	assert.Contains(t, out, "2 agent runs, 8 evaluations: 7 passed, 0 failed, 1 not evaluated.\n")
	code, out, _ = toolscore(t, append([]string{"score", "-fail-not-evaluated", "-config", demoConfig}, files...)...)
	assert.Equal(t, exitFailed, code, out)
	assert.Contains(t, out, "Results not evaluated fail the gate (-fail-not-evaluated).\n")
}

// TestCallsAreWhatTheScorersSaw: OpenLLMetry's withTool span records a
// placeholder around the LangChain span that has the arguments; the report
// listed the placeholder while the scorers used the merged call.
func TestCallsAreWhatTheScorersSaw(t *testing.T) {
	trace := demoTrace("openllmetry-langchain-mock")
	_, out, _ := toolscore(t, "score", "-format", "json", "-config", demoConfig, trace)
	rep := decodeReport(t, out)
	require.Len(t, rep.Runs, 1)
	calls := rep.Runs[0].Calls
	require.Len(t, calls, 2, "the inner record is not another call")
	assert.Equal(t, "get_weather", calls[0].Tool, "in the order the scorers saw: by start time")
	assert.Equal(t, "known", calls[0].ArgumentsState)
	assert.JSONEq(t, `{"city":"Paris","unit":"celsius"}`, calls[0].Arguments)

	_, table, _ := toolscore(t, "score", "-calls", "-config", demoConfig, trace)
	assert.Contains(t, table, `1. get_weather {"city":"Paris","unit":"celsius"} -> `)
}

// TestCallsShowTheirWitnesses: -calls and the JSON report list the calls
// the scorers received, each with the records that saw it: a manual tool
// loop's calls from the model's requests (the refused book_flight with
// what the app answered), and an MCP call's client and server spans.
func TestCallsShowTheirWitnesses(t *testing.T) {
	score := func(file string) []CallDetail {
		_, out, errOut := toolscore(t, "score", "-format", "json", "-no-judges", "-config", "../../testdata/golden/config.yaml",
			"-processor", "tool_call_accuracy/two_turns", "../../testdata/traces/captures/"+file)
		require.Empty(t, errOut)
		rep := decodeReport(t, out)
		require.Len(t, rep.Runs, 1)
		return rep.Runs[0].Calls
	}
	manual := score("openai-sdk-openinference-manual-simple.otlp.jsonl")
	require.Len(t, manual, 5, "every requested call, no tool span")
	flight := manual[3]
	assert.Equal(t, "book_flight", flight.Tool)
	assert.Equal(t, "call_book_flight", flight.ID)
	assert.Equal(t, []string{"requested", "outcome"}, flight.Witnesses)
	assert.Contains(t, flight.Note, "unknown tool book_flight")
	assert.True(t, flight.Failed)
	assert.Empty(t, flight.SpanID, "no span executed it")

	mcp := score("mcp-tool-error-openllmetry-shinzo-simple.otlp.jsonl")
	require.Len(t, mcp, 4, "client and server records are one call")
	stock := mcp[2]
	assert.Equal(t, "lookup_stock", stock.Tool)
	assert.Equal(t, []string{"requested", "executed", "mcp_server", "outcome"}, stock.Witnesses)
	assert.Equal(t, []string{"executed", "outcome"}, stock.FailedWitnesses)
	assert.NotEmpty(t, stock.SpanID)

	_, table, _ := toolscore(t, "score", "-calls", "-no-judges", "-config", "../../testdata/golden/config.yaml",
		"-processor", "tool_call_accuracy/two_turns", "../../testdata/traces/captures/openai-sdk-openinference-manual-simple.otlp.jsonl")
	assert.Contains(t, table, `4. book_flight {"from":"London","to":"Paris"} -> - [FAILED]  seen by requested, outcome (id call_book_flight); failed per outcome; app answered error: unknown tool book_flight`)
}
