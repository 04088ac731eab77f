package slots

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
)

// Tracker is the safe way to use a Supplier, and the one a pool holds: it
// stands between the code that admits and runs tasks and the supplier, and
// enforces the protocol (see docs/slots.md). Releasing a
// permit twice, releasing or marking a permit of another Tracker, and
// marking a released permit are errors that never reach the supplier.
// With WithLeakHook it also finds permits dropped without release.
//
// It keeps the live figures that ReserveContext shows suppliers and that
// Stats reports. Its methods are safe for concurrent use. The zero Tracker
// (and a nil *Tracker) is unusable: its methods panic, naming NewTracker,
// which makes one.
type Tracker struct {
	supplier Supplier
	token    *owner     // stamped on permits when leak detection is off
	onLeak   func(Leak) // nil: leak detection off; written once by NewTracker

	// held packs the two live counts, so that MarkUsed moves a slot from
	// one to the other with a single Add and Stats reads both at one
	// instant:
	//   bits 0-31   slots marked used and not released   (heldUsedOne)
	//   bits 32-63  slots reserved, not yet marked used  (heldReservedOne)
	// Each count falls only after the Add that raised it for the same
	// permit: adopt adds before the permit is handed out, MarkUsed adds
	// under the shard lock that Release takes before it subtracts. So
	// neither field underflows into the other.
	held atomic.Uint64

	issued   atomic.Uint64 // permits adopted; only grows
	refusals atomic.Uint64 // TryReserve calls that got nothing; only grows
	failures atomic.Uint64 // Reserve calls that returned an error; only grows
	leaked   atomic.Uint64 // permits reclaimed by leak detection; only grows

	used usedSet
}

const (
	heldUsedOne     = 1
	heldReservedOne = 1 << 32
	heldFieldMask   = 1<<32 - 1

	// Two's-complement deltas for held.Add: ^(x-1) is -x.
	heldUnuse     = ^uint64(heldUsedOne - 1)
	heldUnreserve = ^uint64(heldReservedOne - 1)
	heldMark      = heldUsedOne + heldUnreserve // reserved -> used
)

func heldUsed(w uint64) int     { return int(w & heldFieldMask) }
func heldReserved(w uint64) int { return int(w >> 32) }

// TrackerOption configures a Tracker; pass options to NewTracker.
type TrackerOption func(*Tracker)

// WithLeakHook turns on leak detection: a permit that becomes unreachable
// without having been released is released to the supplier with reason
// TaskFailed(ErrPermitLeaked), and then f is called with what is known of
// it. The release and f run on a goroutine of their own, started from the
// runtime's cleanup goroutine, so that a supplier or an f that calls
// runtime.Goexit ends only that goroutine, not the process's cleanups;
// a panic there crashes the program, as in any goroutine of its own.
//
// Detection costs three small allocations per permit (a stamp object that
// every copy of the permit points at, and runtime.AddCleanup's record and
// closure), so Reserve is no longer allocation-free; and it is only as
// timely as the garbage collector.
func WithLeakHook(f func(Leak)) TrackerOption {
	return func(t *Tracker) { t.onLeak = f }
}

// NewTracker returns a Tracker over s. It panics if s is nil.
func NewTracker(s Supplier, opts ...TrackerOption) *Tracker {
	if s == nil {
		panic("weft/slots: NewTracker with a nil Supplier")
	}
	t := &Tracker{supplier: s}
	t.token = &owner{t: t}
	t.used.init()
	for _, o := range opts {
		o(t)
	}
	return t
}

// Supplier returns the supplier t was made with.
func (t *Tracker) Supplier() Supplier {
	t.mustBeMade()
	return t.supplier
}

// Reserve blocks until the supplier grants a slot or ctx is done, and
// returns the slot's permit. kind says what the slot is for (suppliers see
// it as ReserveContext.Kind). If ctx is already done Reserve returns
// ctx.Err() without asking the supplier; an error returned leaves nothing
// reserved. The permit must be released with Release exactly once. It
// panics if ctx is nil.
func (t *Tracker) Reserve(ctx context.Context, kind string) (Permit, error) {
	t.mustBeMade()
	if ctx == nil {
		// Else a nil-pointer panic from ctx.Done, or from deep in a
		// supplier only once it has to wait.
		panic("weft/slots: Tracker.Reserve with a nil context: pass context.Background() or context.TODO()")
	}
	select {
	case <-ctx.Done():
		t.failures.Add(1)
		return Permit{}, ctx.Err()
	default:
	}
	p, err := t.supplier.ReserveSlot(ctx, ReserveContext{t: t, kind: kind})
	if err != nil {
		if !p.IsZero() {
			panic(fmt.Sprintf("weft/slots: %T.ReserveSlot returned both %v and error %q: want a Permit and a nil error, or the zero Permit and an error", t.supplier, p, err))
		}
		t.failures.Add(1)
		return Permit{}, err
	}
	return t.adopt(p), nil
}

// TryReserve returns a permit and true if the supplier grants a slot
// without waiting, and false (counted in Stats.Refusals) otherwise.
func (t *Tracker) TryReserve(kind string) (Permit, bool) {
	t.mustBeMade()
	p, ok := t.supplier.TryReserveSlot(ReserveContext{t: t, kind: kind})
	if !ok {
		if !p.IsZero() {
			panic(fmt.Sprintf("weft/slots: %T.TryReserveSlot returned %v with false: want the zero Permit with false", t.supplier, p))
		}
		t.refusals.Add(1)
		return Permit{}, false
	}
	return t.adopt(p), true
}

