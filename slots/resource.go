package slots

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ResourceOptions configure a ResourceBased supplier. TargetCPU and
// TargetMemory must be set; the other zero values pick defaults.
type ResourceOptions struct {
	// TargetCPU and TargetMemory are the fractions of the process's CPU
	// and memory allowance (cgroup limits, else the host's) to fill, in
	// (0, 1]. Slots are handed out while usage is expected to stay below
	// both.
	TargetCPU    float64
	TargetMemory float64

	// MinSlots are handed out whatever the usage; MaxSlots are never
	// exceeded (0: no bound but the targets).
	MinSlots int
	MaxSlots int

	// RampThrottle is the least time between two raises of the slot
	// budget above MinSlots: the budget grows by at most one slot per
	// RampThrottle. It limits growth only; a slot freed under the budget
	// is handed out again at once, or short tasks would be held to one
	// per RampThrottle. 0: no throttle.
	RampThrottle time.Duration

	// SampleInterval is the least time between two readings of the
	// sampler (default 100ms). Readings are taken when a reservation
	// asks, so an idle supplier reads nothing.
	SampleInterval time.Duration

	// LoadDelay is how long a newly started task takes to show its load
	// in the readings, and a finished one to stop showing it (default 3
	// sample intervals). Too short a delay makes the controller
	// overshoot; too long makes it slow.
	LoadDelay time.Duration

	// Sampler reads usage; nil uses NewSystemSampler.
	Sampler Sampler
}

const defaultSampleInterval = 100 * time.Millisecond

// ResourceBased is a supplier that hands out slots while the process's
// CPU and memory usage stay below targets. Every sample it sets a budget
// of slots with the controller described in the package documentation,
// and grants reservations while fewer slots than the budget are out.
//
// Permits carry no data and are allocated one per slot. It may be shared
// by several Trackers; create one with NewResourceBased (the zero value is
// unusable).
type ResourceBased struct {
	opts    ResourceOptions
	sampler Sampler

	mu         sync.Mutex
	ctl        controller
	held       int       // slots out; guarded by mu, like all below
	budget     int       // slots that may be out, as of the last sample
	grants     timeQueue // grants less than LoadDelay ago
	releases   timeQueue // releases less than LoadDelay ago
	nextSample time.Time
	lastRaise  time.Time
	usage      Usage
	err        error         // the last sample's error
	changed    chan struct{} // closed when a slot may have come free; nil: nobody waits
}

// NewResourceBased returns a ResourceBased supplier, or an error if a
// target is outside (0, 1], a count or duration is negative, MinSlots
// exceeds a non-zero MaxSlots, or no Sampler is given and the system
// cannot be sampled.
func NewResourceBased(o ResourceOptions) (*ResourceBased, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.SampleInterval == 0 {
		o.SampleInterval = defaultSampleInterval
	}
	if o.LoadDelay == 0 {
		o.LoadDelay = 3 * o.SampleInterval
	}
	r := &ResourceBased{opts: o, sampler: o.Sampler, budget: o.MinSlots}
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

func (o *ResourceOptions) check() error {
	for _, t := range []struct {
		name string
		v    float64
	}{{"TargetCPU", o.TargetCPU}, {"TargetMemory", o.TargetMemory}} {
		if !(t.v > 0 && t.v <= 1) { // also refuses NaN
			return fmt.Errorf("weft/slots: ResourceOptions.%s = %v: want a fraction in (0, 1]", t.name, t.v)
		}
	}
	switch {
	case o.MinSlots < 0 || o.MaxSlots < 0:
		return errors.New("weft/slots: ResourceOptions: negative MinSlots or MaxSlots")
	case o.MaxSlots > 0 && o.MinSlots > o.MaxSlots:
		return fmt.Errorf("weft/slots: ResourceOptions: MinSlots %d > MaxSlots %d", o.MinSlots, o.MaxSlots)
	case o.RampThrottle < 0 || o.SampleInterval < 0 || o.LoadDelay < 0:
		return errors.New("weft/slots: ResourceOptions: negative duration")
	}
	return nil
}

// MaxSlots returns ResourceOptions.MaxSlots.
func (r *ResourceBased) MaxSlots() int { return r.opts.MaxSlots }

// ReserveSlot grants a slot when the budget allows, waiting for a release
// or the next sample otherwise, until ctx is done.
func (r *ResourceBased) ReserveSlot(ctx context.Context, _ ReserveContext) (Permit, error) {
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
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.grantLocked(time.Now())
}

// MarkSlotUsed does nothing: usage readings, not task kinds, steer the
// budget.
func (r *ResourceBased) MarkSlotUsed(UsedInfo) {}

// ReleaseSlot takes a slot back.
func (r *ResourceBased) ReleaseSlot(ReleaseInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held == 0 {
		panic("weft/slots: ResourceBased.ReleaseSlot with no slot out")
	}
	r.held--
	r.releases.push(time.Now())
	r.wakeLocked()
}

// grantLocked samples if a sample is due and grants a slot if fewer than
// the budget (or than MinSlots) are out.
func (r *ResourceBased) grantLocked(now time.Time) (Permit, bool) {
	if !now.Before(r.nextSample) {
		r.sampleLocked(now)
	}
	if r.held >= r.opts.MinSlots && r.held >= r.budget {
		return Permit{}, false
	}
	r.held++
	r.grants.push(now)
	return NewPermit(nil), true
}

// sampleLocked reads usage and sets the budget. A failed reading leaves the
// budget as it was.
func (r *ResourceBased) sampleLocked(now time.Time) {
	r.nextSample = now.Add(r.opts.SampleInterval)
	// A grant LoadDelay old or older shows in this reading.
	shown := now.Add(-r.opts.LoadDelay)
	r.grants.dropUpTo(shown)
	r.releases.dropUpTo(shown)
	u, err := r.sampler.Sample()
	r.err = err
	if err != nil {
		return
	}
	r.usage = u
	visible := r.held - r.grants.len() + r.releases.len()
	b := r.ctl.budget(visible, [numResources]float64{resCPU: u.CPU, resMemory: u.Memory})
	b = r.throttle(now, b)
	if b > r.budget {
		r.wakeLocked()
	}
	r.budget = b
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
	return int(min(int64(b), int64(floor)+int64(steps)))
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
	Usage    Usage // the last reading
	SlotLoad Usage // estimated load of one slot (0 until measured)
	Budget   int   // slots that may be out, as of the last reading
	Held     int   // slots out
	Err      error // the last reading's error, nil if it succeeded
}

// State returns what r last read and decided.
func (r *ResourceBased) State() ResourceState {
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
	}
}

// timeQueue is a FIFO of times, oldest first.
type timeQueue struct {
	ts   []time.Time
	head int
}

func (q *timeQueue) push(t time.Time) { q.ts = append(q.ts, t) }

func (q *timeQueue) len() int { return len(q.ts) - q.head }

// dropUpTo forgets the times up to t, compacting now and then so the
// slice does not grow without bound.
func (q *timeQueue) dropUpTo(t time.Time) {
	for q.head < len(q.ts) && !q.ts[q.head].After(t) {
		q.head++
	}
	if q.head > len(q.ts)/2 {
		n := copy(q.ts, q.ts[q.head:])
		q.ts, q.head = q.ts[:n], 0
	}
}
