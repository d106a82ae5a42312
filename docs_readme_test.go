package toolcallaccuracyprocessor

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"gopkg.in/yaml.v3"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgeclient"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadata"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

func readme(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("README.md")
	require.NoError(t, err)
	return string(data)
}

// tableAfter returns the rows of the first table after the line holding
// marker, header and separator left out, each as its cells.
func tableAfter(t *testing.T, text, marker string) [][]string {
	t.Helper()
	i := strings.Index(text, marker)
	require.GreaterOrEqual(t, i, 0, "README.md has no %q", marker)
	var rows [][]string
	inTable := false
	for line := range strings.Lines(text[i+len(marker):]) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		if inTable {
			cells := strings.Split(strings.Trim(line, "|"), " | ")
			if !strings.HasPrefix(cells[0], "---") {
				rows = append(rows, cells)
			}
		}
		inTable = true // the first row is the header
	}
	require.NotEmpty(t, rows, "no table after %q", marker)
	return rows
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// codes returns the `code` spans of s.
func codes(s string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// registeredScorers lists the scorer names a rule may use (not the test
// scorers this package's tests register).
func registeredScorers() []string {
	var names []string
	for _, n := range toolcall.ScorerNames() {
		if !strings.HasPrefix(n, "test_") {
			names = append(names, n)
		}
	}
	return names
}

// TestREADMEScorers: the README's scorer tables list every scorer a rule can
// name, and nothing else; the rule table's scorers[].name row names them all.
func TestREADMEScorers(t *testing.T) {
	text := readme(t)
	var listed []string
	for _, marker := range []string{"### Scorers\n", "### LLM judges\n"} {
		for _, row := range tableAfter(t, text, marker) {
			listed = append(listed, codes(row[0])...)
		}
	}
	assert.ElementsMatch(t, registeredScorers(), listed, "README's scorer tables against the registry")

	var nameRow string
	for _, row := range tableAfter(t, text, "**A rule:**") {
		if slices.Contains(codes(row[0]), "scorers[].name") {
			nameRow = strings.Join(row, "|")
		}
	}
	require.NotEmpty(t, nameRow)
	for _, name := range registeredScorers() {
		assert.Contains(t, nameRow, "`"+name+"`", "the scorers[].name row does not name %s", name)
	}
}

// TestREADMEConfigTables: the configuration tables have one row per key
// the processor reads (the processor's, a rule's, a judge section's), and
// no row for a key it does not.
func TestREADMEConfigTables(t *testing.T) {
	text := readme(t)
	check := func(marker string, want []string, inline map[string][]string) {
		t.Helper()
		var got []string
		for _, row := range tableAfter(t, text, marker) {
			keys := codes(row[0])
			got = append(got, keys...)
			for _, k := range keys {
				for _, sub := range inline[k] {
					assert.Contains(t, row[2], "`"+sub+"`", "%s: the %s row does not name %s", marker, k, sub)
				}
			}
		}
		assert.ElementsMatch(t, want, got, "rows of the table after %q", marker)
	}

	// The processor's own keys, limits.* and output.* as paths.
	var top []string
	for f := range reflect.TypeFor[Config]().Fields() {
		name := mapstructureName(f)
		if name == "" {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			for sub := range f.Type.Fields() {
				if n := mapstructureName(sub); n != "" {
					top = append(top, name+"."+n)
				}
			}
			continue
		}
		top = append(top, name)
	}
	check("## Configuration reference\n", top, nil)

	// A rule's keys: expect.* and expect.calls[].*, scorers[].*; a rule's
	// tools are named in their row.
	rule, inline := []string{}, map[string][]string{}
	for f := range reflect.TypeFor[RuleConfig]().Fields() {
		name := mapstructureName(f)
		switch {
		case name == "":
		case name == "expect":
			for e := range f.Type.Fields() {
				n := mapstructureName(e)
				if n == "" {
					continue
				}
				rule = append(rule, "expect."+n)
				if n == "calls" {
					for c := range e.Type.Elem().Fields() {
						if cn := mapstructureName(c); cn != "" {
							rule = append(rule, "expect.calls[]."+cn)
						}
					}
				}
			}
		case name == "scorers":
			rule = append(rule, name)
			for s := range f.Type.Elem().Fields() {
				if n := mapstructureName(s); n != "" {
					rule = append(rule, "scorers[]."+n)
				}
			}
		case name == "tools":
			rule = append(rule, name)
			for s := range f.Type.Elem().Fields() {
				if n := mapstructureName(s); n != "" {
					inline[name] = append(inline[name], n)
				}
			}
		default:
			rule = append(rule, name)
		}
	}
	check("**A rule:**", rule, inline)

	// A judge section: its limits, the client's keys, and the HTTP client
	// settings README names (confighttp has more; those are its own).
	judge := slices.Collect(func(yield func(string) bool) {
		for k := range judgeOwnKeys {
			if !yield(k) {
				return
			}
		}
	})
	for f := range reflect.TypeFor[judgeclient.Config]().Fields() {
		if n := mapstructureName(f); n != "" {
			judge = append(judge, n)
		}
	}
	judge = append(judge, "endpoint", "headers", "tls", "auth", "proxy_url", "timeout", "compression")
	check("| `judge` key |", judge, map[string][]string{"redact": {"pattern", "replacement"}})
}

// mapstructureName is a field's configuration key ("" when it has none).
func mapstructureName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
	if !f.IsExported() || name == "-" {
		return ""
	}
	return name
}

