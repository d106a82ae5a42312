package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"
)

// contextIssue is a reason of the context_issues metric.
type contextIssue uint8

const (
	issueCap contextIssue = iota
	issueDefinitions
	issueSchema
	numContextIssues
)

var contextIssueNames = [numContextIssues]string{"context_cap", "invalid_tool_definitions", "invalid_tool_schema"}

// runContext turns the context captured for a run into what scorers read:
// definitions parsed (and their schemas compiled, once per distinct
// schema), with a note, a counter and a debug line for what could not be
// used. It returns an empty context when nothing was captured.
func (p *tcaProcessor) runContext(span ptrace.Span, c *trajectory.RunContext, counts *batchCounts) *scoring.RunContext {
	rc := &scoring.RunContext{}
	if c == nil {
		return rc
	}
	rc.Request, rc.Response = c.Request, c.Response
	issues := [numContextIssues]bool{}
	note := func(issue contextIssue, text string) {
		rc.Notes = append(rc.Notes, text)
		issues[issue] = true
		if ce := p.logger.Check(zap.DebugLevel, "run context not all used"); ce != nil {
			ce.Write(zap.Stringer("trace_id", span.TraceID()), zap.Stringer("span_id", span.SpanID()), zap.String("reason", text))
		}
	}
	if c.Cut > 0 {
		note(issueCap, fmt.Sprintf("run context over the %d-byte cap: %d bytes not kept", p.cfg.Limits.MaxContextBytes, c.Cut))
	}
	for _, text := range c.Definitions {
		defs, err := scoring.ParseToolDefinitions(text)
		if err != nil {
			note(issueDefinitions, "recorded tool definitions not all read: "+truncateNote(err.Error()))
		}
		for i := range defs {
			if defs[i].Parameters.IsUndefined() {
				continue
			}
			if _, err := scoring.CachedArgumentSchema(defs[i].Parameters); err != nil {
				note(issueSchema, fmt.Sprintf("the recorded schema of %q was not used: %s", defs[i].Name, truncateNote(err.Error())))
				defs[i].Parameters = scoring.Value{}
			}
		}
		rc.Tools.Add(defs...)
	}
	for i, on := range issues {
		if on {
			counts.context[i]++
		}
	}
	return rc
}

// truncateNote keeps a note short enough for an explanation.
func truncateNote(s string) string {
	const limit = 160
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}
