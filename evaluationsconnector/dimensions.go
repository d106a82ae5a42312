package evaluationsconnector // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector"

import (
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// maxAttributeValueLength bounds, in bytes, every attribute value of a
// metric series (dimension values, evaluation names, labels, tool names):
// a series keeps at most this much of the span it was made from, however
// long the span's strings.
const maxAttributeValueLength = 256

// dimension is a configured dimension.
type dimension struct {
	name       string
	def        string
	hasDefault bool
}

func newDimensions(cfg []DimensionConfig) []dimension {
	dims := make([]dimension, len(cfg))
	for i, d := range cfg {
		dims[i] = dimension{name: d.Name}
		if d.Default != nil {
			dims[i].def, dims[i].hasDefault = metricValue(*d.Default), true
		}
	}
	return dims
}

// value returns the dimension's value for a span (its attributes span, its
// resource's res): the span's attribute, else the resource's, else the
// default; ok is false when there is none. fromSpan reports the span's.
func (d *dimension) value(span, res pcommon.Map) (v string, fromSpan, ok bool) {
	if a, found := span.Get(d.name); found {
		return metricValue(valueString(a)), true, true
	}
	if a, found := res.Get(d.name); found {
		return metricValue(valueString(a)), false, true
	}
	return d.def, false, d.hasDefault
}

// valueString is an attribute's value as text.
func valueString(v pcommon.Value) string {
	if v.Type() == pcommon.ValueTypeStr {
		return v.Str()
	}
	return v.AsString()
}

// metricValue returns s fit for a metric attribute: valid UTF-8 (exporters
// such as Prometheus reject anything else) and at most
// maxAttributeValueLength bytes. Short valid text, the usual case, is
// returned as it is, without allocating.
func metricValue(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return cut(s, maxAttributeValueLength)
}

// cut returns s cut to at most n bytes at a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ellipsis ends an explanation that was cut.
const ellipsis = "…"

// truncateExplanation returns s cut, when longer than n bytes, to at most
// n bytes at a character boundary, ending in "…"; cut reports it was.
func truncateExplanation(s string, n int) (out string, truncated bool) {
	if len(s) <= n {
		return s, false
	}
	if n <= len(ellipsis) {
		return cut(s, n), true
	}
	return cut(s, n-len(ellipsis)) + ellipsis, true
}
