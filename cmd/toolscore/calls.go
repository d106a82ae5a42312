package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// CallDetail is one tool call of a run as its tool span recorded it: what a
// check or a judge saw.
type CallDetail struct {
	Tool string `json:"tool"`
	// Arguments are the decoded arguments as JSON, when known.
	Arguments string `json:"arguments,omitempty"`
	// ArgumentsState says why arguments are missing ("known" when present).
	ArgumentsState string `json:"arguments_state"`
	// Result is the decoded result as JSON (wrappers removed), when recorded.
	Result     string `json:"result,omitempty"`
	Failed     bool   `json:"failed"`
	SpanID     string `json:"span_id"`
	Convention string `json:"convention"`
}

// attachCalls lists, on each run of rep, the tool calls recorded under its
// agent span in td: each tool span goes to its nearest scored ancestor; a
// tool span under another tool span is another record of that call and is
// not listed again; a call whose ancestors never arrived goes to its trace's
// only run, when there is one.
func attachCalls(rep *Report, td ptrace.Traces, skipTools []string) {
	type node struct {
		parent pcommon.SpanID
		tool   bool
	}
	type key struct {
		trace pcommon.TraceID
		span  pcommon.SpanID
	}
	nodes := map[key]node{}
	type toolSpan struct {
		trace pcommon.TraceID
		span  ptrace.Span
		call  extract.SpanCall
	}
	var tools []toolSpan
	opts := extract.Options{SkipTools: skipTools}
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, span := range ss.Spans().All() {
				res := extract.Classify(span, ss.Scope(), &opts)
				k := key{span.TraceID(), span.SpanID()}
				nodes[k] = node{parent: span.ParentSpanID(), tool: res.Kind == extract.KindTool}
				if res.Kind == extract.KindTool {
					tools = append(tools, toolSpan{trace: span.TraceID(), span: span, call: res.Call})
				}
			}
		}
	}
	runs := map[key]int{}
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
		runs[key{tid, sid}] = i
		runsOfTrace[tid] = append(runsOfTrace[tid], i)
	}
	for _, t := range tools {
		run, nested := -1, false
		at := t.span.ParentSpanID()
		for steps := 0; !at.IsEmpty() && steps < 64; steps++ {
			k := key{t.trace, at}
			if i, ok := runs[k]; ok {
				run = i
				break
			}
			n, ok := nodes[k]
			if !ok {
				break
			}
			if n.tool {
				nested = true
				break
			}
			at = n.parent
		}
		if nested {
			continue
		}
		if run < 0 {
			if list := runsOfTrace[t.trace]; len(list) == 1 {
				run = list[0]
			} else {
				continue
			}
		}
		rep.Runs[run].Calls = append(rep.Runs[run].Calls, callDetail(t.span, &t.call))
	}
}

func callDetail(span ptrace.Span, c *extract.SpanCall) CallDetail {
	d := CallDetail{Tool: c.Name, Failed: c.Failed, SpanID: span.SpanID().String(), Convention: c.Convention.String()}
	args, state := extract.DecodeArguments(c.Args, c.Encoding, extract.DecodeOptions{})
	d.ArgumentsState = state.String()
	if state == extract.ArgumentsKnown {
		d.ArgumentsState = "known"
		d.Arguments = args.JSON()
	}
	if c.Result != "" {
		if v, ok := extract.DecodeResult(c.Result, c.ResultForm); ok {
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
	for _, run := range rep.Runs {
		fmt.Fprintf(w, "  %s / %s (trace %s):\n", orDash(run.Service), run.AgentSpan, run.TraceID)
		if len(run.Calls) == 0 {
			fmt.Fprintln(w, "    (no tool spans)")
		}
		for i, c := range run.Calls {
			status := "ok"
			if c.Failed {
				status = "FAILED"
			}
			args := c.Arguments
			if c.ArgumentsState != "known" {
				args = "(" + c.ArgumentsState + ")"
			}
			fmt.Fprintf(w, "    %d. %s %s -> %s [%s]\n", i+1, c.Tool, clipText(args), clipText(orDash(c.Result)), status)
		}
	}
}

// clipText keeps a table cell short.
func clipText(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}
