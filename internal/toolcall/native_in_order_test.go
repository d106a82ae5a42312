package toolcall

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// randomInOrderCase returns a random expectation and calls that are, more
// often than not, a run matched in order (see inOrderMatch): the expected
// calls made in order, then perturbed (another tool, type, argument
// value, status, an extra, a dropped or a swapped call, a forbidden
// sequence), with arguments as trees, deferred documents or unknown.
func randomInOrderCase(rng *rand.Rand) (Expectation, []Call) {
	tools := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	args := []string{"", `{"x":1}`, `{"x":"p","y":[1,2]}`, `{"x":{"z":true}}`}
	pick := func(s []string) string { return s[rng.Intn(len(s))] }
	var exp Expectation
	exp.Order = []OrderMode{"", OrderAny, OrderInOrder, OrderExact}[rng.Intn(4)]
	exp.ExtraArgs = []ExtraPolicy{"", ExtraAllow, ExtraPenalize, ExtraFail}[rng.Intn(4)]
	exp.ExtraCalls = []ExtraPolicy{"", ExtraAllow, ExtraPenalize, ExtraFail}[rng.Intn(4)]
	ne := rng.Intn(9)
	if rng.Intn(4) > 0 {
		rng.Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
	}
	for i := range ne {
		e := want(tools[i%len(tools)], pick(args))
		if rng.Intn(4) == 0 {
			e.Name = pick(tools) // maybe a tool expected twice
		}
		e.Optional = rng.Intn(6) == 0
		e.MustSucceed = rng.Intn(4) == 0
		if rng.Intn(6) == 0 {
			e.Type = pick([]string{"function", "Function", "mcp"})
		}
		if rng.Intn(8) == 0 {
			e = withMatcher(e, "x", map[string]any{"type": "number"})
		}
		exp.Calls = append(exp.Calls, e)
	}
	if rng.Intn(4) == 0 {
		exp.ForbiddenSequences = [][]string{{pick(tools), pick(tools)}}
	}
	if rng.Intn(4) == 0 {
		exp.AvailableTools = tools[:4]
	}
	var dp jsonv.DocumentParser
	calls := make([]Call, 0, ne+1)
	for _, e := range exp.Calls {
		c := Call{Name: e.Name, Args: e.Args, Status: StatusOK}
		switch rng.Intn(8) {
		case 0:
			c.Name = pick(tools)
		case 1:
			c.Type = pick([]string{"function", "mcp"})
		case 2:
			c.Args = mustParse(pick(args[1:]))
		case 3:
			c.Status = CallStatus(rng.Intn(5))
		}
		switch rng.Intn(4) {
		case 0:
			c.ArgsUnknown, c.Args = true, jsonv.Value{}
			if rng.Intn(4) == 0 {
				c.ArgsNote = "not recorded"
			}
		case 1:
			if c.Args.Kind() != jsonv.KindUndefined {
				text := c.Args.JSON()
				if rng.Intn(3) == 0 {
					text = " " + text + " "
				}
				doc := jsonv.DeferredDocument(text)
				if rng.Intn(4) == 0 {
					doc, _ = dp.Parse(text)
				}
				c.ArgsDoc, c.Args = &doc, jsonv.Value{}
			}
		}
		calls = append(calls, c)
	}
	switch rng.Intn(8) {
	case 0:
		calls = append(calls, Call{Name: pick(tools)})
	case 1:
		if len(calls) > 0 {
			calls = calls[:len(calls)-1]
		}
	case 2:
		if len(calls) > 1 {
			calls[0], calls[1] = calls[1], calls[0]
		}
	}
	return exp, NumberCalls(calls)
}

// TestInOrderMatchMatchesGeneral checks the in-order result against the
// general scoring on random runs, most of them matched in order: whenever
// inOrderMatch decides a run, its result is scoreGeneral's, and Score
// gives a result whose pairs the scorer does not share.
func TestInOrderMatchMatchesGeneral(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	decided, unavailable, cases := 0, 0, 20000
	for range cases {
		exp, calls := randomInOrderCase(rng)
		s, err := NewNative(exp, 0.5)
		if err != nil {
			continue // a forbidden sequence of expected tools and the like
		}
		n := s.(*native)
		var fast, general Result
		if !n.inOrderMatch(calls, &fast) {
			continue
		}
		decided++
		if fast.Breakdown.ArgumentsUnavailable > 0 {
			unavailable++
		}
		n.scoreGeneral(calls, &general)
		require.Equal(t, general, fast, "%+v %+v", exp, calls)
		own := s.Score(t.Context(), calls)
		require.Equal(t, general, own)
		own.Breakdown.Pairs[0].Score = 0
		var again Result
		n.ScoreInto(calls, nil, &again)
		require.Equal(t, general, again, "Score's result shares its pairs")
	}
	// Most runs are perturbed, but enough are decided, with and without
	// unavailable arguments, for the comparison to mean something.
	require.Greater(t, decided, cases/20)
	require.Greater(t, unavailable, cases/50)
	t.Logf("%d of %d runs decided in order, %d with unavailable arguments", decided, cases, unavailable)
}

// TestCallsInOrderAlignInPlace checks, on random runs split into random
// model turns, that a run callsInOrder accepts is one the turns' alignment
// leaves in place: the general alignment returns the calls themselves and
// the scored ordering is the identity.
func TestCallsInOrderAlignInPlace(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	decided, cases := 0, 20000
	for range cases {
		exp, calls := randomInOrderCase(rng)
		turn := 1
		for i := range calls {
			if rng.Intn(3) == 0 {
				turn++
			}
			calls[i].Turn = turn
		}
		if exp.Validate() != nil {
			continue
		}
		a, err := NewTurnAligner(exp)
		require.NoError(t, err)
		if !a.n.callsInOrder(calls) {
			continue
		}
		decided++
		got := a.alignGeneral(nil, calls)
		require.True(t, len(got) == 0 || &got[0] == &calls[0], "%+v %+v: moved to %+v", exp, calls, got)
		sc := new(scoreScratch)
		a.n.prepare(calls, sc)
		a.n.orderTurns(calls, sc)
		sc.releaseMismatches()
		for k, j := range sc.perm[:len(calls)] {
			require.Equal(t, k, j, "%+v %+v: scored order %v", exp, calls, sc.perm)
		}
	}
	require.Greater(t, decided, cases/10)
	t.Logf("%d of %d runs in order", decided, cases)
}
