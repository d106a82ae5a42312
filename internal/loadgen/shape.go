package loadgen

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// Shapes of the replayed runs (toolscore load -shape).
const (
	// ShapeFull replays each captured run as it is.
	ShapeFull = "full"
	// ShapeEndsOnTools replays each run without what came after its last
	// tool call: the model's last turn asks for tools and no model call
	// follows (a handoff, a return-direct tool, a run aborted after its
	// tools). Runs without tool spans are replayed as they are.
	ShapeEndsOnTools = "ends_on_tools"
	// ShapeAgentsAlone replays only each run's agent spans: runs that
	// recorded nothing below their agent span.
	ShapeAgentsAlone = "agents_alone"
)

// Shapes lists the shapes, for usage messages.
var Shapes = []string{ShapeFull, ShapeEndsOnTools, ShapeAgentsAlone}

// ShapeTemplates returns the templates reshaped (see the Shape constants).
func ShapeTemplates(templates []*Template, groups []SpanGroup, shape string) ([]*Template, error) {
	var keep func(t *Template) []templateSpan
	switch shape {
	case "", ShapeFull:
		return templates, nil
	case ShapeEndsOnTools:
		keep = func(t *Template) []templateSpan { return t.endingOnTools(groups) }
	case ShapeAgentsAlone:
		keep = func(t *Template) []templateSpan {
			var out []templateSpan
			for _, s := range t.spans {
				if s.agent {
					out = append(out, templateSpan{span: s.span, group: s.group, agent: true})
				}
			}
			return out
		}
	default:
		return nil, fmt.Errorf("shape %q: expected one of %v", shape, Shapes)
	}
	out := make([]*Template, 0, len(templates))
	for _, t := range templates {
		nt := &Template{name: t.name + " (" + shape + ")", traceID: t.traceID, index: map[pcommon.SpanID]int{}, spans: keep(t)}
		if len(nt.spans) == 0 {
			continue
		}
		if err := nt.finish(); err != nil {
			return nil, err
		}
		out = append(out, nt)
	}
	return out, nil
}

// endingOnTools returns the template's spans without those that started
// after its last tool span ended (and their descendants), agent spans
// kept.
func (t *Template) endingOnTools(groups []SpanGroup) []templateSpan {
	opts := extract.Options{SkipTools: extract.DefaultSkipTools()}
	var lastTool pcommon.Timestamp
	for _, s := range t.spans {
		if extract.Classify(s.span, groups[s.group].Scope, &opts).Kind == extract.KindTool {
			lastTool = max(lastTool, s.span.EndTimestamp())
		}
	}
	fresh := func(s templateSpan) templateSpan { return templateSpan{span: s.span, group: s.group, agent: s.agent} }
	if lastTool == 0 {
		out := make([]templateSpan, len(t.spans))
		for i, s := range t.spans {
			out[i] = fresh(s)
		}
		return out
	}
	dropped := map[pcommon.SpanID]bool{}
	for _, s := range t.spans {
		if !s.agent && s.span.StartTimestamp() >= lastTool {
			dropped[s.span.SpanID()] = true
		}
	}
	// Descendants of a dropped span go too.
	for changed := true; changed; {
		changed = false
		for _, s := range t.spans {
			if !dropped[s.span.SpanID()] && dropped[s.span.ParentSpanID()] {
				dropped[s.span.SpanID()], changed = true, true
			}
		}
	}
	var out []templateSpan
	for _, s := range t.spans {
		if !dropped[s.span.SpanID()] {
			out = append(out, fresh(s))
		}
	}
	return out
}

// Len returns the number of spans of one replay of the template.
func (t *Template) Len() int { return len(t.spans) }
