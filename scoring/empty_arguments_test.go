package scoring

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmptyArguments checks which calls recorded with a "{}" that may be a
// placeholder become calls made without arguments: a tool expected with
// "{}" (by the expectation or a Mastra expected step), or defined, in the
// configuration or on the run, with a parameters schema that requires
// nothing.
func TestEmptyArguments(t *testing.T) {
	schema := func(s string) Value { v, err := Parse(s); require.NoError(t, err); return v }
	placeholder := func(name string) Call { return Call{Name: name, ArgsUnknown: true, ArgsEmpty: true} }
	mastra, err := New(MastraTrajectoryName, Settings{Options: map[string]any{
		"expected_trajectory": []any{map[string]any{"name": "list", "step_type": "tool_call", "tool_args": map[string]any{}}},
	}})
	require.NoError(t, err)
	e := NewEmptyArguments(
		Expectation{Calls: []ExpectedCall{
			{Name: "whoami", Args: Object()},
			{Name: "find", Args: Object(), Matchers: []PathMatcher{{Path: "$", Matcher: Any()}}},
			{Name: "count", Args: Object(Member{Key: "db", Value: String("x")})},
		}},
		[]ToolDefinition{
			{Name: "now", Parameters: schema(`{"type":"object","properties":{}}`)},
			{Name: "get_weather", Parameters: schema(`{"type":"object","required":["city"]}`)},
			{Name: "bare"},
		},
		mastra,
	)
	var recorded ToolDefinitions
	recorded.Add(ToolDefinition{Name: "ping", Parameters: schema(`{"type":"OBJECT","required":[]}`)})
	calls := []Call{
		placeholder("whoami"), placeholder("find"), placeholder("count"), placeholder("now"),
		placeholder("get_weather"), placeholder("bare"), placeholder("list"), placeholder("ping"),
		{Name: "whoami", ArgsUnknown: true, ArgsNote: "arguments larger than the 1 MiB limit"},
		{Name: "agent", Children: []Call{placeholder("whoami")}},
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

	none := []Call{placeholder("count"), {Name: "whoami", Args: Object()}}
	same := e.Resolve(none, nil)
	assert.Same(t, &none[0], &same[0], "nothing resolved: the calls themselves")
}
