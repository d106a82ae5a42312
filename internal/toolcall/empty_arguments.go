package toolcall

import (
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// EmptyArguments decides, for one expectation and its scorers, which calls
// recorded with "{}" that may be a placeholder (Call.ArgsEmpty) were made
// without arguments. "{}" cannot be a placeholder for a call to a tool
//
//   - that is expected with "{}": an expected call whose literal arguments
//     are the empty object (and that has no matchers), or a scorer's own
//     expected step with empty toolArgs (Mastra's expected_trajectory);
//   - whose definition, configured or recorded on the run, has no required
//     parameters: a parameters schema that is an object (its type, when
//     given, "object" in any case: Gemini writes "OBJECT") without a
//     "required" list, or with an empty one. A definition without a
//     parameters schema says nothing.
//
// Other such calls keep unknown arguments. The zero EmptyArguments resolves
// calls by recorded definitions only.
type EmptyArguments struct {
	// tools are the tools whose "{}" are empty arguments whatever the run
	// recorded: expected with "{}", or configured without required
	// parameters.
	tools []string
}

// EmptyArgumentsExpecter is implemented by scorers whose own options
// expect calls with "{}" (Mastra's expected steps).
type EmptyArgumentsExpecter interface {
	// ExpectsEmptyArguments appends the tools the scorer expects to be
	// called with "{}".
	ExpectsEmptyArguments(tools []string) []string
}

// NewEmptyArguments returns the EmptyArguments of an expectation, the
// tools configured beside it and the scorers that judge it.
func NewEmptyArguments(exp Expectation, configured []ToolDefinition, scorers ...Scorer) EmptyArguments {
	var e EmptyArguments
	for i := range exp.Calls {
		c := &exp.Calls[i]
		if c.Args.Kind() == jsonv.KindObject && c.Args.Len() == 0 && len(c.Matchers) == 0 {
			e.add(c.Name)
		}
	}
	for i := range configured {
		if noRequiredParameters(&configured[i]) {
			e.add(configured[i].Name)
		}
	}
	for _, s := range scorers {
		if x, ok := s.(EmptyArgumentsExpecter); ok {
			for _, name := range x.ExpectsEmptyArguments(nil) {
				e.add(name)
			}
		}
	}
	return e
}

func (e *EmptyArguments) add(name string) {
	for _, t := range e.tools {
		if t == name {
			return
		}
	}
	e.tools = append(e.tools, name)
}

// Resolve returns calls with the empty arguments it can decide made known:
// the calls themselves when there are none, else a copy (calls is not
// modified). recorded are the run's recorded definitions (nil: none).
// Children are resolved too.
func (e *EmptyArguments) Resolve(calls []Call, recorded *ToolDefinitions) []Call {
	var out []Call
	for i := range calls {
		c := &calls[i]
		children, moved := c.Children, false
		if len(children) > 0 {
			children = e.Resolve(children, recorded)
			moved = &children[0] != &c.Children[0]
		}
		empty := c.ArgsEmpty && c.ArgsUnknown && e.known(c.Name, recorded)
		if !empty && !moved {
			continue
		}
		if out == nil {
			out = make([]Call, len(calls))
			copy(out, calls)
		}
		out[i].Children = children
		if empty {
			out[i].Args, out[i].ArgsDoc, out[i].ArgsUnknown, out[i].ArgsEmpty, out[i].ArgsNote = jsonv.Object(), nil, false, false, ""
		}
	}
	if out == nil {
		return calls
	}
	return out
}

// known reports whether "{}" for a call to name are empty arguments.
func (e *EmptyArguments) known(name string, recorded *ToolDefinitions) bool {
	for _, t := range e.tools {
		if t == name {
			return true
		}
	}
	if recorded == nil {
		return false
	}
	d := recorded.find(name)
	return d != nil && noRequiredParameters(d)
}

// noRequiredParameters reports a definition whose parameters schema is an
// object schema requiring nothing.
func noRequiredParameters(d *ToolDefinition) bool {
	p := d.Parameters
	if p.Kind() != jsonv.KindObject {
		return false
	}
	if t, ok := p.Get("type"); ok && !(t.Kind() == jsonv.KindString && strings.EqualFold(t.StringValue(), "object")) {
		return false
	}
	req, ok := p.Get("required")
	return !ok || (req.Kind() == jsonv.KindArray && req.Len() == 0)
}
