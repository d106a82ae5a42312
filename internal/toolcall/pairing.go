package toolcall

import "sync"

// Pairing weights are lexicographic: first the number of required expected
// calls paired, then the number of optional ones, then the summed call
// scores. Scores are quantised to 1e-4 for the pairing decision only; reported
// scores keep full precision. With at most MaxCalls calls per side the three
// tiers cannot overflow into each other, and no sum overflows int64.
const (
	weightScoreUnit = 10_000  // one call score of 1.0
	weightOptional  = 1 << 24 // > MaxCalls * weightScoreUnit
	weightRequired  = 1 << 35 // > MaxCalls * (weightOptional + weightScoreUnit)
	costBase        = 1 << 36 // > any single pair weight
	costInfeasible  = 1 << 40 // never chosen: an unpaired slot costs costBase
)

// pairWeight returns the lexicographic pairing weight of a feasible pair.
func pairWeight(optional bool, score float64) int64 {
	q := int64(score*weightScoreUnit + 0.5)
	if optional {
		return weightOptional + q
	}
	return weightRequired + q
}

// assignScratch holds the Hungarian algorithm's working arrays so repeated
// scorings do not allocate.
type assignScratch struct {
	ints []int64
	idx  []int
	used []bool
}

var assignPool = sync.Pool{New: func() any { return new(assignScratch) }}

