package toolcallaccuracyprocessor

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestREADMEMetricAttributeValues: README's metrics table gives each
// metric's attributes with their values in parentheses; every value it
// names is one metadata.yaml declares, and every declared value is named:
// on the metric's own row for an attribute only it has, on some row for an
// attribute several metrics share (reason). It caught incomplete_runs'
// resolution listed as (complete/deadline) without over_limit.
func TestREADMEMetricAttributeValues(t *testing.T) {
	meta, err := os.ReadFile("metadata.yaml")
	require.NoError(t, err)
	var md struct {
		Attributes map[string]struct {
			NameOverride string   `yaml:"name_override"`
			Enum         []string `yaml:"enum"`
		} `yaml:"attributes"`
		Telemetry struct {
			Metrics map[string]struct {
				Attributes []string `yaml:"attributes"`
			} `yaml:"metrics"`
		} `yaml:"telemetry"`
	}
	require.NoError(t, yaml.Unmarshal(meta, &md))
	rows := map[string]string{}
	for _, row := range tableAfter(t, readme(t), "## Metrics and alerts") {
		require.Len(t, row, 3, "metric, type, attributes")
		rows[strings.Trim(strings.TrimSpace(row[0]), "`")] = row[2]
	}
	named := map[string][]string{} // attribute -> values README names, over every row
	users := map[string]int{}      // attribute -> how many metrics have it
	for _, m := range md.Telemetry.Metrics {
		for _, attr := range m.Attributes {
			users[attr]++
		}
	}
	for metric, m := range md.Telemetry.Metrics {
		row, ok := rows["otelcol_"+metric]
		if !assert.True(t, ok, "README's metrics table has no row for otelcol_%s", metric) {
			continue
		}
		for _, attr := range m.Attributes {
			a := md.Attributes[attr]
			if len(a.Enum) == 0 {
				continue
			}
			shown := attr
			if a.NameOverride != "" {
				shown = a.NameOverride
			}
			values := attributeValues(row, shown)
			if !assert.NotNil(t, values, "otelcol_%s: README gives no values for %s", metric, shown) {
				continue
			}
			for _, v := range values {
				assert.Contains(t, a.Enum, v, "otelcol_%s: README names %s value %q, which metadata.yaml does not declare", metric, shown, v)
			}
			named[attr] = append(named[attr], values...)
			if users[attr] == 1 {
				assert.ElementsMatch(t, a.Enum, values, "otelcol_%s: README's %s values differ from metadata.yaml's", metric, shown)
			}
		}
	}
	for attr, n := range users {
		if n > 1 && len(md.Attributes[attr].Enum) > 0 {
			for _, v := range md.Attributes[attr].Enum {
				assert.Contains(t, named[attr], v, "README's metrics table names no metric with %s %q", attr, v)
			}
		}
	}
}

// attributeValues returns the values a metrics table cell gives for attr:
// "`attr` (a/b/c)" or, for a checks scorer's further statuses, every
// "label: x/y" group inside the parentheses; nil when none are given.
func attributeValues(cell, attr string) []string {
	m := regexp.MustCompile("`" + regexp.QuoteMeta(attr) + "` \\(([^)]*)\\)").FindStringSubmatch(cell)
	if m == nil {
		return nil
	}
	var out []string
	for _, group := range strings.Split(m[1], ";") {
		if _, after, ok := strings.Cut(group, ":"); ok {
			group = after
		}
		for _, v := range strings.Split(group, "/") {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}
