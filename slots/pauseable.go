package slots

import (
	"context"
	"sync"
	"sync/atomic"
)

// PauseOptions modify a Pause. The zero PauseOptions pauses without
// cancelling anyone.
type PauseOptions struct {
	// CancelOutstanding ends the reservations already waiting when Pause
	// is called, whether they wait for the inner supplier or for a
	// Resume: they return ErrPaused. Without it they wait on, and
	// complete after Resume.
	CancelOutstanding bool
}

// Pauseable wraps a supplier so that handing out slots can be paused, for
// example to drain a pool before maintenance without refusing its
// callers. While paused, ReserveSlot waits (until Resume, or until its ctx
// ends) and TryReserveSlot refuses. A slot the inner supplier grants while
// paused is released back to it as NeverUsed, and its reserver keeps
// waiting. Slots already out are not affected: they are marked and
// released as usual.
//
// While not paused the wrapper costs one atomic load before and one after
// asking the inner supplier. To do that cheaply it first asks the inner
// supplier's TryReserveSlot, and only if that refuses does it block in the
// inner ReserveSlot, with a context of its own that a Pause with
// CancelOutstanding can end (building that context allocates, which a
// blocking reservation can afford).
//
// Its methods are safe for concurrent use, and a Pauseable may be shared
// by several Trackers: Pause pauses them all. The zero Pauseable (and a
// nil *Pauseable) wraps nothing and is unusable: its methods panic,
// naming NewPauseable, which makes one.
type Pauseable struct {
	inner Supplier

	// paused is true from Pause to Resume. It is written under mu and
	// read without it: reservations load it before asking the inner
	// supplier and again after being granted, so a grant that overlaps a
	// Pause is seen by the second load and handed back.
	paused atomic.Bool

	mu      sync.Mutex
	resumed chan struct{} // closed by Resume, made anew by Pause; guarded by mu
	// epoch is cancelled by a Pause with CancelOutstanding, ending the
	// reservations that captured it, and then replaced; guarded by mu.
	epoch *pauseEpoch
}

type pauseEpoch struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func newEpoch() *pauseEpoch {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &pauseEpoch{ctx: ctx, cancel: cancel}
}

// NewPauseable returns a Pauseable over inner, not paused. It panics if
// inner is nil.
func NewPauseable(inner Supplier) *Pauseable {
	if inner == nil {
		panic("weft/slots: NewPauseable with a nil Supplier")
	}
	return &Pauseable{inner: inner, epoch: newEpoch()}
}

// Pause stops handing out slots until Resume. Pausing a paused Pauseable
// keeps it paused (and with CancelOutstanding cancels whoever waits).
func (p *Pauseable) Pause(opts PauseOptions) {
	p.mustBeMade()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.paused.Load() {
		p.resumed = make(chan struct{})
		p.paused.Store(true)
	}
	if opts.CancelOutstanding {
		old := p.epoch
		p.epoch = newEpoch()
		old.cancel(ErrPaused)
	}
}

// Resume lets reservations through again. Resuming a Pauseable that is not
// paused does nothing.
func (p *Pauseable) Resume() {
	p.mustBeMade()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused.Load() {
		p.paused.Store(false)
		close(p.resumed)
	}
}

// Paused reports whether p is paused.
func (p *Pauseable) Paused() bool {
	p.mustBeMade()
	return p.paused.Load()
}

// Inner returns the wrapped supplier.
func (p *Pauseable) Inner() Supplier {
	p.mustBeMade()
	return p.inner
}

func (p *Pauseable) mustBeMade() {
	if p == nil || p.inner == nil {
		panic("weft/slots: Pauseable not made by NewPauseable")
	}
}

// ReserveSlot reserves a slot of the inner supplier, waiting first for
// Resume if p is paused.
func (p *Pauseable) ReserveSlot(ctx context.Context, rc ReserveContext) (Permit, error) {
	p.mustBeMade()
	if !p.paused.Load() {
		if perm, ok := p.inner.TryReserveSlot(rc); ok {
			if !p.paused.Load() {
				return perm, nil
			}
			p.handBack(perm)
		}
	}
	return p.reserveSlow(ctx, rc)
}

// TryReserveSlot refuses while p is paused, and asks the inner supplier
// otherwise.
func (p *Pauseable) TryReserveSlot(rc ReserveContext) (Permit, bool) {
	p.mustBeMade()
	if p.paused.Load() {
		return Permit{}, false
	}
	perm, ok := p.inner.TryReserveSlot(rc)
	if ok && p.paused.Load() {
		p.handBack(perm)
		return Permit{}, false
	}
	return perm, ok
}

// MarkSlotUsed passes u to the inner supplier.
func (p *Pauseable) MarkSlotUsed(u UsedInfo) {
	p.mustBeMade()
	p.inner.MarkSlotUsed(u)
}

// ReleaseSlot passes r to the inner supplier.
func (p *Pauseable) ReleaseSlot(r ReleaseInfo) {
	p.mustBeMade()
	p.inner.ReleaseSlot(r)
}

// MaxSlots returns the inner supplier's.
func (p *Pauseable) MaxSlots() int {
	p.mustBeMade()
	return p.inner.MaxSlots()
}

// handBack releases a permit granted while paused.
func (p *Pauseable) handBack(perm Permit) {
	p.inner.ReleaseSlot(ReleaseInfo{Permit: perm, Reason: NeverUsed()})
}

// reserveSlow waits for Resume and blocks in the inner supplier, as often
// as a grant lands while paused.
func (p *Pauseable) reserveSlow(ctx context.Context, rc ReserveContext) (Permit, error) {
	p.mu.Lock()
	ep := p.epoch // this reservation is outstanding from here on
	p.mu.Unlock()
	for {
		if err := p.awaitResume(ctx, ep); err != nil {
			return Permit{}, err
		}
		perm, err := p.reserveInner(ctx, ep, rc)
		if err != nil {
			return Permit{}, err
		}
		if ep.ctx.Err() != nil {
			// Cancelled by a Pause, even if resumed since: the grant
			// raced the cancellation, and the cancellation wins.
			p.handBack(perm)
			return Permit{}, ErrPaused
		}
		if !p.paused.Load() {
			return perm, nil
		}
		p.handBack(perm)
	}
}

// awaitResume returns when p is not paused, or with an error when ctx or
// ep ends first.
func (p *Pauseable) awaitResume(ctx context.Context, ep *pauseEpoch) error {
	if ep.ctx.Err() != nil {
		return ErrPaused
	}
	for {
		p.mu.Lock()
		paused, resumed := p.paused.Load(), p.resumed
		p.mu.Unlock()
		if !paused {
			return nil
		}
		select {
		case <-resumed:
		case <-ctx.Done():
			return ctx.Err()
		case <-ep.ctx.Done():
			return ErrPaused
		}
	}
}

// reserveInner blocks in the inner supplier under a context that ends with
// ctx or with ep.
func (p *Pauseable) reserveInner(ctx context.Context, ep *pauseEpoch, rc ReserveContext) (Permit, error) {
	ictx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(ep.ctx, func() { cancel(ErrPaused) })
	defer stop()
	perm, err := p.inner.ReserveSlot(ictx, rc)
	switch {
	case err == nil:
		return perm, nil
	case ctx.Err() != nil:
		return Permit{}, ctx.Err()
	case context.Cause(ictx) == ErrPaused:
		return Permit{}, ErrPaused
	}
	return Permit{}, err
}
