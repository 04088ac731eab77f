package slots

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/cpu"
)

// The layout of Fixed.state, built from these constants (and tested).
const (
	fixedTopBits  = 24                  // index+1 of the free record on top of the stack
	fixedTopMask  = 1<<fixedTopBits - 1 // 0 in the field: the stack is empty
	fixedWaitBit  = 1 << fixedTopBits   // reservers are queued
	fixedTagShift = fixedTopBits + 1    // the rest: a tag against ABA
	fixedTagOne   = 1 << fixedTagShift
)

// MaxFixed is the most slots a Fixed can have (about 16.7 million):
// NewFixed panics above it.
const MaxFixed = fixedTopMask

// Fixed is a supplier of a fixed number of slots. Blocked reservers are
// served in the order they blocked: a released slot goes straight to the
// longest-waiting reserver, and no newcomer can take a slot while anyone
// waits. Reserving and releasing a free slot is one CAS each on a shared
// word and allocates nothing.
//
// Fixed keeps one record per slot and issues every permit from the record
// of its slot, so permits are values with no allocation; a stale permit is
// still told apart from the record's live one by its id.
//
// A reservation whose ctx ends while it waits leaves nothing reserved; if a
// slot was handed to it at that same moment it passes the slot on to the
// next waiter (or back to the free stack) before returning ctx.Err().
//
// A Fixed may be shared by several Trackers (several pools): it bounds
// their sum. The zero Fixed (and a nil *Fixed) is unusable: its methods
// other than MarkSlotUsed panic, naming NewFixed, which makes one.
type Fixed struct {
	_ cpu.CacheLinePad
	// state is the head of the stack of free records and the waiters
	// flag, in one word so that one CAS moves both:
	//   bits 0-23   index+1 of the record on top (0: no free slot)
	//   bit  24     set while reservers are queued
	//   bits 25-63  tag, added to by every push and pop
	// Invariants: the flag is set only while the stack is empty (a
	// reserver sets it only after seeing the stack empty, and a release
	// that sees it hands its record to a waiter instead of pushing); and,
	// while mu is held, the flag is set exactly when the queue is not
	// empty (both change only under mu). The tag makes a CAS prepared
	// from a stale head fail: a pop reads the top record's link and then
	// CASes, and if in between that record was popped and pushed back
	// (same top, different link) the tag has moved. It wraps after 2^39
	// pushes and pops, far more than can happen while one goroutine sits
	// between its load and its CAS.
	state atomic.Uint64
	_     cpu.CacheLinePad

	mu         sync.Mutex
	head, tail *waiter // FIFO of blocked reservers; guarded by mu

	recs    []record  // one per slot; the slice is written by NewFixed only
	waiters sync.Pool // of *waiter, so a blocking reserve allocates nothing
}

// waiter is a reserver queued in a Fixed.
type waiter struct {
	// ch receives the record granted to the waiter. Its capacity of one
	// lets a release grant under mu without waiting for the receiver.
	ch         chan *record
	granted    bool    // a record was sent on ch; guarded by Fixed.mu
	prev, next *waiter // guarded by Fixed.mu
}

// NewFixed returns a Fixed with n slots, all free. It panics unless
// 1 <= n <= MaxFixed.
func NewFixed(n int) *Fixed {
	if n < 1 || n > MaxFixed {
		panic(fmt.Sprintf("weft/slots: NewFixed(%d): want 1..%d slots", n, MaxFixed))
	}
	f := &Fixed{recs: make([]record, n)}
	for i := range f.recs {
		r := &f.recs[i]
		r.fixed, r.index = f, uint32(i)
		r.state.Store(word(uint64(i), phaseFree)) // on record i-1, whose index+1 is i
	}
	f.state.Store(uint64(n))
	return f
}

// MaxSlots returns the number of slots.
func (f *Fixed) MaxSlots() int {
	// A zero Fixed would read as 0, "no bound", to the caller.
	f.mustBeMade()
	return len(f.recs)
}

// ReserveSlot takes a free slot, or waits in line for one until ctx is
// done. A free slot is granted even if ctx is already done (a Tracker
// checks ctx first).
func (f *Fixed) ReserveSlot(ctx context.Context, _ ReserveContext) (Permit, error) {
	// Only nil is checked here, which needs no load: a zero Fixed has an
	// empty stack and is caught on the way to waiting.
	if f == nil {
		f.mustBeMade()
	}
	if r := f.pop(); r != nil {
		return r.issue(), nil
	}
	r, err := f.wait(ctx)
	if err != nil {
		return Permit{}, err
	}
	return r.issue(), nil
}

// TryReserveSlot takes a free slot if there is one and nobody is waiting.
func (f *Fixed) TryReserveSlot(ReserveContext) (Permit, bool) {
	if f == nil { // as in ReserveSlot
		f.mustBeMade()
	}
	if r := f.pop(); r != nil {
		return r.issue(), true
	}
	f.mustBeMade()
	return Permit{}, false
}

// MarkSlotUsed does nothing: a Fixed counts slots, not tasks.
func (f *Fixed) MarkSlotUsed(UsedInfo) {}

