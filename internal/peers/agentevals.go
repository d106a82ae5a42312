package peers

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// AgentEvalsName is the registered name of the agentevals profile
// (createTrajectoryMatchEvaluator), documented on the agentevals type in
// agentevals.go.
const AgentEvalsName = "agentevals"

func init() { toolcall.Register(AgentEvalsName, newAgentEvals) }

// agentevals reproduces LangChain agentevals' createTrajectoryMatchEvaluator
// (JS, npm 0.0.7; js/src/trajectory/{match,strict,unordered,subset,superset,
// utils}.ts at git 946ad15b). Boolean result, stored as 1 or 0.
//
// Options (the peer's, in snake_case):
//
//	trajectory_match_mode      strict (default) | unordered | subset | superset
//	tool_args_match_mode       exact (default) | ignore | subset | superset; any other string acts as
//	                           ignore, as in agentevals
//	tool_args_match_overrides  per tool name: a mode string; a list of dotted key paths (deepEqual on
//	                           those paths only); or a comparator {when_reference: {path: matcher},
//	                           actual: {path: matcher}} standing in for a JS function (see below)
//
// Argument matchers m(x, y), where agentevals passes (output args,
// reference args) except where noted:
//
//	exact     deepEqual(x, y): null and undefined equal as whole values; ===; arrays by position; objects
//	          by key set (order irrelevant); an array equals an object with the same index keys
//	ignore    true
//	subset    every top-level key of x is in y with a deepEqual value (x ⊆ y)
//	superset  every top-level key of y is in x with a deepEqual value (x ⊇ y)
//	paths     deepEqual(get(x, p), get(y, p)) for every path (get walks "a.b.0"; a missing step reads undefined)
//
// Modes:
//
//	strict:    same number of messages; per index the same role, both with or both without tool calls,
//	           the same number of calls, and each output call takes the first unused reference call of
//	           the same name whose arguments match (calls within one message in any order)
//	superset:  each reference call (all messages flattened) takes the first unused output call of the
//	           same name with m(output, reference)
//	subset:    superset with the lists swapped, so m is called as m(REFERENCE, OUTPUT)
//	unordered: superset && subset (multiset equality)
//
// Quirks reproduced (each has a test case):
//
//   - Strict fails when the same calls are split over two messages instead
//     of one, and when an extra text-only assistant message appears.
//   - The argument roles swap in subset mode (and in unordered's second
//     pass): tool_args_match_mode superset in subset mode means
//     reference ⊇ output, and a comparator's roles swap too.
//   - In unordered mode the subset and superset argument modes both demand
//     equal top-level keys (the two passes together).
//   - Greedy first fit, no backtracking: out [f{a,b}, f{a}] vs ref
//     [f{a}, f{a,b}] fails superset with superset args although a matching
//     exists.
//   - 5 is not "5"; [] equals {}; [1] equals {"0": 1}; {a: null} is not {}.
//   - subset and superset argument modes throw a TypeError on null,
//     undefined or string arguments (an error result here).
//   - Raw function.arguments text that JSON.parse rejects throws SyntaxError
//     (an error result), even when arguments are ignored: in superset,
//     subset and unordered mode whatever call of either trajectory holds it
//     (every call is parsed when the calls are extracted), in strict mode
//     only when an output call meets an unused reference call of its name
//     (both are parsed, the output's first, before the matcher runs).
//   - Outside strict mode a flat call without args has undefined arguments:
//     exact matches them only with null or undefined arguments, subset and
//     superset throw when they must read them, key paths read undefined.
//   - A comparator that reads a member of null or undefined arguments
//     throws TypeError, as the JavaScript function does (args.query).
//   - With any overrides object, a tool named toString or constructor
//     always matches and valueOf, hasOwnProperty, isPrototypeOf,
//     propertyIsEnumerable, toLocaleString and the __define/__lookup
//     accessors throw (JavaScript's "name in overrides" sees
//     Object.prototype).
//   - Empty vs empty is true in every mode.
//
// Comparators: JavaScript functions cannot be configured, so an override may
// be {when_reference: {<path>: <matcher>}, actual: {<path>: <matcher>}}
// (matchers in ParseMatcher's form): when every when_reference matcher
// accepts the SECOND argument at its path (omitted: always), every actual
// matcher must accept the FIRST argument at its path; otherwise the
// comparator returns true. Matchers run in path order and stop at the first
// that decides; one whose path reads a member of null or undefined
// arguments throws TypeError ("Cannot read properties of null (reading
// 'query')"), as a function reading args.query does (a "$" path reads the
// whole value and never throws). The comparator is called exactly as
// agentevals calls a custom function, (output, reference) in strict and
// superset mode and in unordered's first pass but (reference, output) in
// subset mode and in unordered's second pass, so "actual" then applies to
// the reference call.
// The upstream example "if the reference query mentions upgrade, the output
// query must too" is {when_reference: {query: {contains: upgrade}}, actual:
// {query: {contains: upgrade}}}.
//
// Messages (strict mode): the output trajectory is rebuilt from the calls:
// tool calls that share a Turn form one assistant message with tool calls
// (calls of a turn must be contiguous; a turn interrupted by other steps
// yields two messages); when turn information is missing on either side
// (every Turn is 0), each call is its own assistant message on both sides.
// Steps with StepType "message" are messages without tool calls whose role
// is their Name ("user", "tool", "assistant" for a text-only reply,
// "system"); such a step whose Fields hold "tool_calls" (an empty array) is
// a message with an empty tool_calls list. Expected calls are turned into
// the reference the same way (ExpectedCall.Turn, StepType "message"). Other
// step types are skipped and nested children are flattened depth-first.
// Message content is never compared, as in agentevals. A call whose Fields
// hold tool_call_format: "flat" was given in LangChain's flat {name, args}
// form: strict mode reads only function.name and function.arguments, so it
// sees such a call as nameless with {} arguments (any two flat calls match,
// a flat call never matches an OpenAI-format one); the other modes read it
// normally, so there a flat call without Args has undefined arguments. A
// call in OpenAI form whose Fields hold "arguments" as a string carries the
// raw function.arguments text: its arguments are that text parsed as
// JSON.parse does (Args and ArgsUnknown are then not read), and text that
// does not parse throws SyntaxError where agentevals parses it (see the
// quirks); a flat call's "arguments" field is not read. A call's Fields
// "role" is the role of the message carrying it ("assistant" when absent),
// which strict mode compares as a raw string.
//
// Expectation mapping: expected calls are the reference trajectory (name,
// Args as the arguments; absent arguments read as {} like a missing
// "arguments" string, except on a flat call, whose missing args stay
// undefined outside strict mode; Fields "arguments" as for actual calls).
// Order exact maps to strict, in_order to superset, any to unordered when
// extra_calls is "fail" and to superset otherwise, unless
// trajectory_match_mode is given. Path matchers, optional calls,
// must_succeed and forbidden tools are rejected (use
// tool_args_match_overrides). Calls with unknown arguments make the result
// an error when a matcher other than ignore must compare them.
//
// Reference vs source notes (the notes win): strict mode reads only the
// OpenAI function.name and function.arguments (flat calls all match each
// other there); deepEqual treats [] as {} and [1] as {"0": 1}; unknown
// tool_args_match_mode strings act as ignore and overrides that are not a
// string, function or list are ignored; "name in overrides" sees
// Object.prototype; subset and superset matchers throw TypeError on null,
// undefined or string arguments; null equals undefined only as a whole
// value, not as a member ({a: null} is not {}); function.arguments is
// JSON.parsed (SyntaxError on invalid text, in strict mode lazily per
// compared pair); outside strict mode a flat call's args are read as they
// are (undefined when absent).
//
// Details: key ("trajectory_<mode>_match") and score (the boolean).
type agentevals struct {
	mode      string
	argsMode  string
	overrides map[string]*aeMatcher // nil: option not given
	threshold float64
	// omitDetails: Settings.OmitDetails.
	omitDetails bool
	expected    []toolcall.ExpectedCall
	// refTurns and refCalls are the reference trajectory built with and
	// without turn grouping; expectedTurns reports whether any expected
	// call has a turn.
	refTurns, refCalls aeTrajectory
	expectedTurns      bool
}