// quickStart returns the YAML block that follows marker in README.md.
func quickStart(t *testing.T, marker string) string {
	t.Helper()
	text := readme(t)
	_, rest, ok := strings.Cut(text, marker+"\n```yaml\n")
	require.True(t, ok, "README.md has no YAML block after %s", marker)
	block, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	return block
}

// TestREADMEQuickStartConfig: the quick start's configuration is complete
// (every component a pipeline names is configured, and is in the collector
// this repository builds) and the processor's section is valid, decoded and
// validated by the processor's factory as the collector does. The e2e test
// TestQuickStart runs it through otelcol validate and the collector itself.
func TestREADMEQuickStartConfig(t *testing.T) {
	var cfg struct {
		Receivers, Processors, Exporters map[string]any
		Service                          struct {
			Pipelines map[string]struct{ Receivers, Processors, Exporters []string }
		}
	}
	block := quickStart(t, "<!-- quick-start-config -->")
	require.NoError(t, yaml.Unmarshal([]byte(block), &cfg))
	require.NotEmpty(t, cfg.Service.Pipelines)

	built := builtComponents(t, "builder-config.yaml")
	fragment := builtComponents(t, "<!-- quick-start-ocb -->")
	for name, p := range cfg.Service.Pipelines {
		for kind, ids := range map[string][]string{"receivers": p.Receivers, "processors": p.Processors, "exporters": p.Exporters} {
			defined := map[string]map[string]any{"receivers": cfg.Receivers, "processors": cfg.Processors, "exporters": cfg.Exporters}[kind]
			for _, id := range ids {
				_, ok := defined[id]
				assert.True(t, ok, "pipeline %s names %s %q, which the configuration does not define", name, kind, id)
				typ, _, _ := strings.Cut(id, "/")
				assert.Contains(t, built[kind], typ, "%s %q is not in builder-config.yaml's collector", kind, typ)
				assert.Contains(t, fragment[kind], typ, "%s %q is not in README's ocb fragment", kind, typ)
			}
		}
		assert.Equal(t, []string{"memory_limiter", metadata.Type.String(), "batch"}, p.Processors, "pipeline %s", name)
	}

	retrieved, err := confmap.NewRetrievedFromYAML([]byte(block))
	require.NoError(t, err)
	conf, err := retrieved.AsConf()
	require.NoError(t, err)
	section, err := conf.Sub("processors::" + metadata.Type.String())
	require.NoError(t, err)
	pcfg := NewFactory().CreateDefaultConfig()
	require.NoError(t, section.Unmarshal(pcfg))
	require.NoError(t, confmap.Validate(pcfg))
	require.NotEmpty(t, pcfg.(*Config).Rules)
}

