package main

import (
	"strings"
	"sync"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/calltap"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// scoredCalls keeps the calls each run was scored on, as the processor's
// scorers received them (see calltap): the merged calls, requested-only
// calls included, each with its witnesses.
type scoredCalls struct {
	mu   sync.Mutex
	runs map[spanKey][]CallDetail
	// unselected are the calls of runs no rule selected.
	unselected map[spanKey][]CallDetail
}

// tap records a scored run's calls.
func (s *scoredCalls) tap(run calltap.Run) {
	details := make([]CallDetail, len(run.Scored))
	executed := 0
	for i := range run.Scored {
		c := &run.Scored[i]
		d := CallDetail{Tool: c.Name, ID: c.ID, Failed: c.Failed()}
		if c.Status == toolcall.StatusRefused || c.Status == toolcall.StatusUnknownTool {
			d.Status = c.Status.String()
		}
		if w := c.Witnesses.String(); w != "" {
			d.Witnesses = strings.Split(w, "+")
		}
		if fw := c.FailedWitnesses.String(); fw != "" {
			d.FailedWitnesses = strings.Split(fw, "+")
		}
		d.RequestedArguments, d.Note = c.RequestedArgs, c.Note
		switch {
		case c.ArgsUnknown:
			d.ArgumentsState = orText(c.ArgsNote, "unknown")
		case c.ArgsDoc != nil:
			d.ArgumentsState, d.Arguments = "known", c.ArgsDoc.Value().JSON()
		default:
			d.ArgumentsState, d.Arguments = "known", c.Args.JSON()
		}
		if c.Result.Kind() != jsonv.KindUndefined {
			d.Result = c.Result.JSON()
		}
		if c.Executed() && executed < len(run.Recorded) {
			rec := &run.Recorded[executed]
			d.SpanID, d.Convention = rec.Span.String(), rec.Convention.String()
			d.Failed = d.Failed || rec.Failed
			executed++
		}
		details[i] = d
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs == nil {
		s.runs, s.unselected = map[spanKey][]CallDetail{}, map[spanKey][]CallDetail{}
	}
	if run.Unselected {
		s.unselected[spanKey{run.Trace, run.Agent}] = details
		return
	}
	s.runs[spanKey{run.Trace, run.Agent}] = details
}

// attachUnselected lists in rep the runs of td that no rule selected, with
// their calls.
func (s *scoredCalls) attachUnselected(rep *Report, td ptrace.Traces) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.unselected) == 0 {
		return
	}
	for _, rs := range td.ResourceSpans().All() {
		service := strAttr(rs.Resource().Attributes(), "service.name")
		for _, ss := range rs.ScopeSpans().All() {
			for _, span := range ss.Spans().All() {
				calls, ok := s.unselected[spanKey{span.TraceID(), span.SpanID()}]
				if !ok {
					continue
				}
				rep.UnselectedRuns = append(rep.UnselectedRuns, Run{TraceID: span.TraceID().String(), SpanID: span.SpanID().String(),
					Service: service, AgentSpan: span.Name(), AgentName: strAttr(span.Attributes(), "gen_ai.agent.name"), Calls: calls, Rules: []RuleResult{}})
			}
		}
	}
	sortRuns(rep.UnselectedRuns)
}

// attach replaces the calls of rep's runs that were scored with the calls
// the scorers received.
func (s *scoredCalls) attach(rep *Report) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range rep.Runs {
		var k spanKey
		if hexInto(k.trace[:], rep.Runs[i].TraceID) != nil || hexInto(k.span[:], rep.Runs[i].SpanID) != nil {
			continue
		}
		if calls, ok := s.runs[k]; ok {
			rep.Runs[i].Calls = calls
		}
	}
}

func orText(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}
