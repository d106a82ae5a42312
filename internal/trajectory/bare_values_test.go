package trajectory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// requestTurn is a model turn whose response asked for calls (semconv
// gen_ai.output.messages, without ids, as LangChain records them).
func requestTurn(t *testing.T, output string) *extract.ModelTurn {
	t.Helper()
	span := ptrace.NewSpan()
	span.Attributes().PutStr("gen_ai.operation.name", "chat")
	span.Attributes().PutStr("gen_ai.output.messages", output)
	turn := &extract.ModelTurn{}
	require.True(t, extract.ReadTurn(span, turn))
	return turn
}

func mustParse(t *testing.T, s string) jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse(s)
	require.NoError(t, err)
	return v
}

// TestBareValueAndWrapperNameResolved: a one-key argument object recorded as
// its bare value takes the request's object, and a call named after its
// wrapper class takes the requested name when the arguments pair them; a
// wrapper name with other arguments, and a scalar that is not the request's
// only member, are left as they are.
func TestBareValueAndWrapperNameResolved(t *testing.T) {
	turn := requestTurn(t, `[{"role":"assistant","parts":[`+
		`{"type":"tool_call","name":"get_weather","arguments":{"city":"Paris","unit":"celsius"}},`+
		`{"type":"tool_call","name":"lookup_stock","arguments":{"symbol":"ZZZZ"}},`+
		`{"type":"tool_call","name":"count","arguments":{"n":3}}]}]`)
	calls := []toolcall.Call{
		{Name: "DynamicStructuredTool", Args: mustParse(t, `{"city":"Paris","unit":"celsius"}`)},
		{Name: "lookup_stock", Args: jsonv.String("ZZZZ")},
		{Name: "count", Args: jsonv.String("3")},
	}
	got := pairWitnesses([]*extract.ModelTurn{turn}, calls, nil, &ScoringOptions{})
	require.Len(t, got, 3)
	assert.Equal(t, "get_weather", got[0].Name)
	assert.Equal(t, `{"city":"Paris","unit":"celsius"}`, got[0].Args.JSON())
	assert.Equal(t, "lookup_stock", got[1].Name)
	assert.Equal(t, `{"symbol":"ZZZZ"}`, got[1].Args.JSON())
	assert.Empty(t, got[1].RequestedArgs)
	assert.Equal(t, `{"n":3}`, got[2].Args.JSON(), "the string of a one-member object's number is its bare value")
	for i := range got {
		assert.NotZero(t, got[i].Witnesses&toolcall.WitnessRequested, "call %d paired", i)
	}

	other := []toolcall.Call{{Name: "DynamicStructuredTool", Args: mustParse(t, `{"city":"Rome"}`)}}
	got = pairWitnesses([]*extract.ModelTurn{requestTurn(t, `[{"role":"assistant","parts":[{"type":"tool_call","name":"get_weather","arguments":{"city":"Paris"}}]}]`)}, other, nil, &ScoringOptions{})
	assert.Equal(t, "DynamicStructuredTool", got[0].Name, "a wrapper name pairs by arguments only")

	assert.False(t, bareValueOf(jsonv.String("ZZZZ"), mustParse(t, `{"symbol":"ZZZZ","x":1}`)))
	assert.False(t, bareValueOf(mustParse(t, `{"symbol":"ZZZZ"}`), mustParse(t, `{"symbol":"ZZZZ"}`)))
}

// TestRequestAgreesWithTheSameText: a call whose tool span recorded the
// very object text its request did agrees with it (no RequestedArgs, its
// arguments as they are); one whose span recorded that text as a JSON
// string (decoded to the object) differs from a request that recorded the
// same string, and one with other arguments keeps the requested ones.
func TestRequestAgreesWithTheSameText(t *testing.T) {
	turn := requestTurn(t, `[{"role":"assistant","parts":[`+
		`{"type":"tool_call","name":"get_weather","arguments":{"city":"Paris"}},`+
		`{"type":"tool_call","name":"lookup_stock","arguments":"{\"symbol\":\"ZZZZ\"}"},`+
		`{"type":"tool_call","name":"count","arguments":{"n":3}}]}]`)
	stored := []StoredCall{
		{Name: "get_weather", Args: `{"city":"Paris"}`, Encoding: extract.EncodingJSON},
		{Name: "lookup_stock", Args: `"{\"symbol\":\"ZZZZ\"}"`, Encoding: extract.EncodingJSON},
		{Name: "count", Args: `{"n":4}`, Encoding: extract.EncodingJSON},
	}
	// The request's text as the span recorded it, for lookup_stock.
	turn.Requested()[1].Args = stored[1].Args
	calls := []toolcall.Call{
		{Name: "get_weather", Args: mustParse(t, stored[0].Args)},
		{Name: "lookup_stock", Args: mustParse(t, `{"symbol":"ZZZZ"}`)}, // decoded from the string
		{Name: "count", Args: mustParse(t, stored[2].Args)},
	}
	got := pairWitnesses([]*extract.ModelTurn{turn}, calls, stored, &ScoringOptions{})
	require.Len(t, got, 3)
	assert.Equal(t, `{"city":"Paris"}`, got[0].Args.JSON())
	assert.Empty(t, got[0].RequestedArgs)
	assert.Equal(t, `{"symbol":"ZZZZ"}`, got[1].Args.JSON())
	assert.Equal(t, stored[1].Args, got[1].RequestedArgs, "a string is not the object it holds")
	assert.Equal(t, `{"n":4}`, got[2].Args.JSON())
	assert.Equal(t, `{"n":3}`, got[2].RequestedArgs)
}
