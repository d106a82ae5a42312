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
	// tool.name is a marker as a whole key, not as a prefix.
	assert.True(t, isMarkerKey(genericToolNameKey) && mayStartMarker(genericToolNameKey))
	assert.False(t, isMarkerKey("tool.names"))
	assert.False(t, isMarkerKey("tool.description"))
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

// TestFieldTable checks that the table finds every key's field and
// context role, through a multiplier, and nothing for other keys, including
// keys one byte away from one of them.
func TestFieldTable(t *testing.T) {
	assert.NotZero(t, keyTab.mul, "a multiplier separates every key")
	assert.Len(t, spanKeys, 60, "fieldIDs and contextKeys share seven keys")
	for k, want := range spanKeys {
		sk, ok := keyTab.lookup(k)
		assert.True(t, ok, k)
		assert.Equal(t, want, sk, k)
		for _, other := range []string{k[:len(k)-1], k + "x", "x" + k[1:], k[:len(k)-1] + "x"} {
			if _, isKey := spanKeys[other]; !isKey {
				_, ok := keyTab.lookup(other)
				assert.False(t, ok, other)
			}
		}
	}
	for _, k := range []string{"", "a", "gen_ai.agent.name", "http.route"} {
		_, ok := keyTab.lookup(k)
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
}

// FuzzFieldTable checks the table against the maps it replaces, for any key.
func FuzzFieldTable(f *testing.F) {
	for k := range fieldIDs {
		f.Add(k)
	}
	for k := range contextKeys {
		f.Add(k)
	}
	f.Add("")
	f.Add("gen_ai.tool.nam")
	for _, k := range []string{"llm.tools.", "llm.request.functions.0.name", "llm.input_messages.1.message.role", "llm.output_messages.", "gen_ai.prompt.", "gen_ai.completion.0.role", "llm.token_count.total", "gen_ai.provider.name"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, k string) {
		want, wantOK := fieldIDs[k]
		if !wantOK {
			want = noField
		}
		wantRole, wantRoleOK := contextKeys[k]
		sk, ok := keyTab.lookup(k)
		if ok != (wantOK || wantRoleOK) || (ok && sk != spanKey{want, wantRole, flagsOf(k)}) {
			t.Fatalf("lookup(%q) = %v, %v; the maps have %d, %v and %d, %v", k, sk, ok, want, wantOK, wantRole, wantRoleOK)
		}
		if _, _, ok := indexedFamily(k); ok && !(mayBeIndexed(k) && indexedStart(k)) {
			t.Fatalf("%q is in an indexed family mayBeIndexed stops", k)
		}
		if ok && (sk.flags&keyMarker != 0) != (len(k) >= 3 && isMarkerKey(k)) {
			t.Fatalf("lookup(%q) marks a GenAI span: %v, isMarkerKey says otherwise", k, sk.flags&keyMarker != 0)
		}
		if ok && (sk.flags&keyMessages != 0) != (k == "gen_ai.input.messages" || k == "gen_ai.output.messages") {
			t.Fatalf("lookup(%q) is a key messageArguments reads: %v", k, sk.flags&keyMessages != 0)
		}
		if isMarkerKey(k) && len(k) >= 3 && !mayStartMarker(k) {
			t.Fatalf("%q is a marker the two-byte filter stops", k)
		}
	})
}
