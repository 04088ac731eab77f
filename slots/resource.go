package slots

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ResourceBased is a supplier that hands out slots while the process's
// CPU and memory usage stay below targets. Once per LoadDelay it sets a
// budget of slots with the controller described in the package
// documentation, and it grants reservations while fewer slots than the
// budget are out. Like Fixed, it grants a free slot even if the
// reservation's ctx is already done (a Tracker checks ctx first).
//
// Permits carry no data and are allocated one per slot; a release of one
// it did not issue, or that is not out, panics, as Fixed's does. It may
// be shared by several Trackers; create one with NewResourceBased. The
// zero ResourceBased (and a nil *ResourceBased) is unusable: it has no
// Sampler, and its methods other than MarkSlotUsed panic, naming
// NewResourceBased.
type ResourceBased struct {
	opts    ResourceOptions
	sampler Sampler

	mu           sync.Mutex
	ctl          controller
	held         int       // slots out; guarded by mu, like all below
	budget       int       // slots that may be out
	starved      bool      // a reservation found the budget full since the last decision
	heldArea     float64   // integral of held over time since the last decision, in slot-ns (see setHeldLocked)
	heldSince    time.Time // when held last changed or heldArea was last taken
	nextSample   time.Time
	lastSample   time.Time     // when the last reading was taken
	quiet        time.Duration // time since the last decision when nobody asked for a reading
	lastDecision time.Time
	delay        time.Duration // LoadDelay, lengthened when steps show later
	lastRaise    time.Time
	usage        Usage
	err          error         // the last sample's error
	skipped      uint64        // readings that failed, panicked or held garbage
	failing      int           // readings in a row skipped, since the last good one
	panics       uint64        // of skipped, Sampler panics
	garbage      uint64        // of skipped, readings refused for their figures
	changed      chan struct{} // closed when a slot may have come free; nil: nobody waits
	// sampling is set while a reservation reads the Sampler, which it
	// does without holding mu: a slow reading must not hold up releases
	// (which must not block) nor other reservations, and the Sampler is
	// read by one goroutine at a time.
	sampling bool
}

// NewResourceBased returns a ResourceBased supplier, or an error if a
// target is outside (0, 1], a count or duration is negative, MinSlots
// exceeds a non-zero MaxSlots, or no Sampler is given and the system
// cannot be sampled.
func NewResourceBased(o ResourceOptions) (*ResourceBased, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	o.setDefaults()
	r := &ResourceBased{opts: o, sampler: o.Sampler, budget: o.MinSlots, delay: o.LoadDelay}
	if r.sampler == nil {
		s, err := NewSystemSampler()
		if err != nil {
			return nil, err
		}
		r.sampler = s
	}
	r.ctl = controller{
		targets:  [numResources]float64{resCPU: o.TargetCPU, resMemory: o.TargetMemory},
		minSlots: o.MinSlots,
		maxSlots: o.MaxSlots,
	}
	return r, nil
}

// MaxSlots returns ResourceOptions.MaxSlots.
func (r *ResourceBased) MaxSlots() int {
	r.mustBeMade()
	return r.opts.MaxSlots
}

func (r *ResourceBased) mustBeMade() {
	if r == nil || r.sampler == nil {
		panic("weft/slots: ResourceBased not made by NewResourceBased")
	}
}

// ReserveSlot grants a slot when the budget allows, waiting for a release
// or the next sample otherwise, until ctx is done. The reservation that
// takes a reading waits for the Sampler to return, whatever its ctx.
//
// When no slot can come free without a good reading (the budget is 0,
// MinSlots 0) and the last three readings were all skipped (the Sampler
// failed, panicked or returned garbage), it returns an error wrapping
// ErrBadSample and the last reading's error instead of waiting: no
// release can end that wait, and a Sampler that never reads well would
// make it last until ctx ends, silently. A Sampler that fails now and
// then fails no reservation: one good reading starts the count again.
func (r *ResourceBased) ReserveSlot(ctx context.Context, _ ReserveContext) (Permit, error) {
	r.mustBeMade()
	for {
		p, ok, changed, wait, err := r.grantOrWait()
		if ok {
			return p, nil
		}
		if err != nil {
			return Permit{}, err
		}
		// Granting and waiting are decided under mu in this goroutine,
		// so a ctx that ends now finds nothing granted to hand back.
		if err := sleepFor(ctx, changed, wait); err != nil {
			return Permit{}, err
		}
	}
}

