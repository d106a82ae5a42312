package toolcall

// The common run called each expected tool once, in the expected order,
// and each call passed its argument checks or did not record its
// arguments. When every tool is expected once, such a run's result is
// fixed by the scorer up to which calls' arguments were unavailable: in
// every order mode, expected call i pairs with actual call i at score 1,
// nothing is missing or left over, and the explanation is one built in
// advance. inOrderMatch recognises such a run from the calls alone and
// writes that result, which spares the scratch, the pairing, and the
// result's allocation: its pairs are built when the scorer is.

// maxInOrderTable is the number of expected calls up to which the pairs of
// the in-order results with unavailable arguments are built in advance:
// one set of pairs for each subset of the calls that check arguments.
const maxInOrderTable = 6

// inOrderPairs are the pairs of a scorer's in-order results. byMask[m]
// are those of the result whose calls in m (bit i: expected call i) had
// their arguments unavailable, nil where m holds a call that checks no
// arguments (whose pair never has them unavailable). Past
// maxInOrderTable expected calls it holds byMask[0] alone. All are capped
// at their length, so appending to one never writes into another.
type inOrderPairs struct {
	byMask [][]Pair
}

// newInOrderPairs returns the in-order pairs of a scorer of the expected
// calls calls, grouped by tool as groupRows, when an in-order run's
// pairing is forced: each group holds one expected call, so the one call
// to a tool pairs with it or with nothing. It returns none otherwise, and
// for no expected calls.
func newInOrderPairs(calls []compiledCall, groupRows [][]int) inOrderPairs {
	ne := len(calls)
	if ne == 0 || len(groupRows) != ne {
		return inOrderPairs{}
	}
	masks := 1
	checked := 0 // the calls that check arguments
	if ne <= maxInOrderTable {
		masks = 1 << ne
		for i := range calls {
			if calls[i].spec.root != nil {
				checked |= 1 << i
			}
		}
	}
	subsets := 0
	for m := range masks {
		if m&^checked == 0 {
			subsets++
		}
	}
	slab := make([]Pair, subsets*ne)
	byMask := make([][]Pair, masks)
	for m := range byMask {
		if m&^checked != 0 {
			continue
		}
		pairs := slab[:ne:ne]
		slab = slab[ne:]
		for i := range pairs {
			pairs[i] = Pair{Expected: int32(i), Actual: int32(i), Score: 1, ArgumentsUnavailable: m>>i&1 == 1}
		}
		byMask[m] = pairs
	}
	return inOrderPairs{byMask: byMask}
}

// own gives res its own copy of pairs it shares with the scorer, for a
// caller of Score, who may change its result.
func (t *inOrderPairs) own(res *Result) {
	p := res.Breakdown.Pairs
	if len(p) == 0 {
		return
	}
	for _, shared := range t.byMask {
		if len(shared) > 0 && &shared[0] == &p[0] {
			res.Breakdown.Pairs = make([]Pair, len(p))
			copy(res.Breakdown.Pairs, p)
			return
		}
	}
}

// inOrderMatch writes the result of calls to res and reports true when the
// run matched in order: as many calls as expected calls, each tool
// expected once, call i to expected call i's tool and of a type it
// accepts, scoring 1 against it with nothing to report but unavailable
// arguments (see passes), no forbidden sequence, and an explanation built
// in advance. That result is the one scoreGeneral writes: each call is the
// only one to its tool, so every order mode pairs it with its expected
// call, and none is left over. Otherwise it reports false and leaves res
// to scoreGeneral.
func (n *native) inOrderMatch(calls []Call, res *Result) bool {
	if !n.callsInOrder(calls) {
		return false
	}
	byMask := n.inOrder.byMask
	ne := len(n.calls)
	mask, unavailable := 0, 0
	for i := range calls {
		ok, argsUnavailable := n.calls[i].passes(&calls[i])
		if !ok {
			return false
		}
		if argsUnavailable {
			if len(byMask) == 1 {
				return false // past the table
			}
			mask |= 1 << i
			unavailable++
		}
	}
	if findSequences(calls, n.exp.ForbiddenSequences) != nil {
		return false
	}
	*res = Result{Scorer: NativeName, Threshold: n.threshold, Score: 1}
	b := &res.Breakdown
	b.Pairs, b.ArgumentsUnavailable, b.OrderScore = byMask[mask], unavailable, 1
	if unavailable == 0 {
		res.Explanation = n.allMatched[ne]
	} else if s, ok := n.unavailableExplanation(res, calls, ne); ok {
		res.Explanation = s
	} else {
		return false
	}
	res.Decide()
	return true
}

// callsInOrder reports whether calls are a run whose pairing is forced
// in order: as many calls as expected calls, each tool expected once, and
// call i to expected call i's tool and of a type it accepts. Each call is
// then the only one to its tool and can pair with its expected call alone,
// so in every order mode, and in every model turn's alignment (see
// [TurnAligner.AlignInto]), call i takes expected call i.
func (n *native) callsInOrder(calls []Call) bool {
	if n.inOrder.byMask == nil || len(calls) != len(n.calls) {
		return false
	}
	for i := range calls {
		if e, a := &n.calls[i], &calls[i]; a.Name != e.name || !e.typeFits(a) {
			return false
		}
	}
	return true
}

// passes reports whether actual call a scores 1 against e with nothing to
// report but, in unavailable, arguments that were not recorded, as
// callScore would find it, by the checks that need no tally: none when e
// checks no arguments, the one-pass text check for arguments given as a
// deferred document, the literal steps for arguments given as a tree. It
// reports false for anything else, which decides nothing.
func (e *compiledCall) passes(a *Call) (ok, unavailable bool) {
	switch {
	case e.mustSucceed && a.Failed():
		return false, false
	case e.spec.root == nil:
		return true, false
	case a.ArgsUnknown:
		return true, true
	case a.ArgsDoc != nil:
		if !a.ArgsDoc.IsDeferred() {
			return false, false
		}
		_, ok := e.spec.passesText(a.ArgsDoc.Text())
		return ok, false
	}
	return e.literalMatch(a), false
}
