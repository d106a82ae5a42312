package toolcall

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// ChecksName is the registered name of the reference-free checks scorer.
const ChecksName = "checks"

// The checks a call can fail, as Finding.Check names them.
const (
	CheckUndefinedTool     = "undefined_tool"
	CheckInvalidArguments  = "invalid_arguments"
	CheckRepeated          = "repeated"
	CheckUnrecoveredFailed = "unrecovered_failure"
	CheckOverBudget        = "over_budget"
	// The checks of how a call ended (Call.Status): refused by the user or
	// a policy, naming a tool the agent does not have, failed.
	CheckRefused     = "refused"
	CheckUnknownTool = "unknown_tool"
	CheckFailed      = "failed"
	// The checks of a call's witnesses (see Witnesses): what the model
	// requested and what ran disagree.
	CheckNotExecuted      = "requested_not_executed"
	CheckNotRequested     = "executed_not_requested"
	CheckArgumentsChanged = "arguments_changed"
	CheckMCPDisagreement  = "mcp_disagreement"
	CheckMCPOneSide       = "mcp_one_side"
)

// Finding is one check a call failed.
type Finding struct {
	// Call indexes the actual calls.
	Call int
	// Check is one of the Check* names.
	Check string
	// Detail says what was wrong ("/city: missing property").
	Detail string
}

// checks scores a run with no expected calls, against the tools the model
// was offered: a call to a tool that was not offered, arguments that break
// the tool's JSON Schema, the same call (name and arguments) repeated more
// than max_repeats times, a failed call never followed by a successful call
// to the same tool, calls past max_calls, and calls the agent reports it
// refused or could not run for want of the tool (refused_calls,
// unknown_tools; failed_calls adds every failed call). The score is the
// share of calls
// that failed no check. Calls whose arguments are unknown are not checked
// on their arguments, and never fail for them.
//
// When the run's calls carry witnesses (the processor pairs what the model
// requested with what ran), a call also fails when they disagree: requested
// but not executed, in a run whose other calls left tool spans (an app that
// runs its tools by hand leaves none; with what the app sent back, when
// recorded), executed
// with no request for it in a run whose requests were recorded, executed
// with arguments other than the requested ones, or MCP client and server
// spans that disagree on its outcome; with mcp_one_side, an MCP call seen
// by one side only.
//
// Definitions come from the rule's tools (configuration), the run's recorded
// definitions (RunContext) and the expectation's available_tools (names
// only); a configured definition wins over a recorded one of the same name.
// With no definitions at all, the definition checks are not evaluated.
type checks struct {
	threshold     float64
	undefined     bool
	schema        bool
	maxRepeats    int
	unrecovered   bool
	refused       bool
	unknownTools  bool
	failedCalls   bool
	maxCalls      int
	witnesses     bool
	mcpOneSide    bool
	configured    ToolDefinitions
	available     []string
	availableSet  map[string]bool
	configSchemas map[string]*ArgumentSchema
	// passed holds the explanations of runs that passed every check with
	// no note, once written (see passedExplanation).
	passed passedTexts
}

// maxPassedTable is the number of calls up to which a checks scorer keeps
// the explanations of runs that passed every check.
const maxPassedTable = 8

// passedTexts are the explanations of runs of up to maxPassedTable calls
// that passed every check with no note, by whether definitions were known,
// the number of calls and the number of those whose arguments were
// unknown: all that explainChecks writes of such a run. Each is written by
// explainChecks for the first such run; the slots are read and written
// without locks.
type passedTexts [2][maxPassedTable + 1][maxPassedTable + 1]atomic.Pointer[string]

func init() { Register(ChecksName, newChecks) }

