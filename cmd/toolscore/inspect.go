package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.uber.org/zap"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadata"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

// runInspect says, per service, what the processor understood of the
// traces (runs, calls, their witnesses, whether content was captured) and
// lists everything that looks like a tool call but was not read, each with
// its reason and the setting or rule that would read it.
func runInspect(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("inspect", stderr)
	var configFiles configFlags
	fs.Var(&configFiles, "config", "collector or processor configuration `file` whose settings (skip_tools, local_roots, limits) to inspect with; its rules are not used")
	id := fs.String("processor", "", "processor `id` to use when the file configures several")
	files, err := parseArgs(fs, args)
	if err != nil {
		return 0, err
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "toolscore inspect: at least one trace file is required")
		fs.Usage()
		return 0, errUsage
	}
	cid := component.NewID(metadata.Type)
	cfg := toolcallaccuracyprocessor.NewFactory().CreateDefaultConfig().(*toolcallaccuracyprocessor.Config)
	if len(configFiles) > 0 {
		if cid, cfg, err = loadProcessorConfig(configFiles, *id); err != nil {
			return 0, err
		}
	}
	if err := inspectRules(cfg); err != nil {
		return 0, err
	}
	docs, logs, err := otlpjson.ReadSignals(files...)
	if err != nil {
		return 0, err
	}
	if otlpjson.SpanCount(docs) == 0 {
		return 0, fmt.Errorf("no spans in %s", strings.Join(files, ", "))
	}
	res, err := scoreOffline(context.Background(), cid, cfg, docs, logs, zap.NewNop())
	if err != nil {
		return 0, err
	}
	in := newInspection(docs, cfg.SkipTools, res.calls)
	in.write(stdout)
	if in.unexplained > 0 {
		return exitFailed, nil
	}
	return exitOK, nil
}

// inspectRules replaces cfg's rules with one that selects every run and
// scores it with the checks scorer, so that every run the processor
// assembles is tapped, whatever the user's rules select.
func inspectRules(cfg *toolcallaccuracyprocessor.Config) error {
	cfg.Rules = nil
	conf := confmap.NewFromStringMap(map[string]any{
		"rules": []any{map[string]any{"name": "inspect", "scorers": []any{"checks"}}},
	})
	if err := conf.Unmarshal(cfg); err != nil {
		return fmt.Errorf("inspect rule: %w", err)
	}
	return confmap.Validate(cfg)
}

// inspectedSpan is what inspect keeps of a span.
type inspectedSpan struct {
	key     spanKey
	parent  pcommon.SpanID
	name    string
	scope   string
	service string
	res     extract.Result
	// turn is read from a model call: whether it recorded requested calls
	// or results.
	requests, outcomes, recorded bool
}

// inspection is what inspect found, per service.
type inspection struct {
	services map[string]*serviceInspection
	// rawArgs are the argument texts tool spans recorded, by span id.
	rawArgs     map[string]string
	unexplained int
}

type serviceInspection struct {
	name                                  string
	spans, toolSpans, agentSpans          int
	modelCalls, modelRequests, modelEmpty int
	conventions                           map[string]int
	runs, calls, argsKnown, failed        int
	// unknownArgs are the calls without arguments, "tool\x00state".
	unknownArgs []string
	witnesses   map[string]int
	notRead     []finding
	byDesign    []finding
	scopes      map[string]bool
	// toolSets are spans whose names speak of tools in the plural (see
	// namedLikeTool), judged once the service's tool spans are counted.
	toolSets []*inspectedSpan
}

// finding is one thing inspect reports: what, why, and how to have it read.
type finding struct {
	what, why, fix string
	n              int
}

