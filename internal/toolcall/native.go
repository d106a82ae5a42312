package toolcall

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// NativeName is the registered name of the native scorer.
const NativeName = "native"

func init() { Register(NativeName, newNative) }

// compiledCall is an expected call with its argument specification built.
type compiledCall struct {
	name        string
	typ         string // "" accepts any actual type
	optional    bool
	mustSucceed bool
	spec        argSpec
}

// compileExpectation builds the argument specifications of every expected
// call. Errors name the call ("calls[2].match["a"]: ...").
func compileExpectation(e Expectation) ([]compiledCall, error) {
	r := e.Resolved()
	out := make([]compiledCall, len(e.Calls))
	var errs []error
	b := newSpecBuilder(e.Calls)
	for i, c := range e.Calls {
		root, err := compileArgs(b, c.Args, c.Matchers)
		if err != nil {
			errs = append(errs, fmt.Errorf("calls[%d] (%s): %w", i, c.Name, err))
			continue
		}
		out[i] = compiledCall{
			name:        c.Name,
			typ:         expectedType(c.Type),
			optional:    c.Optional,
			mustSucceed: c.MustSucceed,
			spec:        argSpec{root: root, extra: r.ExtraArgs, credit: r.Credit, coerce: r.CoerceStrings},
		}
	}
	b.finish()
	compileLiteralSteps(out, e.Calls)
	return out, errors.Join(errs...)
}

// compileLiteralSteps gives every literal-only specification among calls
// (arguments given as a literal object, no path matchers) its checks as
// steps (see passesAll), all from one allocation.
func compileLiteralSteps(calls []compiledCall, expected []ExpectedCall) {
	total := 0
	for i := range expected {
		if calls[i].spec.root != nil && len(expected[i].Matchers) == 0 {
			total += max(0, literalStepCount(&expected[i].Args, 0))
		}
	}
	if total == 0 {
		return
	}
	slab := make([]literalStep, 0, total)
	for i := range expected {
		if calls[i].spec.root != nil && len(expected[i].Matchers) == 0 {
			calls[i].spec.literal, slab = newLiteralCheck(&expected[i].Args, slab)
		}
	}
}

// expectedType returns "" for an unset expected type (any actual type
// pairs), else the normalised type.
func expectedType(t string) string {
	if t == "" {
		return ""
	}
	return NormalizeType(t)
}

// NormalizeType maps "" and "function" (any case) to "function".
func NormalizeType(t string) string {
	if t == "" || strings.EqualFold(t, "function") {
		return "function"
	}
	return strings.ToLower(t)
}

// native is the default scorer: optimal pairing, multiset semantics, explicit
// policies. See the package documentation for its rules.
type native struct {
	exp   Expectation
	calls []compiledCall
	// groups finds a tool's group; groupRows lists each group's expected
	// calls and callGroup is each expected call's group. Only calls in
	// the same group can pair.
	groups    NameTable
	groupRows [][]int
	callGroup []int
	forbidden map[string]struct{}
	available map[string]struct{}
	threshold float64
	// allMatched[k] explains a run that matched all of its k expected
	// calls and did nothing else (see explain); unavailable[k][u-1] one
	// that did so with the arguments of u of those calls unavailable
	// (nil past maxUnavailableTable expected calls).
	allMatched  []string
	unavailable [][]string
	// inOrder holds the pairs of the in-order results (see
	// inOrderMatch); nil when some tool is expected more than once.
	inOrder inOrderPairs
}

var _ Scorer = (*native)(nil)

