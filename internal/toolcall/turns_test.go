package toolcall

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// weatherIn builds a get_current_weather call or expected call for a city.
func weatherIn(city string) (Call, ExpectedCall) {
	args := `{"location":"` + city + `"}`
	return call("get_current_weather", args), want("get_current_weather", args)
}

func inTurn(turn int, c Call) Call { c.Turn = turn; return c }

// TestTurnCallsToOneTool pins that calls of one model turn are judged free
// of order when they call the same tool, and that turns stay ordered.
func TestTurnCallsToOneTool(t *testing.T) {
	seattle, wantSeattle := weatherIn("Seattle")
	sf, wantSF := weatherIn("San Francisco")
	boston, wantBoston := weatherIn("Boston")
	tests := []struct {
		name  string
		order OrderMode
		exp   []ExpectedCall
		calls []Call
		// score is the native score; aligned lists the tool arguments'
		// cities in the order AlignTurns gives the calls.
		score   float64
		aligned []string
	}{
		{
			name:    "one turn, start order differs from the expected order",
			order:   OrderInOrder,
			exp:     []ExpectedCall{wantSF, wantSeattle},
			calls:   []Call{inTurn(1, seattle), inTurn(1, sf)},
			score:   1,
			aligned: []string{"San Francisco", "Seattle"},
		},
		{
			name:    "one turn under exact",
			order:   OrderExact,
			exp:     []ExpectedCall{wantSF, wantSeattle},
			calls:   []Call{inTurn(1, seattle), inTurn(1, sf)},
			score:   1,
			aligned: []string{"San Francisco", "Seattle"},
		},
		{
			name:    "one turn between others",
			order:   OrderExact,
			exp:     []ExpectedCall{wantBoston, wantSF, wantSeattle, wantBoston},
			calls:   []Call{inTurn(1, boston), inTurn(2, seattle), inTurn(2, sf), inTurn(3, boston)},
			score:   1,
			aligned: []string{"Boston", "San Francisco", "Seattle", "Boston"},
		},
		{
			name:    "two turns with the same calls take the expected calls in turn",
			order:   OrderInOrder,
			exp:     []ExpectedCall{wantSeattle, wantSF, wantSF, wantSeattle},
			calls:   []Call{inTurn(1, seattle), inTurn(1, sf), inTurn(2, seattle), inTurn(2, sf)},
			score:   1,
			aligned: []string{"Seattle", "San Francisco", "San Francisco", "Seattle"},
		},
		{
			name:  "order across turns is still judged",
			order: OrderInOrder,
			exp:   []ExpectedCall{wantSF, wantSeattle},
			calls: []Call{inTurn(1, seattle), inTurn(2, sf)},
			score: 0, // two pairs with wrong arguments outweigh one in order

			aligned: []string{"Seattle", "San Francisco"},
		},
		{
			name:    "calls without a turn are judged in start order",
			order:   OrderInOrder,
			exp:     []ExpectedCall{wantSF, wantSeattle},
			calls:   []Call{seattle, sf},
			score:   0,
			aligned: []string{"Seattle", "San Francisco"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp := Expectation{Order: tt.order, Calls: tt.exp}
			res := scoreNative(t, exp, 1, tt.calls...)
			assert.InDelta(t, tt.score, res.Score, 1e-9, res.Explanation)

			aligned := AlignTurns(NumberCalls(tt.calls), &exp)
			require.Len(t, aligned, len(tt.calls))
			var cities []string
			for i, c := range aligned {
				assert.Equal(t, i, c.Position)
				location, _ := c.Args.Get("location")
				cities = append(cities, location.StringValue())
			}
			assert.Equal(t, tt.aligned, cities)
			// The native scorer judges aligned calls the same.
			assert.InDelta(t, tt.score, scoreNative(t, exp, 1, aligned...).Score, 1e-9)
		})
	}
}

