package main

import (
	"strings"
	"sync"

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
		s.runs = map[spanKey][]CallDetail{}
	}
	s.runs[spanKey{run.Trace, run.Agent}] = details
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
