package main

import (
	"bytes"
	"cmp"
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

// traceBatches regroups the spans of docs into one batch per trace, in a
// canonical order that does not depend on the order of the files, of their
// lines or of the spans in them: traces by id, and within a trace the
// resource and scope groups by their smallest span id and their spans by
// end time, then span id. Each batch keeps the path and line of the first
// document that held the trace, for errors. The processor then sees each
// trace whole, as a batch processor in front of it delivers a run that
// ended: its verdicts are those of in-order delivery.
func traceBatches(docs []otlpjson.Doc) []otlpjson.Doc {
	type group struct {
		rs    ptrace.ResourceSpans
		ss    ptrace.ScopeSpans
		spans []ptrace.Span
	}
	type trace struct {
		id     pcommon.TraceID
		doc    otlpjson.Doc
		groups []*group
	}
	traces := map[pcommon.TraceID]*trace{}
	for _, d := range docs {
		for _, rs := range d.Traces.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				byTrace := map[pcommon.TraceID]*group{}
				for _, s := range ss.Spans().All() {
					t := traces[s.TraceID()]
					if t == nil {
						t = &trace{id: s.TraceID(), doc: d}
						traces[s.TraceID()] = t
					}
					g := byTrace[s.TraceID()]
					if g == nil {
						g = &group{rs: rs, ss: ss}
						byTrace[s.TraceID()] = g
						t.groups = append(t.groups, g)
					}
					g.spans = append(g.spans, s)
				}
			}
		}
	}
	ordered := make([]*trace, 0, len(traces))
	for _, t := range traces {
		ordered = append(ordered, t)
	}
	slices.SortFunc(ordered, func(a, b *trace) int { return bytes.Compare(a.id[:], b.id[:]) })
	out := make([]otlpjson.Doc, 0, len(ordered))
	for _, t := range ordered {
		for _, g := range t.groups {
			slices.SortFunc(g.spans, compareSpans)
		}
		slices.SortStableFunc(t.groups, func(a, b *group) int { return compareSpanIDs(smallestID(a.spans), smallestID(b.spans)) })
		td := ptrace.NewTraces()
		for _, g := range t.groups {
			nrs := td.ResourceSpans().AppendEmpty()
			g.rs.Resource().CopyTo(nrs.Resource())
			nrs.SetSchemaUrl(g.rs.SchemaUrl())
			nss := nrs.ScopeSpans().AppendEmpty()
			g.ss.Scope().CopyTo(nss.Scope())
			nss.SetSchemaUrl(g.ss.SchemaUrl())
			for _, s := range g.spans {
				s.CopyTo(nss.Spans().AppendEmpty())
			}
		}
		out = append(out, otlpjson.Doc{Path: t.doc.Path, Line: t.doc.Line, Traces: td})
	}
	return out
}

// compareSpans orders spans as they end, then by span id.
func compareSpans(a, b ptrace.Span) int {
	if c := cmp.Compare(a.EndTimestamp(), b.EndTimestamp()); c != 0 {
		return c
	}
	return compareSpanIDs(a.SpanID(), b.SpanID())
}

func compareSpanIDs(a, b pcommon.SpanID) int { return bytes.Compare(a[:], b[:]) }

func smallestID(spans []ptrace.Span) pcommon.SpanID {
	id := spans[0].SpanID()
	for _, s := range spans[1:] {
		if compareSpanIDs(s.SpanID(), id) < 0 {
			id = s.SpanID()
		}
	}
	return id
}