func newInspection(docs []otlpjson.Doc, skipTools []string, calls *scoredCalls) *inspection {
	in := &inspection{services: map[string]*serviceInspection{}, rawArgs: map[string]string{}}
	spans := map[spanKey]*inspectedSpan{}
	var order []*inspectedSpan
	opts := &extract.Options{SkipTools: skipTools}
	noSkip := &extract.Options{}
	for _, d := range docs {
		for _, rs := range d.Traces.ResourceSpans().All() {
			svc := "(no service.name)"
			if v, ok := rs.Resource().Attributes().Get("service.name"); ok {
				svc = v.AsString()
			}
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					is := &inspectedSpan{key: spanKey{s.TraceID(), s.SpanID()}, parent: s.ParentSpanID(), name: s.Name(), scope: ss.Scope().Name(), service: svc}
					if !extract.Ordinary(s) {
						is.res = extract.Classify(s, ss.Scope(), opts)
						if is.res.GenAI && is.res.Kind == extract.KindOther && !is.res.NamesTool {
							// A tool span that skip_tools names.
							if r := extract.Classify(s, ss.Scope(), noSkip); r.Kind == extract.KindTool {
								is.res.NamesTool = true
								is.res.Call.Name = r.Call.Name
							}
						}
					}
					if is.res.Kind == extract.KindTool && is.res.Call.Args != "" {
						in.rawArgs[s.SpanID().String()] = is.res.Call.Args
					}
					if is.res.ModelCall {
						var t extract.ModelTurn
						if extract.ReadTurn(s, &t) {
							is.requests = len(t.Requested()) > 0 || len(t.History()) > 0
							is.outcomes = len(t.Outcomes()) > 0
							is.recorded = true
						}
					}
					spans[is.key] = is
					order = append(order, is)
				}
			}
		}
	}
	runs := calls.snapshot()
	runTraces := map[pcommon.TraceID]bool{}
	for k := range runs {
		runTraces[k.trace] = true
	}
	for _, is := range order {
		si := in.service(is.service)
		si.spans++
		si.scopes[is.scope] = true
		switch {
		case is.res.Kind == extract.KindTool:
			si.toolSpans++
			si.conventions[is.res.Convention.String()]++
			in.toolRun(si, is, spans, runs)
		case is.res.Kind == extract.KindAgent:
			si.agentSpans++
			if _, ok := runs[is.key]; !ok {
				in.agentWithoutRun(si, is, spans, runs)
			}
		case is.res.ModelCall:
			si.modelCalls++
			if is.requests || is.outcomes {
				si.modelRequests++
			}
			if !is.recorded {
				si.modelEmpty++
			}
		case is.res.NamesTool:
			in.toolLike(si, is, opts)
		default:
			if looksLikeTool(is.name) {
				in.namedLikeTool(si, is)
			}
		}
	}
	for _, si := range in.services {
		in.judgeToolSets(si)
	}
	// Runs: the service of each run's span.
	for k, details := range runs {
		is := spans[k]
		if is == nil {
			continue
		}
		si := in.service(is.service)
		si.runs++
		for i := range details {
			in.call(si, &details[i], is)
		}
	}
	in.tracesWithoutRun(order, runTraces)
	for _, si := range in.services {
		si.explainUnknownArguments()
	}
	return in
}

// explainUnknownArguments explains the calls without arguments: content
// capture is off when no call of the service has any; otherwise these
// calls' records lacked them (a tool that raised before its span's
// attributes were set, positional arguments without names, a placeholder).
func (si *serviceInspection) explainUnknownArguments() {
	for _, u := range si.unknownArgs {
		tool, state, _ := strings.Cut(u, "\x00")
		f := finding{what: fmt.Sprintf("arguments of %s", tool)}
		if si.argsKnown == 0 {
			f.why = "not recorded by any witness (" + state + "): content capture is off"
			f.fix = contentSetting(si.scopes)
		} else {
			f.why = "not recorded by any witness of this call (" + state + "), though other calls' were: its span recorded none (a tool that raised before the span's attributes were set, positional arguments without names, a placeholder)"
			f.fix = "record the model calls' requested calls (content capture), which give the arguments when the tool span does not"
		}
		add(&si.notRead, f)
	}
}

func (in *inspection) service(name string) *serviceInspection {
	si := in.services[name]
	if si == nil {
		si = &serviceInspection{name: name, conventions: map[string]int{}, witnesses: map[string]int{}, scopes: map[string]bool{}}
		in.services[name] = si
	}
	return si
}

// add records a finding, counting repeats of the same one.
func add(list *[]finding, f finding) {
	for i := range *list {
		if (*list)[i].what == f.what && (*list)[i].why == f.why {
			(*list)[i].n++
			return
		}
	}
	f.n = 1
	*list = append(*list, f)
}

