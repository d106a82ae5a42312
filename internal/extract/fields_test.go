package extract

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMarkerKeys checks that the two-byte filter in front of classifyKey
// lets every marker key through and that markerPrefixes lists exactly the
// prefixes classifyKey treats as markers: a key made of any first (or
// second) byte and the rest of a marker prefix is a marker only when it is
// that prefix, and the filter never stops a marker.
func TestMarkerKeys(t *testing.T) {
	for _, p := range markerPrefixes {
		k := p + "name"
		marker, _ := classifyKey(k)
		assert.True(t, marker, "%q marks a GenAI span", k)
		assert.True(t, mayStartMarker(k), "%q passes the two-byte filter", k)
		for b := 0; b < 256; b++ {
			other := string([]byte{byte(b)}) + k[1:]
			if other == k {
				continue
			}
			isPrefix := false
			for _, q := range markerPrefixes {
				if len(other) >= len(q) && other[:len(q)] == q {
					isPrefix = true
				}
			}
			marker, _ := classifyKey(other)
			assert.Equal(t, isPrefix, marker, "%q", other)
			second := k[:1] + string([]byte{byte(b)}) + k[2:]
			if m, _ := classifyKey(second); m {
				assert.True(t, mayStartMarker(second), "%q passes the two-byte filter", second)
			}
		}
	}
	for _, k := range []string{"http.request.method", "url.path", "server.address", "network.protocol.version", "user_agent.original", "db.system"} {
		marker, _ := classifyKey(k)
		assert.False(t, marker, k)
		assert.False(t, mayStartMarker(k), "%q is passed over without a call", k)
	}
}

func TestIsAgentSpanName(t *testing.T) {
	for name, want := range map[string]bool{
		"agent run":            true,
		"agent_run [weather]":  true,
		"invoke_agent weather": true,
		"invoke_agent":         false,
		"agent":                false,
		"agent runs":           false,
		"GET /api/orders":      false,
		"":                     false,
		"i":                    false,
	} {
		assert.Equal(t, want, isAgentSpanName(name), "%q", name)
	}
}
