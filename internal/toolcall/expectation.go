package toolcall

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// OrderMode says how the order of actual calls is judged.
type OrderMode string

// The order modes.
const (
	// OrderAny ignores order: calls pair as a multiset.
	OrderAny OrderMode = "any"
	// OrderInOrder requires the expected calls to appear as a subsequence of
	// the actual calls; other calls may come between them.
	OrderInOrder OrderMode = "in_order"
	// OrderExact requires the actual calls to be exactly the expected
	// sequence: like in_order, and extra calls are not allowed.
	OrderExact OrderMode = "exact"
)

// ExtraPolicy says what an unexpected call or argument costs.
type ExtraPolicy string

// The extra-call and extra-argument policies.
const (
	// ExtraAllow makes extras free.
	ExtraAllow ExtraPolicy = "allow"
	// ExtraPenalize lowers the score: for calls, the score is capped at
	// Expectation.ExtraCallCap; for arguments, each extra key counts as one
	// failed argument check.
	ExtraPenalize ExtraPolicy = "penalize"
	// ExtraFail scores 0 (for calls) or scores the call 0 (for arguments).
	ExtraFail ExtraPolicy = "fail"
)

// CreditMode says how argument checks add up to a call's score.
type CreditMode string

// The argument credit modes.
const (
	// CreditPartial scores a call by the share of its argument checks that
	// pass.
	CreditPartial CreditMode = "partial"
	// CreditAllOrNothing scores a call 1 when every argument check passes and
	// 0 otherwise.
	CreditAllOrNothing CreditMode = "all_or_nothing"
)

// DefaultExtraCallCap is the score cap for extra calls under ExtraPenalize,
// MongoDB's accuracy scorer's 0.75.
const DefaultExtraCallCap = 0.75

// MaxCalls bounds the calls on either side of one scoring, which keeps the
// optimal pairing's cost bounded (it is cubic in the calls to one tool).
const MaxCalls = 1024

// ExpectedCall is one call the agent should make.
type ExpectedCall struct {
	// Name is the tool name. Required.
	Name string
	// Args holds the literal expected arguments. Undefined means the
	// arguments are not checked (unless Matchers are given). Keys are plain
	// keys, "$gte" included: matchers never hide inside literals.
	Args jsonv.Value
	// Matchers constrain arguments by path; a matcher replaces the literal at
	// its path or adds a constraint where the literal has none.
	Matchers []PathMatcher
	// Optional marks a call that may be made but need not be.
	Optional bool
	// MustSucceed scores the call 0 when the paired actual call failed.
	MustSucceed bool
	// Type, when set, must equal the actual call's Type: "function" (the
	// same as "") or "mcp", in any case; Validate rejects any other.
	Type string
	// Turn, when not 0, is the 1-based model turn the call belongs to. Only
	// message-structured profiles (agentevals strict) use it.
	Turn int
	// StepType, Result and Fields describe a non-tool or data-checked step
	// for trajectory profiles (Mastra); the native scorer ignores them.
	StepType string
	Result   jsonv.Value
	Fields   map[string]jsonv.Value
}

// PathMatcher applies a matcher at a JSON path inside the arguments.
type PathMatcher struct {
	// Path addresses the argument: "city", "filter.age", "items[0].name",
	// "items[*]", `filter["a.b"]`, or "$" for the whole arguments value.
	Path string
	// Matcher tests the value found there (undefined when absent).
	Matcher Matcher
}

// Expectation is what one trajectory should look like: the calls and the
// trajectory-level policies. The zero values of the policies are the defaults.
type Expectation struct {
	// Calls are the expected calls in expected order.
	Calls []ExpectedCall
	// Order is the order mode; "" means OrderAny.
	Order OrderMode
	// ExtraCalls is the extra-call policy; "" means ExtraAllow, except under
	// OrderExact, where "" means ExtraFail.
	ExtraCalls ExtraPolicy
	// ExtraCallCap is the score cap under ExtraPenalize; 0 means
	// DefaultExtraCallCap.
	ExtraCallCap float64
	// ExtraArgs is the extra-argument policy; "" means ExtraAllow.
	ExtraArgs ExtraPolicy
	// Credit is the argument credit mode; "" means CreditPartial.
	Credit CreditMode
	// CoerceStrings compares numeric strings and numbers as numbers
	// ("5" equals 5) in literals and matchers.
	CoerceStrings bool
	// ForbiddenTools must never be called; one call scores the run 0.
	ForbiddenTools []string
	// ForbiddenSequences must never appear as consecutive calls; one
	// occurrence scores the run 0.
	ForbiddenSequences [][]string
	// AvailableTools, when not empty, lists every tool that exists; a call
	// to any other tool is hallucinated and scores the run 0.
	AvailableTools []string
}