// AlignInto gives what Align gives, in the buffer's memory when it has
// room, growing it (and keeping the growth) when not, and leaves it alone
// when nothing moves.
func TestAlignIntoReusesTheBuffer(t *testing.T) {
	seattle, wantSeattle := weatherIn("Seattle")
	sf, wantSF := weatherIn("San Francisco")
	a, err := NewTurnAligner(Expectation{Order: OrderInOrder, Calls: []ExpectedCall{wantSF, wantSeattle}})
	require.NoError(t, err)
	moved := NumberCalls([]Call{inTurn(1, seattle), inTurn(1, sf)})
	kept := NumberCalls([]Call{inTurn(1, sf), inTurn(1, seattle)})
	for _, tt := range []struct {
		name   string
		calls  []Call
		bufCap int
		reused bool // the result is in the buffer given
		grown  bool // the buffer was replaced by bigger memory
	}{
		{"moved, room", moved, 4, true, false},
		{"moved, exact room", moved, 2, true, false},
		{"moved, no room", moved, 1, false, true},
		{"moved, no buffer yet", moved, 0, false, true},
		{"nothing moves", kept, 4, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			buf := make([]Call, 0, tt.bufCap)
			given := buf
			got := a.AlignInto(&buf, tt.calls)
			assert.Equal(t, a.Align(tt.calls), got)
			if tt.bufCap > 0 {
				assert.Equal(t, tt.reused, &got[0] == &given[:1][0])
			}
			assert.Equal(t, tt.grown, cap(buf) != tt.bufCap)
			if tt.grown {
				assert.Same(t, &got[0], &buf[:1][0])
			}
			if !tt.reused && !tt.grown {
				assert.Same(t, &tt.calls[0], &got[0], "calls itself")
			}
		})
	}
}

// TestAlignNoExpectedCalls: with no expected calls nothing can move, so the
// aligner returns the calls as they are without pairing them; the pairing
// agrees.
func TestAlignNoExpectedCalls(t *testing.T) {
	seattle, _ := weatherIn("Seattle")
	sf, _ := weatherIn("San Francisco")
	a, err := NewTurnAligner(Expectation{})
	require.NoError(t, err)
	for _, calls := range [][]Call{
		{inTurn(1, seattle), inTurn(1, sf)},
		{inTurn(1, sf), inTurn(1, seattle), inTurn(2, sf), inTurn(2, sf)},
		{inTurn(1, callOf("lookup_stock", `{"symbol":"A"}`, StatusOK)), inTurn(1, seattle), inTurn(1, callOf("x", `{}`, StatusError))},
	} {
		calls = NumberCalls(calls)
		buf := make([]Call, 0, 8)
		got := a.AlignInto(&buf, calls)
		assert.Same(t, &calls[0], &got[0], "calls itself")
		sc := scratchPool.Get().(*scoreScratch)
		a.n.prepare(calls, sc)
		a.n.orderTurns(calls, sc)
		for k, j := range sc.perm {
			assert.Equal(t, k, j, "the pairing moves nothing")
		}
		sc.releaseMismatches()
		scratchPool.Put(sc)
	}
}

// alignCase decodes bytes into an expectation and calls drawn from a small
// vocabulary of tools, types, arguments and turns, so that tools repeat,
// types clash and turns hold several calls often. Each byte is one call,
// expected (high bit set) or actual.
func alignCase(data []byte) (Expectation, []Call) {
	tools := []string{"a", "b", "c"}
	types := []string{"", "function", "mcp", "MCP"}
	args := []string{"", `{"x":1}`, `{"x":2}`}
	exp := Expectation{Order: OrderInOrder}
	var calls []Call
	turn := 1
	for _, b := range data {
		name, typ, arg := tools[int(b)%3], types[int(b>>2)%4], args[int(b>>4)%3]
		if b&0x80 != 0 {
			if len(exp.Calls) < 8 {
				e := want(name, arg)
				e.Type = typ
				exp.Calls = append(exp.Calls, e)
			}
			continue
		}
		if len(calls) == 16 {
			continue
		}
		if b&0x40 != 0 {
			turn++
		}
		c := call(name, arg)
		c.Type, c.Turn = typ, turn
		if b&0x20 != 0 {
			c.Turn = 0
		}
		calls = append(calls, c)
	}
	return exp, NumberCalls(calls)
}

// checkUncontested compares orderUncontested with the scored ordering
// (prepare and orderTurns) on one case; it reports whether the shortcut
// decided the case.
func checkUncontested(t *testing.T, data []byte) bool {
	exp, calls := alignCase(data)
	if exp.Validate() != nil || len(exp.Calls) == 0 {
		return false
	}
	a, err := NewTurnAligner(exp)
	if err != nil {
		return false
	}
	fast, slow := new(scoreScratch), new(scoreScratch)
	if !a.orderUncontested(calls, fast) {
		return false
	}
	a.n.prepare(calls, slow)
	a.n.orderTurns(calls, slow)
	slow.releaseMismatches()
	if !slices.Equal(fast.perm[:len(calls)], slow.perm[:len(calls)]) {
		t.Fatalf("%x: uncontested order %v, scored order %v", data, fast.perm[:len(calls)], slow.perm[:len(calls)])
	}
	return true
}