func newChecks(s Settings) (Scorer, error) {
	r := NewOptionReader(ChecksName, s.Options)
	c := &checks{
		threshold:    s.Threshold,
		undefined:    r.Bool("undefined_tools", true),
		schema:       r.Bool("arguments_schema", true),
		maxRepeats:   r.Int("max_repeats", 3, 0, 1<<20),
		unrecovered:  r.Bool("unrecovered_failures", true),
		refused:      r.Bool("refused_calls", true),
		unknownTools: r.Bool("unknown_tools", true),
		failedCalls:  r.Bool("failed_calls", false),
		maxCalls:     r.Int("max_calls", 0, 0, 1<<20),
		witnesses:    r.Bool("witnesses", true),
		mcpOneSide:   r.Bool("mcp_one_side", false),
		available:    s.Expectation.AvailableTools,
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	c.configured.Add(s.Tools...)
	c.availableSet = make(map[string]bool, len(c.available))
	for _, n := range c.available {
		c.availableSet[n] = true
	}
	c.configSchemas = map[string]*ArgumentSchema{}
	for _, d := range c.configured.All() {
		if d.Parameters.IsUndefined() {
			continue
		}
		sch, err := CompileArgumentSchema(d.Parameters)
		if err != nil {
			return nil, fmt.Errorf("%s: tool %q: parameters: %w", ChecksName, d.Name, err)
		}
		c.configSchemas[d.Name] = sch
	}
	return c, nil
}

func (c *checks) Name() string { return ChecksName }

func (c *checks) Score(ctx context.Context, calls []Call) Result {
	return c.ScoreContext(ctx, calls, nil)
}

// ScoreContext runs the checks on a run's calls with its recorded context.
func (c *checks) ScoreContext(_ context.Context, calls []Call, run *RunContext) (res Result) {
	c.ScoreInto(calls, run, &res)
	return res
}

// ScoreInto is ScoreContext writing its result to res (see ScoreInto).
func (c *checks) ScoreInto(calls []Call, run *RunContext, res *Result) {
	*res = Result{Scorer: ChecksName, Threshold: c.threshold}
	if len(calls) == 0 {
		res.Outcome = OutcomeNotEvaluated
		res.Explanation = "no tool calls to check"
		return
	}
	defs := c.definitions(run)
	var findings []Finding
	var notes []string
	if c.undefined && defs.known {
		findings = c.checkUndefined(calls, &defs, res, findings)
	}
	if c.schema {
		findings, notes = c.checkSchemas(calls, &defs, findings, notes)
	}
	if c.maxRepeats > 0 {
		findings = c.checkRepeats(calls, findings)
	}
	if c.unrecovered {
		findings = checkUnrecovered(calls, findings)
	}
	findings = c.checkEnds(calls, findings)
	if c.maxCalls > 0 {
		findings = c.checkBudget(calls, findings)
	}
	if c.witnesses {
		findings = c.checkWitnesses(calls, findings)
	}
	slices.SortStableFunc(findings, func(a, b Finding) int { return cmp.Compare(a.Call, b.Call) })
	res.Breakdown.Findings = findings
	failed := failedCalls(findings)
	res.Score = float64(len(calls)-failed) / float64(len(calls))
	res.Decide()
	if run != nil && len(run.Notes) > 0 {
		notes = append(notes, run.Notes...)
	}
	if failed == 0 && len(notes) == 0 && len(calls) <= maxPassedTable {
		res.Explanation = c.passedExplanation(calls, &defs)
		return
	}
	res.Explanation = explainChecks(calls, findings, failed, &defs, notes)
}

// passedExplanation is explainChecks for a run of up to maxPassedTable
// calls that passed every check with no note, kept in c.passed.
func (c *checks) passedExplanation(calls []Call, defs *offered) string {
	unknown := 0
	for i := range calls {
		if calls[i].ArgsUnknown {
			unknown++
		}
	}
	known := 0
	if defs.known {
		known = 1
	}
	slot := &c.passed[known][len(calls)][unknown]
	if p := slot.Load(); p != nil {
		return *p
	}
	s := explainChecks(calls, nil, 0, defs, nil)
	slot.Store(&s)
	return s
}

// checkUndefined finds the calls of tools that were not offered, which
// are also the result's hallucinated calls.
func (c *checks) checkUndefined(calls []Call, defs *offered, res *Result, findings []Finding) []Finding {
	for i := range calls {
		if !defs.has(calls[i].Name) {
			findings = append(findings, Finding{Call: i, Check: CheckUndefinedTool, Detail: "tool " + quoteName(calls[i].Name) + " was not offered to the model"})
			res.Breakdown.Hallucinated = append(res.Breakdown.Hallucinated, i)
		}
	}
	return findings
}

// checkWitnesses finds the calls whose witnesses disagree (see checks).
func (c *checks) checkWitnesses(calls []Call, findings []Finding) []Finding {
	// A request or an execution is missing only in a run that records
	// them: an app that runs its tools by hand leaves no tool spans.
	requests, executed := false, false
	for i := range calls {
		requests = requests || calls[i].Witnesses&WitnessRequested != 0
		executed = executed || calls[i].Witnesses&executions != 0
	}
	for i := range calls {
		w, failed := calls[i].Witnesses, calls[i].FailedWitnesses
		if w == 0 {
			continue // the source recorded no witnesses
		}
		switch {
		case w&executions == 0 && executed:
			detail := "requested by the model, never executed"
			if n := calls[i].Note; n != "" {
				detail += "; the app answered " + strconv.Quote(n)
			}
			findings = append(findings, Finding{Call: i, Check: CheckNotExecuted, Detail: detail})
		case w&WitnessRequested == 0 && requests:
			findings = append(findings, Finding{Call: i, Check: CheckNotRequested, Detail: "executed, but no model request for it was recorded"})
		}
		if a := calls[i].RequestedArgs; a != "" {
			findings = append(findings, Finding{Call: i, Check: CheckArgumentsChanged, Detail: "executed with other arguments than the model requested (" + TruncateText(a, 120) + ")"})
		}
		agent := w&(WitnessExecuted|WitnessMCPClient) != 0
		server := w&WitnessMCPServer != 0
		switch {
		case agent && server && (failed&(WitnessExecuted|WitnessMCPClient) != 0) != (failed&WitnessMCPServer != 0):
			detail := "the MCP server reported a failure the client side did not"
			if failed&WitnessMCPServer == 0 {
				detail = "the client side reported a failure the MCP server did not"
			}
			findings = append(findings, Finding{Call: i, Check: CheckMCPDisagreement, Detail: detail})
		case c.mcpOneSide && w&WitnessMCPClient != 0 && !server:
			findings = append(findings, Finding{Call: i, Check: CheckMCPOneSide, Detail: "an MCP client span, and no server span"})
		case c.mcpOneSide && server && !agent:
			findings = append(findings, Finding{Call: i, Check: CheckMCPOneSide, Detail: "an MCP server span, and no client span"})
		}
	}
	return findings
}

// checkBudget finds the calls over the budget of calls per run.
func (c *checks) checkBudget(calls []Call, findings []Finding) []Finding {
	for i := c.maxCalls; i < len(calls); i++ {
		findings = append(findings, Finding{Call: i, Check: CheckOverBudget, Detail: fmt.Sprintf("call %d is over the budget of %d calls per run", i+1, c.maxCalls)})
	}
	return findings
}

// failedCalls counts the calls that have findings, findings being by call.
func failedCalls(findings []Finding) int {
	n := 0
	for i := range findings {
		if i == 0 || findings[i-1].Call != findings[i].Call {
			n++
		}
	}
	return n
}

// offered are the definitions a run's calls are checked against: the
// rule's configured ones, then the run's recorded ones (a configured
// definition wins over a recorded one of the same name), then the
// available tools (names only). It looks them up where they are held
// rather than gathering them per run.
type offered struct {
	// known reports that some definition or available tool is known.
	known      bool
	configured *ToolDefinitions
	recorded   *ToolDefinitions // nil without a run context
	available  map[string]bool
}

// offeredSchema is a definition's parameters schema, compiled when the
// definition came with it compiled.
type offeredSchema struct {
	value    jsonv.Value
	compiled *ArgumentSchema
}

func (o *offered) has(name string) bool {
	if o.configured.find(name) != nil || o.available[name] {
		return true
	}
	return o.recorded != nil && o.recorded.find(name) != nil
}

// schema returns the parameters schema of the tool's definition; ok is
// false when the tool has no definition or its definition no schema.
func (o *offered) schema(name string) (s offeredSchema, ok bool) {
	d := o.configured.find(name)
	if d == nil && o.recorded != nil {
		d = o.recorded.find(name)
	}
	if d == nil || d.Parameters.IsUndefined() {
		return offeredSchema{}, false
	}
	return offeredSchema{value: d.Parameters, compiled: d.Schema}, true
}

func (c *checks) definitions(run *RunContext) offered {
	o := offered{configured: &c.configured, available: c.availableSet}
	if run != nil {
		o.recorded = &run.Tools
	}
	o.known = c.configured.Len() > 0 || len(c.available) > 0 || (o.recorded != nil && o.recorded.Len() > 0)
	return o
}

func (c *checks) checkSchemas(calls []Call, defs *offered, findings []Finding, notes []string) ([]Finding, []string) {
	for i := range calls {
		call := &calls[i]
		if call.ArgsUnknown {
			continue
		}
		offer, ok := defs.schema(call.Name)
		if !ok {
			continue
		}
		var sch *ArgumentSchema
		if len(c.configSchemas) > 0 {
			sch = c.configSchemas[call.Name]
		}
		if sch == nil {
			sch = offer.compiled
		}
		if sch == nil {
			var err error
			if sch, err = CachedArgumentSchema(offer.value); err != nil {
				notes = append(notes, fmt.Sprintf("the recorded schema of %s was not used: %v", quoteName(call.Name), err))
				continue
			}
		}
		args := callArgs(call)
		if args.IsUndefined() {
			args = jsonv.Object() // called without arguments
		}
		if v := sch.Violations(args); len(v) > 0 {
			findings = append(findings, Finding{Call: i, Check: CheckInvalidArguments, Detail: "arguments break the schema: " + strings.Join(v, "; ")})
		}
	}
	return findings, notes
}

// callArgs returns a call's arguments as a tree.
func callArgs(c *Call) jsonv.Value {
	if c.ArgsDoc != nil {
		return c.ArgsDoc.Value()
	}
	return c.Args
}

// repeatScanLimit is the run length up to which checkRepeats compares the
// calls pairwise; longer runs count them in a map.
const repeatScanLimit = 32

// checkRepeats finds calls made more than maxRepeats times with the same
// name and arguments, arguments compared by their canonical JSON.
func (c *checks) checkRepeats(calls []Call, findings []Finding) []Finding {
	if len(calls) > repeatScanLimit {
		return c.countRepeats(calls, findings)
	}
	if !namesRepeat(calls) {
		return findings
	}
	return c.compareRepeats(calls, findings)
}

// namesRepeat reports whether two calls of known arguments have the same
// tool name, the only calls checkRepeats compares. Most runs have none,
// and their check keeps off the stack the buffers comparing takes.
func namesRepeat(calls []Call) bool {
	for i := range calls {
		if calls[i].ArgsUnknown {
			continue
		}
		for j := 0; j < i; j++ {
			if !calls[j].ArgsUnknown && calls[j].Name == calls[i].Name {
				return true
			}
		}
	}
	return false
}

// compareRepeats is checkRepeats for runs of up to repeatScanLimit calls,
// compared pairwise.
func (c *checks) compareRepeats(calls []Call, findings []Finding) []Finding {
	// The canonical JSON of each call's arguments, written into one
	// buffer when the call is first compared.
	var stack [256]byte
	buf := stack[:0]
	var at [repeatScanLimit]textSpan
	for i := range calls {
		if calls[i].ArgsUnknown {
			continue
		}
		n := 1
		for j := 0; j < i; j++ {
			if calls[j].ArgsUnknown || calls[j].Name != calls[i].Name {
				continue
			}
			buf = writeCanonical(buf, &at[i], &calls[i])
			buf = writeCanonical(buf, &at[j], &calls[j])
			if string(buf[at[i].start:at[i].end]) == string(buf[at[j].start:at[j].end]) {
				n++
			}
		}
		if n > c.maxRepeats {
			findings = append(findings, c.repeated(calls, i, n))
		}
	}
	return findings
}

// textSpan is where a text was written in a buffer; end 0 is not yet
// written (a canonical text is never empty).
type textSpan struct{ start, end int32 }

// writeCanonical appends the canonical JSON of the call's arguments to buf
// unless at says it is there already, and records where.
func writeCanonical(buf []byte, at *textSpan, call *Call) []byte {
	if at.end == 0 {
		args := callArgs(call)
		at.start = int32(len(buf))
		buf = appendCanonical(buf, &args)
		at.end = int32(len(buf))
	}
	return buf
}

// countRepeats is checkRepeats for long runs.
func (c *checks) countRepeats(calls []Call, findings []Finding) []Finding {
	seen := map[string]int{}
	var key []byte
	for i := range calls {
		if calls[i].ArgsUnknown {
			continue
		}
		key = append(append(key[:0], calls[i].Name...), 0)
		args := callArgs(&calls[i])
		key = appendCanonical(key, &args)
		n := seen[string(key)] + 1
		seen[string(key)] = n
		if n > c.maxRepeats {
			findings = append(findings, c.repeated(calls, i, n))
		}
	}
	return findings
}

func (c *checks) repeated(calls []Call, i, n int) Finding {
	return Finding{Call: i, Check: CheckRepeated, Detail: fmt.Sprintf("the same call to %s (same arguments) made %d times, over the limit of %d", quoteName(calls[i].Name), n, c.maxRepeats)}
}

// checkUnrecovered finds failed calls (refused and unknown-tool calls have
// checks of their own) never followed by a call to the same
// tool that did not fail. Short runs look ahead from each failed call;
// longer ones note, from the end, the tools that succeeded.
func checkUnrecovered(calls []Call, findings []Finding) []Finding {
	if len(calls) > repeatScanLimit {
		return checkUnrecoveredLong(calls, findings)
	}
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Status == StatusError && !succeedsLater(calls, i) {
			findings = append(findings, unrecovered(calls[i].Name, i))
		}
	}
	return findings
}

