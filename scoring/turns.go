package scoring

import "slices"

// AlignTurns returns calls with the calls of each model turn (consecutive
// calls with the same non-zero Turn) reordered to follow the expectation:
// calls to a tool expected earlier come first, others keep their order. A
// model turn's calls run in parallel, so the order their spans start in is
// arbitrary; offline, peers see the order the model requested them in, which
// traces rarely record. Positions are renumbered. calls is not modified; when
// nothing moves, calls itself is returned.
func AlignTurns(calls []Call, exp *Expectation) []Call {
	rank := func(name string) int {
		for i := range exp.Calls {
			if exp.Calls[i].Name == name {
				return i
			}
		}
		return len(exp.Calls)
	}
	var out []Call
	for start := 0; start < len(calls); {
		end := start + 1
		if t := calls[start].Turn; t != 0 {
			for end < len(calls) && calls[end].Turn == t {
				end++
			}
		}
		if end-start > 1 {
			block := calls[start:end]
			sorted := slices.IsSortedFunc(block, func(a, b Call) int { return rank(a.Name) - rank(b.Name) })
			if !sorted {
				if out == nil {
					out = slices.Clone(calls)
				}
				slices.SortStableFunc(out[start:end], func(a, b Call) int { return rank(a.Name) - rank(b.Name) })
			}
		}
		start = end
	}
	if out == nil {
		return calls
	}
	for i := range out {
		out[i].Position = i
	}
	return out
}