func newNative(s Settings) (Scorer, error) {
	if len(s.Options) > 0 {
		keys := make([]string, 0, len(s.Options))
		for k := range s.Options {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return nil, fmt.Errorf("native: unknown option %q (the native scorer is configured by the expectation)", keys[0])
	}
	calls, err := s.Expectation.compile()
	if err != nil {
		return nil, err
	}
	groupNames, groupRows := groupCallsByTool(calls)
	callGroup := make([]int, len(calls))
	for g, rows := range groupRows {
		for _, i := range rows {
			callGroup[i] = g
		}
	}
	n := &native{
		exp:        s.Expectation.Resolved(),
		calls:      calls,
		groups:     NewNameTable(groupNames),
		groupRows:  groupRows,
		callGroup:  callGroup,
		forbidden:  toSet(s.Expectation.ForbiddenTools),
		available:  toSet(s.Expectation.AvailableTools),
		threshold:  s.Threshold,
		allMatched: allMatchedExplanations(len(calls)),
	}
	n.unavailable = n.unavailableExplanations()
	n.inOrder = newInOrderPairs(calls, groupRows)
	return n, nil
}

// groupCallsByTool groups the expected calls by tool: groupRows[g] lists
// group g's calls and groupNames[g] its tool. The rows share one slice.
func groupCallsByTool(calls []compiledCall) (groupNames []string, groupRows [][]int) {
	group := make([]int, len(calls))
	groupNames = make([]string, 0, len(calls)) // at most one group a call
	var groupOf map[string]int
	for i := range calls {
		name := calls[i].name
		g, ok := groupOf[name]
		if !ok && groupOf == nil {
			// Few tools so far: a scan is cheaper than a map.
			if g = slices.Index(groupNames, name); g >= 0 {
				ok = true
			}
		}
		if !ok {
			g = len(groupNames)
			groupNames = append(groupNames, name)
			if groupOf == nil && len(groupNames) > 16 {
				groupOf = make(map[string]int, len(calls))
				for k, name := range groupNames {
					groupOf[name] = k
				}
			} else if groupOf != nil {
				groupOf[name] = g
			}
		}
		group[i] = g
	}
	// A counting sort of the calls by group into one slice.
	start := make([]int, len(groupNames)+1)
	for _, g := range group {
		start[g+1]++
	}
	for g := range groupNames {
		start[g+1] += start[g]
	}
	rows := make([]int, len(calls))
	groupRows = make([][]int, len(groupNames))
	for g := range groupRows {
		groupRows[g] = rows[start[g]:start[g]:start[g+1]]
	}
	for i, g := range group {
		groupRows[g] = append(groupRows[g], i)
	}
	return groupNames, groupRows
}

// NewNative builds the native scorer directly.
func NewNative(exp Expectation, threshold float64) (Scorer, error) {
	return New(NativeName, Settings{Expectation: exp, Threshold: threshold})
}

func (n *native) Name() string { return NativeName }

// callScore scores actual call a against expected call e (which must be
// feasible).
func (n *native) callScore(e *compiledCall, a *Call, t *argTally) (score float64, unavailable, failed bool) {
	if e.mustSucceed && a.Failed() {
		return 0, false, true
	}
	if e.spec.root == nil {
		return 1, false, false
	}
	if a.ArgsUnknown {
		return 1, true, false
	}
	if a.ArgsDoc != nil {
		return e.spec.evaluateDocument(a.ArgsDoc, t), false, false
	}
	return e.spec.evaluate(&a.Args, t), false, false
}

// literalMatch reports whether actual call a's arguments, given as a tree,
// pass the literal steps of e (see passesAll): then the call scores 1 with
// nothing to report, as callScore would find through the evaluation,
// which this spares the calls down to the steps. It reports false for
// anything else, which decides nothing.
func (e *compiledCall) literalMatch(a *Call) bool {
	return e.spec.literal.steps != nil && a.ArgsDoc == nil && !a.ArgsUnknown &&
		!(e.mustSucceed && a.Failed()) && e.spec.passesAll(&a.Args)
}

// scoreScratch holds per-scoring working memory, reused through a pool so a
// scoring allocates only what its result keeps.
type scoreScratch struct {
	scores  []float64
	weights []int64
	sub     []int64
	match   []int
	subMat  []int
	used    []bool
	// actGroup is each actual call's group (-1: no expected call uses the
	// tool); groupStart/groupCols list each group's actual calls.
	actGroup   []int
	groupStart []int
	groupCols  []int
	// tally.mismatches collects every evaluated pair's failed checks,
	// recorded as the pair is first evaluated; mmFrom/mmTo[i*na+j]
	// delimit pair (i, j)'s share, so the result never evaluates a pair
	// twice. The tally keeps the buffer from pair to pair.
	mmFrom, mmTo []int32
	perm         []int
	dp           []int64       // orderedAssignment's table
	sparse       sparseScratch // orderedAssignmentSparse's
	// owner, took and turnPairs are orderTurns' working memory.
	owner, took []int
	turnPairs   []turnPair
	tally       argTally
	// lists gathers result's breakdown lists; text holds the explanation
	// being written.
	lists [numLists][]int
	text  []byte
	// parser indexes deferred documents the one-pass check leaves;
	// invalid records one that is not JSON.
	parser  jsonv.DocumentParser
	invalid bool
}

var scratchPool = sync.Pool{New: func() any { return new(scoreScratch) }}

// maxPooledMismatches bounds the mismatch buffer a pooled scratch keeps: a
// scoring that evaluated many failing pairs does not pin its high-water mark.
const maxPooledMismatches = 256

// releaseMismatches forgets the recorded mismatches once the result has its
// copy, so the pooled buffer holds no argument values of a finished run.
func (sc *scoreScratch) releaseMismatches() {
	if cap(sc.tally.mismatches) > maxPooledMismatches {
		sc.tally.mismatches = nil
		return
	}
	clear(sc.tally.mismatches)
	sc.tally.mismatches = sc.tally.mismatches[:0]
}

func growFloats(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

func growInt64s(b []int64, n int) []int64 {
	if cap(b) < n {
		return make([]int64, n)
	}
	return b[:n]
}

func GrowInts(b []int, n int) []int {
	if cap(b) < n {
		return make([]int, n)
	}
	return b[:n]
}

func growInt32s(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n)
	}
	return b[:n]
}

func GrowBools(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n)
	}
	b = b[:n]
	for i := range b {
		b[i] = false
	}
	return b
}

// Score implements Scorer.
func (n *native) Score(_ context.Context, calls []Call) (res Result) {
	n.ScoreInto(calls, nil, &res)
	n.inOrder.own(&res)
	return res
}

// ScoreInto is Score writing its result to res (see ScoreInto). The
// result of a run matched in order (see inOrderMatch) shares its pairs
// with the scorer.
func (n *native) ScoreInto(calls []Call, _ *RunContext, res *Result) {
	if len(calls) > MaxCalls {
		SetError(res, NativeName, n.threshold, fmt.Errorf("%d calls exceed the maximum of %d per trajectory", len(calls), MaxCalls))
		return
	}
	if n.inOrderMatch(calls, res) {
		return
	}
	n.scoreGeneral(calls, res)
}

