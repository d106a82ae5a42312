package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// CallDetail is one tool call of a run as the scorers saw it: its tool span's
// record, merged with the records of the tool spans under it.
type CallDetail struct {
	Tool string `json:"tool"`
	// ID is the call id the model assigned, when recorded.
	ID string `json:"id,omitempty"`
	// Witnesses are the records that saw the call: requested (the model's
	// response), executed (a tool span), mcp_client, mcp_server, outcome
	// (a later request carrying its result); FailedWitnesses those that
	// reported it failed.
	Witnesses       []string `json:"witnesses,omitempty"`
	FailedWitnesses []string `json:"failed_witnesses,omitempty"`
	// RequestedArguments are the arguments the model requested, when a
	// tool span executed the call with others.
	RequestedArguments string `json:"requested_arguments,omitempty"`
	// Note is what a witness recorded beyond the call: what the app
	// answered the model for a requested call no tool span executed.
	Note string `json:"note,omitempty"`
	// Arguments are the decoded arguments as JSON, when known.
	Arguments string `json:"arguments,omitempty"`
	// ArgumentsState says why arguments are missing ("known" when present).
	ArgumentsState string `json:"arguments_state"`
	// Result is the decoded result as JSON (wrappers removed), when recorded.
	Result string `json:"result,omitempty"`
	Failed bool   `json:"failed"`
	// Status says why a call that did not succeed did not: "refused" (by
	// the user or a policy) or "unknown_tool"; empty for other calls.
	Status     string `json:"status,omitempty"`
	SpanID     string `json:"span_id,omitempty"`
	Convention string `json:"convention,omitempty"`
	// Records are the log records that witnessed the call, each as
	// "file:line#record event (what)": what = requested, outcome, result
	// or decision (a request's history, which repeats earlier turns, is
	// left out).
	Records []string `json:"records,omitempty"`
}

// attachCalls lists, on each run of rep, the tool calls recorded under its
// agent span in td: each call goes to its nearest scored ancestor; the tool
// spans under a tool span are other records of that call (MCP client and
// server spans, a wrapper's inner span) and are merged into it as the
// processor merges them, so the call listed is the one the scorers saw; a
// call whose ancestors never arrived goes to its trace's only run, when
// there is one.
func attachCalls(rep *Report, td ptrace.Traces, skipTools []string) {
	nodes := map[spanKey]spanNode{}
	var tools []toolSpan
	opts := extract.Options{SkipTools: skipTools}
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, span := range ss.Spans().All() {
				res := extract.Classify(span, ss.Scope(), &opts)
				k := spanKey{span.TraceID(), span.SpanID()}
				nodes[k] = spanNode{parent: span.ParentSpanID(), tool: res.Kind == extract.KindTool}
				if res.Kind == extract.KindTool {
					tools = append(tools, toolSpan{trace: span.TraceID(), span: span, call: res.Call})
				}
				if res.Scheduled {
					// Calls that never ran have no span: each is listed
					// with the span that scheduled them (Gemini CLI).
					for _, c := range extract.UnexecutedCalls(span) {
						tools = append(tools, toolSpan{trace: span.TraceID(), span: span, call: c})
					}
				}
			}
		}
	}
	runs := map[spanKey]int{}
	runsOfTrace := map[pcommon.TraceID][]int{}
	for i := range rep.Runs {
		var tid pcommon.TraceID
		var sid pcommon.SpanID
		if err := hexInto(tid[:], rep.Runs[i].TraceID); err != nil {
			continue
		}
		if err := hexInto(sid[:], rep.Runs[i].SpanID); err != nil {
			continue
		}
		runs[spanKey{tid, sid}] = i
		runsOfTrace[tid] = append(runsOfTrace[tid], i)
	}
	for _, c := range groupRecords(tools, nodes) {
		run := -1
		at := c.outer.span.ParentSpanID()
		for steps := 0; !at.IsEmpty() && steps < maxWalk; steps++ {
			k := spanKey{c.outer.trace, at}
			if i, ok := runs[k]; ok {
				run = i
				break
			}
			n, ok := nodes[k]
			if !ok {
				break
			}
			at = n.parent
		}
		if run < 0 {
			if list := runsOfTrace[c.outer.trace]; len(list) == 1 {
				run = list[0]
			} else {
				continue
			}
		}
		rep.Runs[run].Calls = append(rep.Runs[run].Calls, c.detail())
	}
}

// maxWalk bounds a walk up a trace's parents, as the processor's does.
const maxWalk = 64

type spanKey struct {
	trace pcommon.TraceID
	span  pcommon.SpanID
}

type spanNode struct {
	parent pcommon.SpanID
	tool   bool
}

// toolSpan is a tool span and the call it records.
type toolSpan struct {
	trace pcommon.TraceID
	span  ptrace.Span
	call  extract.SpanCall
}

