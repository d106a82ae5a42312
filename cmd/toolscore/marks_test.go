package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMonitoringOnlyRuleIsShown: a rule with threshold 0 passes every run
// (here a run that called the forbidden get_weather and never send_email,
// score 0). It is accepted, as a rule that records scores without gating,
// and the table, the summary and the JSON say so; before, it showed a plain
// "0.00 pass".
func TestMonitoringOnlyRuleIsShown(t *testing.T) {
	code, out, errOut := toolscore(t, "score", "-config", "testdata/monitoring-only.yaml", demoTrace("adk-go-mock-allok"))
	assert.Equal(t, exitOK, code, out)
	assert.Empty(t, errOut)
	assert.Regexp(t, `email_sent +0\.00 +pass \(monitoring only\) `, out)
	assert.Regexp(t, `weather_in_paris +1\.00 +pass  `, out)
	assert.Regexp(t, `\n  email_sent +1 run +1 passed +0 failed +mean score 0\.00 +\(monitoring only: threshold 0, never fails\)\n`, out)
	assert.NotContains(t, out, "weather_in_paris  1 run  1 passed  0 failed  mean score 1.00  (monitoring")

	_, out, _ = toolscore(t, "score", "-format", "json", "-config", "testdata/monitoring-only.yaml", demoTrace("adk-go-mock-allok"))
	assert.Equal(t, []string{"email_sent"}, decodeReport(t, out).MonitoringOnly)
}

// TestUncheckedArgumentsAreShown: with content capture off, a rule expecting
// {city: Paris} passes by name and order; the table says the arguments were
// not checked (before, a plain "1.00 pass"; only the JSON's explanation
// said "arguments unavailable").
func TestUncheckedArgumentsAreShown(t *testing.T) {
	code, out, errOut := toolscore(t, "score", "-config", "testdata/pass.yaml", "testdata/adk-go-no-content.otlp.jsonl")
	assert.Equal(t, exitOK, code, out)
	assert.Empty(t, errOut)
	assert.Regexp(t, `weather_in_paris +1\.00 +pass \(arguments unavailable\) `, out)
	assert.Contains(t, out, "\nPassed with arguments unavailable (judged by name and order; content capture off?):\n"+
		"  adk-go-mock-allok / invoke_agent weather_agent / weather_in_paris: score 1: 1 of 1 expected calls matched; unexpected lookup_stock; arguments unavailable for 1 call (judged by name and order)\n")

	// A run whose arguments were read shows a plain pass.
	_, out, _ = toolscore(t, "score", "-config", "testdata/pass.yaml", demoTrace("adk-go-mock-allok"))
	assert.Regexp(t, `weather_in_paris +1\.00 +pass  `, out)
	assert.NotContains(t, out, "arguments unavailable")
}

// TestCallsListsUnselectedRuns: README's troubleshooting sends a user whose
// runs are not scored to -calls, which printed a header and nothing for a
// run no rule selects. It lists such runs too, saying so, with their calls
// and witnesses.
func TestCallsListsUnselectedRuns(t *testing.T) {
	code, out, _ := toolscore(t, "score", "-calls", "-config", "testdata/no-rule-selects.yaml", demoTrace("langchain-openinference-mock"))
	assert.Equal(t, exitFailed, code, "a rule that scored no run fails the gate")
	assert.Contains(t, out, "\nCalls of each run:\n"+
		"  langchain-openinference-mock / weather-agent (trace d806bf3aac1e59cc899d41fbfc1337b3): not scored: no rule selects it\n"+
		`    1. get_weather {"city":"Paris","unit":"celsius"} -> `)
	assert.Contains(t, out, `2. lookup_stock "ZZZZ" -> - [FAILED]  seen by requested, executed, outcome`)

	_, out, _ = toolscore(t, "score", "-format", "json", "-config", "testdata/no-rule-selects.yaml", demoTrace("langchain-openinference-mock"))
	rep := decodeReport(t, out)
	if assert.Len(t, rep.UnselectedRuns, 1) {
		assert.Equal(t, "weather-agent", rep.UnselectedRuns[0].AgentSpan)
		assert.Len(t, rep.UnselectedRuns[0].Calls, 2)
	}
}
