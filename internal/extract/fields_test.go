package extract

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMarkerKeys checks that the first-byte filter in front of classifyKey
// lets every marker key through and that markerPrefixes lists exactly the
// prefixes classifyKey treats as markers: a key made of any first byte and
// the rest of a marker prefix is a marker only when it is that prefix.
func TestMarkerKeys(t *testing.T) {
	for _, p := range markerPrefixes {
		k := p + "name"
		marker, _ := classifyKey(k)
		assert.True(t, marker, "%q marks a GenAI span", k)
		assert.True(t, markerFirstByte[k[0]], "%q passes the first-byte filter", k)
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
		}
	}
	for _, k := range []string{"http.request.method", "url.path", "server.address", "network.protocol.version", "user_agent.original", "db.system"} {
		marker, _ := classifyKey(k)
		assert.False(t, marker, k)
	}
}
