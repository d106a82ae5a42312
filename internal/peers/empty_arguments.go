package peers

import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"

// emptyToolArgs appends the names of steps (and their children's) whose
// toolArgs are the empty object.
func emptyToolArgs(steps []mastraExpectedStep, tools []string) []string {
	for i := range steps {
		s := &steps[i]
		for k := range s.data {
			if d := &s.data[k]; d.name == "toolArgs" && d.v.Kind() == jsonv.KindObject && d.v.Len() == 0 {
				tools = append(tools, s.name)
			}
		}
		if s.children != nil {
			tools = emptyToolArgs(s.children.steps.v, tools)
		}
	}
	return tools
}

// ExpectsEmptyArguments lists the tools the profile's expected steps call
// with "{}" (see toolcall.EmptyArguments).
func (m *mastraTrajectory) ExpectsEmptyArguments(tools []string) []string {
	return emptyToolArgs(m.static, tools)
}

// ExpectsEmptyArguments lists the tools the profile's expected steps call
// with "{}" (see toolcall.EmptyArguments).
func (m *mastraTrajectoryFull) ExpectsEmptyArguments(tools []string) []string {
	return emptyToolArgs(m.base.steps.v, tools)
}