var _ toolcall.Scorer = (*agentevals)(nil)

// aeMatcher is an argument matcher.
type aeMatcher struct {
	kind  string // exact, ignore, subset, superset, paths, comparator, always, throws
	paths []string
	when  []aePathMatcher
	want  []aePathMatcher
	what  string // for throws: the builtin's name
}

type aePathMatcher struct {
	path jsonv.Path
	m    toolcall.Matcher
}

var aeModeMatchers = map[string]*aeMatcher{
	"exact":    {kind: "exact"},
	"ignore":   {kind: "ignore"},
	"subset":   {kind: "subset"},
	"superset": {kind: "superset"},
}

func aeModeMatcher(mode string) *aeMatcher {
	if m, ok := aeModeMatchers[mode]; ok {
		return m
	}
	return aeModeMatchers["ignore"]
}

// aeObjectPrototype lists the Object.prototype members "name in overrides"
// finds, with what calling them as a matcher does.
var aeObjectPrototype = map[string]*aeMatcher{
	"toString":             {kind: "always"},
	"constructor":          {kind: "always"},
	"valueOf":              {kind: "throws", what: "valueOf"},
	"hasOwnProperty":       {kind: "throws", what: "hasOwnProperty"},
	"isPrototypeOf":        {kind: "throws", what: "isPrototypeOf"},
	"propertyIsEnumerable": {kind: "throws", what: "propertyIsEnumerable"},
	"toLocaleString":       {kind: "throws", what: "toLocaleString"},
	"__defineGetter__":     {kind: "throws", what: "__defineGetter__"},
	"__defineSetter__":     {kind: "throws", what: "__defineSetter__"},
	"__lookupGetter__":     {kind: "throws", what: "__lookupGetter__"},
	"__lookupSetter__":     {kind: "throws", what: "__lookupSetter__"},
}