// scoreGeneral is ScoreInto for any run within MaxCalls: it pairs the
// calls and writes the result with its breakdown.
func (n *native) scoreGeneral(calls []Call, res *Result) {
	sc := scratchPool.Get().(*scoreScratch)
	defer scratchPool.Put(sc)
	n.prepare(calls, sc)
	sc.match = GrowInts(sc.match, len(n.calls))
	if n.exp.Order == OrderAny {
		n.assignByTool(calls, sc)
	} else {
		n.assignInOrder(calls, sc)
	}
	if sc.invalid {
		sc.releaseMismatches()
		SetError(res, NativeName, n.threshold, jsonv.ErrInvalidDocument)
		return
	}
	*res = Result{}
	n.result(calls, sc, res)
	// Explained here rather than in result, whose frame is large: the
	// explanation's calls go deepest (see ScoreInto).
	res.Explanation = n.explain(res, calls, len(n.calls), sc)
}

// prepare readies sc for scoring calls: it groups them by tool and marks
// every pair feasible or not.
func (n *native) prepare(calls []Call, sc *scoreScratch) {
	ne, na := len(n.calls), len(calls)
	n.groupCalls(calls, sc)
	// weights[i*na+j]: weightInfeasible, weightUnscored (feasible, not
	// evaluated yet) or the pair's weight. Pairs are evaluated lazily.
	sc.scores = growFloats(sc.scores, ne*na)
	sc.weights = growInt64s(sc.weights, ne*na)
	sc.mmFrom = growInt32s(sc.mmFrom, ne*na)
	sc.mmTo = growInt32s(sc.mmTo, ne*na)
	sc.tally.mismatches = sc.tally.mismatches[:0]
	sc.tally.record = true
	sc.tally.parser = &sc.parser
	sc.invalid = false
	// Only the pairs of a tool's calls are marked: the others are
	// infeasible, and every reader of the matrix checks the groups first
	// (see sameTool) instead of reading what earlier scorings left there.
	weights := sc.weights
	for j := range calls {
		g := sc.actGroup[j]
		if g < 0 {
			continue
		}
		for _, i := range n.groupRows[g] {
			w := int64(weightInfeasible)
			if n.calls[i].typeFits(&calls[j]) {
				w = weightUnscored
			}
			weights[i*na+j] = w
		}
	}
}

// sameTool reports whether expected call i and actual call j call the same
// tool: only then does the weight matrix hold their pair's weight (see
// prepare).
func (n *native) sameTool(sc *scoreScratch, i, j int) bool {
	return n.callGroup[i] == sc.actGroup[j]
}

// typeFits reports whether actual call a's type lets it pair with e: any
// type when e sets none, else the same type once normalised.
func (e *compiledCall) typeFits(a *Call) bool {
	return e.typ == "" || NormalizeType(a.Type) == e.typ
}

// Weight sentinels for pairs without a computed weight.
const (
	weightInfeasible = -1
	weightUnscored   = -2
)

// pair returns pair (i, j)'s weight, evaluating it on first use.
func (n *native) pair(calls []Call, sc *scoreScratch, i, j int) int64 {
	na := len(calls)
	w := sc.weights[i*na+j]
	if w != weightUnscored {
		return w
	}
	e := &n.calls[i]
	// Reset the counts only: the tally keeps its mismatch buffer and
	// parser (set by prepare), so no pointer is written per pair.
	t := &sc.tally
	t.passed, t.total, t.extras, t.invalid = 0, 0, 0, false
	sc.mmFrom[i*na+j] = int32(len(t.mismatches))
	s := 1.0
	if a := &calls[j]; !e.literalMatch(a) {
		s, _, _ = n.callScore(e, a, t)
	}
	sc.invalid = sc.invalid || t.invalid
	sc.mmTo[i*na+j] = int32(len(t.mismatches))
	sc.scores[i*na+j] = s
	w = pairWeight(e.optional, s)
	sc.weights[i*na+j] = w
	return w
}

// scoreAll evaluates every feasible pair not evaluated yet.
func (n *native) scoreAll(calls []Call, sc *scoreScratch) {
	na := len(calls)
	// Only calls to the same tool can pair: visit each actual call's pairs
	// with its group's expected calls. (The order pairs are evaluated in
	// does not show in the result, which takes each pair's mismatches from
	// its own range.)
	for j, g := range sc.actGroup[:na] {
		if g < 0 {
			continue
		}
		for _, i := range n.groupRows[g] {
			if sc.weights[i*na+j] == weightUnscored {
				n.pair(calls, sc, i, j)
			}
		}
	}
}

// assignInOrder pairs calls in expected order, the calls of each model turn
// in the order orderTurns gives them.
func (n *native) assignInOrder(calls []Call, sc *scoreScratch) {
	ne, na := len(n.calls), len(calls)
	permuted := n.orderTurns(calls, sc)
	perm := sc.perm
	if n.perfectInOrder(calls, sc, permuted) {
		return
	}
	n.scoreAll(calls, sc)
	if !permuted {
		// Only the pairs of a tool's calls can be feasible.
		groups := columnGroups{rowGroup: n.callGroup, colGroup: sc.actGroup, start: sc.groupStart, cols: sc.groupCols}
		if !orderedAssignmentSparse(ne, na, sc.weights, sc.match, &groups, &sc.sparse) {
			sc.dp = orderedAssignmentGrouped(ne, na, sc.weights, sc.match, sc.dp, &groups)
		}
		return
	}
	pw := growInt64s(sc.sub, ne*na)
	sc.sub = pw
	for i := 0; i < ne; i++ {
		for k, j := range perm {
			pw[i*na+k] = weightInfeasible
			if n.sameTool(sc, i, j) {
				pw[i*na+k] = sc.weights[i*na+j]
			}
		}
	}
	sc.dp = orderedAssignment(ne, na, pw, sc.match, sc.dp)
	for i, k := range sc.match {
		if k >= 0 {
			sc.match[i] = perm[k]
		}
	}
}

