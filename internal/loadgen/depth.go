package loadgen

import "unsafe"

// ReceiverDepth is how deep AtDepth pads a new goroutine's stack so that the
// processor's ConsumeTraces is called where the OTLP/gRPC receiver calls it:
// processTraces is entered 2,768 bytes deep (the receiver enters it at
// 2,744, measured in the running collector with gdb; processorhelper's
// wrappers take 352 bytes above it).
const ReceiverDepth = 2210

// AtDepth calls f once the stack is depth bytes below top. (top is a
// pointer, not an address: the stack may move while it grows.)
// Not inlined: each call must take a frame of its own.
//
//go:noinline
func AtDepth(top *byte, depth uintptr, f func()) {
	var here [64]byte
	if uintptr(unsafe.Pointer(top))-uintptr(unsafe.Pointer(&here[0])) >= depth {
		f()
		return
	}
	AtDepth(top, depth, f)
	here[0]++ // keeps here on the stack
}
