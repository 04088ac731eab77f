package deque

import (
	"sync/atomic"
	"unsafe"
)

// buffer is one fixed-size ring of slots used by a Deque. Its length is a
// power of two, so logical index i (an ever-growing int64) lives in slot
// i & mask.
//
// A buffer is written only by the owner, and only while it is the deque's
// current buffer (lev.buf). Once the owner installs a replacement, the old
// buffer is never written again; thieves that still hold it may keep reading
// it until the garbage collector reclaims it.
//
// A slot holds a *E as an unsafe.Pointer (a pointer the garbage collector
// traces; the typed Deque[E] wrapper is the only way in or out, so the
// conversion back to *E is always to the type that went in). Every slot
// access is atomic: the owner's write of slot i&mask can race with a slow
// thief that read a stale top and is reading the same slot for a much older
// index. That thief's CAS on top is bound to fail and it throws the value
// away, so the race is benign for the algorithm, but with plain accesses it
// would be a data race in the Go memory model and `go test -race` would
// report it. Pointer-sized atomic slots cost no allocation.
type buffer struct {
	// mask is len(slots)-1. Immutable after construction.
	mask int64
	// shrinkAt: Pop considers shrinking this buffer when it leaves fewer
	// than shrinkAt elements. Zero disables shrinking. Immutable.
	shrinkAt int64
	// slots holds the elements, accessed only through load and store.
	slots []unsafe.Pointer
}

// newBuffer returns an empty buffer with size slots (a power of two). A buffer
// larger than floor slots may later be shrunk.
func newBuffer(size, floor int64) *buffer {
	a := &buffer{mask: size - 1, slots: make([]unsafe.Pointer, size)}
	if size > floor {
		a.shrinkAt = size / 4
	}
	return a
}

// size returns the number of slots.
func (a *buffer) size() int64 { return a.mask + 1 }

// load reads the element at logical index i. An atomic load (a plain MOV on
// amd64) with no ordering of its own: every publication of a slot goes
// through lev.bottom and lev.buf. It must be atomic; see the type comment.
func (a *buffer) load(i int64) unsafe.Pointer {
	return atomic.LoadPointer(&a.slots[i&a.mask])
}

// store writes the element at logical index i. An atomic store (an XCHG on
// amd64, after the GC write barrier check) whose ordering is provided by the
// later bottom store; it must be atomic, see the type comment.
func (a *buffer) store(i int64, p unsafe.Pointer) {
	atomic.StorePointer(&a.slots[i&a.mask], p)
}

// resized returns a new buffer of the given size holding a copy of the
// elements at logical indices [top, bottom), each at the same logical index.
// The new buffer is private to the owner until it is published by a store to
// lev.buf, so the copy needs no ordering of its own: that SC store orders
// every copied slot before any thief's load of the new pointer.
func (a *buffer) resized(size, floor, top, bottom int64) *buffer {
	n := newBuffer(size, floor)
	for i := top; i < bottom; i++ {
		n.store(i, a.load(i))
	}
	return n
}