// grantOrWait grants a slot, or returns what to wait for before asking
// again: changed, or wait, the time until the next reading is due (see
// sleepFor), or the error that ends the reservation (see failingLocked).
// mu is released by a deferred call, so that a Sampler that calls
// runtime.Goexit does not leave it held.
func (r *ResourceBased) grantOrWait() (p Permit, ok bool, changed <-chan struct{}, wait time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok = r.grantLocked(); ok {
		return p, true, nil, 0, nil
	}
	if err := r.failingLocked(); err != nil {
		return Permit{}, false, nil, 0, err
	}
	if r.changed == nil {
		r.changed = make(chan struct{})
	}
	wait = time.Until(r.nextSample)
	switch {
	case r.sampling:
		// The reading another reservation is taking may be due already;
		// it closes changed when done.
		wait = max(wait, 0)
	case wait <= 0:
		// The Sampler took longer than SampleInterval: read again now.
		wait = -1
	}
	return Permit{}, false, r.changed, wait, nil
}

// failedReadingsLimit is how many readings in a row must be skipped
// before a reservation that only a good reading could serve fails: one
// would fail reservations on a Sampler that fails now and then.
const failedReadingsLimit = 3

// failingLocked returns the error for a reservation that no release can
// serve because the budget is 0 and the Sampler keeps failing, or nil. It
// is nil while another reservation takes a reading: that one may be good.
func (r *ResourceBased) failingLocked() error {
	if r.sampling || r.failing < failedReadingsLimit || r.budget > 0 || r.opts.MinSlots > 0 {
		return nil
	}
	const why = "weft/slots: ResourceBased grants no slot: its budget is 0 (MinSlots 0) and only a good reading can raise it, but the last %d readings failed"
	if errors.Is(r.err, ErrBadSample) {
		return fmt.Errorf(why+": %w", r.failing, r.err)
	}
	return fmt.Errorf(why+": %w: %w", r.failing, ErrBadSample, r.err)
}

// skipLocked counts a reading that failed. Once the readings keep
// failing, it wakes the waiting reservations, so that those that only a
// good reading could serve fail now rather than at their next look.
func (r *ResourceBased) skipLocked() {
	r.skipped++
	r.failing++
	if r.failing >= failedReadingsLimit {
		r.wakeLocked()
	}
}

// sleepFor waits for changed, for d, or for the end of ctx; d = 0 waits
// for changed or ctx only, and d < 0 only checks ctx.
func sleepFor(ctx context.Context, changed <-chan struct{}, d time.Duration) error {
	if d < 0 {
		return ctx.Err()
	}
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-changed:
	case <-timeout:
	}
	return nil
}

// TryReserveSlot grants a slot if the budget allows now. If a reading is
// due it waits for it, unless another reservation is taking it. Where
// ReserveSlot would fail because the readings keep failing, it refuses;
// State().Err says why.
func (r *ResourceBased) TryReserveSlot(ReserveContext) (Permit, bool) {
	r.mustBeMade()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.grantLocked()
}

// MarkSlotUsed does nothing: usage readings, not task kinds, steer the
// budget.
func (r *ResourceBased) MarkSlotUsed(UsedInfo) {}