// succeedsLater reports a call after calls[i] to the same tool that did not
// fail.
func succeedsLater(calls []Call, i int) bool {
	for j := i + 1; j < len(calls); j++ {
		if !calls[j].Failed() && calls[j].Name == calls[i].Name {
			return true
		}
	}
	return false
}

// checkUnrecoveredLong is checkUnrecovered for long runs.
func checkUnrecoveredLong(calls []Call, findings []Finding) []Finding {
	recovered := map[string]bool{}
	for i := len(calls) - 1; i >= 0; i-- {
		name := calls[i].Name
		if !calls[i].Failed() {
			recovered[name] = true
			continue
		}
		if calls[i].Status == StatusError && !recovered[name] {
			findings = append(findings, unrecovered(name, i))
		}
	}
	return findings
}

// checkEnds finds the calls that were refused, that named a tool the agent
// does not have, and (failed_calls) every failed call, each as the agent
// reported it (Call.Status), whatever the tools offered.
func (c *checks) checkEnds(calls []Call, findings []Finding) []Finding {
	for i := range calls {
		switch st := calls[i].Status; {
		case st == StatusRefused && c.refused:
			findings = append(findings, Finding{Call: i, Check: CheckRefused, Detail: "refused by the user or a policy"})
		case st == StatusUnknownTool && c.unknownTools:
			findings = append(findings, Finding{Call: i, Check: CheckUnknownTool, Detail: "the agent has no tool " + quoteName(calls[i].Name)})
		case st == StatusError && c.failedCalls:
			findings = append(findings, Finding{Call: i, Check: CheckFailed, Detail: "failed"})
		}
	}
	return findings
}

