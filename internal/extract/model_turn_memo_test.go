package extract

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// genaiTurn returns a GenAI model turn whose request is input.
func genaiTurn(input string) ModelTurn {
	return ModelTurn{form: formGenAI, input: input}
}

// requireTailReadAgrees parses, with one parser as a batch's turns are,
// a turn whose request is first and one whose request is first with its
// last byte replaced by a comma and rest after it (a later turn of the
// run, which repeats the conversation), and requires the later turn to
// read what it reads parsed alone: the same history, outcomes and
// followsTools, whether or not it was read from where first ends.
func requireTailReadAgrees(t *testing.T, first, rest string) {
	if first == "" {
		return
	}
	later := first[:len(first)-1] + "," + rest
	turns := []ModelTurn{genaiTurn(first), genaiTurn(later)}
	var p TurnParser
	ParseTurns(turns, &p)
	alone := genaiTurn(later)
	alone.Parse(nil)
	require.Equal(t, alone.History(), turns[1].History(), "history of %s", later)
	require.Equal(t, alone.Outcomes(), turns[1].Outcomes(), "outcomes of %s", later)
	require.Equal(t, alone.FollowsTools(), turns[1].FollowsTools(), "followsTools of %s", later)
	require.Empty(t, p.requests, "requests remembered after the batch")
	for _, c := range turns[1].History() {
		requireNoTextOf(t, []string{first, later}, c.ID, c.Name, c.Args)
	}
	for _, o := range turns[1].Outcomes() {
		requireNoTextOf(t, []string{first, later}, o.ID, o.Name, o.Result)
	}
}

// requireNoTextOf requires that no string of kept references any of texts
// (a turn read from where another ends keeps that turn's own strings, no
// span's).
func requireNoTextOf(t *testing.T, texts []string, kept ...string) {
	for _, s := range kept {
		for _, text := range texts {
			require.False(t, within(s, text), "%q references a span's text", s)
		}
	}
}

// tailSeeds are pairs of a request and what a later request adds to it:
// tool calls and results, Anthropic blocks, escapes, repeated and escaped
// keys in the part added, malformed additions, an empty first list (whose
// later "request" is not JSON), an object holding the list, text after it.
var tailSeeds = [][2]string{
	{`[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]},{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"get_weather","arguments":{"city":"Paris"}}]}]`,
		`{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":{"temperature_c":18}}]}]`},
	{`[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"a","arguments":{}}]},{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"Error: boom"}]}]`,
		`{"role":"assistant","parts":[{"type":"tool_call","id":"c2","name":"b","arguments":{"x":1}}]},{"role":"tool","parts":[{"type":"tool_call_response","id":"c2","response":{"error":"no"}}]}]`},
	{`[{"role":"assistant","parts":[{"type":"tool_use","id":"t1","name":"ls","input":{}}]}]`,
		`{"role":"user","parts":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":true}]}]`},
	{`[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"a"}]}]`, `{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":{"x":1,"x":2}}]}]`},
	{`[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"a"}]}]`, `{"ro\u006ce":"tool","parts":[{"type":"tool_call_response","id":"c1","response":1}]}]`},
	{`[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"a"}]}]`, `{"role":"tool","parts":[{"type":"tool_call_response","id":"c1"`},
	{`[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"a"}]}]`, `{"role":"tool"}] `},
	{`[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"a"}]}]`, `]`},
	{`[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"a"}]}]`, `{"role":"tool"},]`},
	{`[]`, `{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"x"}]}]`},
	{`{"messages":[{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"x"}]}]}`, `"x"]}`},
	{` [ {"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"x"}]} ]`, ` {"role":"tool","parts":[]} ]`},
	{`[{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"x"}]}] `, `{"role":"tool"}]`},
	{`[{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"x"}]},1]`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`},
}

// TestRequestTailReadAgrees holds a request read from where a remembered
// one ends to the same request read whole, on the seeds.
func TestRequestTailReadAgrees(t *testing.T) {
	for _, s := range tailSeeds {
		requireTailReadAgrees(t, s[0], s[1])
	}
}

// TestRequestTailIsRead checks that a later request of a run in the same
// batch is read from where the earlier one ends: only its new messages
// are indexed.
func TestRequestTailIsRead(t *testing.T) {
	first, rest := tailSeeds[0][0], tailSeeds[0][1]
	turns := []ModelTurn{genaiTurn(first), genaiTurn(first[:len(first)-1] + "," + rest)}
	var p TurnParser
	turns[0].Parse(&p)
	require.Len(t, p.requests, 1)
	require.True(t, turns[1].readRequestTail(&p))
	require.Equal(t, []RequestedCall{{ID: "c1", Name: "get_weather"}}, turns[1].history)
	require.Len(t, p.docs[1].Toks(), 1+len(mustIndex(t, rest[:len(rest)-1])))
}

// mustIndex returns the index of JSON text s.
func mustIndex(t *testing.T, s string) []jsonv.DocToken {
	var p TurnParser
	root, ok := p.doc(0, s)
	require.True(t, ok)
	return root.d.Toks()
}

// FuzzRequestTail holds a request read from where a remembered one ends
// to the same request read whole, on any pair of texts.
func FuzzRequestTail(f *testing.F) {
	for _, s := range tailSeeds {
		f.Add(s[0], s[1])
	}
	for _, s := range genaiSeeds {
		f.Add(s, s[1:])
	}
	f.Fuzz(requireTailReadAgrees)
}