// TestOrderUncontestedMatchesOrderTurns checks the unscored ordering
// against the scored one on random runs, and that it decides most of
// them and leaves the others to orderTurns.
func TestOrderUncontestedMatchesOrderTurns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	decided, cases := 0, 20000
	for range cases {
		data := make([]byte, 2+rng.IntN(14))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		if checkUncontested(t, data) {
			decided++
		}
	}
	t.Logf("decided %d of %d", decided, cases)
	assert.Greater(t, decided, cases/20)
}

// FuzzOrderUncontested is TestOrderUncontestedMatchesOrderTurns on fuzzed
// runs.
func FuzzOrderUncontested(f *testing.F) {
	f.Add([]byte{0x80, 0x81, 0x01, 0x00})
	f.Add([]byte{0x80, 0x80, 0x00, 0x00, 0x40, 0x01})
	f.Add([]byte{0x84, 0x81, 0x04, 0x00, 0x08})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 32 {
			return
		}
		checkUncontested(t, data)
	})
}

// randomAlignCase returns alignCase's run of random bytes, its bytes and an
// aligner of its expectation; a nil aligner when the expectation is not
// valid or expects nothing.
func randomAlignCase(t *testing.T, rng *rand.Rand) ([]byte, *TurnAligner, []Call) {
	data := make([]byte, 2+rng.IntN(14))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	exp, calls := alignCase(data)
	if exp.Validate() != nil || len(exp.Calls) == 0 {
		return data, nil, nil
	}
	a, err := NewTurnAligner(exp)
	require.NoError(t, err)
	return data, a, calls
}

// TestOrderOnStackMatchesOrderTurns checks that the order orderOnStack
// gives a run, when it decides it, is the scored ordering's, on random
// runs, and that it decides most of them.
func TestOrderOnStackMatchesOrderTurns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	decided, cases := 0, 20000
	for range cases {
		data, a, calls := randomAlignCase(t, rng)
		if a == nil {
			continue
		}
		perm := make([]int, len(calls))
		ok, moved := a.orderOnStack(calls, perm)
		if !ok {
			continue
		}
		decided++
		sc := new(scoreScratch)
		a.n.prepare(calls, sc)
		a.n.orderTurns(calls, sc)
		sc.releaseMismatches()
		if !slices.Equal(sc.perm[:len(calls)], perm) {
			t.Fatalf("%x: order %v, scored order %v", data, perm, sc.perm[:len(calls)])
		}
		require.Equal(t, !slices.IsSorted(perm), moved, "%x: moved", data)
	}
	t.Logf("decided %d of %d", decided, cases)
	assert.Greater(t, decided, cases/2)
}

// TestTakeUncontestedMatchesRankTurn checks, on random runs, that
// orderTurns (which takes the pairs of uncontested turns without ranking
// them) leaves the order, the pairs taken and the pairs evaluated exactly
// as ranking every turn does.
func TestTakeUncontestedMatchesRankTurn(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		data, a, calls := randomAlignCase(t, rng)
		if a == nil {
			continue
		}
		n := a.n
		got, want := new(scoreScratch), new(scoreScratch)
		n.prepare(calls, got)
		n.orderTurns(calls, got)
		n.prepare(calls, want)
		rankEveryTurn(n, calls, want)
		ne, na := len(n.calls), len(calls)
		require.Equal(t, want.perm[:na], got.perm[:na], "%x: order", data)
		if hasParallelTurn(calls) {
			require.Equal(t, want.took[:na], got.took[:na], "%x: pairs taken", data)
			require.Equal(t, want.owner[:ne], got.owner[:ne], "%x: owners", data)
		}
		require.Equal(t, want.weights[:ne*na], got.weights[:ne*na], "%x: pairs evaluated", data)
		require.Equal(t, want.tally.mismatches, got.tally.mismatches, "%x: mismatches", data)
	}
}

// rankEveryTurn is orderTurns ranking the pairs of every turn (rankTurn).
func rankEveryTurn(n *native, calls []Call, sc *scoreScratch) {
	na, ne := len(calls), len(n.calls)
	sc.perm = GrowInts(sc.perm, na)
	for j := range sc.perm {
		sc.perm[j] = j
	}
	if !hasParallelTurn(calls) {
		return
	}
	sc.owner = GrowInts(sc.owner, ne)
	for i := range sc.owner {
		sc.owner[i] = -1
	}
	sc.took = GrowInts(sc.took, na)
	for turn, start := 0, 0; start < na; turn++ {
		end := turnEnd(calls, start)
		n.rankTurn(calls, sc, start, end, turn)
		took := sc.took
		slices.SortStableFunc(sc.perm[start:end], func(x, y int) int { return took[x] - took[y] })
		start = end
	}
}
