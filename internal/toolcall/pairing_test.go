package toolcall

import (
	"math/rand"
	"slices"
	"testing"
)

// denseOrderedAssignment is orderedAssignment with its table filled cell by
// cell, as the recurrence reads: the reference the sparse fill is checked
// with.
func denseOrderedAssignment(rows, cols int, wm []int64) []int {
	match := make([]int, rows)
	for r := range match {
		match[r] = -1
	}
	w := cols + 1
	dp := make([]int64, (rows+1)*w)
	for i := rows - 1; i >= 0; i-- {
		for j := cols - 1; j >= 0; j-- {
			best := max(dp[(i+1)*w+j], dp[i*w+j+1])
			if pw := wm[i*cols+j]; pw >= 0 {
				best = max(best, dp[(i+1)*w+j+1]+pw)
			}
			dp[i*w+j] = best
		}
	}
	orderedWalk(rows, cols, wm, dp, match, nil)
	return match
}

// TestOrderedAssignmentMatchesDense checks the sparse table fill against
// the cell-by-cell one on random matrices, ties included (few distinct
// weights), with the working memory reused from call to call.
func TestOrderedAssignmentMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var dp []int64
	for iter := 0; iter < 20000; iter++ {
		rows, cols := rng.Intn(9), rng.Intn(9)
		density := rng.Float64()
		wm := make([]int64, rows*cols)
		for k := range wm {
			wm[k] = weightInfeasible
			if rng.Float64() < density {
				wm[k] = pairWeight(rng.Intn(4) == 0, float64(rng.Intn(3))/2)
			}
		}
		match := make([]int, rows)
		dp = orderedAssignment(rows, cols, wm, match, dp)
		if want := denseOrderedAssignment(rows, cols, wm); !slices.Equal(match, want) {
			t.Fatalf("%d×%d %v: got %v, want %v", rows, cols, wm, match, want)
		}
	}
}

// randomGrouped returns a random ordered-assignment problem whose feasible
// pairs lie in column groups: the full weight matrix (infeasible pairs
// outside the groups), the one the grouped forms get (anything outside the
// groups, which they must not read) and the groups, each group's columns
// in order when sorted is set, else in any order.
func randomGrouped(rng *rand.Rand, sorted bool) (rows, cols int, wm, grouped []int64, groups columnGroups) {
	rows, cols, ng := rng.Intn(9), rng.Intn(9), 1+rng.Intn(4)
	rowGroup := make([]int, rows)
	for r := range rowGroup {
		rowGroup[r] = rng.Intn(ng)
	}
	colGroup := make([]int, cols)
	start := make([]int, ng+1)
	for c := range colGroup {
		colGroup[c] = rng.Intn(ng + 1) // ng: no group
		if colGroup[c] < ng {
			start[colGroup[c]+1]++
		}
	}
	for g := range ng {
		start[g+1] += start[g]
	}
	groupCols := make([]int, start[ng])
	fill := slices.Clone(start)
	order := rng.Perm(cols) // any order within a group
	if sorted {
		slices.Sort(order)
	}
	for _, c := range order {
		if g := colGroup[c]; g < ng {
			groupCols[fill[g]] = c
			fill[g]++
		}
	}
	density := rng.Float64()
	wm = make([]int64, rows*cols)
	grouped = make([]int64, rows*cols)
	for k := range wm {
		wm[k] = weightInfeasible
		grouped[k] = rng.Int63n(1<<36) - 1<<35
		if colGroup[k%cols] == rowGroup[k/cols] {
			if rng.Float64() < density {
				wm[k] = pairWeight(rng.Intn(4) == 0, float64(rng.Intn(3))/2)
			}
			grouped[k] = wm[k]
		}
	}
	for c := range colGroup {
		if colGroup[c] == ng {
			colGroup[c] = -1
		}
	}
	return rows, cols, wm, grouped, columnGroups{rowGroup: rowGroup, colGroup: colGroup, start: start, cols: groupCols}
}

// TestOrderedAssignmentGrouped checks the grouped fill, which reads only
// the columns of each row's group, against the full one on random
// matrices whose feasible pairs lie in the groups.
func TestOrderedAssignmentGrouped(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	var dp, dp2 []int64
	for iter := 0; iter < 20000; iter++ {
		rows, cols, wm, grouped, groups := randomGrouped(rng, false)
		want, got := make([]int, rows), make([]int, rows)
		dp = orderedAssignment(rows, cols, wm, want, dp)
		dp2 = orderedAssignmentGrouped(rows, cols, grouped, got, dp2, &groups)
		if !slices.Equal(got, want) {
			t.Fatalf("%d×%d %v groups %+v: got %v, want %v", rows, cols, wm, groups, got, want)
		}
	}
}

// TestOrderedAssignmentSparse checks the assignment worked out from the
// feasible pairs against the full table on random matrices whose feasible
// pairs lie in the groups, ties included, with the working memory reused.
func TestOrderedAssignmentSparse(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var dp []int64
	var sc sparseScratch
	sparse := 0
	for iter := 0; iter < 50000; iter++ {
		rows, cols, wm, grouped, groups := randomGrouped(rng, true)
		want, got := make([]int, rows), make([]int, rows)
		for r := range got {
			got[r] = -3 // left alone when it declines
		}
		dp = orderedAssignment(rows, cols, wm, want, dp)
		if !orderedAssignmentSparse(rows, cols, grouped, got, &groups, &sc) {
			for _, m := range got {
				if m != -3 {
					t.Fatalf("%d×%d %v: declined but wrote %v", rows, cols, wm, got)
				}
			}
			continue
		}
		sparse++
		if !slices.Equal(got, want) {
			t.Fatalf("%d×%d %v groups %+v: got %v, want %v", rows, cols, wm, groups, got, want)
		}
	}
	if sparse < 20000 {
		t.Fatalf("only %d of 50000 problems sparse enough", sparse)
	}
}
