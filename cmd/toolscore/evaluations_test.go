package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// TestEvaluationsSummary: the records of the connector's log file, grouped
// by agent and evaluation, then listed one by one; a half-written line is
// not read yet.
func TestEvaluationsSummary(t *testing.T) {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "travel")
	records := rl.ScopeLogs().AppendEmpty().LogRecords()
	add := func(agent, name, label, severity string, score float64, trace byte) {
		lr := records.AppendEmpty()
		lr.SetEventName(eventEval)
		lr.SetSeverityText(severity)
		lr.SetTraceID(pcommon.TraceID{trace})
		lr.Attributes().PutStr("gen_ai.agent.name", agent)
		lr.Attributes().PutStr(recordEvalName, name)
		lr.Attributes().PutDouble(recordEvalScore, score)
		lr.Attributes().PutStr(recordEvalLabel, label)
	}
	add("weather", "paris_trip/native", "pass", "INFO", 1, 1)
	add("weather", "paris_trip/native", "fail", "WARN", 0.5, 2)
	add("checkout", "paris_trip/native", "pass", "INFO", 1, 3)
	data, err := (&plog.JSONMarshaler{}).MarshalLogs(ld)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "evaluations.jsonl")
	require.NoError(t, os.WriteFile(path, append(append(data, '\n'), data[:20]...), 0o600))

	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, run([]string{"evaluations", path}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "travel   weather   paris_trip/native  1     1     0      02000000000000000000000000000000")
	assert.Contains(t, out.String(), "travel   checkout  paris_trip/native  1     0     0      -")
	assert.Contains(t, out.String(), "3 records: 2 INFO (pass, not evaluated), 1 WARN (fail), 0 ERROR (evaluator error)")

	out.Reset()
	require.Equal(t, exitOK, run([]string{"evaluations", "-records", path}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "WARN      travel   weather   paris_trip/native  0.5    fail   02000000000000000000000000000000")
}