// TestREADMEConnectorConfig: the connector section's configuration, merged
// with the quick start's as README says, defines every component its
// pipelines name, and each is in README's two manifest fragments (it used
// exporters the fragments lacked, and an otlp exporter it never defined).
// make readme-check builds those fragments and validates the pair.
func TestREADMEConnectorConfig(t *testing.T) {
	type config struct {
		Receivers, Processors, Exporters, Connectors map[string]any
		Service                                      struct {
			Pipelines map[string]struct{ Receivers, Processors, Exporters []string }
		}
	}
	var quick, conn config
	require.NoError(t, yaml.Unmarshal([]byte(quickStart(t, "<!-- quick-start-config -->")), &quick))
	require.NoError(t, yaml.Unmarshal([]byte(quickStart(t, "<!-- connector-config -->")), &conn))
	require.NotEmpty(t, conn.Service.Pipelines)
	defined := func(kind, id string) bool {
		for _, c := range []config{quick, conn} {
			if _, ok := map[string]map[string]any{"receivers": c.Receivers, "processors": c.Processors, "exporters": c.Exporters, "connectors": c.Connectors}[kind][id]; ok {
				return true
			}
		}
		return false
	}
	fragments := map[string][]string{}
	for _, marker := range []string{"<!-- quick-start-ocb -->", "<!-- connector-ocb -->"} {
		for kind, types := range builtComponents(t, marker) {
			fragments[kind] = append(fragments[kind], types...)
		}
	}
	for name, p := range conn.Service.Pipelines {
		for kind, ids := range map[string][]string{"receivers": p.Receivers, "processors": p.Processors, "exporters": p.Exporters} {
			for _, id := range ids {
				typ, _, _ := strings.Cut(id, "/")
				if defined("connectors", id) && kind != "processors" {
					assert.Contains(t, fragments["connectors"], typ, "connector %q is not in README's ocb fragments", typ)
					continue
				}
				assert.True(t, defined(kind, id), "pipeline %s names %s %q, which neither configuration defines", name, kind, id)
				assert.Contains(t, fragments[kind], typ, "%s %q is not in README's ocb fragments", kind, typ)
			}
		}
	}
}

// builtComponents lists the component types of an ocb manifest by kind,
// read from their module paths: a file, or README's block after a marker.
func builtComponents(t *testing.T, manifestFile string) map[string][]string {
	var data []byte
	if strings.HasPrefix(manifestFile, "<!--") {
		data = []byte(quickStart(t, manifestFile))
	} else {
		var err error
		data, err = os.ReadFile(manifestFile)
		require.NoError(t, err)
	}
	type module struct{ Gomod, Import string }
	var manifest struct{ Receivers, Processors, Exporters, Connectors []module }
	require.NoError(t, yaml.Unmarshal(data, &manifest))
	kinds := map[string][]module{"receivers": manifest.Receivers, "processors": manifest.Processors, "exporters": manifest.Exporters, "connectors": manifest.Connectors}
	types := map[string]string{ // module path's last element -> component type
		"otlpreceiver": "otlp", "memorylimiterprocessor": "memory_limiter", "batchprocessor": "batch",
		"toolcallaccuracyprocessor": metadata.Type.String(), "debugexporter": "debug", "otlpexporter": "otlp_grpc",
		"otlphttpexporter": "otlp_http", "fileexporter": "file", "prometheusexporter": "prometheus",
		"evaluationsconnector": "evaluations",
	}
	out := map[string][]string{}
	for _, kind := range []string{"receivers", "processors", "exporters", "connectors"} {
		for _, c := range kinds[kind] {
			mod, _, _ := strings.Cut(c.Gomod, " ")
			if c.Import != "" {
				mod = c.Import
			}
			typ, ok := types[mod[strings.LastIndex(mod, "/")+1:]]
			require.True(t, ok, "%s: %s has no known component type", manifestFile, mod)
			out[kind] = append(out[kind], typ)
		}
	}
	return out
}