func newAgentEvals(s toolcall.Settings) (toolcall.Scorer, error) {
	r := toolcall.NewOptionReader(AgentEvalsName, s.Options)
	a := &agentevals{threshold: s.Threshold, omitDetails: s.OmitDetails}
	_, hasMode := r.Opts["trajectory_match_mode"]
	a.mode = r.String("trajectory_match_mode", "strict")
	a.argsMode = r.String("tool_args_match_mode", "exact")
	// JS default parameters replace undefined only: an explicit null is a
	// mode of its own (invalid for the trajectory, "ignore" for arguments).
	if x, ok := r.Opts["trajectory_match_mode"]; ok && x == nil {
		a.mode = "null"
	}
	if x, ok := r.Opts["tool_args_match_mode"]; ok && x == nil {
		a.argsMode = "null"
	}
	if x, ok := r.Raw("tool_args_match_overrides"); ok {
		m, isMap := x.(map[string]any)
		if !isMap {
			r.Fail("tool_args_match_overrides", "expects a map from tool name to override, got %s", toolcall.DescribeOperand(x))
		} else {
			a.overrides = make(map[string]*aeMatcher, len(m))
			for _, tool := range sortedKeys(m) {
				am, err := parseAEOverride(m[tool])
				if err != nil {
					r.Fail("tool_args_match_overrides", "%s: %v", tool, err)
					continue
				}
				if am == nil {
					am = &aeMatcher{kind: "default"}
				}
				a.overrides[tool] = am
			}
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	switch a.mode {
	case "strict", "unordered", "subset", "superset":
	default:
		return nil, fmt.Errorf("agentevals: Invalid trajectory match type: %s", a.mode)
	}
	e := s.Expectation
	if err := CheckPeerExpectation(AgentEvalsName, e, PeerFeatures{}); err != nil {
		return nil, err
	}
	if !hasMode {
		switch e.Order {
		case toolcall.OrderExact:
			a.mode = "strict"
		case toolcall.OrderInOrder:
			a.mode = "superset"
		case toolcall.OrderAny:
			a.mode = "superset"
			if e.ExtraCalls == toolcall.ExtraFail {
				a.mode = "unordered"
			}
		}
	}
	a.expected = e.Calls
	for i := range a.expected {
		if a.expected[i].StepType != StepMessage && a.expected[i].Turn != 0 {
			a.expectedTurns = true
		}
	}
	a.refTurns = a.buildReference(true)
	a.refCalls = a.buildReference(false)
	return a, nil
}

func (a *agentevals) buildReference(useTurns bool) aeTrajectory {
	var ref aeTrajectory
	turn := -1
	for i := range a.expected {
		e := &a.expected[i]
		if e.StepType == StepMessage {
			ref.add(aeStep{message: true, name: e.Name, emptyTCs: hasEmptyToolCalls(e.Fields)}, useTurns, &turn, i)
			continue
		}
		s := aeCallStep(e.Name, e.Args, false, e.Turn, e.Fields)
		s.reference = true
		ref.add(s, useTurns, &turn, i)
	}
	return ref
}

func parseAEOverride(x any) (*aeMatcher, error) {
	switch t := x.(type) {
	case string:
		return aeModeMatcher(t), nil
	case []any:
		m := &aeMatcher{kind: "paths"}
		for i, p := range t {
			s, ok := p.(string)
			if !ok {
				return nil, fmt.Errorf("[%d]: expects a dotted key path, got %s", i, toolcall.DescribeOperand(p))
			}
			m.paths = append(m.paths, s)
		}
		return m, nil
	case []string:
		return &aeMatcher{kind: "paths", paths: t}, nil
	case map[string]any:
		m := &aeMatcher{kind: "comparator"}
		for _, k := range sortedKeys(t) {
			var dst *[]aePathMatcher
			switch k {
			case "when_reference":
				dst = &m.when
			case "actual":
				dst = &m.want
			default:
				return nil, fmt.Errorf("unknown comparator key %q, expected \"when_reference\" or \"actual\"", k)
			}
			specs, ok := t[k].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: expects a map from argument path to matcher, got %s", k, toolcall.DescribeOperand(t[k]))
			}
			for _, p := range sortedKeys(specs) {
				path, err := jsonv.ParsePath(p)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", k, err)
				}
				for _, seg := range path.Segs {
					if seg.Wildcard {
						return nil, fmt.Errorf("%s: path %q: [*] is not supported in a comparator", k, p)
					}
				}
				matcher, err := toolcall.ParseMatcher(specs[p], toolcall.MatcherOptions{})
				if err != nil {
					return nil, fmt.Errorf("%s[%q]: %w", k, p, err)
				}
				*dst = append(*dst, aePathMatcher{path: path, m: matcher})
			}
		}
		return m, nil
	}
	switch x.(type) {
	case nil, bool, float64, int, int64:
		// agentevals ignores an override that is not a string, a function
		// or an array: the default matcher applies.
		return nil, nil
	}
	return nil, fmt.Errorf("expects a mode string, a list of key paths or a comparator map, got %s", toolcall.DescribeOperand(x))
}