// turnPair is a feasible pair of an expected call and an actual call of one
// model turn, with its weight.
type turnPair struct {
	w    int64
	i, j int
}

// orderTurns fills sc.perm with the order in which the calls are judged and
// reports whether any model turn has several calls. Calls requested in one
// turn (equal, non-zero Turn) ran in parallel, so the order their spans
// start in carries no meaning. Turn by turn, each call takes an expected
// call of its tool, best pair first: the higher weight, then an expected
// call no earlier turn took, then the earlier expected call, then the
// earlier actual call. Within a turn the calls then follow the expected
// calls they took; calls that took none come last, in start order. Turns
// keep their order.
func (n *native) orderTurns(calls []Call, sc *scoreScratch) bool {
	ne, na := len(n.calls), len(calls)
	perm := GrowInts(sc.perm, na)
	sc.perm = perm
	for j := range perm {
		perm[j] = j
	}
	if !hasParallelTurn(calls) {
		return false
	}
	// owner[i] is the turn (counted from 0) whose call took expected call
	// i, or -1; took[j] is the expected call actual call j took, or ne.
	owner := GrowInts(sc.owner, ne)
	sc.owner = owner
	for i := range owner {
		owner[i] = -1
	}
	took := GrowInts(sc.took, na)
	sc.took = took
	for turn, start := 0, 0; start < na; turn++ {
		end := turnEnd(calls, start)
		if n.uncontestedTurn(sc, start, end) {
			n.takeUncontested(calls, sc, start, end, turn)
		} else {
			n.rankTurn(calls, sc, start, end, turn)
		}
		if end-start > 1 {
			slices.SortStableFunc(perm[start:end], func(x, y int) int { return took[x] - took[y] })
		}
		start = end
	}
	return true
}

// rankTurn is orderTurns' pairing for the model turn calls[start:end]: each
// call takes an expected call of its tool, best pair first (see
// orderTurns), setting sc.took and sc.owner.
func (n *native) rankTurn(calls []Call, sc *scoreScratch, start, end, turn int) {
	ne, na := len(n.calls), len(calls)
	took, owner := sc.took, sc.owner
	pairs := sc.turnPairs[:0]
	for j := start; j < end; j++ {
		took[j] = ne
		if g := sc.actGroup[j]; g >= 0 {
			for _, i := range n.groupRows[g] {
				if sc.weights[i*na+j] != weightInfeasible {
					pairs = append(pairs, turnPair{w: n.pair(calls, sc, i, j), i: i, j: j})
				}
			}
		}
	}
	slices.SortFunc(pairs, func(a, b turnPair) int {
		if a.w != b.w {
			return cmp.Compare(b.w, a.w)
		}
		if ta, tb := owner[a.i] >= 0, owner[b.i] >= 0; ta != tb {
			if ta {
				return 1
			}
			return -1
		}
		if a.i != b.i {
			return a.i - b.i
		}
		return a.j - b.j
	})
	for _, p := range pairs {
		if took[p.j] == ne && owner[p.i] != turn {
			took[p.j], owner[p.i] = p.i, turn
		}
	}
	sc.turnPairs = pairs
}

// uncontestedTurn reports whether no call of the model turn calls[start:end]
// competes with another for an expected call: each is to a tool expected
// once, and no other call of the turn is to the same tool (see
// TurnAligner.orderUncontested). It reports false for a turn of more than
// maxInPlaceTurn calls, whose check would cost more than ranking its pairs.
func (n *native) uncontestedTurn(sc *scoreScratch, start, end int) bool {
	if end-start > maxInPlaceTurn {
		return false
	}
	for j := start; j < end; j++ {
		g := sc.actGroup[j]
		if g < 0 {
			continue
		}
		if len(n.groupRows[g]) != 1 || slices.Contains(sc.actGroup[start:j], g) {
			return false
		}
	}
	return true
}

// takeUncontested is orderTurns' pairing for an uncontested model turn
// (uncontestedTurn): every feasible pair of the turn is taken whatever its
// weight, as rankTurn would take them all, each evaluated as rankTurn
// evaluates it, in call order.
func (n *native) takeUncontested(calls []Call, sc *scoreScratch, start, end, turn int) {
	ne, na := len(n.calls), len(calls)
	for j := start; j < end; j++ {
		sc.took[j] = ne
		g := sc.actGroup[j]
		if g < 0 {
			continue
		}
		if i := n.groupRows[g][0]; sc.weights[i*na+j] != weightInfeasible {
			n.pair(calls, sc, i, j)
			sc.took[j], sc.owner[i] = i, turn
		}
	}
}

// turnEnd returns the end of the model turn whose first call is
// calls[start]: a call without a turn is a turn of its own.
func turnEnd(calls []Call, start int) int {
	end := start + 1
	if t := calls[start].Turn; t != 0 {
		for end < len(calls) && calls[end].Turn == t {
			end++
		}
	}
	return end
}

// hasParallelTurn reports whether a model turn has several calls.
func hasParallelTurn(calls []Call) bool {
	for j := 1; j < len(calls); j++ {
		if t := calls[j].Turn; t != 0 && t == calls[j-1].Turn {
			return true
		}
	}
	return false
}

