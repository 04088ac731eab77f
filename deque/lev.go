package deque

import (
	"strconv"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/cpu"
)

const (
	// defaultCapacity is the size of the first buffer of a zero-value
	// Deque, and of one made by New with capacity 0.
	defaultCapacity = 32
	// shrinkFloor: buffers of at most this many slots never shrink (nor
	// below the capacity given to New), so shrinking only ever returns
	// memory from buffers that grew large.
	shrinkFloor = 1024
	// maxCapacity bounds the capacity accepted by New: 2^40 where an int
	// has 64 bits, 2^30 where it has 32 (an int must hold it).
	maxCapacity = 1 << (30 + 10*(strconv.IntSize/64))
)

// lev is the untyped Chase-Lev deque behind Deque.
type lev struct {
	_ cpu.CacheLinePad

	// top is the logical index of the oldest element. It only ever grows,
	// by exactly one, and only through a successful CompareAndSwap(t, t+1)
	// (by a thief in steal, or by the owner in popLast for the last
	// element). Because it never moves backwards, a CAS that succeeds
	// proves top stayed equal to t from the CASer's load until the CAS:
	// there is no ABA on top. It sits on its own cache line because
	// thieves write it.
	top atomic.Int64

	_ cpu.CacheLinePad

	// bottom is the logical index one past the newest element. Only the
	// owner writes it; thieves load it. Invariant outside a pop in
	// progress: top <= bottom, and the live elements are [top, bottom).
	// During pop it is briefly top-1 when the deque was empty.
	bottom atomic.Int64

	// buf is the current ring. Only the owner stores it, always before the
	// bottom store that publishes an element placed in it; thieves load it
	// after loading bottom. Replaced buffers are never written again.
	buf atomic.Pointer[buffer]

	// topCache is the owner's last loaded value of top. Owner-private
	// (plain field). top only grows, so topCache <= top: it overestimates
	// the length, which is the safe direction for both uses (the "full"
	// test in push and the "certainly empty" test in pop).
	topCache int64

	// lowPops counts consecutive pops that left the buffer under a
	// quarter full (see lowPop). Owner-private.
	lowPops int64

	// initCap and floor are owner-private settings fixed by New (zero
	// means the defaults).
	initCap int64
	floor   int64

	_ cpu.CacheLinePad
}

// init sets the first buffer's size (0: allocate lazily at the default size).
func (d *lev) init(capacity int64) {
	if capacity > 0 {
		d.initCap = ceilPow2(capacity)
		d.buf.Store(newBuffer(d.initCap, d.shrinkFloor()))
	}
}

// push implements Deque.Push.
//
// What inlines (go build -gcflags=-m ./deque/): the Deque and Injector
// methods, which only convert pointers, and the small helpers (buffer.load,
// buffer.store, buffer.size, install, newBuffer, len, initialCapacity,
// shrinkFloor). push, pop and steal do not: Go's inline budget is 80 and a
// call that stays a call costs 57 of it; push and pop each need one to a slow
// path, and buffer.store calls sync/atomic.StorePointer, a runtime function
// (it runs the GC write barrier) rather than an intrinsic. So each Push, Pop
// or Steal is one direct call, about a nanosecond.
func (d *lev) push(p unsafe.Pointer) {
	if p == nil {
		panic("weft/deque: Push of a nil element")
	}
	// The owner reads its own variables: no ordering needed (atomic
	// loads are plain MOVs on amd64, so this costs nothing extra).
	b := d.bottom.Load()
	a := d.buf.Load()
	if a == nil || b-d.topCache > a.mask {
		a = d.makeRoom(a, b)
	}
	// Slot write. Lê et al. use a relaxed atomic store here: it needs no
	// ordering of its own (the bottom store below publishes it) but must
	// be atomic, because a stalled thief may be reading this slot for an
	// old index; see buffer. Go only offers an SC store (XCHG on amd64).
	a.store(b, p)
	// Publish. Lê et al. put a release fence before this store: a thief
	// that loads bottom > b must also see the slot write above and, after
	// a grow, the buf store in makeRoom. Go's SC store is at least a
	// release. If it were relaxed, a thief could see the new bottom and
	// read a stale slot (an old element, or nil) or the old buffer.
	d.bottom.Store(b + 1)
}

