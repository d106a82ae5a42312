// Package otlpjson reads OTLP/JSON trace files: the collector file
// exporter's framing (one ExportTraceServiceRequest per line) or a single,
// possibly indented, request. The offline scorer, the demo and the tests all
// read traces through it.
package otlpjson // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

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
	return parse(path, data, partialTail, nil)
}

// parse is Parse that, when logs is not nil, appends the logs requests it
// finds to it instead of refusing them.
func parse(path string, data []byte, partialTail bool, logs *[]LogDoc) ([]Doc, error) {
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
		// A document that yields no spans is checked for being a traces
		// request at all; one that does is, and is not read twice.
		if err != nil || td.ResourceSpans().Len() == 0 {
			if logs != nil && isLogsRequest(raw) {
				ld, err := readLogs(path, line, raw)
				if err != nil {
					return nil, err
				}
				*logs = append(*logs, ld)
				continue
			}
			if err := checkRequest(raw); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, err)
			}
		}
		if err != nil {
			at, msg := explain(raw, err)
			return nil, fmt.Errorf("%s:%d: %s", path, line+bytes.Count(raw[:at], []byte{'\n'}), msg)
		}
		docs = append(docs, Doc{Path: path, Line: line, Traces: td})
	}
}

// checkRequest rejects a JSON document that is not a traces request: the
// OTLP unmarshaller ignores fields it does not know, so any other object
// is read as a request with no spans.
func checkRequest(raw json.RawMessage) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return fmt.Errorf("not an OTLP ExportTraceServiceRequest: expected a JSON object, got %s", jsonKind(raw))
	}
	var others []string
	for k := range fields {
		switch k {
		case "resourceSpans", "resource_spans":
			continue
		case "resourceLogs", "resourceMetrics", "resourceProfiles":
			return fmt.Errorf("an OTLP %s request (%q), not traces", strings.ToLower(strings.TrimPrefix(k, "resource")), k)
		}
		others = append(others, strconv.Quote(k))
	}
	if len(others) > 0 {
		slices.Sort(others)
		return fmt.Errorf("not an OTLP ExportTraceServiceRequest: unknown top-level keys %s (expected \"resourceSpans\")", strings.Join(others, ", "))
	}
	return nil
}

// jsonKind names the kind of a JSON value by its first byte.
func jsonKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// explain turns the OTLP unmarshaller's error on raw into a message for
// users and the offset in raw it is about. The unmarshaller's own messages
// name its internals and quote raw bytes around the fault; a malformed id,
// the common case, is found and named here instead.
func explain(raw []byte, err error) (int, string) {
	if at, msg, ok := badID(raw); ok {
		return at, msg
	}
	text := err.Error()
	at := 0
	// "Op: message, error found in #N byte of ...|near|..., bigger context ...|context|..."
	if i := strings.Index(text, ", error found in #"); i >= 0 {
		detail := text[i:]
		text = text[:i]
		var n int
		var near, context string
		if _, scanErr := fmt.Sscanf(detail, ", error found in #%d byte of", &n); scanErr == nil {
			near, context = between(detail, "byte of ...|", "|..., bigger"), between(detail, "bigger context ...|", "|...")
		}
		if c := bytes.Index(raw, []byte(context)); context != "" && c >= 0 && bytes.Count(raw, []byte(context)) == 1 {
			if w := strings.Index(context, near); near != "" && w >= 0 {
				at = c + w + n
			}
		}
		if near != "" {
			text += fmt.Sprintf(" (near %q)", strings.Join(strings.Fields(near), " "))
		}
	}
	if op, rest, ok := strings.Cut(text, ": "); ok && !strings.ContainsAny(op, " \"") {
		text = rest // the unmarshaller's function name
	}
	return min(at, len(raw)), "not an OTLP ExportTraceServiceRequest: " + text
}

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	in, _, _ := strings.Cut(rest, to)
	return in
}

// idDigits gives the hex digits of each id field (in either spelling the
// OTLP unmarshaller accepts).
var idDigits = map[string]int{
	"traceId": 32, "trace_id": 32,
	"spanId": 16, "span_id": 16,
	"parentSpanId": 16, "parent_span_id": 16,
}

// badID finds the first id field of raw that is neither empty nor hex of
// its length, and returns its offset and what is wrong with it.
func badID(raw []byte) (int, string, bool) {
	type frame struct {
		object, wantKey bool
		key             string
	}
	var stack []frame
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		at := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return 0, "", false
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		var key string
		if n := len(stack); n > 0 && stack[n-1].object {
			top := &stack[n-1]
			if top.wantKey {
				top.key, top.wantKey = tok.(string), false
				continue
			}
			key, top.wantKey = top.key, true
		}
		switch t := tok.(type) {
		case json.Delim:
			stack = append(stack, frame{object: t == '{', wantKey: t == '{'})
		case string:
			if digits := idDigits[key]; digits > 0 && t != "" && !isHex(t, digits) {
				return at + valueStart(raw[at:]), fmt.Sprintf("%s %q: want %d hex digits", key, t, digits), true
			}
		}
	}
}

// valueStart skips what separates a value from the token before it.
func valueStart(b []byte) int {
	i := 0
	for i < len(b) && bytes.IndexByte([]byte(" \t\r\n:,"), b[i]) >= 0 {
		i++
	}
	return i
}

func isHex(s string, digits int) bool {
	if len(s) != digits {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
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
