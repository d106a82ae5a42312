package toolcall

import "slices"

// TurnAligner reorders the calls of each model turn to follow an
// expectation (see [AlignTurns]). Build one per expectation; it is safe for
// concurrent use.
type TurnAligner struct {
	n *native
}

// NewTurnAligner builds the aligner of a valid expectation.
func NewTurnAligner(exp Expectation) (*TurnAligner, error) {
	s, err := newNative(Settings{Expectation: exp})
	if err != nil {
		return nil, err
	}
	return &TurnAligner{n: s.(*native)}, nil
}

// Align returns calls with the calls of each model turn reordered as
// [AlignTurns] says.
func (a *TurnAligner) Align(calls []Call) []Call { return a.AlignInto(nil, calls) }

// AlignInto is [TurnAligner.Align] writing the reordered calls, when they
// move, into *buf's memory, grown as needed and kept in *buf: a caller
// aligning run after run reuses it. A nil buf gets new memory. When nothing
// moves, calls itself is returned.
func (a *TurnAligner) AlignInto(buf *[]Call, calls []Call) []Call {
	if a.n.callsInOrder(calls) {
		// Call i takes expected call i, in its turn as in every other:
		// nothing moves.
		return calls
	}
	return a.alignGeneral(buf, calls)
}

// alignGeneral is AlignInto for any run.
func (a *TurnAligner) alignGeneral(buf *[]Call, calls []Call) []Call {
	if len(a.n.calls) == 0 || !hasParallelTurn(calls) || len(calls) > MaxCalls {
		// With no expected calls, no call takes one: nothing moves.
		return calls
	}
	if len(calls) <= maxStackAligned {
		var stack [maxStackAligned]int
		perm := stack[:len(calls)]
		if ok, moved := a.orderOnStack(calls, perm); ok {
			if !moved {
				return calls
			}
			return arrange(buf, calls, perm)
		}
	}
	sc := scratchPool.Get().(*scoreScratch)
	defer scratchPool.Put(sc)
	if !a.orderUncontested(calls, sc) {
		a.n.prepare(calls, sc)
		a.n.orderTurns(calls, sc)
		sc.releaseMismatches()
	}
	for k, j := range sc.perm {
		if j != k {
			return arrange(buf, calls, sc.perm)
		}
	}
	return calls
}

// arrange returns calls in the order perm gives, positions renumbered,
// written into *buf's memory as AlignInto says.
func arrange(buf *[]Call, calls []Call, perm []int) []Call {
	var out []Call
	switch {
	case buf == nil:
		out = make([]Call, len(calls))
	case cap(*buf) >= len(calls):
		out = (*buf)[:len(calls)] // every call is overwritten below
	default:
		out = make([]Call, len(calls))
		*buf = out
	}
	for k, j := range perm {
		out[k] = calls[j]
		out[k].Position = k
	}
	return out
}

// orderUncontested fills sc.perm as the native scorer's orderTurns does,
// without scoring a pair, when no call of a model turn with several calls
// competes with another for an expected call: each such call is to a tool
// expected once, and no other call of its turn is to the same tool. Every
// feasible pair of such a turn is then taken whatever its weight (orderTurns
// only ranks pairs to settle conflicts), so a call takes the expected call
// of its tool when its type fits, and none otherwise. It reports false,
// having decided nothing, when some turn has a conflict.
func (a *TurnAligner) orderUncontested(calls []Call, sc *scoreScratch) bool {
	n := a.n
	n.groupCalls(calls, sc)
	ne, na := len(n.calls), len(calls)
	took := GrowInts(sc.took, na)
	sc.took = took
	for start := 0; start < na; {
		end := turnEnd(calls, start)
		if end-start > 1 {
			for j := start; j < end; j++ {
				took[j] = ne
				g := sc.actGroup[j]
				if g < 0 {
					continue
				}
				if len(n.groupRows[g]) != 1 || slices.Contains(sc.actGroup[start:j], g) {
					return false
				}
				// The type check prepare makes feasible pairs with.
				if i := n.groupRows[g][0]; n.calls[i].typeFits(&calls[j]) {
					took[j] = i
				}
			}
		}
		start = end
	}
	perm := GrowInts(sc.perm, na)
	sc.perm = perm
	for j := range perm {
		perm[j] = j
	}
	for start := 0; start < na; {
		end := turnEnd(calls, start)
		if end-start > 1 {
			slices.SortStableFunc(perm[start:end], func(x, y int) int { return took[x] - took[y] })
		}
		start = end
	}
	return true
}

// maxStackAligned is the number of calls up to which AlignInto orders a
// run with orderOnStack; maxInPlaceTurn the number of calls of a model turn
// up to which orderOnStack compares each with those before it.
const (
	maxStackAligned = 16
	maxInPlaceTurn  = 8
)

// orderOnStack is orderUncontested for a run of up to maxStackAligned
// calls, without memory but perm: it finds every model turn with several
// calls uncontested (of at most maxInPlaceTurn calls) and fills
// perm[:len(calls)] as orderUncontested fills sc.perm, each turn's calls
// sorted stably by the expected call they take (one that takes none
// counting as after every one). It reports whether it did (ok false:
// some turn is contested, and nothing is decided) and whether any call
// moved.
func (a *TurnAligner) orderOnStack(calls []Call, perm []int) (ok, moved bool) {
	n := a.n
	ne := len(n.calls)
	var took [maxStackAligned]int
	for start := 0; start < len(calls); {
		end := turnEnd(calls, start)
		if end-start > maxInPlaceTurn {
			return false, false
		}
		for j := start; j < end; j++ {
			perm[j], took[j] = j, ne
			if end-start == 1 {
				continue
			}
			g := n.groups.Lookup(calls[j].Name)
			if g < 0 {
				continue
			}
			if len(n.groupRows[g]) != 1 {
				return false, false
			}
			// Calls to the same tool are of the same group: two of them in
			// a turn contest its expected call.
			for k := start; k < j; k++ {
				if calls[k].Name == calls[j].Name {
					return false, false
				}
			}
			if i := n.groupRows[g][0]; n.calls[i].typeFits(&calls[j]) {
				took[j] = i
			}
		}
		// An insertion sort, stable: the turn has few calls.
		for x := start + 1; x < end; x++ {
			for y := x; y > start && took[perm[y-1]] > took[perm[y]]; y-- {
				perm[y-1], perm[y] = perm[y], perm[y-1]
				moved = true
			}
		}
		start = end
	}
	return true, moved
}

// AlignTurns returns calls with the calls of each model turn (consecutive
// calls with the same non-zero Turn) reordered to follow the expectation:
// each call takes the expected call of its tool it matches best (as the
// native scorer judges the pair), and the turn's calls follow the expected
// calls they took; calls that took none come last. A model turn's calls run
// in parallel, so the order their spans start in is arbitrary; offline,
// peers see the order the model requested them in, which traces rarely
// record. Turns keep their order. Positions are renumbered. calls is not
// modified; when nothing moves (or exp is not valid), calls itself is
// returned. A caller aligning many runs to one expectation builds a
// [TurnAligner] once instead.
func AlignTurns(calls []Call, exp *Expectation) []Call {
	if !hasParallelTurn(calls) {
		return calls
	}
	a, err := NewTurnAligner(*exp)
	if err != nil {
		return calls
	}
	return a.Align(calls)
}