// callRecords are the records of one call: its outermost tool span, and the
// tool spans under it.
type callRecords struct {
	outer toolSpan
	inner []toolSpan
}

// groupRecords groups the tool spans by call, in the order the outer
// records appear: a tool span joins its outermost tool ancestor's call.
func groupRecords(tools []toolSpan, nodes map[spanKey]spanNode) []*callRecords {
	var calls []*callRecords
	byOuter := map[spanKey]*callRecords{}
	outerOf := func(t toolSpan) spanKey {
		outer := spanKey{t.trace, t.span.SpanID()}
		at := t.span.ParentSpanID()
		for steps := 0; !at.IsEmpty() && steps < maxWalk; steps++ {
			n, ok := nodes[spanKey{t.trace, at}]
			if !ok {
				break
			}
			if n.tool {
				outer = spanKey{t.trace, at}
			}
			at = n.parent
		}
		return outer
	}
	outers := make([]spanKey, len(tools))
	for i, t := range tools {
		outers[i] = outerOf(t)
		if self := (spanKey{t.trace, t.span.SpanID()}); outers[i] == self {
			c := &callRecords{outer: t}
			byOuter[self] = c
			calls = append(calls, c)
		}
	}
	for i, t := range tools {
		if c := byOuter[outers[i]]; c != nil && c.outer.span.SpanID() != t.span.SpanID() {
			c.inner = append(c.inner, t)
		}
	}
	return calls
}

// merged is the call the scorers saw: the outer record with what it lacks
// filled from the inner ones, as the processor's store merges them.
func (c *callRecords) merged() trajectory.StoredCall {
	call := trajectory.StoredCallOf(&c.outer.call)
	for i := range c.inner {
		in := trajectory.StoredCallOf(&c.inner[i].call)
		trajectory.MergeDuplicate(&call, &in)
	}
	return call
}

// detail is the call as a report lists it: the merged call, under its outer
// record's span id and convention.
func (c *callRecords) detail() CallDetail {
	m := c.merged()
	d := CallDetail{Tool: m.Name, Failed: m.Failed, SpanID: c.outer.span.SpanID().String(), Convention: m.Convention.String()}
	args, state := extract.DecodeArguments(m.Args, m.Encoding, extract.DecodeOptions{})
	d.ArgumentsState = state.String()
	if state == extract.ArgumentsKnown {
		d.ArgumentsState = "known"
		d.Arguments = args.JSON()
	}
	if m.Result != "" {
		if v, ok := extract.DecodeResult(m.Result, m.ResultForm); ok {
			d.Result = v.JSON()
		}
	}
	return d
}

func hexInto(dst []byte, s string) error {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(dst) {
		return fmt.Errorf("id %q: want %d hex digits", s, 2*len(dst))
	}
	copy(dst, b)
	return nil
}

// writeCalls prints each run's calls (the table's -calls section).
func (rep *Report) writeCalls(w io.Writer) {
	fmt.Fprintln(w, "\nCalls of each run:")
	for i, run := range append(rep.Runs[:len(rep.Runs):len(rep.Runs)], rep.UnselectedRuns...) {
		why := ""
		if i >= len(rep.Runs) {
			why = " not scored: no rule selects it"
		}
		fmt.Fprintf(w, "  %s / %s (trace %s):%s\n", orDash(run.Service), run.AgentSpan, run.TraceID, why)
		if len(run.Calls) == 0 {
			fmt.Fprintln(w, "    (no tool spans)")
		}
		for i, c := range run.Calls {
			status := "ok"
			switch {
			case c.Status != "":
				status = strings.ToUpper(c.Status)
			case c.Failed:
				status = "FAILED"
			}
			args := c.Arguments
			if c.ArgumentsState != "known" {
				args = "(" + c.ArgumentsState + ")"
			}
			fmt.Fprintf(w, "    %d. %s %s -> %s [%s]%s\n", i+1, c.Tool, clipText(args), clipText(orDash(c.Result)), status, c.witnessText())
		}
	}
}

// witnessText says who saw a call, and what they disagree on.
func (c *CallDetail) witnessText() string {
	if len(c.Witnesses) == 0 {
		return ""
	}
	s := "  seen by " + strings.Join(c.Witnesses, ", ")
	if c.ID != "" {
		s += " (id " + c.ID + ")"
	}
	if len(c.FailedWitnesses) > 0 {
		s += "; failed per " + strings.Join(c.FailedWitnesses, ", ")
	}
	if c.RequestedArguments != "" {
		s += "; requested with " + clipText(c.RequestedArguments)
	}
	if c.Note != "" {
		s += "; app answered " + clipText(c.Note)
	}
	if len(c.Records) > 0 {
		s += "; log records " + strings.Join(c.Records, ", ")
	}
	return s
}

// clipText keeps a table cell short.
func clipText(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}