func unrecovered(name string, i int) Finding {
	var stack [128]byte
	detail := append(append(append(stack[:0], "failed, and no later call to \""...), name...), "\" succeeded"...)
	return Finding{Call: i, Check: CheckUnrecoveredFailed, Detail: texts.intern(detail)}
}

// appendCanonical appends the JSON of a value with object keys sorted, so
// that the same arguments written in another order compare equal. Scalars
// are written as Value.JSON writes them, undefined as "undefined" wherever
// it is.
func appendCanonical(b []byte, v *jsonv.Value) []byte {
	switch v.Kind() {
	case jsonv.KindObject:
		var stack [16]string
		keys := stack[:0]
		for i := 0; i < len(v.Items()); i += 2 {
			keys = append(keys, v.Items()[i].Literal())
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonv.AppendJSONString(b, k)
			b = append(b, ':')
			m := v.GetPtr(k) // the first member of the key, as Get
			b = appendCanonical(b, m)
		}
		return append(b, '}')
	case jsonv.KindArray:
		b = append(b, '[')
		for i := range v.Items() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonical(b, &v.Items()[i])
		}
		return append(b, ']')
	}
	return v.AppendJSON(b)
}

func quoteName(s string) string { return "\"" + s + "\"" }

// noDefinitionsNote is added to the explanation of a run checked against
// no definitions.
const noDefinitionsNote = " (no tool definitions recorded or configured: undefined tools and schemas not checked)"

