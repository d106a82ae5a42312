package peers

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall/toolcalltest"
)

type adkInvoker interface {
	ScoreInvocations(context.Context, [][]toolcall.Call, [][]toolcall.ExpectedCall) toolcall.Result
}

func TestADKTrajectory(t *testing.T) {
	mt := func(m any) map[string]any { return map[string]any{"match_type": m, "threshold": 0.5} }
	t1, t2, t3 := toolcalltest.Want("t1", `{}`), toolcalltest.Want("t2", `{}`), toolcalltest.Want("t3", `{}`)
	c1, c2, c3, x := toolcalltest.Call("t1", `{}`), toolcalltest.Call("t2", `{}`), toolcalltest.Call("t3", `{}`), toolcalltest.Call("x", `{}`)
	tests := []struct {
		name  string
		opts  map[string]any
		exp   toolcall.Expectation
		calls []toolcall.Call
		want  float64
	}{
		{"EXACT: same sequence", mt("EXACT"), expect(t1, t2), []toolcall.Call{c1, c2}, 1},
		{"EXACT: extra call fails", mt("EXACT"), expect(t1), []toolcall.Call{c1, x}, 0},
		{"EXACT: nothing expected, nothing called", mt("EXACT"), expect(), nil, 1},
		{"EXACT: nothing expected, calls made", mt("EXACT"), expect(), []toolcall.Call{c1}, 0},
		{"IN_ORDER: extras between", mt("IN_ORDER"), expect(t1, t2, t3), []toolcall.Call{c1, x, c2, x, c3}, 1},
		{"IN_ORDER: wrong order", mt("IN_ORDER"), expect(t1, t2, t3), []toolcall.Call{c1, c3, c2}, 0},
		{"IN_ORDER: empty expectation passes anything", mt("IN_ORDER"), expect(), []toolcall.Call{x}, 1},
		{"IN_ORDER: no calls", mt("IN_ORDER"), expect(t1), nil, 0},
		{"ANY_ORDER: multiset containment", mt("ANY_ORDER"), expect(t1, t2, t1), []toolcall.Call{c1, c2, c3, c1}, 1},
		{"ANY_ORDER: duplicates need distinct calls", mt("ANY_ORDER"), expect(t1, t2, t1), []toolcall.Call{c1, c2, c3}, 0},
		{"match_type normalised: \" in-order \"", mt(" in-order "), expect(t1, t2), []toolcall.Call{c1, x, c2}, 1},
		{"match_type as an int", mt(2), expect(t1, t2), []toolcall.Call{c2, c1}, 1},
		{"match_type true is IN_ORDER", mt(true), expect(t1, t2), []toolcall.Call{c1, x, c2}, 1},
		{"match_type false is EXACT", mt(false), expect(t1, t2), []toolcall.Call{c1, x, c2}, 0},
		{"args compared with Python ==", mt("EXACT"), expect(toolcalltest.Want("t", `{"a":1}`)), []toolcall.Call{toolcalltest.Call("t", `{"a":1.0}`)}, 1},
		{"True == 1", mt("EXACT"), expect(toolcalltest.Want("t", `{"a":true}`)), []toolcall.Call{toolcalltest.Call("t", `{"a":1}`)}, 1},
		{"None != {}", mt("EXACT"), expect(toolcalltest.Want("t", "")), []toolcall.Call{toolcalltest.Call("t", `{}`)}, 0},
		{"ignore_args", map[string]any{"ignore_args": true, "threshold": 0.5}, expect(toolcalltest.Want("t", `{"a":1}`)), []toolcall.Call{toolcalltest.Call("t", `{"a":2}`)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreProfile(t, ADKName, toolcall.Settings{Expectation: tt.exp, Options: tt.opts}, tt.calls...)
			require.NoError(t, res.Err)
			assert.Equal(t, tt.want, res.Score, res.Explanation)
			assert.Equal(t, []any{tt.want}, res.Details["per_invocation_scores"])
		})
	}
}