func (a *agentevals) Name() string { return AgentEvalsName }

// matcherFor is _getMatcherForToolName.
func (a *agentevals) matcherFor(name string) *aeMatcher {
	if a.overrides != nil {
		if m, ok := a.overrides[name]; ok && m.kind != "default" {
			return m
		} else if ok {
			return aeModeMatcher(a.argsMode)
		}
		if m, ok := aeObjectPrototype[name]; ok {
			return m
		}
	}
	return aeModeMatcher(a.argsMode)
}

// aeCall is a tool call in agentevals' {name, args} form.
type aeCall struct {
	name    string
	args    jsonv.Value
	unknown bool
	pos     int
	// flat marks a call given in the flat {name, args} form, which strict
	// mode cannot read (it reads only function.name and function.arguments).
	flat bool
	// reference marks a call of the reference trajectory.
	reference bool
	// raw and rawErr are the raw function.arguments text that JSON.parse
	// rejects and why; rawErr is nil when the arguments are usable.
	raw    string
	rawErr error
}

// syntaxError is the SyntaxError agentevals' JSON.parse throws on the
// call's function.arguments text.
func (c *aeCall) syntaxError() error {
	side := "output"
	if c.reference {
		side = "reference"
	}
	return fmt.Errorf("SyntaxError: %s tool call %d (%s): function.arguments is not valid JSON: %s (%v)", side, c.pos+1, c.name, strconv.Quote(c.raw), c.rawErr)
}