// looksLikeTool reports a span name that mentions a tool.
func looksLikeTool(name string) bool {
	return strings.Contains(strings.ToLower(name), "tool")
}

// toolLike explains a GenAI span whose attributes name a tool but that was
// not read as a call.
func (in *inspection) toolLike(si *serviceInspection, is *inspectedSpan, opts *extract.Options) {
	what := fmt.Sprintf("span %q", is.name)
	if is.res.Call.Name != "" {
		add(&si.byDesign, finding{what: what,
			why: fmt.Sprintf("skip_tools names its tool %q: a framework's internal span, not a call", is.res.Call.Name),
			fix: "remove the name from skip_tools if it is a tool the model called"})
		return
	}
	add(&si.notRead, finding{what: what,
		why: "its attributes name a tool, but it records neither the call's id, input nor output, and no convention claims it",
		fix: "record the call on the span (tool.call.id, input, output), or mark it gen_ai.operation.name=execute_tool with gen_ai.tool.name and gen_ai.tool.call.arguments"})
}

// namedLikeTool explains a span whose name mentions a tool but whose
// attributes name none.
func (in *inspection) namedLikeTool(si *serviceInspection, is *inspectedSpan) {
	what := fmt.Sprintf("span %q", is.name)
	switch {
	case strings.HasPrefix(is.name, "tools/list") || strings.HasPrefix(is.name, "list_tools"):
		add(&si.byDesign, finding{what: what, why: "lists the tools offered: not a call"})
	case is.res.GenAI:
		add(&si.byDesign, finding{what: what, why: "a GenAI span of its convention that is not a tool's (its name mentions tools; its attributes name none)"})
	case strings.Contains(strings.ToLower(is.name), "tools"):
		si.toolSets = append(si.toolSets, is)
	default:
		add(&si.notRead, finding{what: what,
			why: "its name mentions a tool, but no attribute names the tool",
			fix: "mark it gen_ai.operation.name=execute_tool with gen_ai.tool.name (or tool.name with input and output)"})
	}
}

// judgeToolSets explains the spans whose names speak of tools in the
// plural (Codex's add_shell_tools, append_mcp_tools; a LangGraph "tools"
// node): in a service whose tool spans were read they handle the set of
// tools, not a call; in one with none they may be all that records its
// calls, and are reported as not read.
func (in *inspection) judgeToolSets(si *serviceInspection) {
	for _, is := range si.toolSets {
		what := fmt.Sprintf("span %q", is.name)
		if si.toolSpans > 0 {
			add(&si.byDesign, finding{what: what, why: "names the set of tools, not one, in a service whose tool spans were read: not a call"})
			continue
		}
		add(&si.notRead, finding{what: what,
			why: "its name mentions tools, but no attribute names a tool, and no tool span of its service was read",
			fix: "mark each call's span gen_ai.operation.name=execute_tool with gen_ai.tool.name (or tool.name with input and output)"})
	}
	si.toolSets = nil
}

// agentWithoutRun explains an agent span under which no run was scored.
func (in *inspection) agentWithoutRun(si *serviceInspection, is *inspectedSpan, spans map[spanKey]*inspectedSpan, runs map[spanKey][]CallDetail) {
	what := fmt.Sprintf("agent span %q", is.name)
	for k := range runs {
		if k.trace == is.key.trace && k.span != is.key.span && descends(spans, k, is.key.span) {
			add(&si.byDesign, finding{what: what, why: "only wraps the runs of agents below it: not scored"})
			return
		}
	}
	add(&si.notRead, finding{what: what,
		why: "a run without calls: no tool span below it was read and no model call below it recorded a requested call",
		fix: "if its tools ran, see the spans listed above, or turn on its model calls' content capture"})
}

