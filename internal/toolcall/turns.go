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
	if len(a.n.calls) == 0 || !hasParallelTurn(calls) || len(calls) > MaxCalls {
		// With no expected calls, no call takes one: nothing moves.
		return calls
	}
	if a.inPlace(calls) {
		return calls
	}
	sc := scratchPool.Get().(*scoreScratch)
	defer scratchPool.Put(sc)
	if !a.orderUncontested(calls, sc) {
		a.n.prepare(calls, sc)
		a.n.orderTurns(calls, sc)
		sc.releaseMismatches()
	}
	moved := false
	for k, j := range sc.perm {
		if j != k {
			moved = true
			break
		}
	}
	if !moved {
		return calls
	}
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
	for k, j := range sc.perm {
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

// maxInPlaceTurn is the number of calls of a model turn up to which
// inPlace compares each with those before it rather than taking memory.
const maxInPlaceTurn = 8

// inPlace reports, without memory, that orderUncontested would find every
// model turn with several calls uncontested and leave its calls where they
// are: the expected calls they take (one that takes none counts as after
// every one) never decrease along a turn. A stable sort of the turn then
// moves nothing. It reports false, having decided nothing, otherwise or
// for a turn of more than maxInPlaceTurn calls.
func (a *TurnAligner) inPlace(calls []Call) bool {
	n := a.n
	ne := len(n.calls)
	for start := 0; start < len(calls); {
		end := turnEnd(calls, start)
		if end-start > maxInPlaceTurn {
			return false
		}
		last := 0 // the expected call the turn's last call took
		for j := start; j < end && end-start > 1; j++ {
			took := ne
			if g := n.groups.Lookup(calls[j].Name); g >= 0 {
				if len(n.groupRows[g]) != 1 {
					return false
				}
				// Calls to the same tool are of the same group: two of
				// them in a turn contest its expected call.
				for k := start; k < j; k++ {
					if calls[k].Name == calls[j].Name {
						return false
					}
				}
				if i := n.groupRows[g][0]; n.calls[i].typeFits(&calls[j]) {
					took = i
				}
			}
			if took < last {
				return false
			}
			last = took
		}
		start = end
	}
	return true
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