// makeRoom is push's slow path: it allocates the first buffer, or refreshes
// topCache, or grows the buffer to twice its size, and returns the buffer to
// write into.
func (d *lev) makeRoom(a *buffer, b int64) *buffer {
	if a == nil {
		return d.install(newBuffer(d.initialCapacity(), d.shrinkFloor()))
	}
	// Lê et al. load top with acquire ordering here: every thief that took
	// an index below the value we see did its slot read before its CAS,
	// so the owner's later overwrite of that slot cannot be seen by it.
	// Go's SC load is at least an acquire, which also gives the race
	// detector the happens-before edge it needs.
	d.topCache = d.top.Load()
	if b-d.topCache <= a.mask {
		return a
	}
	return d.install(a.resized(2*a.size(), d.shrinkFloor(), d.topCache, b))
}

// install makes n the current buffer and returns it. The SC store orders the
// copy made by resized (and any later slot write) before the next bottom
// store, so a thief that loads bottom and then buf sees n or a newer buffer
// with those contents. Thieves still reading the old buffer see the change at
// their re-check in steal and return Retry.
func (d *lev) install(n *buffer) *buffer {
	d.lowPops = 0
	d.buf.Store(n)
	return n
}

// pop implements Deque.Pop.
func (d *lev) pop() (unsafe.Pointer, bool) {
	b := d.bottom.Load() - 1 // the owner's own variable: no ordering needed
	if b < d.topCache {
		// bottom <= topCache <= top: certainly empty, and it stays so
		// until our next push. No shared write needed.
		return nil, false
	}
	a := d.buf.Load() // the owner's own variable: no ordering needed
	// Reserve index b before looking at top. This store and the top load
	// below are the store-load (Dekker) pair of the algorithm: Lê et al.
	// put a seq_cst fence between them. Either a thief's later bottom
	// load sees b (and it will not take index b unless b is the last
	// element, which the CAS in popLast arbitrates), or our top load sees
	// that thief's CAS. Go's SC store followed by an SC load gives exactly
	// this (the store is an XCHG, a full barrier, on amd64). With only
	// release/acquire the store could sit in the store buffer past the
	// load: both sides would read stale values and take the same element.
	d.bottom.Store(b)
	// Second half of the Dekker pair (SC load; see above).
	t := d.top.Load()
	if t >= b {
		return d.popLast(a, t, b)
	}
	// t < b: at least one other element lies between top and b, so no
	// thief can reach index b: it is ours without a CAS. The slot load is
	// the owner reading its own write (atomic only for the race detector).
	p := a.load(b)
	if b-t < a.shrinkAt {
		d.lowPop(a, t, b)
	} else {
		d.lowPops = 0 // owner-private
	}
	return p, true
}

// popLast is pop's slow path: the deque held one element (t == b) or none
// (t > b) once bottom had been lowered to b.
func (d *lev) popLast(a *buffer, t, b int64) (unsafe.Pointer, bool) {
	if t > b {
		// Empty. Restore bottom = top. Lê et al. use a relaxed store;
		// any thief reading the lowered value saw an empty deque anyway.
		// Go's SC store is stronger than needed.
		d.bottom.Store(b + 1)
		d.topCache = t
		return nil, false
	}
	p := a.load(b) // discarded if the CAS below fails
	// One element left: thieves may be after it too. The CAS on top
	// decides. Lê et al. require a seq_cst CAS: an atomic RMW, totally
	// ordered with the thieves' CAS on the same index and after our
	// bottom store. Go's CompareAndSwap is SC (LOCK CMPXCHG on amd64).
	won := d.top.CompareAndSwap(t, t+1)
	// Either way top is now t+1: restore bottom to make the deque empty
	// (top == bottom). Relaxed would do (thieves reading b or b+1 see
	// empty either way); Go's store is SC.
	d.bottom.Store(b + 1)
	d.topCache = t + 1
	if !won {
		return nil, false
	}
	return p, true
}

