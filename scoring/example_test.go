package scoring_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"
)

// A run is scored against what it should have done by the native scorer
// and, side by side, by two peers' profiles, each with its own semantics:
// the native scorer gives partial credit per argument, MongoDB's scorer
// none, Mastra's tool-call scorer reads names only.
func Example() {
	expected := func(name, args string) scoring.ExpectedCall {
		v, err := scoring.Parse(args)
		if err != nil {
			panic(err)
		}
		return scoring.ExpectedCall{Name: name, Args: v}
	}
	exp := scoring.Expectation{Calls: []scoring.ExpectedCall{
		expected("get_weather", `{"city":"Paris","unit":"celsius"}`),
		expected("lookup_stock", `{"symbol":"ZZZZ"}`),
	}}
	made := func(name, args string, position int) scoring.Call {
		v, err := scoring.Parse(args)
		if err != nil {
			panic(err)
		}
		return scoring.Call{Name: name, Args: v, Position: position}
	}
	calls := []scoring.Call{
		made("get_weather", `{"city":"Paris","unit":"kelvin"}`, 0),
		made("lookup_stock", `{"symbol":"ZZZZ"}`, 1),
	}
	for _, name := range []string{scoring.NativeName, scoring.MongoDBName, scoring.MastraToolCallName} {
		s, err := scoring.New(name, scoring.Settings{Expectation: exp, Threshold: 0.5})
		if err != nil {
			fmt.Printf("%s: %v\n", name, err)
			continue
		}
		res := s.Score(context.Background(), calls)
		fmt.Printf("%s: %s %s: %s\n", name, strconv.FormatFloat(res.Score, 'f', 2, 64), res.Outcome, res.Explanation)
	}
	// Output:
	// native: 0.75 pass: score 0.75: 1 of 2 expected calls matched; get_weather unit: expected "celsius", got "kelvin"
	// mongodb: 0.00 fail: 0: no call to get_weather with matching parameters
	// mastra_tool_call: 1.00 pass: 1: tools called in the expected order; called get_weather, lookup_stock
}

// TestEveryScorerIsRegistered builds each scorer the collector can name
// through the public API.
func TestEveryScorerIsRegistered(t *testing.T) {
	names := scoring.ScorerNames()
	for _, want := range []string{
		scoring.NativeName, scoring.ChecksName, scoring.MongoDBName, scoring.MastraToolCallName,
		scoring.MastraTrajectoryName, scoring.MastraTrajectoryFullName, scoring.DeepEvalName,
		scoring.AgentEvalsName, scoring.ADKName, scoring.RagasName, scoring.DeepEvalLLMName,
		scoring.MastraToolCallLLMName, scoring.MastraTrajectoryLLMName,
		scoring.MEAIToolCallAccuracyName, scoring.AzureToolCallAccuracyName,
	} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not registered: %q", want, names)
		}
	}
	if len(names) != 15 {
		t.Errorf("%d scorers registered, want 15: %q", len(names), names)
	}
}
