package peers

import (
	"testing"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmptyArguments checks which calls recorded with a "{}" that may be a
// placeholder become calls made without arguments: a tool expected with
// "{}" (by the expectation or a Mastra expected step), or defined, in the
// configuration or on the run, with a parameters schema that requires
// nothing.
func TestEmptyArguments(t *testing.T) {
	schema := func(s string) jsonv.Value { v, err := jsonv.Parse(s); require.NoError(t, err); return v }
	placeholder := func(name string) toolcall.Call { return toolcall.Call{Name: name, ArgsUnknown: true, ArgsEmpty: true} }
	mastra, err := toolcall.New(MastraTrajectoryName, toolcall.Settings{Options: map[string]any{
		"expected_trajectory": []any{map[string]any{"name": "list", "step_type": "tool_call", "tool_args": map[string]any{}}},
	}})
	require.NoError(t, err)
	e := toolcall.NewEmptyArguments(
		toolcall.Expectation{Calls: []toolcall.ExpectedCall{
			{Name: "whoami", Args: jsonv.Object()},
			{Name: "find", Args: jsonv.Object(), Matchers: []toolcall.PathMatcher{{Path: "$", Matcher: toolcall.Any()}}},
			{Name: "count", Args: jsonv.Object(jsonv.Member{Key: "db", Value: jsonv.String("x")})},
		}},
		[]toolcall.ToolDefinition{
			{Name: "now", Parameters: schema(`{"type":"object","properties":{}}`)},
			{Name: "get_weather", Parameters: schema(`{"type":"object","required":["city"]}`)},
			{Name: "bare"},
		},
		mastra,
	)
	var recorded toolcall.ToolDefinitions
	recorded.Add(toolcall.ToolDefinition{Name: "ping", Parameters: schema(`{"type":"OBJECT","required":[]}`)})
	calls := []toolcall.Call{
		placeholder("whoami"), placeholder("find"), placeholder("count"), placeholder("now"),
		placeholder("get_weather"), placeholder("bare"), placeholder("list"), placeholder("ping"),
		{Name: "whoami", ArgsUnknown: true, ArgsNote: "arguments larger than the 1 MiB limit"},
		{Name: "agent", Children: []toolcall.Call{placeholder("whoami")}},
	}
	out := e.Resolve(calls, &recorded)
	known := map[int]bool{0: true, 3: true, 6: true, 7: true}
	for i := 0; i < 9; i++ {
		assert.Equal(t, !known[i], out[i].ArgsUnknown, "call %d (%s)", i, out[i].Name)
		if known[i] {
			assert.Equal(t, `{}`, out[i].Args.JSON())
			assert.False(t, out[i].ArgsEmpty)
		}
	}
	assert.False(t, out[9].Children[0].ArgsUnknown, "children are resolved")
	assert.True(t, calls[0].ArgsUnknown && calls[9].Children[0].ArgsUnknown, "the calls given are not modified")

	without := e.Resolve(calls[:8], nil)
	assert.True(t, without[7].ArgsUnknown, "no recorded definitions")

	none := []toolcall.Call{placeholder("count"), {Name: "whoami", Args: jsonv.Object()}}
	same := e.Resolve(none, nil)
	assert.Same(t, &none[0], &same[0], "nothing resolved: the calls themselves")
}