// toolRun explains a tool span whose call counts in a run of another
// service (an MCP server's span under its client's call), and counts one
// that no run holds as unexplained.
func (in *inspection) toolRun(si *serviceInspection, is *inspectedSpan, spans map[spanKey]*inspectedSpan, runs map[spanKey][]CallDetail) {
	k := is.key
	for range maxWalk {
		if _, ok := runs[k]; ok {
			if run := spans[k]; run != nil && run.service != si.name {
				add(&si.byDesign, finding{what: fmt.Sprintf("tool span %q", is.name),
					why: fmt.Sprintf("its call counts in the run of service %s (%q), beside the records of the same call there", run.service, run.name)})
			}
			return
		}
		s := spans[k]
		if s == nil {
			// A parent that was never exported: the store gives the call to
			// the trace's run.
			for rk := range runs {
				if rk.trace == k.trace {
					add(&si.byDesign, finding{what: fmt.Sprintf("tool span %q", is.name),
						why: fmt.Sprintf("its parent span %s was never exported: its call counts in the trace's run %q", k.span, spans[rk].name)})
					return
				}
			}
			break
		}
		if s.parent.IsEmpty() {
			break
		}
		k = spanKey{k.trace, s.parent}
	}
	in.unexplained++
	add(&si.notRead, finding{what: fmt.Sprintf("tool span %q", is.name),
		why: "UNEXPLAINED: read as a call, but no scored run holds it",
		fix: "report it: toolscore inspect has no rule for this"})
}

// descends reports whether span k has ancestor.
func descends(spans map[spanKey]*inspectedSpan, k spanKey, ancestor pcommon.SpanID) bool {
	for range maxWalk {
		s := spans[k]
		if s == nil || s.parent.IsEmpty() {
			return false
		}
		if s.parent == ancestor {
			return true
		}
		k = spanKey{k.trace, s.parent}
	}
	return false
}

// call adds a scored call to its service's figures and explains what was
// not read of it.
func (in *inspection) call(si *serviceInspection, d *CallDetail, run *inspectedSpan) {
	si.calls++
	for _, w := range d.Witnesses {
		si.witnesses[w]++
	}
	if d.Failed {
		si.failed++
	}
	if d.ArgumentsState == "known" {
		si.argsKnown++
		if d.Arguments != "" && !strings.HasPrefix(d.Arguments, "{") && d.Arguments != "null" {
			add(&si.notRead, finding{what: fmt.Sprintf("arguments of %s", d.Tool),
				why: "recorded as a bare value, and no model request recorded the object to pair it with",
				fix: "record the model calls' requested calls (the instrumentation's content capture)"})
		}
	} else {
		if raw := in.rawArgs[d.SpanID]; raw != "" && !redacted(raw) {
			add(&si.notRead, finding{what: fmt.Sprintf("arguments of %s", d.Tool),
				why: fmt.Sprintf("recorded as %s, which names no parameters or is a placeholder", clipText(raw)),
				fix: "record the arguments as a JSON object of named parameters (OpenLLMetry decorators: call the tool with keyword arguments)"})
		} else {
			si.unknownArgs = append(si.unknownArgs, d.Tool+"\x00"+d.ArgumentsState)
		}
	}
	if extract.IsWrapperToolName(d.Tool) {
		add(&si.notRead, finding{what: fmt.Sprintf("call named %s", d.Tool),
			why: "named after the class that wraps the tool, and no witness (a ToolMessage, the model's request, the entity path) names the tool",
			fix: "OpenLLMetry JS: run the tool in withTool, or record gen_ai.tool.name; record the model's requested calls"})
	}
}

// redacted reports an argument text an instrumentation writes in place of
// content it was told to hide.
func redacted(raw string) bool {
	switch strings.Trim(raw, `"`) {
	case "__REDACTED__", "<redacted>", "[REDACTED]", "REDACTED":
		return true
	}
	return false
}

