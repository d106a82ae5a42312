package extract

import (
	"fmt"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

func listOf(t testing.TB, items ...any) pcommon.Slice {
	t.Helper()
	list := pcommon.NewSlice()
	if err := list.FromRaw(items); err != nil {
		t.Fatal(err)
	}
	return list
}

// TestCachedStringListJSON checks that a list's text is the one
// stringListJSON writes whether or not the cache holds it: lists with the
// same string items (whatever else they hold) share it, lists that differ
// in an item, its length, or their count do not, and more lists than the
// cache keeps are rendered again.
func TestCachedStringListJSON(t *testing.T) {
	lists := [][]any{
		{`{"name":"a"}`, `{"name":"b"}`},
		{`{"name":"a"}`, 1, `{"name":"b"}`},
		{`{"name":"a"}`, `{"name":"c"}`},
		{`{"name":"a"}`},
		{`{"name":"a"}`, `{"name":"b"}`, ""},
		{`{"name":"a"}`, `{"name":"bb"}`},
		{},
		{1, 2},
		{"x\n\"y\""},
	}
	for range 3 {
		for _, items := range lists {
			list := listOf(t, items...)
			if got, want := cachedStringListJSON(list), stringListJSON(list); got != want {
				t.Errorf("cachedStringListJSON(%v) = %q, want %q", items, got, want)
			}
		}
	}
	for i := range 3 * listCacheSize {
		list := listOf(t, fmt.Sprintf(`{"name":"t%d"}`, i%(listCacheSize+1)))
		if got, want := cachedStringListJSON(list), stringListJSON(list); got != want {
			t.Errorf("round %d: cachedStringListJSON = %q, want %q", i, got, want)
		}
	}
}

// TestCachedStringListJSONConcurrent renders lists from several
// goroutines, for the race detector.
func TestCachedStringListJSONConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				list := listOf(t, fmt.Sprintf("tool %d", (g+i)%7), "x")
				if got, want := cachedStringListJSON(list), stringListJSON(list); got != want {
					t.Errorf("cachedStringListJSON = %q, want %q", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
