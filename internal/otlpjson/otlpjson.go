// Package otlpjson reads OTLP/JSON trace files: the collector file
// exporter's framing (one ExportTraceServiceRequest per line) or a single,
// possibly indented, request. The offline scorer, the demo and the tests all
// read traces through it.
package otlpjson // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Doc is one ExportTraceServiceRequest read from a file.
type Doc struct {
	// Path is the file it came from; Line the 1-based line it starts on.
	Path   string
	Line   int
	Traces ptrace.Traces
}

// ReadFiles reads every ExportTraceServiceRequest of the files, in order. A
// file holds one JSON document per line (the collector file exporter's
// framing) or a single, possibly indented, document.
func ReadFiles(paths ...string) ([]Doc, error) {
	var docs []Doc
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		d, err := Parse(p, data, false)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d...)
	}
	return docs, nil
}

// ErrIncomplete reports a file whose last document is still being written.
var ErrIncomplete = errors.New("incomplete document at end of file")

// Parse decodes the JSON documents of one file's data. With partialTail, a
// truncated last document (a file still being written) ends the file with
// ErrIncomplete and the documents before it.
func Parse(path string, data []byte, partialTail bool) ([]Doc, error) {
	// The file exporter does not append, so a file truncated under a
	// running collector may start with NUL bytes.
	data = bytes.TrimLeft(data, "\x00")
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []Doc
	var u ptrace.JSONUnmarshaler
	for {
		start := dec.InputOffset()
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		line := lineAt(data, start)
		if err != nil {
			if partialTail && errors.Is(err, io.ErrUnexpectedEOF) {
				return docs, ErrIncomplete
			}
			return nil, fmt.Errorf("%s:%d: not OTLP JSON: %w", path, line, err)
		}
		td, err := u.UnmarshalTraces(raw)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: not an OTLP ExportTraceServiceRequest: %w", path, line, err)
		}
		docs = append(docs, Doc{Path: path, Line: line, Traces: td})
	}
}

// lineAt returns the 1-based line of the first non-space byte at or after
// offset.
func lineAt(data []byte, offset int64) int {
	i := int(offset)
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t') {
		i++
	}
	return bytes.Count(data[:i], []byte{'\n'}) + 1
}

// SpanCount sums the spans of docs.
func SpanCount(docs []Doc) int {
	n := 0
	for _, d := range docs {
		n += d.Traces.SpanCount()
	}
	return n
}

// Traces returns the documents' traces, in order.
func Traces(docs []Doc) []ptrace.Traces {
	out := make([]ptrace.Traces, len(docs))
	for i, d := range docs {
		out[i] = d.Traces
	}
	return out
}