// maxWeightAssignment pairs rows with columns to maximise the total weight.
// w[r*cols+c] is the pair's weight, or -1 when the pair is infeasible. A row
// may stay unpaired (weight 0). It writes the chosen column of each row, or
// -1, into match, which must have length rows.
func maxWeightAssignment(rows, cols int, w []int64, match []int) {
	for r := range match {
		match[r] = -1
	}
	if rows == 0 || cols == 0 {
		return
	}
	if rows == 1 {
		best, bestW := -1, int64(0)
		for c := 0; c < cols; c++ {
			if x := w[c]; x > bestW {
				best, bestW = c, x
			}
		}
		match[0] = best
		return
	}
	if cols == 1 {
		best, bestW := -1, int64(0)
		for r := 0; r < rows; r++ {
			if x := w[r]; x > bestW {
				best, bestW = r, x
			}
		}
		if best >= 0 {
			match[best] = 0
		}
		return
	}
	if rows == 2 && cols == 2 {
		// Two rows, two columns: compare the two crossings with every
		// single pair.
		straight := max(w[0], 0) + max(w[3], 0)
		crossed := max(w[1], 0) + max(w[2], 0)
		if straight >= crossed {
			if w[0] >= 0 {
				match[0] = 0
			}
			if w[3] >= 0 {
				match[1] = 1
			}
		} else {
			if w[1] >= 0 {
				match[0] = 1
			}
			if w[2] >= 0 {
				match[1] = 0
			}
		}
		return
	}
	// Hungarian algorithm (shortest augmenting paths with potentials) on a
	// rows × (cols + rows) cost matrix: the extra columns let any row stay
	// unpaired at cost costBase. Costs are costBase - weight.
	m := cols + rows
	sc := assignPool.Get().(*assignScratch)
	defer assignPool.Put(sc)
	need := (rows + 1) + 2*(m+1)
	if cap(sc.ints) < need {
		sc.ints = make([]int64, need)
	}
	ints := sc.ints[:need]
	for i := range ints {
		ints[i] = 0
	}
	u, v, minv := ints[:rows+1], ints[rows+1:rows+1+m+1], ints[rows+1+m+1:]
	if cap(sc.idx) < 2*(m+1) {
		sc.idx = make([]int, 2*(m+1))
	}
	p, way := sc.idx[:m+1], sc.idx[m+1:2*(m+1)]
	for i := range p {
		p[i], way[i] = 0, 0
	}
	if cap(sc.used) < m+1 {
		sc.used = make([]bool, m+1)
	}
	used := sc.used[:m+1]
	cost := func(i, j int) int64 { // 1-based
		if j > cols {
			return costBase
		}
		x := w[(i-1)*cols+j-1]
		if x < 0 {
			return costInfeasible
		}
		return costBase - x
	}
	const inf = int64(1) << 62
	for i := 1; i <= rows; i++ {
		p[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = inf
			used[j] = false
		}
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], inf, 0
			for j := 1; j <= m; j++ {
				if used[j] {
					continue
				}
				cur := cost(i0, j) - u[i0] - v[j]
				if cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= m; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	for j := 1; j <= cols; j++ {
		if p[j] != 0 && w[(p[j]-1)*cols+j-1] >= 0 {
			match[p[j]-1] = j - 1
		}
	}
}

// orderedAssignment pairs rows with columns so that pairs increase in both
// row and column (a weighted longest common subsequence), maximising the total
// weight. wm[r*cols+c] < 0 marks an infeasible pair. Ties prefer pairing each
// row with the earliest possible column. dp is working memory, grown when
// too short and returned for reuse.
func orderedAssignment(rows, cols int, wm []int64, match []int, dp []int64) []int64 {
	return orderedAssignmentGrouped(rows, cols, wm, match, dp, nil)
}

// columnGroups says where a row's feasible pairs can be: row r's lie among
// the columns of group rowGroup[r], cols[start[g]:start[g+1]] (a group's
// columns in increasing order; orderedAssignmentGrouped takes them in any
// order), and
// colGroup[c] is column c's group (-1: none); the pairs of every other
// column are infeasible, whatever the weight matrix holds there (it is not
// read).
type columnGroups struct {
	rowGroup, colGroup, start, cols []int
}

// orderedAssignmentGrouped is orderedAssignment, reading of each row only
// the pairs its column group lists when groups is not nil (the native
// scorer's rows pair only with calls to their tool).
func orderedAssignmentGrouped(rows, cols int, wm []int64, match []int, dp []int64, groups *columnGroups) []int64 {
	for r := range match {
		match[r] = -1
	}
	if rows == 0 || cols == 0 {
		return dp
	}
	// dp[i][j]: best total over rows[i:] and cols[j:], filled backwards so the
	// forward walk can prefer early columns. Only the last row needs
	// clearing: every other row starts as a copy of the row below.
	w := cols + 1
	size := (rows + 1) * w
	if cap(dp) < size {
		dp = make([]int64, size)
	}
	dp = dp[:size]
	clear(dp[rows*w:])
	for i := rows - 1; i >= 0; i-- {
		// cur[j] = max(next[j], cur[j+1], next[j+1]+row[j] when feasible)
		// is next[j] raised to the best pair at or right of j. Rows are
		// sparse (only same-tool pairs are feasible), so each row starts
		// as a copy of the next and each feasible pair raises the cells
		// at and left of it that are below its value: they are a run
		// ending at it, since cells only grow leftwards. The raises
		// take the maximum, so their order does not matter.
		cur, next := dp[i*w:i*w+w], dp[(i+1)*w:(i+1)*w+w]
		copy(cur, next)
		row := wm[i*cols : i*cols+cols]
		if groups == nil {
			for j, pw := range row {
				raiseRun(cur, next, j, pw)
			}
			continue
		}
		g := groups.rowGroup[i]
		for _, j := range groups.cols[groups.start[g]:groups.start[g+1]] {
			raiseRun(cur, next, j, row[j])
		}
	}
	orderedWalk(rows, cols, wm, dp, match, groups)
	return dp
}

// raiseRun raises the cells of cur at and left of j that are below the
// value of pair j (of weight pw, infeasible when negative).
func raiseRun(cur, next []int64, j int, pw int64) {
	if pw < 0 {
		return
	}
	for k, v := j, next[j+1]+pw; k >= 0 && cur[k] < v; k-- {
		cur[k] = v
	}
}

// orderedWalk reads orderedAssignment's filled table dp forwards into match,
// pairing each row with the earliest column that keeps the best total.
// With groups, only the pairs of a row with its group's columns are read.
func orderedWalk(rows, cols int, wm, dp []int64, match []int, groups *columnGroups) {
	w := cols + 1
	i, j := 0, 0
	for i < rows && j < cols {
		cur := dp[i*w+j]
		if groups != nil && groups.rowGroup[i] != groups.colGroup[j] {
			// Infeasible: the weight is not read.
		} else if pw := wm[i*cols+j]; pw >= 0 && dp[(i+1)*w+j+1]+pw == cur {
			match[i] = j
			i++
			j++
			continue
		}
		if dp[i*w+j+1] == cur {
			j++
			continue
		}
		i++
	}
}

// orderedPoint is a feasible pair of an ordered assignment, for
// orderedAssignmentSparse: row i, column j, weight w, and f, the best total
// of the increasing runs of pairs that start with it.
type orderedPoint struct {
	i, j int
	w, f int64
}

// sparseScratch is orderedAssignmentSparse's working memory: the feasible
// pairs, and the best totals of the rows below the one being worked out,
// column by column.
type sparseScratch struct {
	points []orderedPoint
	best   []int64
}

// maxSparsePoints is how many feasible pairs, per row and column of the
// matrix, orderedAssignmentSparse takes on: its walk compares pairs with
// pairs, so on a denser matrix the table of orderedAssignmentGrouped
// costs less.
const maxSparsePoints = 1

// orderedAssignmentSparse is orderedAssignmentGrouped (with groups) worked
// out from the feasible pairs alone, for matrices where they are few, as
// when most tools are called once: it writes the same match and reports
// true, or reports false and leaves match alone when there are more than
// maxSparsePoints × (rows + cols) feasible pairs or one weighs 0.
//
// The table's cell dp[i][j], the best total over rows i.. and columns
// j.., is the best f of the pairs at or below i and right of j (0 with
// none). From a cell holding cur > 0, orderedWalk takes the pair there if
// its f is cur, moves right while some pair right of the column has f
// cur, and down otherwise. So of the pairs below and right holding f cur
// (with positive weights, cur is no other cell's f), it takes the leftmost
// in the current row, else the topmost in the rightmost column holding
// one, then goes on past it with cur less its weight.
func orderedAssignmentSparse(rows, cols int, wm []int64, match []int, groups *columnGroups, sc *sparseScratch) bool {
	limit := maxSparsePoints * (rows + cols)
	if cap(sc.points) < limit {
		sc.points = make([]orderedPoint, limit)
	}
	// The pairs row by row, each row's from its last column, in a buffer
	// of the size allowed (no append, whose call would make the loop keep
	// its values in memory).
	buf, n := sc.points[:limit], 0
	rowGroup, start, groupCols := groups.rowGroup, groups.start, groups.cols
	for i := range rows {
		g := rowGroup[i]
		gc := groupCols[start[g]:start[g+1]]
		for k := len(gc) - 1; k >= 0; k-- {
			j := gc[k]
			w := wm[i*cols+j]
			if w < 0 {
				continue
			}
			if w == 0 || n == limit {
				return false
			}
			buf[n] = orderedPoint{i: i, j: j, w: w}
			n++
		}
	}
	pts := buf[:n]
	for r := range match {
		match[r] = -1
	}
	// From the last pair: best[c] is the best f of the pairs worked out so
	// far at or right of column c. They lie below the pair's row or, in
	// its row, left of its column (a row's pairs come from its last
	// column, so they are worked out from its first), and a pair raises
	// best only at and left of its column: best right of the pair's
	// column holds the pairs below it alone.
	best := sc.best
	if cap(best) < cols+1 {
		best = make([]int64, cols+1)
		sc.best = best
	}
	best = best[:cols+1]
	clear(best)
	for k := len(pts) - 1; k >= 0; k-- {
		p := &pts[k]
		p.f = p.w + best[p.j+1]
		for c := p.j; c >= 0 && best[c] < p.f; c-- {
			best[c] = p.f
		}
	}
	cur := best[0]
	i, j, from := 0, 0, 0
	for cur > 0 {
		for from < len(pts) && pts[from].i < i {
			from++
		}
		take := -1
		q := from
		for ; q < len(pts) && pts[q].i == i; q++ {
			if p := &pts[q]; p.j >= j && p.f == cur && (take < 0 || p.j < pts[take].j) {
				take = q
			}
		}
		if take < 0 {
			// The rows are in order: the first pair met in a column is
			// its topmost.
			for ; q < len(pts); q++ {
				if p := &pts[q]; p.j >= j && p.f == cur && (take < 0 || p.j > pts[take].j) {
					take = q
				}
			}
		}
		if take < 0 {
			break // not reached: a cell's total is some pair's f
		}
		t := &pts[take]
		match[t.i] = t.j
		cur -= t.w
		i, j = t.i+1, t.j+1
	}
	return true
}