// aeMessage is an OpenAI-format message reduced to what agentevals reads.
type aeMessage struct {
	role     string
	hasCalls bool
	// start and end delimit the message's calls in aeTrajectory.calls.
	start, end int
}

// aeTrajectory is one side: its messages and its flattened tool calls.
type aeTrajectory struct {
	msgs  []aeMessage
	calls []aeCall
}

func aeArgs(v jsonv.Value) jsonv.Value {
	if v.Kind() == jsonv.KindUndefined {
		return emptyObject
	}
	return v
}

type aeStep struct {
	message  bool
	name     string
	args     jsonv.Value
	unknown  bool
	turn     int
	emptyTCs bool
	flat     bool
	// role is the role of the message carrying a tool call ("" reads as
	// "assistant").
	role      string
	reference bool
	raw       string
	rawErr    error
}

// aeCallStep is a tool call step. A call in OpenAI form whose Fields hold
// "arguments" as a string takes its arguments from that raw text, parsed as
// JSON.parse does; text JSON.parse rejects is kept in raw and rawErr.
func aeCallStep(name string, args jsonv.Value, unknown bool, turn int, fields map[string]jsonv.Value) aeStep {
	s := aeStep{name: name, args: args, unknown: unknown, turn: turn, flat: isFlatFormat(fields), role: messageRole(fields)}
	if raw := fields["arguments"]; !s.flat && raw.Kind() == jsonv.KindString {
		v, err := jsonv.Parse(raw.StringValue())
		s.args, s.unknown = v, false
		if err != nil {
			s.args, s.raw, s.rawErr = jsonv.Value{}, raw.StringValue(), err
		}
	}
	return s
}

func (b *aeTrajectory) add(s aeStep, useTurns bool, curTurn *int, pos int) {
	if s.message {
		b.msgs = append(b.msgs, aeMessage{role: s.name, hasCalls: s.emptyTCs})
		*curTurn = -1
		return
	}
	c := aeCall{name: s.name, args: s.args, unknown: s.unknown, pos: pos, flat: s.flat, reference: s.reference, raw: s.raw, rawErr: s.rawErr}
	if !s.flat {
		// A missing "arguments" string reads as "{}". A flat call keeps
		// undefined arguments: the modes other than strict read its args
		// as they are (strict reads no flat call's arguments).
		c.args = aeArgs(s.args)
	}
	b.calls = append(b.calls, c)
	if useTurns && s.turn != 0 && *curTurn == s.turn && len(b.msgs) > 0 {
		b.msgs[len(b.msgs)-1].end = len(b.calls)
		return
	}
	role := s.role
	if role == "" {
		role = "assistant"
	}
	b.msgs = append(b.msgs, aeMessage{role: role, hasCalls: true, start: len(b.calls) - 1, end: len(b.calls)})
	*curTurn = 0
	if useTurns {
		*curTurn = s.turn
	}
}

func hasEmptyToolCalls(fields map[string]jsonv.Value) bool {
	v, ok := fields["tool_calls"]
	return ok && v.Kind() == jsonv.KindArray
}

// messageRole is the role a step's Fields give the message that carried it
// (Fields["role"]), or "".
func messageRole(fields map[string]jsonv.Value) string {
	if v := fields["role"]; v.Kind() == jsonv.KindString {
		return v.StringValue()
	}
	return ""
}

func isFlatFormat(fields map[string]jsonv.Value) bool {
	v := fields["tool_call_format"]
	return v.Kind() == jsonv.KindString && v.StringValue() == "flat"
}

// aeActualSteps walks the actual calls depth-first.
func aeActualSteps(calls []toolcall.Call, visit func(aeStep)) {
	for i := range calls {
		c := &calls[i]
		switch {
		case c.StepType == StepMessage:
			visit(aeStep{message: true, name: c.Name, emptyTCs: hasEmptyToolCalls(c.Fields)})
		case c.IsToolCall():
			visit(aeCallStep(c.Name, c.Args, c.ArgsUnknown, c.Turn, c.Fields))
		}
		if len(c.Children) > 0 {
			aeActualSteps(c.Children, visit)
		}
	}
}

