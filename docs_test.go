package toolcallaccuracyprocessor

import (
	"io/fs"
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

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
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

// TestConventionsDoc keeps docs/conventions.md true to the code: its table
// has one row per convention the extractor defines; every trace file a row
// names exists, is marked captured or constructed as its name says, and
// yields a tool call of that row's convention; every trace file under
// testdata/traces is listed; every test the page names exists.
func TestConventionsDoc(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("docs", "conventions.md"))
	require.NoError(t, err)
	text := string(data)

	rows := docTableRows(t, text, "## The table")
	var want []string
	for _, c := range extract.Conventions() {
		want = append(want, c.String())
	}
	var got []string
	for _, row := range rows {
		got = append(got, firstCode(row))
	}
	assert.ElementsMatch(t, want, got, "docs/conventions.md rows against extract.Conventions()")

	opts := &extract.Options{SkipTools: extract.DefaultSkipTools()}
	for _, row := range rows {
		conv := firstCode(row)
		for _, m := range docTraceFile.FindAllStringSubmatch(row, -1) {
			file, kind := m[1], m[2]
			path := filepath.Join("testdata", "traces", file)
			if !assert.FileExists(t, path, "row %s", conv) {
				continue
			}
			assert.Equal(t, capturedByName(file), kind == "captured", "row %s: %s is marked %s", conv, file, kind)
			assert.Contains(t, toolConventions(t, path, opts), conv, "row %s: %s has no tool call of that convention", conv, file)
		}
		assert.Equal(t, len(docTracePath.FindAllString(row, -1)), len(docTraceFile.FindAllString(row, -1)),
			"row %s: every file is marked (captured) or (constructed)", conv)
	}

	for _, row := range docTableRows(t, text, "## Captures") {
		file := firstCode(row)
		if !assert.FileExists(t, filepath.Join("testdata", "traces", file)) {
			continue
		}
		kind := strings.TrimSpace(strings.Split(row, "|")[2])
		assert.Equal(t, capturedByName(file), strings.HasPrefix(kind, "captured"), "captures table: %s is marked %q", file, kind)
	}

	files, err := filepath.Glob(filepath.Join("testdata", "traces", "*", "*.json*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		rel := filepath.ToSlash(strings.TrimPrefix(f, filepath.Join("testdata", "traces")+string(filepath.Separator)))
		assert.Contains(t, text, "`"+rel+"`", "docs/conventions.md does not list %s", rel)
	}
	for _, p := range docTracePath.FindAllStringSubmatch(text, -1) {
		assert.FileExists(t, filepath.Join("testdata", "traces", p[1]))
	}

	tests := testFuncs(t)
	for _, m := range regexp.MustCompile("`((?:Test|Fuzz)[A-Z][A-Za-z0-9_]*)`").FindAllStringSubmatch(text, -1) {
		assert.True(t, tests[m[1]], "docs/conventions.md names %s, which no _test.go defines", m[1])
	}
}

var (
	// docTracePath is a trace file named in docs/conventions.md.
	docTracePath = regexp.MustCompile("`((?:captures|conventions|emitters)/[A-Za-z0-9._-]+)`")
	// docTraceFile is a trace file in a row of the table, with its mark.
	docTraceFile = regexp.MustCompile("`((?:captures|conventions|emitters)/[A-Za-z0-9._-]+)` \\((captured|constructed)\\)")
)

// capturedByName reports whether a trace file was exported by a running
// framework, as its name says: constructed files are named constructed-*,
// or sit in conventions/.
func capturedByName(file string) bool {
	return !strings.HasPrefix(file, "conventions/") && !strings.Contains(file, "constructed")
}

// docTableRows returns the rows of the table under heading, header and
// separator left out.
func docTableRows(t *testing.T, text, heading string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(text, "\n"+heading+"\n")
	require.True(t, ok, "no %q section", heading)
	if end := strings.Index(rest, "\n## "); end >= 0 {
		rest = rest[:end]
	}
	var rows []string
	for line := range strings.Lines(rest) {
		if strings.HasPrefix(line, "| `") {
			rows = append(rows, line)
		}
	}
	require.NotEmpty(t, rows, "no table under %q", heading)
	return rows
}

// firstCode returns the first `code` span of s.
func firstCode(s string) string {
	_, rest, _ := strings.Cut(s, "`")
	code, _, _ := strings.Cut(rest, "`")
	return code
}

// toolConventions returns the conventions of the tool calls in a trace file.
func toolConventions(t *testing.T, path string, opts *extract.Options) []string {
	var out []string
	for _, td := range readTraceFile(t, path) {
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, span := range ss.Spans().All() {
					if r := extract.Classify(span, ss.Scope(), opts); r.Kind == extract.KindTool && !slices.Contains(out, r.Call.Convention.String()) {
						out = append(out, r.Call.Convention.String())
					}
				}
			}
		}
	}
	return out
}

// testFuncs returns the names of the test and fuzz functions of the module.
func testFuncs(t *testing.T) map[string]bool {
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)[A-Z][A-Za-z0-9_]*)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
			out[m[1]] = true
		}
		return nil
	})
	require.NoError(t, err)
	return out
}
