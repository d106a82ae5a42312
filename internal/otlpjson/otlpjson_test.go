package otlpjson

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseErrorsPointAtTheFault: an error the OTLP unmarshaller reports is
// given at the line it is on, without the unmarshaller's function names and
// raw context.
func TestParseErrorsPointAtTheFault(t *testing.T) {
	doc := "{\n" +
		`  "resourceSpans": [{"scopeSpans": [{"spans": [` + "\n" +
		`    {"traceId": "58fc28d46169e4429622190caaf2b0c6", "spanId": "93a16f46d74ed4c8", "name": "a"},` + "\n" +
		`    {"traceId": "58fc28d46169e4429622190caaf2b0c6", "spanId": "93a16f46d74ed4c9", "startTimeUnixNano": {"x": 1}}` + "\n" +
		"  ]}]}]\n}\n"
	_, err := Parse("doc.json", []byte("\n"+doc), false)
	require.Error(t, err)
	assert.Equal(t, `doc.json:5: not an OTLP ExportTraceServiceRequest: unsupported value type (near "nixNano\": {\"x\": 1}}")`, err.Error())
}
