package trajectory

import (
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// CapturedContext is the context captured for an open run while its spans
// stream by: the tool definitions offered (each distinct text once), the
// request and the response, within a byte cap. Strings reference span
// attribute values, except text cut at the cap, which is copied.
type CapturedContext struct {
	// Definitions are the distinct definition texts recorded on the run's
	// model calls and agent span.
	Definitions []string
	// Request is the agent span's input, else the first model call's.
	Request string
	// Response is the agent span's output, else the last model call's.
	Response string
	// Bytes counts the text held; Cut the text not held because of the cap.
	Bytes, Cut int
	// reqStart and respEnd are the times of the model calls Request and
	// Response came from; fromAgent marks text from the agent span, which
	// model calls do not replace.
	reqStart, respEnd         uint64
	reqFromAgent, respFromAgt bool
}

// add merges what one span recorded, within maxBytes for the whole run.
func (c *CapturedContext) add(p *extract.ContextPart, agent bool, maxBytes int) {
	for _, d := range p.Definitions {
		if slices.Contains(c.Definitions, d) {
			continue
		}
		if c.Bytes+len(d) > maxBytes {
			c.Cut += len(d)
			continue
		}
		c.Definitions = append(c.Definitions, d)
		c.Bytes += len(d)
	}
	if p.Request != "" && (agent || (!c.reqFromAgent && (c.Request == "" || p.Start < c.reqStart))) {
		c.Request = c.keep(c.Request, p.Request, maxBytes)
		c.reqStart, c.reqFromAgent = p.Start, agent
	}
	if p.Response != "" && (agent || (!c.respFromAgt && (c.Response == "" || p.End > c.respEnd))) {
		c.Response = c.keep(c.Response, p.Response, maxBytes)
		c.respEnd, c.respFromAgt = p.End, agent
	}
}

// keep replaces old with text, cut to what the cap leaves.
func (c *CapturedContext) keep(old, text string, maxBytes int) string {
	c.Bytes -= len(old)
	room := maxBytes - c.Bytes
	if room <= 0 {
		c.Cut += len(text)
		return ""
	}
	if len(text) > room {
		c.Cut += len(text) - room
		text = strings.Clone(text[:room]) // do not pin the whole attribute
	}
	c.Bytes += len(text)
	return text
}

// merge adds a sub-span's context (a step's, an orphan group's).
func (c *CapturedContext) merge(o *CapturedContext, maxBytes int) {
	if o == nil {
		return
	}
	c.Cut += o.Cut
	p := extract.ContextPart{Definitions: o.Definitions, Request: o.Request, Response: o.Response, Start: o.reqStart, End: o.respEnd}
	c.add(&p, o.reqFromAgent || o.respFromAgt, maxBytes)
}

// AttachContext records what a span recorded of its run's context on the
// run that span belongs to: under (the run of) parent for a model call, or
// span itself for an agent span (call it before [Store.Agent]). Nothing is
// recorded when the store's context cap is 0.
func (s *Store) AttachContext(trace pcommon.TraceID, at pcommon.SpanID, part *extract.ContextPart, agent bool, now int64) {
	if s.limits.MaxContextBytes <= 0 || at.IsEmpty() || part.Empty() {
		return
	}
	n := s.openRunOf(s.trace(trace, now, true), at)
	if n == nil {
		return
	}
	if n.traj.Context == nil {
		n.traj.Context = &CapturedContext{}
	}
	n.traj.Context.add(part, agent, s.limits.MaxContextBytes)
}