// perfectInOrder tries the greedy in-order pairing where each expected call
// takes the next call (in sc.perm order) to its tool that scores 1. When it
// pairs every expected call, no pairing weighs more, so it is optimal.
// Unless permuted, sc.perm is the identity and the calls to a tool are
// those its group lists, in order.
func (n *native) perfectInOrder(calls []Call, sc *scoreScratch, permuted bool) bool {
	na := len(calls)
	next := 0
	for i := range n.calls {
		sc.match[i] = -1
	}
	// perfect reports whether pair (i, j) is feasible and scores 1.
	perfect := func(i, j int) bool {
		if !n.sameTool(sc, i, j) || sc.weights[i*na+j] == weightInfeasible {
			return false
		}
		n.pair(calls, sc, i, j)
		return sc.scores[i*na+j] >= 1
	}
	for i := range n.calls {
		found := false
		if permuted {
			for k := next; k < na; k++ {
				if j := sc.perm[k]; perfect(i, j) {
					sc.match[i], next, found = j, k+1, true
					break
				}
			}
		} else {
			g := n.callGroup[i]
			for _, j := range sc.groupCols[sc.groupStart[g]:sc.groupStart[g+1]] {
				if j >= next && perfect(i, j) {
					sc.match[i], next, found = j, j+1, true
					break
				}
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// groupCalls assigns each actual call to its tool's group and lists each
// group's actual calls (a counting sort into sc.groupCols).
func (n *native) groupCalls(calls []Call, sc *scoreScratch) {
	ng := len(n.groupRows)
	sc.actGroup = GrowInts(sc.actGroup, len(calls))
	sc.groupStart = GrowInts(sc.groupStart, ng+1)
	for g := range sc.groupStart {
		sc.groupStart[g] = 0
	}
	for j := range calls {
		g := n.groups.Lookup(calls[j].Name)
		if g >= 0 {
			sc.groupStart[g+1]++
		}
		sc.actGroup[j] = g
	}
	for g := 0; g < ng; g++ {
		sc.groupStart[g+1] += sc.groupStart[g]
	}
	sc.groupCols = GrowInts(sc.groupCols, sc.groupStart[ng])
	sc.subMat = GrowInts(sc.subMat, ng) // fill cursors
	copy(sc.subMat, sc.groupStart[:ng])
	for j, g := range sc.actGroup {
		if g >= 0 {
			sc.groupCols[sc.subMat[g]] = j
			sc.subMat[g]++
		}
	}
}

// assignByTool pairs calls tool by tool, since only calls to the same tool
// can pair. For each tool it first tries the pairing where every expected
// call takes the first unused call that scores 1, required calls first:
// when that pairs every expected call (or the tool's calls run out before
// the required ones do), no pairing weighs more, so it is optimal and the
// other pairs are never evaluated. Otherwise the tool's pairs are all
// evaluated and the Hungarian algorithm decides.
func (n *native) assignByTool(calls []Call, sc *scoreScratch) {
	match := sc.match
	for i := range match {
		match[i] = -1
	}
	na := len(calls)
	sc.used = GrowBools(sc.used, na)
	for g, rows := range n.groupRows {
		cols := sc.groupCols[sc.groupStart[g]:sc.groupStart[g+1]]
		if len(cols) == 0 {
			continue
		}
		if n.perfectGroup(calls, sc, rows, cols) {
			continue
		}
		for _, i := range rows {
			match[i] = -1
		}
		sub := growInt64s(sc.sub, len(rows)*len(cols))
		sc.sub = sub
		for r, ei := range rows {
			for c, aj := range cols {
				sub[r*len(cols)+c] = n.pair(calls, sc, ei, aj)
			}
		}
		sc.subMat = GrowInts(sc.subMat, len(rows))
		maxWeightAssignment(len(rows), len(cols), sub, sc.subMat)
		for r, c := range sc.subMat {
			if c >= 0 {
				match[rows[r]] = cols[c]
			}
		}
	}
}

// perfectGroup tries the all-perfect greedy pairing for one tool's calls
// (see assignByTool) and reports whether it is optimal.
func (n *native) perfectGroup(calls []Call, sc *scoreScratch, rows, cols []int) bool {
	na := len(calls)
	free := len(cols)
	for pass := 0; pass < 2; pass++ { // required rows, then optional ones
		for _, i := range rows {
			if n.calls[i].optional != (pass == 1) || free == 0 {
				continue
			}
			found := false
			for _, j := range cols {
				if sc.used[j] || sc.weights[i*na+j] == weightInfeasible {
					continue
				}
				if n.pair(calls, sc, i, j); sc.scores[i*na+j] >= 1 {
					sc.match[i], sc.used[j], found = j, true, true
					free--
					break
				}
			}
			if !found {
				for _, j := range cols {
					sc.used[j] = false
				}
				return false
			}
		}
	}
	return true
}

// result writes the scored result of a pairing, with its breakdown, to
// res (the zero Result). The breakdown's lists are gathered in sc first and
// then copied into one allocation of pairs and one of indexes (each list
// capped at its length, so appending to one never writes into another).
func (n *native) result(calls []Call, sc *scoreScratch, res *Result) {
	ne, na := len(n.calls), len(calls)
	scores, match, mmFrom, mmTo := sc.scores, sc.match, sc.mmFrom, sc.mmTo
	used := GrowBools(sc.used, na)
	sc.used = used
	paired, nmm := 0, 0
	for i, j := range match {
		if j >= 0 {
			paired++
			used[j] = true
			nmm += int(mmTo[i*na+j] - mmFrom[i*na+j])
		}
	}
	// Unpaired expected calls: out of order (ordered modes, the tool was
	// called but not in a consistent position), missing, or skipped optional.
	lists := &sc.lists
	for k := range lists {
		lists[k] = lists[k][:0]
	}
	denominator := 0
	if paired < ne {
		ordered := n.exp.Order != OrderAny
		weights, groupStart, groupCols := sc.weights, sc.groupStart, sc.groupCols
		for i, j := range match {
			if j >= 0 {
				continue
			}
			optional := n.calls[i].optional
			if ordered {
				if k := firstUnused(i, n.callGroup[i], na, used, weights, groupStart, groupCols); k >= 0 {
					used[k] = true
					lists[listOOOExpected] = append(lists[listOOOExpected], i)
					lists[listOOOActual] = append(lists[listOOOActual], k)
					if !optional {
						denominator++
					}
					continue
				}
			}
			if optional {
				lists[listSkipped] = append(lists[listSkipped], i)
				continue
			}
			lists[listMissing] = append(lists[listMissing], i)
			denominator++
		}
	}
	// Each pair, in order or out of it, uses its own actual call: when
	// they use every call, none is left over.
	if paired+len(lists[listOOOExpected]) < na {
		for j := range calls {
			if used[j] {
				continue
			}
			name := calls[j].Name
			_, isForbidden := n.forbidden[name]
			_, isAvailable := n.available[name]
			switch {
			case isForbidden:
				lists[listForbidden] = append(lists[listForbidden], j)
			case n.available != nil && !isAvailable:
				lists[listHallucinated] = append(lists[listHallucinated], j)
			default:
				lists[listUnexpected] = append(lists[listUnexpected], j)
			}
		}
	}

	b := &res.Breakdown
	ooo := len(lists[listOOOExpected])
	if paired+ooo > 0 {
		all := make([]Pair, paired+ooo)
		if paired > 0 {
			b.Pairs = all[:paired:paired]
		}
		if ooo > 0 {
			b.OutOfOrder = all[paired:]
			// The pairs are fresh zeroed memory: setting their scalar
			// fields alone spares assigning whole structs.
			for k, i := range lists[listOOOExpected] {
				j := lists[listOOOActual][k]
				p := &b.OutOfOrder[k]
				p.Expected, p.Actual, p.Score = int32(i), int32(j), scores[i*na+j]
			}
		}
	}
	nints := 0
	for k := range lists[:listOOOExpected] {
		nints += len(lists[k])
	}
	if nints > 0 {
		ints := make([]int, nints)
		take := func(l []int) []int {
			if len(l) == 0 {
				return nil
			}
			out := ints[:len(l):len(l)]
			copy(out, l)
			ints = ints[len(l):]
			return out
		}
		b.Missing = take(lists[listMissing])
		b.SkippedOptional = take(lists[listSkipped])
		b.Unexpected = take(lists[listUnexpected])
		b.Forbidden = take(lists[listForbidden])
		b.Hallucinated = take(lists[listHallucinated])
	}
	var own []ArgMismatch
	if nmm > 0 {
		// The pooled buffer is reused by the next scoring: give the result
		// its own copy of the paired calls' mismatches, one allocation.
		own = make([]ArgMismatch, 0, nmm)
	}
	numerator := 0.0
	pairs := b.Pairs
	k := 0
	for i, j := range match {
		if j < 0 {
			continue
		}
		e := &n.calls[i]
		a := &calls[j]
		// As for the out-of-order pairs: fields, not a whole struct.
		p := &pairs[k]
		k++
		p.Expected, p.Actual, p.Score = int32(i), int32(j), scores[i*na+j]
		p.Failed = e.mustSucceed && a.Failed()
		p.ArgumentsUnavailable = !p.Failed && e.spec.root != nil && a.ArgsUnknown
		if from, to := mmFrom[i*na+j], mmTo[i*na+j]; to > from {
			p.mmStart = int32(len(own))
			own = append(own, sc.tally.mismatches[from:to]...)
			p.mmEnd = int32(len(own))
		}
		if p.ArgumentsUnavailable {
			b.ArgumentsUnavailable++
		}
		numerator += p.Score
	}
	denominator += paired
	b.Mismatches = own
	sc.releaseMismatches()
	// Paired calls to forbidden tools cannot happen (Validate rejects a
	// forbidden expected tool), but forbidden sequences span paired calls.
	b.ForbiddenSequences = findSequences(calls, n.exp.ForbiddenSequences)
	b.OrderScore = OrderScore(b.Pairs)

	res.Scorer, res.Threshold = NativeName, n.threshold
	res.Score = 1
	if denominator > 0 {
		res.Score = numerator / float64(denominator)
	}
	extras := len(b.Unexpected)
	if n.exp.Order == OrderExact {
		extras += len(b.OutOfOrder)
	}
	switch {
	case len(b.Forbidden) > 0 || len(b.ForbiddenSequences) > 0 || len(b.Hallucinated) > 0:
		res.Score = 0
	case extras > 0 && n.exp.ExtraCalls == ExtraFail:
		res.Score = 0
	case extras > 0 && n.exp.ExtraCalls == ExtraPenalize && res.Score > n.exp.ExtraCallCap:
		res.Score = n.exp.ExtraCallCap
	}
	res.Decide()
}

// The index lists result gathers in scoreScratch.lists.
const (
	listMissing = iota
	listSkipped
	listUnexpected
	listForbidden
	listHallucinated
	// listOOOExpected and listOOOActual hold the out-of-order pairs.
	listOOOExpected
	listOOOActual
	numLists
)

// firstUnused returns the earliest actual call not used yet that could
// pair with expected call i, of group g, or -1. Only calls to i's tool can
// pair with it: its group lists them in order.
func firstUnused(i, g, na int, used []bool, weights []int64, groupStart, groupCols []int) int {
	for _, j := range groupCols[groupStart[g]:groupStart[g+1]] {
		if !used[j] && weights[i*na+j] >= 0 {
			return j
		}
	}
	return -1
}

// findSequences returns the start index of each occurrence of a forbidden
// sequence of consecutive calls.
func findSequences(calls []Call, seqs [][]string) []int {
	var starts []int
	for _, seq := range seqs {
		for s := 0; s+len(seq) <= len(calls); s++ {
			ok := true
			for k, name := range seq {
				if calls[s+k].Name != name {
					ok = false
					break
				}
			}
			if ok {
				starts = append(starts, s)
			}
		}
	}
	return starts
}

// OrderScore is the share of pairs in expected order: the longest run of
// pairs whose actual positions increase with their expected positions.
func OrderScore(pairs []Pair) float64 {
	if len(pairs) < 2 {
		return 1
	}
	// pairs are in expected order; find the longest increasing subsequence
	// of their actual indexes (patience sorting).
	var tailsBuf [64]int32
	tails := tailsBuf[:0]
	for _, p := range pairs {
		lo, hi := 0, len(tails)
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if tails[mid] < p.Actual {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		k := lo
		if k == len(tails) {
			tails = append(tails, p.Actual)
		} else {
			tails[k] = p.Actual
		}
	}
	return float64(len(tails)) / float64(len(pairs))
}

// explain returns the short explanation of a native result. A run that
// matched every expected call and did nothing else, the common case, gets
// a string built when the scorer was; others are written by explanation
// into sc's text buffer and interned (see textTable): a run explained like
// an earlier one gets that one's string.
func (n *native) explain(res *Result, calls []Call, ne int, sc *scoreScratch) string {
	if k := len(res.Breakdown.Pairs); ne > 0 && k < len(n.allMatched) && cleanMatch(res) {
		return n.allMatched[k]
	}
	if s, ok := n.unavailableExplanation(res, calls, ne); ok {
		return s
	}
	sc.text = n.appendExplanation(sc.text[:0], res, calls, ne)
	s := texts.intern(sc.text)
	if cap(sc.text) > maxPooledText {
		sc.text = nil
	}
	return s
}

// maxPooledText bounds the explanation buffer a pooled scratch keeps.
const maxPooledText = 4096

// cleanMatch reports whether res's explanation is its header alone. A
// score of 1 means every pair matched fully, nothing required is missing or
// out of order, and nothing forbidden or hallucinated was called; what a
// score of 1 still allows, and the explanation reports, is an optional call
// out of order, an unexpected call the policy lets through, and a pair
// whose arguments were unavailable or held a check that could not be
// evaluated (a mismatch that is not a failure).
func cleanMatch(res *Result) bool {
	b := &res.Breakdown
	if res.Score != 1 || len(b.OutOfOrder) != 0 || len(b.Unexpected) != 0 || b.ArgumentsUnavailable != 0 {
		return false
	}
	return len(b.Mismatches) == 0
}

// allMatchedExplanations returns, for k from 0 to calls, the explanation of
// a run that matched all of its k expected calls and did nothing else (k is
// 0 when every expected call is optional and none was made). The
// explanations are substrings of one string.
func allMatchedExplanations(calls int) []string {
	// "score 1: k of k expected calls matched" is 36 bytes and twice k's
	// digits: at most 44 for any k up to 9999, beyond MaxCalls.
	buf := make([]byte, 0, 44*(calls+1))
	ends := make([]int, calls+1)
	for k := range ends {
		buf = append(buf, "score 1: "...)
		buf = strconv.AppendInt(buf, int64(k), 10)
		buf = append(buf, " of "...)
		buf = strconv.AppendInt(buf, int64(k), 10)
		buf = append(buf, " expected calls matched"...)
		ends[k] = len(buf)
	}
	all := string(buf)
	out := make([]string, calls+1)
	start := 0
	for k, end := range ends {
		out[k] = all[start:end]
		start = end
	}
	return out
}

// maxUnavailableTable is the number of expected calls up to which a
// native scorer builds the explanations of unavailableExplanation in
// advance: k*(k+1)/2 of them for k expected calls.
const maxUnavailableTable = 8

// unavailableExplanations returns, for k from 0 to the expected calls and
// u from 1 to k, the explanation of a run that matched all of its k
// expected calls, did nothing else, and had u of those calls' arguments
// unavailable: in [k][u-1], each written by appendExplanation from such a
// result. It returns nil past maxUnavailableTable expected calls.
func (n *native) unavailableExplanations() [][]string {
	ne := len(n.calls)
	if ne == 0 || ne > maxUnavailableTable {
		return nil
	}
	out := make([][]string, ne+1)
	pairs := make([]Pair, ne)
	for k := range out {
		out[k] = make([]string, k)
		for u := 1; u <= k; u++ {
			res := Result{Score: 1, Breakdown: Breakdown{Pairs: pairs[:k], ArgumentsUnavailable: u}}
			for i := range res.Breakdown.Pairs {
				res.Breakdown.Pairs[i].Score = 1
			}
			out[k][u-1] = string(n.appendExplanation(nil, &res, nil, ne))
		}
	}
	return out
}

// unavailableExplanation returns the explanation built in advance for res
// (see unavailableExplanations) when res is such a run's: a score of 1
// (see cleanMatch) with no call out of order, unexpected or with a
// mismatch, some pairs' arguments unavailable, and no call whose unknown
// arguments carry a note. ok is false otherwise.
func (n *native) unavailableExplanation(res *Result, calls []Call, ne int) (s string, ok bool) {
	b := &res.Breakdown
	k, u := len(b.Pairs), b.ArgumentsUnavailable
	if k >= len(n.unavailable) || u == 0 || u > k || ne == 0 || res.Score != 1 ||
		len(b.OutOfOrder) != 0 || len(b.Unexpected) != 0 || len(b.Mismatches) != 0 {
		return "", false
	}
	for i := range calls {
		if calls[i].ArgsUnknown && calls[i].ArgsNote != "" {
			return "", false
		}
	}
	return n.unavailable[k][u-1], true
}

// explanation returns the short explanation of a native result, written
// afresh (explain may return one built in advance).
func (n *native) explanation(res *Result, calls []Call, ne int) string {
	return string(n.appendExplanation(nil, res, calls, ne))
}

// appendExplanation appends the short explanation of a native result to t.
func (n *native) appendExplanation(t []byte, res *Result, calls []Call, ne int) []byte {
	b := &res.Breakdown
	full := 0
	for k := range b.Pairs {
		if b.Pairs[k].Score >= 1 {
			full++
		}
	}
	t = append(t, "score "...)
	t = AppendScore(t, res.Score)
	switch {
	case ne == 0 && len(calls) == 0:
		t = append(t, ": no calls expected and none made"...)
	case ne == 0:
		t = append(t, ": no calls expected, "...)
		t = strconv.AppendInt(t, int64(len(calls)), 10)
		t = append(t, " made"...)
	default:
		t = append(t, ": "...)
		t = appendCount(t, full)
		t = append(t, " of "...)
		t = appendCount(t, len(b.Pairs)+len(b.Missing)+len(b.OutOfOrder))
		t = append(t, " expected calls matched"...)
	}
	expected := func(i int) string { return n.calls[i].name }
	actual := func(j int) string { return calls[j].Name }
	t = appendNameList(t, "missing", b.Missing, expected)
	if len(b.OutOfOrder) > 0 {
		t = append(t, "; out of order "...)
		for k := range b.OutOfOrder {
			if k == MaxNamesShown {
				break
			}
			if k > 0 {
				t = append(t, ", "...)
			}
			t = append(t, n.calls[b.OutOfOrder[k].Expected].name...)
		}
		t = AppendMore(t, len(b.OutOfOrder))
	}
	t = appendNameList(t, "forbidden", b.Forbidden, actual)
	if len(b.ForbiddenSequences) > 0 {
		t = append(t, "; forbidden sequence at call "...)
		t = strconv.AppendInt(t, int64(b.ForbiddenSequences[0]+1), 10)
	}
	t = appendNameList(t, "hallucinated", b.Hallucinated, actual)
	if len(b.Unexpected) > 0 {
		t = appendNameList(t, "unexpected", b.Unexpected, actual)
		switch n.exp.ExtraCalls {
		case ExtraPenalize:
			t = append(t, " (capped at "...)
			t = AppendScore(t, n.exp.ExtraCallCap)
			t = append(t, ')')
		case ExtraFail:
			t = append(t, " (not allowed)"...)
		}
	}
	shown := 0
	for k := range b.Pairs {
		p := &b.Pairs[k]
		if p.Failed {
			t = append(t, "; "...)
			t = append(t, n.calls[p.Expected].name...)
			t = append(t, " failed"...)
			continue
		}
		for _, mm := range b.PairMismatches(p) {
			if shown == 3 {
				break
			}
			shown++
			t = append(t, "; "...)
			t = append(t, n.calls[p.Expected].name...)
			t = append(t, ' ')
			t = append(t, mm.Path...)
			t = append(t, ": "...)
			t = mm.appendReason(t)
		}
	}
	if b.ArgumentsUnavailable > 0 {
		t = append(t, "; arguments unavailable for "...)
		t = strconv.AppendInt(t, int64(b.ArgumentsUnavailable), 10)
		t = append(t, " call"...)
		if b.ArgumentsUnavailable > 1 {
			t = append(t, 's')
		}
		t = append(t, " (judged by name and order)"...)
	}
	for i := range calls {
		if calls[i].ArgsUnknown && calls[i].ArgsNote != "" {
			t = append(t, "; call "...)
			t = strconv.AppendInt(t, int64(i+1), 10)
			t = append(t, ' ')
			t = append(t, calls[i].Name...)
			t = append(t, ": "...)
			t = append(t, calls[i].ArgsNote...)
		}
	}
	return t
}

// FormatScore renders a score with at most 4 decimals ("0.75", "1").
func FormatScore(x float64) string {
	var buf [24]byte
	return string(AppendScore(buf[:0], x))
}

// WriteScore writes formatScore(x) to sb without an intermediate string.
func WriteScore(sb *strings.Builder, x float64) {
	var buf [24]byte
	sb.Write(AppendScore(buf[:0], x))
}

// AppendScore appends formatScore(x) to b.
func AppendScore(b []byte, x float64) []byte {
	r := math.Round(x * 10000)
	if x >= 0 && r <= 10000 {
		// A score in [0, 1]: print the rounded ten-thousandths directly,
		// which is what FormatFloat gives for these values, at a fraction
		// of its cost.
		n := int(r)
		if n == 10000 {
			return append(b, '1')
		}
		if n == 0 {
			return append(b, '0')
		}
		digits := [6]byte{'0', '.', byte('0' + n/1000), byte('0' + n/100%10), byte('0' + n/10%10), byte('0' + n%10)}
		end := len(digits)
		for digits[end-1] == '0' {
			end--
		}
		return append(b, digits[:end]...)
	}
	return strconv.AppendFloat(b, r/10000, 'f', -1, 64)
}