// TestREADMEQuickStartVersions: the ocb fragment and the versions README
// states are builder-config.yaml's.
func TestREADMEQuickStartVersions(t *testing.T) {
	data, err := os.ReadFile("builder-config.yaml")
	require.NoError(t, err)
	var manifest map[string]any
	require.NoError(t, yaml.Unmarshal(data, &manifest))
	versions := map[string]string{}
	for _, kind := range []string{"receivers", "processors", "exporters", "providers"} {
		list, _ := manifest[kind].([]any)
		for _, c := range list {
			mod, version, _ := strings.Cut(c.(map[string]any)["gomod"].(string), " ")
			versions[mod] = version
		}
	}
	for _, marker := range []string{"<!-- quick-start-ocb -->", "<!-- connector-ocb -->"} {
		var fragment map[string][]struct{ Gomod string }
		require.NoError(t, yaml.Unmarshal([]byte(quickStart(t, marker)), &fragment))
		require.NotEmpty(t, fragment)
		for kind, list := range fragment {
			for _, c := range list {
				mod, version, _ := strings.Cut(c.Gomod, " ")
				assert.Equal(t, versions[mod], version, "README's ocb fragment %s: %s %s", marker, kind, mod)
			}
		}
	}
	core := versions["go.opentelemetry.io/collector/confmap/provider/envprovider"]
	component := versions["go.opentelemetry.io/collector/receiver/otlpreceiver"]
	require.NotEmpty(t, core)
	assert.Contains(t, readme(t), fmt.Sprintf("collector core %s / %s", core, component))
	assert.Contains(t, readme(t), "ocb "+component)
	makefile, err := os.ReadFile("Makefile")
	require.NoError(t, err)
	assert.Contains(t, string(makefile), "OCB_VERSION := "+component, "ocb's version is the collector's")
}

// TestPerformanceDocCommands keeps docs/performance.md's commands runnable:
// every make target it names exists, every file under tools/, cmd/,
// testdata/ or e2e/ exists, and every -bench pattern names benchmarks that
// exist (each alternative the prefix of a Benchmark function's name).
func TestPerformanceDocCommands(t *testing.T) {
	for _, doc := range []string{"docs/performance.md", "README.md"} {
		data, err := os.ReadFile(doc)
		require.NoError(t, err)
		text := string(data)
		makefile, err := os.ReadFile("Makefile")
		require.NoError(t, err)
		for _, m := range regexp.MustCompile("`make ([a-z0-9-]+)`").FindAllStringSubmatch(text, -1) {
			assert.Regexp(t, "(?m)^"+regexp.QuoteMeta(m[1])+":", string(makefile), "%s names make %s, which the Makefile lacks", doc, m[1])
		}
		for _, m := range regexp.MustCompile(`\b((?:tools|cmd|testdata|e2e)/[A-Za-z0-9_./-]+\.(?:sh|yaml|go|jsonl))\b`).FindAllStringSubmatch(text, -1) {
			if !strings.Contains(m[1], "*") {
				assert.FileExists(t, m[1], "%s names it", doc)
			}
		}
		benchmarks := benchmarkFuncs(t)
		checked := 0
		for _, m := range regexp.MustCompile(`(?:^|\s)-bench '?([A-Za-z0-9_|/()$\\.-]+)'?`).FindAllStringSubmatch(text, -1) {
			for _, alt := range strings.Split(strings.Trim(m[1], "()"), "|") {
				alt, _, _ = strings.Cut(strings.Trim(alt, "()$\\"), "/")
				if alt == "" {
					continue
				}
				found := slices.ContainsFunc(benchmarks, func(b string) bool { return strings.HasPrefix(b, alt) })
				assert.True(t, found, "%s: -bench %s names no benchmark (%q)", doc, m[1], alt)
				checked++
			}
		}
		assert.Greater(t, checked, 5, "%s: the -bench patterns were not found", doc)
	}
}

// benchmarkFuncs lists the module's benchmark names, without "Benchmark".
func benchmarkFuncs(t *testing.T) []string {
	decl := regexp.MustCompile(`(?m)^func Benchmark([A-Za-z0-9_]+)\(`)
	var out []string
	for _, dir := range []string{".", "cmd/toolscore", "scoring", "internal/extract", "internal/trajectory"} {
		files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		require.NoError(t, err)
		for _, f := range files {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
				out = append(out, m[1])
			}
		}
	}
	return out
}
