package slots

import (
	"context"
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
// Permits carry no data and are allocated one per slot. It may be shared
// by several Trackers; create one with NewResourceBased. The zero
// ResourceBased (and a nil *ResourceBased) is unusable: it has no Sampler,
// and its methods other than MarkSlotUsed panic, naming NewResourceBased.
type ResourceBased struct {
	opts    ResourceOptions
	sampler Sampler

	mu           sync.Mutex
	ctl          controller
	held         int           // slots out; guarded by mu, like all below
	budget       int           // slots that may be out
	starved      bool          // a reservation found the budget full since the last decision
	heldArea     time.Duration // integral of held over time since the last decision, in slot-ns
	heldSince    time.Time     // when held last changed or heldArea was last taken
	nextSample   time.Time
	lastSample   time.Time     // when the last reading was taken
	quiet        time.Duration // time since the last decision when nobody asked for a reading
	lastDecision time.Time
	delay        time.Duration // LoadDelay, lengthened when steps show later
	lastRaise    time.Time
	usage        Usage
	err          error         // the last sample's error
	skipped      uint64        // readings that failed, panicked or held garbage
	panics       uint64        // of skipped, Sampler panics
	garbage      uint64        // of skipped, readings refused for their figures
	changed      chan struct{} // closed when a slot may have come free; nil: nobody waits
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
// or the next sample otherwise, until ctx is done.
func (r *ResourceBased) ReserveSlot(ctx context.Context, _ ReserveContext) (Permit, error) {
	r.mustBeMade()
	for {
		r.mu.Lock()
		now := time.Now()
		p, ok := r.grantLocked(now)
		if ok {
			r.mu.Unlock()
			return p, nil
		}
		if r.changed == nil {
			r.changed = make(chan struct{})
		}
		changed, wait := r.changed, r.nextSample.Sub(now)
		r.mu.Unlock()
		// Granting and waiting are decided under mu in this goroutine,
		// so a ctx that ends now finds nothing granted to hand back.
		if err := sleepFor(ctx, changed, wait); err != nil {
			return Permit{}, err
		}
	}
}

// sleepFor waits for changed, d, or the end of ctx.
func sleepFor(ctx context.Context, changed <-chan struct{}, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-changed:
	case <-t.C:
	}
	return nil
}

// TryReserveSlot grants a slot if the budget allows now.
func (r *ResourceBased) TryReserveSlot(ReserveContext) (Permit, bool) {
	r.mustBeMade()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.grantLocked(time.Now())
}

// MarkSlotUsed does nothing: usage readings, not task kinds, steer the
// budget.
func (r *ResourceBased) MarkSlotUsed(UsedInfo) {}

// ReleaseSlot takes a slot back. It panics for the zero Permit, which
// holds no slot, and when no slot is out.
func (r *ResourceBased) ReleaseSlot(ri ReleaseInfo) {
	r.mustBeMade()
	if ri.Permit.IsZero() {
		panic("weft/slots: ResourceBased.ReleaseSlot of the zero Permit, which holds no slot")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held == 0 {
		panic("weft/slots: ResourceBased.ReleaseSlot with no slot out")
	}
	r.setHeldLocked(time.Now(), r.held-1)
	r.wakeLocked()
}

// grantLocked samples if a sample is due and grants a slot if fewer than
// the budget (or than MinSlots) are out.
func (r *ResourceBased) grantLocked(now time.Time) (Permit, bool) {
	if !now.Before(r.nextSample) {
		r.sampleLocked(now)
	}
	if r.held >= r.opts.MinSlots && r.held >= r.budget {
		r.starved = true
		return Permit{}, false
	}
	r.setHeldLocked(now, r.held+1)
	return NewPermit(nil), true
}

// setHeldLocked changes held, adding the time at the old count to the
// period's area.
func (r *ResourceBased) setHeldLocked(now time.Time, held int) {
	if !r.heldSince.IsZero() {
		r.heldArea += time.Duration(r.held) * now.Sub(r.heldSince)
	}
	r.held, r.heldSince = held, now
}

// sampleLocked reads usage and, once per LoadDelay, sets the budget. A
// reading that fails, panics or holds garbage is skipped and counted: the
// budget stays as the last good readings set it, and the next decision
// compares against them.
func (r *ResourceBased) sampleLocked(now time.Time) {
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
	u, fault, err := sampleChecked(r.sampler)
	r.err = err
	if fault != sampleOK {
		r.skipped++
		switch fault {
		case samplePanicked:
			r.panics++
		case sampleGarbage:
			r.garbage++
		}
		return
	}
	prev := r.usage
	r.usage = u
	if now.Sub(r.lastDecision) < r.delay {
		return
	}
	b, wait := r.ctl.decide(r.averageHeldLocked(now), readings(u), readings(prev), r.starved)
	if wait {
		return
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
	return float64(r.heldArea) / float64(span)
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
