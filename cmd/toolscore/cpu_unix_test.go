//go:build unix

package main

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the CPU time the process has used, all its threads (the
// garbage collector's included).
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