// ReleaseSlot takes a slot back. It panics for the zero Permit, which
// holds no slot, and for a permit that r did not issue or that is not out
// (released twice, or released directly while a Tracker holds it): taken
// back, such a permit would free a slot that is still in use.
func (r *ResourceBased) ReleaseSlot(ri ReleaseInfo) {
	r.mustBeMade()
	rec := ri.Permit.rec
	switch {
	case rec == nil:
		panic("weft/slots: ResourceBased.ReleaseSlot of the zero Permit, which holds no slot")
	case rec.resource != r:
		panic(fmt.Sprintf("weft/slots: ResourceBased.ReleaseSlot of %v, which it did not issue", ri.Permit))
	case !rec.retire(ri.Permit.id, 0):
		// The record is never issued again: Free, with no link, marks
		// its permit as back home, and a second release fails here.
		panic(fmt.Sprintf("weft/slots: ResourceBased.ReleaseSlot of %v, which is not out", ri.Permit))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.setHeldLocked(time.Now(), r.held-1)
	r.wakeLocked()
}

// grantLocked samples if a sample is due and grants a slot if fewer than
// the budget (or than MinSlots) are out. A reading is taken with mu
// released (see sampling), so the caller must re-read anything it read
// before.
func (r *ResourceBased) grantLocked() (Permit, bool) {
	now := time.Now()
	if !now.Before(r.nextSample) && !r.sampling {
		now = r.sampleLocked(now)
	}
	if r.held >= r.opts.MinSlots && r.held >= r.budget {
		r.starved = true
		return Permit{}, false
	}
	r.setHeldLocked(now, r.held+1)
	p := NewPermit(nil)
	p.rec.resource = r // before the permit is published
	return p, true
}

// setHeldLocked changes held, adding the time at the old count to the
// period's area. The area is a float: in a Duration of slot-ns it would
// wrap once slots times time passes 292 years, a thousand slots held for
// 107 days with nobody reserving (so no decision), and the average slots
// out would come out negative.
func (r *ResourceBased) setHeldLocked(now time.Time, held int) {
	if !r.heldSince.IsZero() {
		r.heldArea += float64(r.held) * float64(now.Sub(r.heldSince))
	}
	r.held, r.heldSince = held, now
}

// sampleLocked reads usage and, once per LoadDelay, sets the budget, and
// returns the time after the reading. A reading that fails, panics or
// holds garbage is skipped and counted: the budget stays as the last good
// readings set it, and the next decision compares against them.
func (r *ResourceBased) sampleLocked(now time.Time) time.Time {
	r.nextSample = now.Add(r.opts.SampleInterval)
	// Readings are taken only while reservations ask; a spell in which
	// nobody asked says nothing about how long a step takes to show, so
	// it is left out of the time a late step is found to have taken.
	if !r.lastSample.IsZero() {
		if gap := now.Sub(r.lastSample) - r.opts.SampleInterval; gap > 0 {
			r.quiet += gap
		}
	}
	r.lastSample = now
	u, fault, err := r.readUnlocked()
	// Slots may have moved while mu was released: the decision is of now.
	now = time.Now()
	r.err = err
	if fault != sampleOK {
		r.skipLocked()
		switch fault {
		case samplePanicked:
			r.panics++
		case sampleGarbage:
			r.garbage++
		}
		return now
	}
	prev := r.usage
	r.usage, r.failing = u, 0
	if now.Sub(r.lastDecision) < r.delay {
		return now
	}
	b, wait := r.ctl.decide(r.averageHeldLocked(now), readings(u), readings(prev), r.starved)
	if wait {
		return now
	}
	// A step that took longer than delay to show spaces decisions by
	// what it took.
	switch took := now.Sub(r.lastDecision) - r.quiet; r.ctl.late {
	case lateStep:
		r.delay = max(r.delay, took)
	case lateProbe:
		r.delay = max(r.delay, took-r.opts.SampleInterval)
	}
	b = r.throttle(now, b)
	if b > r.budget {
		r.wakeLocked()
	}
	r.budget, r.ctl.budget = b, b
	r.starved, r.lastDecision, r.heldArea, r.quiet = false, now, 0, 0
	return now
}

// readUnlocked reads the Sampler with mu released and sampling set, and
// returns with mu held again, even when the Sampler calls runtime.Goexit
// (whose unwinding then finds mu held, as the caller's deferred unlock
// expects, and the reading skipped and counted like a failed one).
func (r *ResourceBased) readUnlocked() (Usage, sampleFault, error) {
	r.sampling = true
	r.mu.Unlock()
	returned := false
	defer func() {
		r.mu.Lock()
		r.sampling = false
		if !returned {
			r.err = fmt.Errorf("%w: Sampler called runtime.Goexit", ErrBadSample)
			r.skipLocked()
		}
		if !time.Now().Before(r.nextSample) {
			// Reservations that found a reading due while this one
			// was taken wait for it on changed (grantOrWait).
			r.wakeLocked()
		}
	}()
	u, fault, err := sampleChecked(r.sampler)
	returned = true
	return u, fault, err
}

func readings(u Usage) [numResources]float64 {
	return [numResources]float64{resCPU: u.CPU, resMemory: u.Memory}
}

// averageHeldLocked returns the average of held since the last decision.
func (r *ResourceBased) averageHeldLocked(now time.Time) float64 {
	r.setHeldLocked(now, r.held)
	span := now.Sub(r.lastDecision)
	if r.lastDecision.IsZero() || span <= 0 {
		return float64(r.held)
	}
	return r.heldArea / float64(span)
}

// throttle limits a raise of the budget above MinSlots to one slot per
// RampThrottle since the last raise.
func (r *ResourceBased) throttle(now time.Time, b int) int {
	floor := max(r.budget, r.opts.MinSlots)
	if r.opts.RampThrottle <= 0 || b <= floor {
		return b
	}
	steps := now.Sub(r.lastRaise) / r.opts.RampThrottle
	if steps <= 0 {
		return floor
	}
	r.lastRaise = now
	// steps may be huge (lastRaise zero: the time since is the largest
	// Duration), so compare rather than add, which could overflow.
	if steps >= time.Duration(b-floor) {
		return b
	}
	return floor + int(steps)
}

// wakeLocked wakes the reservers waiting for a change.
func (r *ResourceBased) wakeLocked() {
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}

// ResourceState is a snapshot of a ResourceBased supplier.
type ResourceState struct {
	Usage    Usage // the last good reading
	SlotLoad Usage // estimated load of one slot (0 until measured)
	Budget   int   // slots that may be out, as of the last good reading
	Held     int   // slots out
	// Err is the last reading's error, nil if it succeeded. A Sampler
	// that panicked, or returned figures that are not usage (NaN,
	// infinite, negative, or over a hundred times the allowance), shows
	// here as an error wrapping ErrBadSample.
	Err error

	// Skipped counts the readings skipped since the supplier was made:
	// those whose Sampler returned an error, panicked, or returned
	// garbage. Of them, Panics panicked and Garbage held figures that
	// are not usage. The supplier decides on the last good readings
	// meanwhile; a count that keeps growing means it decides on stale
	// ones.
	Skipped uint64
	Panics  uint64
	Garbage uint64
}

// State returns what r last read and decided.
func (r *ResourceBased) State() ResourceState {
	r.mustBeMade()
	r.mu.Lock()
	defer r.mu.Unlock()
	cpu, _ := r.ctl.est[resCPU].slope()
	mem, _ := r.ctl.est[resMemory].slope()
	return ResourceState{
		Usage:    r.usage,
		SlotLoad: Usage{CPU: cpu, Memory: mem},
		Budget:   r.budget,
		Held:     r.held,
		Err:      r.err,
		Skipped:  r.skipped,
		Panics:   r.panics,
		Garbage:  r.garbage,
	}
}
