package toolcallaccuracyprocessor

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"gopkg.in/yaml.v3"
)

// TestREADMEDocumentsEveryKeyAndMetric: every configuration key the
// processor reads (its own; the judge client's HTTP block is confighttp's)
// and every metric it exposes is named in README.md.
func TestREADMEDocumentsEveryKeyAndMetric(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	text := string(readme)
	keys := map[string]bool{}
	collectKeys(reflect.TypeFor[Config](), keys)
	for _, k := range judgeClientKeys {
		keys[k] = true
	}
	for k := range judgeOwnKeys {
		keys[k] = true
	}
	require.Greater(t, len(keys), 40)
	for k := range keys {
		pattern := regexp.MustCompile("[`.]" + regexp.QuoteMeta(k) + "[`.\\[: ]")
		assert.True(t, pattern.MatchString(text), "README.md does not name the configuration key %q", k)
	}

	meta, err := os.ReadFile("metadata.yaml")
	require.NoError(t, err)
	var md struct {
		Telemetry struct {
			Metrics map[string]any `yaml:"metrics"`
		} `yaml:"telemetry"`
	}
	require.NoError(t, yaml.Unmarshal(meta, &md))
	require.NotEmpty(t, md.Telemetry.Metrics)
	for name := range md.Telemetry.Metrics {
		assert.Contains(t, text, "otelcol_"+name, "README.md does not name the metric")
	}
}

// judgeClientKeys are the judge client's own keys (beside confighttp's).
var judgeClientKeys = []string{"endpoint", "model", "api_key", "api_version", "request_timeout", "max_retries", "initial_backoff", "max_backoff", "redact", "pattern", "replacement"}

// collectKeys adds the mapstructure keys of t's fields, recursively.
func collectKeys(t reflect.Type, keys map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t.PkgPath() != reflect.TypeFor[Config]().PkgPath() {
		return
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[confmap.Unmarshaler]()) && t != reflect.TypeFor[Config]() {
		// Decoded by its own Unmarshal: its keys are listed by hand.
		for f := range t.Fields() {
			if name, _, _ := strings.Cut(f.Tag.Get("mapstructure"), ","); name != "" && name != "-" {
				keys[name] = true
			}
		}
		return
	}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		keys[name] = true
		collectKeys(f.Type, keys)
	}
}