func (a *agentevals) build(calls []toolcall.Call) (out, ref *aeTrajectory) {
	actualTurns := false
	n := 0
	aeActualSteps(calls, func(s aeStep) {
		n++
		if !s.message && s.turn != 0 {
			actualTurns = true
		}
	})
	useTurns := actualTurns && a.expectedTurns
	out = &aeTrajectory{msgs: make([]aeMessage, 0, n), calls: make([]aeCall, 0, n)}
	turn, pos := -1, 0
	aeActualSteps(calls, func(s aeStep) {
		out.add(s, useTurns, &turn, pos)
		if !s.message {
			pos++
		}
	})
	if useTurns {
		return out, &a.refTurns
	}
	return out, &a.refCalls
}

// Score implements Scorer.
func (a *agentevals) Score(_ context.Context, calls []toolcall.Call) (res toolcall.Result) {
	a.ScoreInto(calls, nil, &res)
	return res
}

// ScoreInto is Score writing its result to res (see ScoreInto).
func (a *agentevals) ScoreInto(calls []toolcall.Call, _ *toolcall.RunContext, res *toolcall.Result) {
	calls = toolcall.WithArguments(calls)
	out, ref := a.build(calls)
	var ok bool
	var err error
	switch a.mode {
	case "strict":
		ok, err = a.strict(out, ref)
	case "superset":
		ok, err = a.superset(out.calls, ref.calls)
	case "subset":
		ok, err = a.superset(ref.calls, out.calls)
	case "unordered":
		ok, err = a.superset(out.calls, ref.calls)
		if err == nil && ok {
			ok, err = a.superset(ref.calls, out.calls)
		}
	}
	if err != nil {
		toolcall.SetError(res, AgentEvalsName, a.threshold, prefixError("agentevals: ", err))
		return
	}
	key := "trajectory_" + a.mode + "_match"
	*res = toolcall.Result{Scorer: AgentEvalsName, Threshold: a.threshold}
	if !a.omitDetails {
		res.Details = map[string]any{"key": key, "score": ok}
	}
	if ok {
		res.Score = 1
	}
	res.Decide()
	if ok {
		res.Explanation = fmt.Sprintf("true: %s (%d output calls, %d reference calls)", key, len(out.calls), len(ref.calls))
	} else {
		res.Explanation = fmt.Sprintf("false: %s failed (%d output calls, %d reference calls)", key, len(out.calls), len(ref.calls))
	}
}

func (a *agentevals) strict(out, ref *aeTrajectory) (bool, error) {
	if len(out.msgs) != len(ref.msgs) {
		return false, nil
	}
	var seenBuf [16]bool
	for i := range out.msgs {
		o, r := &out.msgs[i], &ref.msgs[i]
		if o.role != r.role || o.hasCalls != r.hasCalls {
			return false, nil
		}
		if !o.hasCalls {
			continue
		}
		ocalls, rcalls := out.calls[o.start:o.end], ref.calls[r.start:r.end]
		if len(ocalls) != len(rcalls) {
			return false, nil
		}
		seen := seenBuf[:0]
		if len(rcalls) <= len(seenBuf) {
			seen = seenBuf[:len(rcalls)]
			clear(seen)
		} else {
			seen = make([]bool, len(rcalls))
		}
		for _, oc := range ocalls {
			found := false
			for j := range rcalls {
				rc := rcalls[j]
				// function?.name: undefined for a flat call on either side.
				if seen[j] || oc.flat != rc.flat || (!oc.flat && oc.name != rc.name) {
					continue
				}
				x, name := oc, oc.name
				if !oc.flat {
					// JSON.parse(function.arguments), the output's first.
					if oc.rawErr != nil {
						return false, oc.syntaxError()
					}
					if rc.rawErr != nil {
						return false, rc.syntaxError()
					}
				}
				if oc.flat {
					// JSON.parse(function?.arguments ?? "{}") on both sides.
					name = ""
					x.args, x.unknown = emptyObject, false
					rc.args, rc.unknown = emptyObject, false
				}
				m, err := a.apply(a.matcherFor(name), &x, &rc)
				if err != nil {
					return false, err
				}
				if m {
					seen[j] = true
					found = true
					break
				}
			}
			if !found {
				return false, nil
			}
		}
	}
	return true, nil
}