func TestADKInvocations(t *testing.T) {
	sc := newProfile(t, ADKName, toolcall.Settings{Options: map[string]any{"threshold": 0.5}}).(adkInvoker)
	f1 := []toolcall.Call{toolcalltest.Call("f1", `{"a":1}`)}
	res := sc.ScoreInvocations(context.Background(), [][]toolcall.Call{f1, f1}, [][]toolcall.ExpectedCall{{toolcalltest.Want("f1", `{"a":1}`)}, {toolcalltest.Want("f2", `{"a":1}`)}})
	assert.Equal(t, 0.5, res.Score)
	assert.Equal(t, toolcall.OutcomePass, res.Outcome)
	assert.Equal(t, "PASSED", res.Details["overall_eval_status"])
	assert.Equal(t, []any{1.0, 0.0}, res.Details["per_invocation_scores"])
	assert.Equal(t, []any{"PASSED", "FAILED"}, res.Details["per_invocation_statuses"])

	// Extra invocations are silently dropped by zip.
	res = sc.ScoreInvocations(context.Background(), [][]toolcall.Call{f1, f1, f1}, [][]toolcall.ExpectedCall{{toolcalltest.Want("f1", `{"a":1}`)}})
	assert.Equal(t, 1.0, res.Score)
	assert.Len(t, res.Details["per_invocation_scores"], 1)

	// No invocations: not evaluated, no score.
	res = sc.ScoreInvocations(context.Background(), [][]toolcall.Call{}, [][]toolcall.ExpectedCall{})
	assert.Equal(t, toolcall.OutcomeNotEvaluated, res.Outcome)
	assert.Nil(t, res.Details["overall_score"])
	assert.Equal(t, "NOT_EVALUATED", res.Details["overall_eval_status"])
	assert.Equal(t, 0.0, res.Score)

	// expected_invocations None.
	res = sc.ScoreInvocations(context.Background(), [][]toolcall.Call{f1}, nil)
	assert.Equal(t, toolcall.OutcomeError, res.Outcome)
	assert.EqualError(t, res.Err, "adk: expected_invocations is needed by this metric.")
}

func TestADKParameterMatch(t *testing.T) {
	opts := map[string]any{"metric": "tool_parameter_match", "threshold": 0.5}
	tests := []struct {
		name  string
		exp   toolcall.Expectation
		calls []toolcall.Call
		want  float64
	}{
		{"partial credit per key", expect(toolcalltest.Want("s", `{"a":1,"b":2}`)), []toolcall.Call{toolcalltest.Call("s", `{"a":1,"b":3,"c":0}`)}, 0.5},
		{"unmatched call does not move the cursor", expect(toolcalltest.Want("log", `{}`), toolcalltest.Want("s", `{"city":"Rome"}`)), []toolcall.Call{toolcalltest.Call("s", `{"city":"Rome"}`)}, 0.5},
		{"calls before the cursor are lost", expect(toolcalltest.Want("a", `{"x":1}`), toolcalltest.Want("b", `{}`)), []toolcall.Call{toolcalltest.Call("b", `{}`), toolcalltest.Call("a", `{"x":1}`)}, 0.5},
		{"name alignment ignores args", expect(toolcalltest.Want("a", `{"x":1}`), toolcalltest.Want("a", `{"x":2}`)), []toolcall.Call{toolcalltest.Call("a", `{"x":2}`)}, 0},
		{"no expected args: 1", expect(toolcalltest.Want("s", "")), []toolcall.Call{toolcalltest.Call("s", `{"city":"Rome"}`)}, 1},
		{"extra actual args are free", expect(toolcalltest.Want("s", `{"a":1}`)), []toolcall.Call{toolcalltest.Call("s", `{"a":1,"z":9}`)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := scoreProfile(t, ADKName, toolcall.Settings{Expectation: tt.exp, Options: opts}, tt.calls...)
			require.NoError(t, res.Err)
			assert.Equal(t, tt.want, res.Score)
		})
	}
	res := scoreProfile(t, ADKName, toolcall.Settings{Options: opts}, toolcalltest.Call("s", `{}`))
	assert.Equal(t, toolcall.OutcomeNotEvaluated, res.Outcome, "no expected calls: not evaluated")
	assert.Equal(t, []any{nil}, res.Details["per_invocation_scores"])

	sc := newProfile(t, ADKName, toolcall.Settings{Options: opts}).(adkInvoker)
	res = sc.ScoreInvocations(context.Background(), [][]toolcall.Call{{toolcalltest.Call("s", `{}`)}}, [][]toolcall.ExpectedCall{{toolcalltest.Want("s", "")}, {toolcalltest.Want("s", "")}})
	assert.EqualError(t, res.Err, "adk: actual_invocations and expected_invocations must have the same length; got 1 and 2.")
	res = sc.ScoreInvocations(context.Background(), [][]toolcall.Call{{toolcalltest.Call("s", `{}`)}}, nil)
	assert.Equal(t, toolcall.OutcomeNotEvaluated, res.Outcome, "expected_invocations None: not evaluated")
	res = sc.ScoreInvocations(context.Background(), [][]toolcall.Call{{toolcalltest.Call("s", `{}`)}, {toolcalltest.Call("s", `{}`)}}, [][]toolcall.ExpectedCall{{}, {toolcalltest.Want("s", `{"a":1}`)}})
	assert.Equal(t, 0.0, res.Score)
	assert.Equal(t, []any{nil, 0.0}, res.Details["per_invocation_scores"])
	assert.Equal(t, []any{"NOT_EVALUATED", "FAILED"}, res.Details["per_invocation_statuses"])
}

