package deque

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// injectorMinCap is the size of an Injector's first ring.
const injectorMinCap = 64

// Injector is a multi-producer, multi-consumer FIFO queue of non-nil *E
// values, for jobs that enter a pool from goroutines that are not its
// workers. Any goroutine may call any method. The zero value is an empty
// queue ready to use; an Injector must not be copied after first use.
//
// It is a growable ring buffer guarded by a mutex, plus an atomic element
// count so that IsEmpty and Len never take the lock. Once the ring has grown
// to the largest backlog seen, Push and Pop allocate nothing. The ring never
// shrinks. Like Deque, it is a typed shell around an untyped core (fifo),
// so that the atomics and the mutex calls are compiled in this package.
type Injector[E any] struct {
	q fifo
}

// Push appends x at the tail of the queue. It panics if x is nil.
func (q *Injector[E]) Push(x *E) { q.q.push(unsafe.Pointer(x)) }

// Pop removes and returns the element at the head of the queue (the oldest),
// or nil, false if the queue is empty.
func (q *Injector[E]) Pop() (*E, bool) {
	p, ok := q.q.pop()
	return (*E)(p), ok
}

// Len returns the number of queued elements: exact at some instant during
// the call, possibly stale by the time the caller looks at it.
func (q *Injector[E]) Len() int { return int(q.q.n.Load()) }

// IsEmpty reports whether the queue is empty, with a single atomic load and
// no lock.
//
// The answer can be stale the moment it is returned, and that is enough: a
// worker that sees empty and goes to sleep is not relied on to notice a
// later Push by polling. The producer wakes sleepers after its Push returns,
// and the pool's sleep protocol (not the injector) guarantees that a worker
// announcing sleep either sees that Push's element or receives the wake-up.
// The load is SC, so once the producer's Add is ordered before the wake-up,
// any IsEmpty that follows the wake-up sees the element.
func (q *Injector[E]) IsEmpty() bool { return q.q.n.Load() == 0 }

// fifo is the untyped queue behind Injector.
type fifo struct {
	_ cpu.CacheLinePad

	// n is the number of elements. It is written only with mu held, after
	// the ring has been updated (Add, SC), and read without the lock by
	// Len, IsEmpty and Pop's fast empty check (Load, SC).
	n atomic.Int64

	_ cpu.CacheLinePad

	mu   sync.Mutex
	ring []unsafe.Pointer // guarded by mu; len is zero or a power of two
	head int              // guarded by mu; ring index of the oldest element
	size int              // guarded by mu; number of elements (n mirrors it)

	_ cpu.CacheLinePad
}

// push implements Injector.Push.
func (q *fifo) push(x unsafe.Pointer) {
	if x == nil {
		panic("weft/deque: Injector.Push of a nil element")
	}
	q.mu.Lock()
	if q.size == len(q.ring) {
		q.grow()
	}
	q.ring[(q.head+q.size)&(len(q.ring)-1)] = x
	q.size++
	// SC add after the ring write, under the lock. A consumer that loads
	// n > 0 still takes the lock before touching the ring, so n only
	// needs to be an atomic mirror of size, not a publication barrier.
	q.n.Add(1)
	q.mu.Unlock()
}

// pop implements Injector.Pop.
func (q *fifo) pop() (unsafe.Pointer, bool) {
	// Lock-free early out, so idle workers polling an empty injector do
	// not contend on the mutex. A stale zero is harmless: see IsEmpty.
	if q.n.Load() == 0 {
		return nil, false
	}
	q.mu.Lock()
	if q.size == 0 {
		q.mu.Unlock()
		return nil, false
	}
	x := q.ring[q.head]
	q.ring[q.head] = nil // drop the reference for the garbage collector
	q.head = (q.head + 1) & (len(q.ring) - 1)
	q.size--
	q.n.Add(-1) // SC; keeps the mirror equal to size at unlock
	q.mu.Unlock()
	return x, true
}

// grow doubles the ring (or allocates the first one), unwrapping the
// elements to start at index 0. Called with mu held and the ring full.
func (q *fifo) grow() {
	next := make([]unsafe.Pointer, max(2*len(q.ring), injectorMinCap))
	k := copy(next, q.ring[q.head:])
	copy(next[k:], q.ring[:q.head])
	q.ring = next
	q.head = 0
}
