package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
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
// definitions parsed and their schemas compiled (once per distinct text,
// see definitionsCache), with a note, a counter and a debug line for what
// could not be used. It returns an empty context when nothing was captured.
// into, if not nil, is the memory the context is written in.
func (p *tcaProcessor) runContext(span ptrace.Span, c *trajectory.CapturedContext, counts *batchCounts, into *toolcall.RunContext) *toolcall.RunContext {
	rc := into
	if rc == nil {
		rc = &toolcall.RunContext{}
	} else {
		*rc = toolcall.RunContext{}
	}
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
	for i, text := range c.Definitions {
		read := p.definitions.get(text)
		for _, n := range read.notes {
			note(n.issue, n.text)
		}
		if i == 0 {
			rc.Tools = read.tools // shared, read-only: nothing adds to it
			continue
		}
		if i == 1 {
			rc.Tools = rc.Tools.Clone()
		}
		rc.Tools.Add(read.tools.All()...)
	}
	for i, on := range issues {
		if on {
			counts.context[i]++
		}
	}
	return rc
}

// readDefinitions parses one recorded definitions text and compiles its
// schemas; what could not be used is cleared and noted.
func readDefinitions(text string) definitionsRead {
	var read definitionsRead
	defs, err := toolcall.ParseToolDefinitions(text)
	if err != nil {
		read.notes = append(read.notes, contextNote{issueDefinitions, "recorded tool definitions not all read: " + truncateNote(err.Error())})
	}
	for i := range defs {
		if defs[i].Parameters.IsUndefined() {
			continue
		}
		sch, err := toolcall.CachedArgumentSchema(defs[i].Parameters)
		if err != nil {
			read.notes = append(read.notes, contextNote{issueSchema, fmt.Sprintf("the recorded schema of %q was not used: %s", defs[i].Name, truncateNote(err.Error()))})
			defs[i].Parameters = jsonv.Value{}
			continue
		}
		defs[i].Schema = sch
	}
	read.tools.Add(defs...)
	return read
}

// truncateNote keeps a note short enough for an explanation.
func truncateNote(s string) string {
	const limit = 160
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}