// adopt takes a permit the supplier just issued into t.
func (t *Tracker) adopt(p Permit) Permit {
	if p.rec == nil {
		panic(fmt.Sprintf("weft/slots: supplier %T granted the zero Permit: want a Permit made by NewPermit (or granted by an inner supplier)", t.supplier))
	}
	// The CAS from Issued makes sure the supplier handed out a live
	// permit that nobody holds; a supplier bug that grants one permit
	// twice is caught here rather than as a double count later.
	if !p.rec.state.CompareAndSwap(word(p.id, phaseIssued), word(p.id, phaseReserved)) {
		panic(fmt.Sprintf("weft/slots: supplier %T granted %v, which is stale or already held: want each Permit granted once, before any release", t.supplier, p))
	}
	t.issued.Add(1)
	t.held.Add(heldReservedOne)
	p.own = t.stamp(p)
	return p
}

// MarkUsed records that a task described by task now runs on p's slot and
// tells the supplier. It returns ErrMarkedTwice if p is already marked,
// ErrUnknownPermit if p was released (or is not a Tracker's), and
// ErrForeignPermit if p belongs to another Tracker.
func (t *Tracker) MarkUsed(p Permit, task TaskInfo) error {
	if err := t.check(p); err != nil {
		return err
	}
	sh := t.used.shard(p.id)
	sh.mu.Lock()
	err := t.toMarking(p)
	if err == nil {
		sh.link(p.rec, task)
		// Under the lock: a Release of p, which takes it to unlink p,
		// moves the count only after this.
		t.held.Add(heldMark)
	}
	sh.mu.Unlock()
	if err != nil {
		return err
	}
	// Marking becomes Used once the supplier has been told, even if it
	// panics: a Release racing this one waits for it, so the supplier
	// sees MarkSlotUsed before ReleaseSlot.
	defer p.rec.state.Store(word(p.id, phaseUsed))
	t.supplier.MarkSlotUsed(UsedInfo{Permit: p.bare(), Task: task})
	// Until the move to Used is done the stamp must stay reachable, or
	// leak detection could reclaim the permit under our feet.
	runtime.KeepAlive(p.own)
	return nil
}

// toMarking moves p from Reserved to Marking.
func (t *Tracker) toMarking(p Permit) error {
	// The CAS succeeds only for this permit (its id) while Reserved, so
	// it cannot mark a released permit, or one whose record was issued
	// again, and of two racing marks only one wins.
	want := word(p.id, phaseReserved)
	if p.rec.state.CompareAndSwap(want, word(p.id, phaseMarking)) {
		return nil
	}
	if w := p.rec.state.Load(); w == word(p.id, phaseUsed) || w == word(p.id, phaseMarking) {
		return fmt.Errorf("%w: %v", ErrMarkedTwice, p)
	}
	return fmt.Errorf("%w: %v was released", ErrUnknownPermit, p)
}

// Release gives p's slot back to the supplier with reason r. It returns
// ErrReleasedTwice if p was already released, ErrForeignPermit if p
// belongs to another Tracker and ErrUnknownPermit if p is not a Tracker's;
// in each case the supplier is not called.
func (t *Tracker) Release(p Permit, r ReleaseReason) error {
	if err := t.check(p); err != nil {
		return err
	}
	phase, ok := p.rec.toReleased(p.id)
	if !ok {
		return fmt.Errorf("%w: %v", ErrReleasedTwice, p)
	}
	t.giveBack(p.rec, p.id, phase, r)
	runtime.KeepAlive(p.own) // see MarkUsed
	return nil
}

// toReleased moves permit id from Reserved or Used to Released and returns
// the phase it left. It reports false if the permit is no longer live.
func (r *record) toReleased(id uint64) (uint64, bool) {
	for {
		w := r.state.Load()
		phase := w & phaseMask
		if w>>phaseBits == id && phase == phaseMarking {
			// A MarkUsed is telling the supplier, which must not block:
			// wait for it, so that this release reaches the supplier after.
			runtime.Gosched()
			continue
		}
		if w>>phaseBits != id || (phase != phaseReserved && phase != phaseUsed) {
			return 0, false
		}
		// Of all the Releases (and the leak cleanup) racing for this
		// permit, exactly one moves it out of Reserved or Used; a CAS
		// that fails because MarkUsed moved it to Used retries.
		if r.state.CompareAndSwap(w, word(id, phaseReleased)) {
			return phase, true
		}
	}
}

// giveBack finishes a release that won the move to Released.
func (t *Tracker) giveBack(r *record, id, phase uint64, reason ReleaseReason) TaskInfo {
	var task TaskInfo
	if phase == phaseUsed {
		task = t.used.remove(r, id)
		t.held.Add(heldUnuse)
	} else {
		t.held.Add(heldUnreserve)
	}
	t.supplier.ReleaseSlot(ReleaseInfo{Permit: Permit{rec: r, id: id}, Reason: reason, Used: phase == phaseUsed})
	return task
}

// check reports whether p may be marked or released through t.
func (t *Tracker) check(p Permit) error {
	t.mustBeMade()
	switch {
	case p.rec == nil:
		return fmt.Errorf("%w: the zero Permit", ErrUnknownPermit)
	case p.own == nil:
		return fmt.Errorf("%w: %v was not reserved through a Tracker", ErrUnknownPermit, p)
	case p.own.t != t:
		return fmt.Errorf("%w: %v", ErrForeignPermit, p)
	}
	return nil
}

func (t *Tracker) mustBeMade() {
	if t == nil || t.supplier == nil {
		panic("weft/slots: Tracker not made by NewTracker")
	}
}
