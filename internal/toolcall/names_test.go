package toolcall

import (
	"strconv"
	"testing"
)

// TestNameTable checks lookups among few names (by last byte), names that
// share their last byte, the empty name, and many names (by map).
func TestNameTable(t *testing.T) {
	for _, n := range []int{0, 1, 10, 64, 65, 200} {
		names := make([]string, n)
		for k := range names {
			names[k] = "tool_" + strconv.Itoa(k) + "s"
		}
		if n > 1 {
			names[1] = ""
		}
		table := NewNameTable(names)
		for k, name := range names {
			if got := table.Lookup(name); got != k {
				t.Errorf("%d names: lookup(%q) = %d, want %d", n, name, got, k)
			}
		}
		for _, other := range []string{"tool_s", "s", "tool_1", "x"} {
			if got := table.Lookup(other); got != -1 {
				t.Errorf("%d names: lookup(%q) = %d, want -1", n, other, got)
			}
		}
		if n <= 1 {
			if got := table.Lookup(""); got != -1 {
				t.Errorf("%d names: lookup(\"\") = %d, want -1", n, got)
			}
		}
	}
}
