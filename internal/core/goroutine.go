package core

// The pool must know, cheaply, whether the calling goroutine is one of its
// workers: Run from inside a task runs inline instead of blocking the
// worker on itself, Close from inside a task panics instead of waiting for
// itself, and a *Worker or scope handle used on the wrong goroutine is
// caught before it corrupts a deque. Go exposes no goroutine identity, and
// parsing the "goroutine N" header of runtime.Stack costs microseconds (it
// walks the whole stack), so on amd64 and arm64 a few lines of assembly
// read the goroutine's runtime descriptor (the g pointer), about a
// nanosecond; other architectures parse runtime.Stack.
//
// A goroutine's identity is only compared, never dereferenced. It is
// unique among live goroutines; a worker forgets its own before it exits,
// since the runtime reuses the descriptors of dead goroutines.

// goroutine identifies the calling goroutine among the live ones.
func goroutine() uintptr { return getg() }
