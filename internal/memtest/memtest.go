// Package memtest measures the memory code under test allocates or keeps.
package memtest // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/memtest"

import "runtime"

// AllocatedBytes returns the bytes f allocates (TotalAlloc before and after,
// after a GC).
func AllocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// RetainedBytes returns the heap f leaves live (HeapAlloc after a GC,
// before and after); what f keeps must stay reachable until it returns.
func RetainedBytes(f func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}