// ReleaseSlot frees the slot, handing it to the longest waiter if any. It
// panics for a permit that this Fixed did not issue or that is not out
// (released twice, or released directly while a Tracker holds it).
func (f *Fixed) ReleaseSlot(ri ReleaseInfo) {
	r := ri.Permit.rec
	if r == nil || r.fixed != f || f == nil {
		f.mustBeMade()
		panic(fmt.Sprintf("weft/slots: Fixed.ReleaseSlot of %v, which it did not issue", ri.Permit))
	}
	// Retiring links the record to the top seen now, so that in the
	// common case the push below needs no second write to the record.
	s := f.state.Load()
	if !r.retire(ri.Permit.id, s&fixedTopMask) {
		panic(fmt.Sprintf("weft/slots: Fixed.ReleaseSlot of %v, which is not out", ri.Permit))
	}
	if s&fixedWaitBit != 0 || !f.state.CompareAndSwap(s, pushed(s, r)) {
		f.release(r)
	}
}

// pushed is state s with r pushed on the stack.
func pushed(s uint64, r *record) uint64 {
	return (s&^fixedTopMask + fixedTagOne) | uint64(r.index+1)
}

// pop takes the top free record, or returns nil if the stack is empty
// (which it is whenever reservers are queued). A free record's state word
// holds, in place of a permit id, the index+1 of the record below it.
func (f *Fixed) pop() *record {
	for {
		s := f.state.Load()
		top := s & fixedTopMask
		if top == 0 {
			return nil
		}
		r := &f.recs[top-1]
		w := r.state.Load()
		if w&phaseMask != phaseFree {
			continue // r was popped since s was read
		}
		// If r left the stack since s was read, the tag in the word has
		// moved and the CAS fails, even if r is back on top; so the
		// link w came from r while it was on top.
		if f.state.CompareAndSwap(s, (s&^fixedTopMask+fixedTagOne)|w>>phaseBits) {
			return r
		}
	}
}

// push puts r on the free stack. It reports false, doing nothing, if
// reservers are queued: r must go to one of them.
func (f *Fixed) push(r *record) bool {
	for {
		s := f.state.Load()
		if s&fixedWaitBit != 0 {
			return false
		}
		// r is off the stack and ours, so its link may be rewritten
		// until the CAS publishes it; a CAS that fails (the top or the
		// flag changed) rewrites it against the new word.
		r.state.Store(word(s&fixedTopMask, phaseFree))
		if f.state.CompareAndSwap(s, pushed(s, r)) {
			return true
		}
	}
}

// release frees r, which no permit holds: to the first waiter, or onto the
// stack if nobody waits.
func (f *Fixed) release(r *record) {
	for !f.push(r) {
		if f.handOff(r) {
			return
		}
		// The queue emptied between push and handOff, clearing the
		// flag; push again.
	}
}

// handOff grants r to the first waiter, if there still is one.
func (f *Fixed) handOff(r *record) bool {
	f.mu.Lock()
	w := f.head
	if w != nil {
		f.dequeue(w)
		w.granted = true
		w.ch <- r
	}
	f.mu.Unlock()
	return w != nil
}

// wait queues the caller until a slot is granted to it or ctx is done.
func (f *Fixed) wait(ctx context.Context) (*record, error) {
	f.mustBeMade()
	done := ctx.Done()
	f.mu.Lock()
	for {
		if r := f.pop(); r != nil { // a slot came free since the fast path
			f.mu.Unlock()
			return r, nil
		}
		s := f.state.Load()
		if s&fixedTopMask != 0 {
			continue
		}
		// Setting the flag fails if a push got in first; then pop.
		if s&fixedWaitBit != 0 || f.state.CompareAndSwap(s, s|fixedWaitBit) {
			break
		}
	}
	w := f.newWaiter()
	f.enqueue(w)
	f.mu.Unlock()
	select {
	case r := <-w.ch:
		f.waiters.Put(w)
		return r, nil
	case <-done:
		return nil, f.abandon(w, ctx.Err())
	}
}

// abandon takes w out of line after its context ended. If a slot was
// granted to w in the meantime, w passes it on: nothing stays reserved.
func (f *Fixed) abandon(w *waiter, err error) error {
	f.mu.Lock()
	granted := w.granted
	if !granted {
		f.dequeue(w)
	}
	f.mu.Unlock()
	if granted {
		f.release(<-w.ch) // sent under mu before granted was set: ready
	}
	f.waiters.Put(w)
	return err
}

func (f *Fixed) newWaiter() *waiter {
	if w, ok := f.waiters.Get().(*waiter); ok {
		w.granted = false
		return w
	}
	return &waiter{ch: make(chan *record, 1)}
}

// enqueue appends w to the queue. The caller holds mu and has set the
// waiters flag.
func (f *Fixed) enqueue(w *waiter) {
	w.prev, w.next = f.tail, nil
	if f.tail != nil {
		f.tail.next = w
	} else {
		f.head = w
	}
	f.tail = w
}

// dequeue unlinks w, clearing the waiters flag if the queue empties. The
// caller holds mu.
func (f *Fixed) dequeue(w *waiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		f.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		f.tail = w.prev
	}
	w.prev, w.next = nil, nil
	if f.head == nil {
		// While the flag is set the stack is empty, so no pop or push
		// CASes the word; only the flag changes here.
		f.state.And(^uint64(fixedWaitBit))
	}
}

func (f *Fixed) mustBeMade() {
	if f == nil || len(f.recs) == 0 {
		panic("weft/slots: Fixed not made by NewFixed")
	}
}