func TestADKArgsUnknownAndOptions(t *testing.T) {
	res := scoreProfile(t, ADKName, toolcall.Settings{Expectation: expect(toolcalltest.Want("t", `{}`))}, unknownArgs("t"))
	assert.ErrorContains(t, res.Err, "adk: arguments unavailable for call 1 (t)")
	res = scoreProfile(t, ADKName, toolcall.Settings{Expectation: expect(toolcalltest.Want("t", `{}`)), Options: map[string]any{"ignore_args": true}}, unknownArgs("t"))
	require.NoError(t, res.Err)
	assert.Equal(t, 1.0, res.Score)
	res = scoreProfile(t, ADKName, toolcall.Settings{Expectation: expect(toolcalltest.Want("t", "")), Options: map[string]any{"metric": "tool_parameter_match"}}, unknownArgs("t"))
	require.NoError(t, res.Err, "no expected args: the arguments are never read")

	_, err := toolcall.New(ADKName, toolcall.Settings{Options: map[string]any{"match_type": "InOrder"}})
	assert.EqualError(t, err, `adk: option "match_type": invalid value "InOrder", expected EXACT, IN_ORDER or ANY_ORDER`)
	_, err = toolcall.New(ADKName, toolcall.Settings{Options: map[string]any{"match_type": 3}})
	assert.EqualError(t, err, `adk: option "match_type": invalid value number 3, expected EXACT, IN_ORDER, ANY_ORDER or 0, 1, 2`)
	_, err = toolcall.New(ADKName, toolcall.Settings{Options: map[string]any{"metric": "tool_parameter_match", "ignore_args": true}})
	assert.EqualError(t, err, `adk: option "ignore_args": applies only to metric "tool_trajectory_avg_score"`)
	_, err = toolcall.New(ADKName, toolcall.Settings{Options: map[string]any{"metric": "response_match_score"}})
	assert.EqualError(t, err, `adk: option "metric": invalid value "response_match_score", expected one of ["tool_trajectory_avg_score" "tool_parameter_match"]`)

	// Order maps onto match_type unless match_type is given.
	inOrder := toolcall.Expectation{Calls: []toolcall.ExpectedCall{toolcalltest.Want("a", `{}`), toolcalltest.Want("b", `{}`)}, Order: toolcall.OrderInOrder}
	res = scoreProfile(t, ADKName, toolcall.Settings{Expectation: inOrder}, toolcalltest.Call("a", `{}`), toolcalltest.Call("x", `{}`), toolcalltest.Call("b", `{}`))
	assert.Equal(t, 1.0, res.Score)
	res = scoreProfile(t, ADKName, toolcall.Settings{Expectation: inOrder, Options: map[string]any{"match_type": "EXACT"}}, toolcalltest.Call("a", `{}`), toolcalltest.Call("x", `{}`), toolcalltest.Call("b", `{}`))
	assert.Equal(t, 0.0, res.Score)
	res = scoreProfile(t, ADKName, toolcall.Settings{Expectation: toolcall.Expectation{Calls: inOrder.Calls, Order: toolcall.OrderAny}}, toolcalltest.Call("b", `{}`), toolcalltest.Call("a", `{}`))
	assert.Equal(t, 1.0, res.Score)
	assert.Equal(t, "1: PASSED (ANY_ORDER)", res.Explanation)
	// The threshold option overrides the rule's.
	res = scoreProfile(t, ADKName, toolcall.Settings{Expectation: expect(toolcalltest.Want("a", `{}`)), Threshold: 1, Options: map[string]any{"threshold": 0.0}}, toolcalltest.Call("b", `{}`))
	assert.Equal(t, "PASSED", res.Details["overall_eval_status"])
	assert.Equal(t, toolcall.OutcomePass, res.Outcome)
}

func TestPySum(t *testing.T) {
	xs := make([]float64, 10)
	for i := range xs {
		xs[i] = 0.1
	}
	assert.Equal(t, 1.0, pySum(xs), "CPython 3.12+ compensated sum")
}