// lowPop is called by pop when it leaves a large buffer under a quarter full
// (n = b - t elements, indices [t, b)). After a run of size/8 such pops in a
// row, it replaces the buffer by one of max(floor, 4n rounded up to a power of
// two) slots. Requiring a run makes a deque whose length oscillates keep its
// buffer instead of shrinking and regrowing, and amortizes the allocation and
// the copy over at least size/8 pops.
//
// t may be stale (below the real top); copying a few dead elements is
// harmless, and n < size/4 guarantees they fit.
func (d *lev) lowPop(a *buffer, t, b int64) {
	d.lowPops++
	if d.lowPops < a.shrinkAt/2 {
		return
	}
	size := max(d.shrinkFloor(), ceilPow2(4*(b-t)))
	d.install(a.resized(size, d.shrinkFloor(), t, b))
}

// steal implements Deque.Steal.
func (d *lev) steal() (unsafe.Pointer, StealResult) {
	// Lê et al.: acquire load of top, then a seq_cst fence, then an
	// acquire load of bottom. The fence is the thief's half of the Dekker
	// pair with pop (bottom store, then top load): a thief must not pair
	// the top it read with a bottom older than an owner's reservation
	// whose top load missed this thief's CAS. Go's SC loads are totally
	// ordered with the owner's SC store and load, which subsumes the fence.
	t := d.top.Load()
	// Acquire (SC in Go): synchronizes with the push that stored this
	// value, so its slot write and any earlier buf store are visible.
	b := d.bottom.Load()
	if t >= b {
		return nil, Empty
	}
	// Loaded after bottom, so it is the buffer current when the element
	// at t was published, or a later one (install happens before the
	// publishing bottom store). Lê et al. use a consume/acquire load here.
	a := d.buf.Load()
	p := a.load(t) // may race with a wrap-around write; then the CAS fails
	// Re-check that a is still the current buffer (no ABA: a replacement
	// is a fresh allocation, and a stays alive while we hold it), so the
	// read above happened while a was current. doc.go explains why that,
	// with the CAS, rules out returning a stale element.
	if d.buf.Load() != a {
		return nil, Retry
	}
	// Claim index t. Lê et al. require a seq_cst CAS: ordered with the
	// owner's bottom store and top load in pop, and with the owner's CAS
	// for the last element. Go's CompareAndSwap is SC (LOCK CMPXCHG). If
	// top moved on, someone else took index t: discard p.
	if !d.top.CompareAndSwap(t, t+1) {
		return nil, Retry
	}
	return p, Success
}

// len implements Deque.Len.
func (d *lev) len() int {
	t := d.top.Load()    // SC load; only atomicity is needed
	b := d.bottom.Load() // SC load; only atomicity is needed
	if b <= t {
		return 0
	}
	return int(b - t)
}

// initialCapacity returns the size of the first buffer.
func (d *lev) initialCapacity() int64 {
	if d.initCap == 0 {
		return defaultCapacity
	}
	return d.initCap
}

// shrinkFloor returns the size at or below which buffers never shrink.
func (d *lev) shrinkFloor() int64 {
	if d.floor != 0 {
		return d.floor
	}
	return max(d.initialCapacity(), shrinkFloor)
}

// ceilPow2 returns the smallest power of two >= n, for 1 <= n <= maxCapacity.
func ceilPow2(n int64) int64 {
	p := int64(1)
	for p < n {
		p <<= 1
	}
	return p
}