// explainChecks says which calls failed which checks, and what was not
// evaluated. Findings are by call. The text is written on the stack when it
// fits (or into a buffer of its final size) and interned: runs alike are
// explained alike, by one string.
func explainChecks(calls []Call, findings []Finding, failed int, defs *offered, notes []string) string {
	unknown := 0
	for i := range calls {
		if calls[i].ArgsUnknown {
			unknown++
		}
	}
	var stack [256]byte
	b := stack[:0]
	if size := explanationSize(calls, findings, failed, unknown, defs.known, notes); size > len(stack) {
		b = make([]byte, 0, size)
	}
	if failed == 0 {
		b = append(b, "all "...)
		b = strconv.AppendInt(b, int64(len(calls)), 10)
		b = append(b, " calls passed the checks"...)
	} else {
		b = strconv.AppendInt(b, int64(failed), 10)
		b = append(b, " of "...)
		b = strconv.AppendInt(b, int64(len(calls)), 10)
		b = append(b, " calls failed checks:"...)
		for i, f := range findings {
			if i > 0 && findings[i-1].Call == f.Call {
				// Another finding of the same call.
				b = append(b, ", and "...)
				b = append(b, f.Detail...)
				continue
			}
			if i > 0 {
				b = append(b, ';')
			}
			b = append(b, " call "...)
			b = strconv.AppendInt(b, int64(f.Call+1), 10)
			b = append(b, ' ')
			b = append(b, calls[f.Call].Name...)
			b = append(b, ": "...)
			b = append(b, f.Detail...)
		}
		b = append(b, ';')
	}
	if !defs.known {
		b = append(b, noDefinitionsNote...)
	}
	if unknown > 0 {
		b = append(b, " ("...)
		b = strconv.AppendInt(b, int64(unknown), 10)
		b = append(b, " calls with unknown arguments: their arguments were not checked)"...)
	}
	for _, n := range notes {
		b = append(b, " ("...)
		b = append(b, n...)
		b = append(b, ')')
	}
	return texts.intern(bytes.TrimSuffix(b, []byte(";")))
}

// explanationSize bounds the length of explainChecks' text closely, so
// that the text is written without growing its buffer.
func explanationSize(calls []Call, findings []Finding, failed, unknown int, known bool, notes []string) int {
	n := len("all  calls passed the checks") + digits(len(calls))
	if failed > 0 {
		n = len(" of  calls failed checks:;") + digits(failed) + digits(len(calls))
	}
	for i := range findings {
		f := &findings[i]
		n += len("; call : ") + digits(f.Call+1) + len(calls[f.Call].Name) + len(f.Detail)
	}
	if !known {
		n += len(noDefinitionsNote)
	}
	if unknown > 0 {
		n += len(" ( calls with unknown arguments: their arguments were not checked)") + digits(unknown)
	}
	for _, note := range notes {
		n += len(" ()") + len(note)
	}
	return n
}

// digits returns the number of decimal digits of n >= 0.
func digits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}