// superset is _isTrajectorySuperset(outputs, reference): every reference
// call finds an unused output call, matched as m(output, reference).
func (a *agentevals) superset(outputs, reference []aeCall) (bool, error) {
	// _extractToolCalls JSON.parses every call's arguments, outputs first.
	for _, calls := range [2][]aeCall{outputs, reference} {
		for i := range calls {
			if calls[i].rawErr != nil {
				return false, calls[i].syntaxError()
			}
		}
	}
	used := make([]bool, len(outputs))
	for ri := range reference {
		r := &reference[ri]
		found := false
		for k := range outputs {
			if r.name != outputs[k].name || used[k] {
				continue
			}
			m, err := a.apply(a.matcherFor(r.name), &outputs[k], r)
			if err != nil {
				return false, err
			}
			if m {
				used[k] = true
				found = true
				break
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, nil
}

// apply calls matcher m as m(x.args, y.args).
func (a *agentevals) apply(m *aeMatcher, x, y *aeCall) (bool, error) {
	switch m.kind {
	case "ignore", "always":
		return true, nil
	case "throws":
		return false, fmt.Errorf("TypeError: Object.prototype.%s called as the argument matcher of tool %q (\"%s\" in toolArgsMatchOverrides finds the prototype member)", m.what, x.name, m.what)
	}
	for _, c := range []*aeCall{x, y} {
		if c.unknown {
			return false, argsUnavailable(AgentEvalsName, &toolcall.Call{Name: c.name}, c.pos)
		}
	}
	switch m.kind {
	case "exact":
		return aeDeepEqual(&x.args, &y.args), nil
	case "subset":
		return aeSubset(&x.args, &y.args)
	case "superset":
		return aeSubset(&y.args, &x.args)
	case "paths":
		for _, p := range m.paths {
			xv, yv := aeGetNested(x.args, p), aeGetNested(y.args, p)
			if !aeDeepEqual(&xv, &yv) {
				return false, nil
			}
		}
		return true, nil
	case "comparator":
		for _, pm := range m.when {
			if err := aeReadMember(&y.args, pm.path); err != nil {
				return false, err
			}
			v, _ := pm.path.Lookup(y.args)
			if !pm.m.Match(v) {
				return true, nil
			}
		}
		for _, pm := range m.want {
			if err := aeReadMember(&x.args, pm.path); err != nil {
				return false, err
			}
			v, _ := pm.path.Lookup(x.args)
			if !pm.m.Match(v) {
				return false, nil
			}
		}
		return true, nil
	}
	return false, errors.New("unknown matcher")
}

// aeReadMember is the TypeError a JavaScript comparator throws when it
// reads a member (args.query) of null or undefined arguments; nil when the
// path reads the whole value or the arguments are not nullish.
func aeReadMember(args *jsonv.Value, p jsonv.Path) error {
	if len(p.Segs) == 0 || args.Kind() > jsonv.KindNull {
		return nil
	}
	seg := p.Segs[0]
	key := seg.Key
	if seg.IsIndex {
		key = toolcall.Itoa(seg.Index)
	}
	return fmt.Errorf("TypeError: Cannot read properties of %s (reading '%s')", jsToString(*args), key)
}

// aeOwnKey reports whether key is among Object.keys(v).
func aeOwnKey(v *jsonv.Value, key string) bool {
	switch v.Kind() {
	case jsonv.KindObject:
		return v.GetPtr(key) != nil
	case jsonv.KindArray:
		i, ok := jsArrayIndex(key)
		return ok && i < len(v.Items())
	}
	return false
}

// aeDeepEqual is agentevals' _deepEqual.
func aeDeepEqual(a, b *jsonv.Value) bool {
	if a.Kind() <= jsonv.KindNull && b.Kind() <= jsonv.KindNull {
		return true
	}
	if jsStrictEqual(a, b) {
		return true
	}
	if !jsIsObject(a) || !jsIsObject(b) {
		return false
	}
	if a.Kind() == jsonv.KindArray && b.Kind() == jsonv.KindArray {
		if len(a.Items()) != len(b.Items()) {
			return false
		}
		for i := range a.Items() {
			if !aeDeepEqual(&a.Items()[i], &b.Items()[i]) {
				return false
			}
		}
		return true
	}
	na, nb := jsKeyCount(a), jsKeyCount(b)
	if na != nb {
		return false
	}
	if a.Kind() == jsonv.KindObject && b.Kind() == jsonv.KindObject {
		// Keys are unique, so equal counts and a's keys all in b mean
		// equal key sets.
		for i := 0; i < len(a.Items()); i += 2 {
			bv := b.MemberNear(i, a.Items()[i].Literal())
			if bv == nil || !aeDeepEqual(&a.Items()[i+1], bv) {
				return false
			}
		}
		return true
	}
	for i := 0; i < na; i++ {
		if !aeOwnKey(b, jsKeyAt(a, i)) {
			return false
		}
	}
	for i := 0; i < nb; i++ {
		if !aeOwnKey(a, jsKeyAt(b, i)) {
			return false
		}
	}
	for i := 0; i < na; i++ {
		k := jsKeyAt(a, i)
		av, _ := jsGet(a, k)
		bv, _ := jsGet(b, k)
		if !aeDeepEqual(&av, &bv) {
			return false
		}
	}
	return true
}

// aeIn is JavaScript's `key in y`.
func aeIn(key string, y *jsonv.Value) (bool, error) {
	switch y.Kind() {
	case jsonv.KindObject:
		if y.GetPtr(key) != nil {
			return true, nil
		}
		_, proto := aeObjectPrototype[key]
		return proto || key == "__proto__", nil
	case jsonv.KindArray:
		if i, ok := jsArrayIndex(key); ok && i < len(y.Items()) {
			return true, nil
		}
		return key == "length", nil
	}
	return false, fmt.Errorf("TypeError: Cannot use 'in' operator to search for '%s' in %s", key, jsToString(*y))
}

// aeSubset is _subsetMatch(x, y): every entry of x is in y with a
// deepEqual value.
func aeSubset(x, y *jsonv.Value) (bool, error) {
	switch x.Kind() {
	case jsonv.KindUndefined, jsonv.KindNull:
		return false, errors.New("TypeError: Cannot convert undefined or null to object")
	case jsonv.KindObject, jsonv.KindArray:
		for i := 0; i < jsKeyCount(x); i++ {
			k := jsKeyAt(x, i)
			in, err := aeIn(k, y)
			if err != nil {
				return false, err
			}
			if !in {
				return false, nil
			}
			xv, _ := jsGet(x, k)
			yv, _ := jsGet(y, k)
			if !aeDeepEqual(&yv, &xv) {
				return false, nil
			}
		}
		return true, nil
	case jsonv.KindString:
		for i := 0; i < len(x.Literal()); i++ {
			k := toolcall.Itoa(i)
			in, err := aeIn(k, y)
			if err != nil {
				return false, err
			}
			if !in {
				return false, nil
			}
			xv := jsonv.String(x.Literal()[i : i+1])
			yv, _ := jsGet(y, k)
			if !aeDeepEqual(&yv, &xv) {
				return false, nil
			}
		}
		return true, nil
	}
	return true, nil // Object.entries of a number or boolean is empty
}

// aeGetNested is _getPartialMatcherOnKeys' getNestedValue.
func aeGetNested(v jsonv.Value, path string) jsonv.Value {
	cur := v
	for _, part := range strings.Split(path, ".") {
		if !jsIsObject(&cur) {
			return jsonv.Value{}
		}
		in, _ := aeIn(part, &cur)
		if !in {
			return jsonv.Value{}
		}
		next, ok := jsGet(&cur, part)
		if !ok {
			// An inherited member (a function): not a JSON value.
			return jsonv.String("\x00function " + part)
		}
		cur = next
	}
	return cur
}