// Resolved returns a copy with every empty policy replaced by its default.
func (e Expectation) Resolved() Expectation {
	if e.Order == "" {
		e.Order = OrderAny
	}
	if e.ExtraCalls == "" {
		e.ExtraCalls = ExtraAllow
		if e.Order == OrderExact {
			e.ExtraCalls = ExtraFail
		}
	}
	if e.ExtraCallCap == 0 {
		e.ExtraCallCap = DefaultExtraCallCap
	}
	if e.ExtraArgs == "" {
		e.ExtraArgs = ExtraAllow
	}
	if e.Credit == "" {
		e.Credit = CreditPartial
	}
	return e
}

// ChecksNothing reports whether the native scorer would pass every run at 1
// under e: no expected calls, nothing forbidden, no list of available tools,
// and extra calls allowed.
func (e Expectation) ChecksNothing() bool {
	return len(e.Calls) == 0 && len(e.ForbiddenTools) == 0 && len(e.ForbiddenSequences) == 0 &&
		len(e.AvailableTools) == 0 && e.Resolved().ExtraCalls == ExtraAllow
}

// Validate checks the expectation. Errors name the offending field with the
// same keys a collector configuration uses ("calls[1].tool", "order").
func (e Expectation) Validate() error {
	_, err := e.compile()
	return err
}

// compile validates the expectation, as Validate does, and returns its
// compiled calls, so a scorer built from it compiles them once.
func (e Expectation) compile() ([]compiledCall, error) {
	r := e.Resolved()
	var errs []error
	switch r.Order {
	case OrderAny, OrderInOrder, OrderExact:
	default:
		errs = append(errs, fmt.Errorf("order: invalid value %q, expected one of %q, %q or %q", r.Order, OrderAny, OrderInOrder, OrderExact))
	}
	if err := validPolicy("extra_calls", r.ExtraCalls); err != nil {
		errs = append(errs, err)
	} else if r.Order == OrderExact && r.ExtraCalls == ExtraAllow {
		errs = append(errs, errors.New(`extra_calls: "allow" contradicts order "exact"; use order "in_order" to allow extra calls`))
	}
	if err := validPolicy("extra_args", r.ExtraArgs); err != nil {
		errs = append(errs, err)
	}
	switch r.Credit {
	case CreditPartial, CreditAllOrNothing:
	default:
		errs = append(errs, fmt.Errorf("argument_credit: invalid value %q, expected %q or %q", r.Credit, CreditPartial, CreditAllOrNothing))
	}
	if !(r.ExtraCallCap >= 0 && r.ExtraCallCap <= 1) { // NaN too: it would lift the cap
		errs = append(errs, fmt.Errorf("extra_call_cap: %v is outside [0, 1]", r.ExtraCallCap))
	}
	if len(e.Calls) > MaxCalls {
		errs = append(errs, fmt.Errorf("calls: %d expected calls exceed the maximum of %d", len(e.Calls), MaxCalls))
	}
	forbidden := toSet(e.ForbiddenTools)
	available := toSet(e.AvailableTools)
	for i, c := range e.Calls {
		field := callField(i)
		if strings.TrimSpace(c.Name) == "" {
			errs = append(errs, fmt.Errorf("%s.tool: must not be empty", field))
			continue
		}
		if _, ok := forbidden[c.Name]; ok {
			errs = append(errs, fmt.Errorf("%s.tool: %q is also listed in forbidden_tools", field, c.Name))
		}
		if len(available) > 0 {
			if _, ok := available[c.Name]; !ok {
				errs = append(errs, fmt.Errorf("%s.tool: %q is not listed in available_tools", field, c.Name))
			}
		}
		switch NormalizeType(c.Type) {
		case "function", "mcp":
		default:
			errs = append(errs, fmt.Errorf("%s.type: invalid value %q, expected %q or %q", field, c.Type, "function", "mcp"))
		}
		for _, pm := range c.Matchers {
			if pm.Matcher == nil {
				errs = append(errs, fmt.Errorf("%s.match[%q]: matcher is missing", field, pm.Path))
			}
		}
	}
	for i, seq := range e.ForbiddenSequences {
		if len(seq) == 0 {
			errs = append(errs, fmt.Errorf("forbidden_sequences[%d]: must not be empty", i))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return compileExpectation(e)
}

// callField is the configuration key of expected call i, "calls[i]", for
// error messages.
type callField int

func (i callField) String() string { return "calls[" + strconv.Itoa(int(i)) + "]" }

func validPolicy(field string, p ExtraPolicy) error {
	switch p {
	case ExtraAllow, ExtraPenalize, ExtraFail:
		return nil
	}
	return fmt.Errorf("%s: invalid value %q, expected one of %q, %q or %q", field, p, ExtraAllow, ExtraPenalize, ExtraFail)
}

func toSet(names []string) map[string]struct{} {
	if len(names) == 0 {
		return nil
	}
	set := make(map[string]struct{}, len(names))
	for _, n := range names {
		set[n] = struct{}{}
	}
	return set
}
