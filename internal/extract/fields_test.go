package extract

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMarkerKeys checks that the two-byte filter in front of isMarkerKey
// lets every marker key through and that markerPrefixes lists exactly the
// prefixes isMarkerKey treats as markers: a key made of any first (or
// second) byte and the rest of a marker prefix is a marker only when it is
// that prefix, and the filter never stops a marker.
func TestMarkerKeys(t *testing.T) {
	for _, p := range markerPrefixes {
		k := p + "name"
		marker := isMarkerKey(k)
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
			marker := isMarkerKey(other)
			assert.Equal(t, isPrefix, marker, "%q", other)
			second := k[:1] + string([]byte{byte(b)}) + k[2:]
			if isMarkerKey(second) {
				assert.True(t, mayStartMarker(second), "%q passes the two-byte filter", second)
			}
		}
	}
	for _, k := range []string{"http.request.method", "url.path", "server.address", "network.protocol.version", "user_agent.original", "db.system"} {
		marker := isMarkerKey(k)
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

// TestFieldTable checks that the table finds every key's field, through a
// multiplier, and nothing for other keys, including
// keys one byte away from a field's.
func TestFieldTable(t *testing.T) {
	assert.NotZero(t, fieldTab.mul, "a multiplier separates every key")
	for k, want := range fieldIDs {
		id, ok := fieldTab.lookup(k)
		assert.True(t, ok, k)
		assert.Equal(t, want, id, k)
		for _, other := range []string{k[:len(k)-1], k + "x", "x" + k[1:], k[:len(k)-1] + "x"} {
			if _, isField := fieldIDs[other]; !isField {
				_, ok := fieldTab.lookup(other)
				assert.False(t, ok, other)
			}
		}
	}
	for _, k := range []string{"", "a", "gen_ai.agent.name", "http.route"} {
		_, ok := fieldTab.lookup(k)
		assert.False(t, ok, k)
	}
	assert.Panics(t, func() {
		// More keys than slots: no multiplier separates them.
		many := make(map[string]fieldID)
		for i := range 1<<fieldTableBits + 1 {
			many[fmt.Sprintf("key.%d", i)] = fOpName
		}
		newKeyTable(many)
	})

	// The context keys' table, the same way.
	assert.NotZero(t, contextTab.mul, "a multiplier separates every context key")
	for k, want := range contextKeys {
		role, ok := contextTab.lookup(k)
		assert.True(t, ok, k)
		assert.Equal(t, want, role, k)
		for _, other := range []string{k[:len(k)-1], k + "x", "x" + k[1:], k[:len(k)-1] + "x"} {
			if _, isKey := contextKeys[other]; !isKey {
				_, ok := contextTab.lookup(other)
				assert.False(t, ok, other)
			}
		}
	}
}

// FuzzFieldTable checks the table against the map it replaces, for any key.
func FuzzFieldTable(f *testing.F) {
	for k := range fieldIDs {
		f.Add(k)
	}
	for k := range contextKeys {
		f.Add(k)
	}
	f.Add("")
	f.Add("gen_ai.tool.nam")
	f.Fuzz(func(t *testing.T, k string) {
		want, wantOK := fieldIDs[k]
		id, ok := fieldTab.lookup(k)
		if ok != wantOK || id != want {
			t.Fatalf("lookup(%q) = %d, %v; the map has %d, %v", k, id, ok, want, wantOK)
		}
		wantRole, wantOK := contextKeys[k]
		if role, ok := contextTab.lookup(k); ok != wantOK || role != wantRole {
			t.Fatalf("context lookup(%q) = %d, %v; the map has %d, %v", k, role, ok, wantRole, wantOK)
		}
		if isMarkerKey(k) && len(k) >= 3 && !mayStartMarker(k) {
			t.Fatalf("%q is a marker the two-byte filter stops", k)
		}
	})
}
