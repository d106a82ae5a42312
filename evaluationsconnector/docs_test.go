package evaluationsconnector

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestDocsNameEveryKeyAndMetric: docs/connector.md names every
// configuration key, every metric the connector writes and every metric of
// its own telemetry.
func TestDocsNameEveryKeyAndMetric(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "connector.md"))
	require.NoError(t, err)
	doc := string(data)

	keys := map[string]bool{}
	var collect func(reflect.Type, string)
	collect = func(typ reflect.Type, prefix string) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct {
			return
		}
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
			if !f.IsExported() || name == "" {
				continue
			}
			if f.Type.Kind() == reflect.Struct {
				collect(f.Type, prefix+name+".")
				continue
			}
			if f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct {
				keys[prefix+name] = true // a list of {name, default}
				continue
			}
			keys[prefix+name] = true
		}
	}
	collect(reflect.TypeFor[Config](), "")
	require.Greater(t, len(keys), 8)
	for k := range keys {
		assert.Regexp(t, regexp.MustCompile("`"+regexp.QuoteMeta(k)+"`"), doc, "docs/connector.md does not name the key %q", k)
	}

	for _, m := range metricNames {
		assert.Contains(t, doc, "`"+m+"`")
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
		assert.Contains(t, doc, "`otelcol_"+name+"`")
	}
}
