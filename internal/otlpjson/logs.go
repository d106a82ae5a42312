package otlpjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"go.opentelemetry.io/collector/pdata/plog"
)

// LogDoc is one ExportLogsServiceRequest read from a file.
type LogDoc struct {
	Path string
	Line int
	Logs plog.Logs
}

// ReadSignals reads every traces and logs request of the files, in order
// within each signal: a file may hold either or both, in any order.
func ReadSignals(paths ...string) ([]Doc, []LogDoc, error) {
	var docs []Doc
	var logs []LogDoc
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, err
		}
		d, err := parse(p, data, false, &logs)
		if err != nil {
			return nil, nil, err
		}
		docs = append(docs, d...)
	}
	return docs, logs, nil
}

// isLogsRequest reports a JSON object whose only top-level key is
// resourceLogs.
func isLogsRequest(raw json.RawMessage) bool {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return false
	}
	_, a := fields["resourceLogs"]
	_, b := fields["resource_logs"]
	return (a || b) && len(fields) == 1
}

// readLogs unmarshals one logs request.
func readLogs(path string, line int, raw json.RawMessage) (LogDoc, error) {
	var u plog.JSONUnmarshaler
	ld, err := u.UnmarshalLogs(raw)
	if err != nil {
		at, msg := explain(raw, err)
		return LogDoc{}, fmt.Errorf("%s:%d: %s", path, line+bytes.Count(raw[:at], []byte{'\n'}), msg)
	}
	return LogDoc{Path: path, Line: line, Logs: ld}, nil
}

// RecordCount sums the log records of docs.
func RecordCount(docs []LogDoc) int {
	n := 0
	for _, d := range docs {
		n += d.Logs.LogRecordCount()
	}
	return n
}