// contentSetting names the setting that records content for the
// instrumentations the service's spans came from.
func contentSetting(scopes map[string]bool) string {
	var out []string
	for s := range scopes {
		switch {
		case strings.HasPrefix(s, "com.anthropic"):
			out = append(out, "ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content (Anthropic SDK)")
		case strings.HasPrefix(s, "@arizeai/openinference") || strings.HasPrefix(s, "openinference"):
			out = append(out, "unset OPENINFERENCE_HIDE_INPUTS and OPENINFERENCE_HIDE_OUTPUTS (OpenInference)")
		case strings.HasPrefix(s, "@traceloop") || strings.HasPrefix(s, "opentelemetry.instrumentation"):
			out = append(out, "TRACELOOP_TRACE_CONTENT=true (OpenLLMetry)")
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) == 0 {
		return "turn on the instrumentation's content capture (OTel GenAI instrumentations: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)"
	}
	return strings.Join(out, "; ")
}

// tracesWithoutRun explains traces with GenAI spans, or spans named like
// tools, in which no run was scored and no agent span was already
// explained.
func (in *inspection) tracesWithoutRun(order []*inspectedSpan, runTraces map[pcommon.TraceID]bool) {
	seen := map[pcommon.TraceID]bool{}
	for _, is := range order {
		t := is.key.trace
		if runTraces[t] || seen[t] || !(is.res.GenAI || looksLikeTool(is.name)) {
			continue
		}
		seen[t] = true
		si := in.service(is.service)
		agent := false
		for _, o := range order {
			if o.key.trace == t && o.res.Kind == extract.KindAgent {
				agent = true
			}
		}
		if agent {
			continue // its agent span is explained
		}
		f := finding{what: "trace " + t.String(),
			why: "GenAI spans but no run: no tool span was read and no model call recorded a requested call",
			fix: "see the spans listed above; with no agent span the run is the trace root's (local_roots: the local root's)"}
		if si.modelCalls > 0 && si.modelRequests == 0 {
			f.fix = "its model calls record no messages on the spans: turn on content capture, or, where the instrumentation writes them as log records, give toolscore inspect the log files too (and a collector the processor in its logs pipeline)"
		}
		add(&si.notRead, f)
	}
}

// write prints the inspection, services in name order.
func (in *inspection) write(w io.Writer) {
	names := make([]string, 0, len(in.services))
	for n := range in.services {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		si := in.services[n]
		fmt.Fprintf(w, "service %s: %d spans\n", si.name, si.spans)
		fmt.Fprintf(w, "  understood: runs %d, calls %d (failed %d, with arguments %d)\n", si.runs, si.calls, si.failed, si.argsKnown)
		fmt.Fprintf(w, "    tool spans read: %d%s; agent spans: %d\n", si.toolSpans, countsText(si.conventions), si.agentSpans)
		fmt.Fprintf(w, "    model calls: %d, %d recording requested calls or results\n", si.modelCalls, si.modelRequests)
		fmt.Fprintf(w, "    witnesses of the calls:%s\n", orText(countsText(si.witnesses), " none"))
		fmt.Fprintf(w, "    content capture: %s\n", contentState(si))
		if len(si.notRead) == 0 {
			fmt.Fprintln(w, "  not read: nothing")
		} else {
			fmt.Fprintln(w, "  not read:")
			for _, f := range si.notRead {
				fmt.Fprintf(w, "    - %s%s: %s\n      fix: %s\n", f.what, times(f.n), f.why, f.fix)
			}
		}
		if len(si.byDesign) > 0 {
			fmt.Fprintln(w, "  not calls, by design:")
			for _, f := range si.byDesign {
				fmt.Fprintf(w, "    - %s%s: %s\n", f.what, times(f.n), f.why)
				if f.fix != "" {
					fmt.Fprintf(w, "      to read it: %s\n", f.fix)
				}
			}
		}
	}
}

// contentState says whether a service's spans record content.
func contentState(si *serviceInspection) string {
	switch {
	case si.calls == 0 && si.modelCalls == 0:
		return "no calls or model calls to tell"
	case si.calls > 0 && si.argsKnown == 0 && si.modelRequests == 0:
		return "off (no call's arguments and no model call's messages recorded)"
	case si.calls == 0 && si.modelRequests == 0:
		return "off on the spans (no model call's messages recorded there; they may be log records)"
	case si.calls > si.argsKnown:
		return fmt.Sprintf("partial (%d of %d calls without arguments)", si.calls-si.argsKnown, si.calls)
	}
	return "on"
}

func times(n int) string {
	if n > 1 {
		return fmt.Sprintf(" (×%d)", n)
	}
	return ""
}

// countsText renders counts as " (a 2, b 1)", keys in order.
func countsText(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// snapshot returns the calls of every scored run, by trace and run span.
func (s *scoredCalls) snapshot() map[spanKey][]CallDetail {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[spanKey][]CallDetail, len(s.runs))
	for k, v := range s.runs {
		out[k] = v
	}
	return out
}
