package slots

import (
	"fmt"
	"math"
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

	// LoadDelay is how long a change in the number of running tasks
	// takes to show in full in the readings (default 3 sample
	// intervals, at most the largest Duration). The budget is decided
	// once per LoadDelay. Too long a delay makes the controller slow;
	// too short a one is lengthened when a step is seen to take longer,
	// but the first steps may then overshoot by a few slots.
	LoadDelay time.Duration

	// Sampler reads usage; nil uses NewSystemSampler.
	Sampler Sampler
}

const defaultSampleInterval = 100 * time.Millisecond

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
	case o.MinSlots < 0:
		return fmt.Errorf("weft/slots: ResourceOptions.MinSlots = %d: want >= 0", o.MinSlots)
	case o.MaxSlots < 0:
		return fmt.Errorf("weft/slots: ResourceOptions.MaxSlots = %d: want >= 0 (0: no bound)", o.MaxSlots)
	case o.MaxSlots > 0 && o.MinSlots > o.MaxSlots:
		return fmt.Errorf("weft/slots: ResourceOptions.MinSlots = %d above MaxSlots = %d: want MinSlots <= MaxSlots, or MaxSlots 0 for no bound", o.MinSlots, o.MaxSlots)
	}
	for _, d := range []struct {
		name, zero string
		v          time.Duration
	}{
		{"RampThrottle", "no throttle", o.RampThrottle},
		{"SampleInterval", "the default, " + defaultSampleInterval.String(), o.SampleInterval},
		{"LoadDelay", "the default, 3 sample intervals", o.LoadDelay},
	} {
		if d.v < 0 {
			return fmt.Errorf("weft/slots: ResourceOptions.%s = %v: want >= 0 (0: %s)", d.name, d.v, d.zero)
		}
	}
	return nil
}

func (o *ResourceOptions) setDefaults() {
	if o.SampleInterval == 0 {
		o.SampleInterval = defaultSampleInterval
	}
	if o.LoadDelay == 0 {
		// Saturated: three intervals of over a third of the largest
		// Duration would wrap negative, and a negative LoadDelay decides
		// at every reading.
		o.LoadDelay = time.Duration(math.MaxInt64)
		if o.SampleInterval <= math.MaxInt64/3 {
			o.LoadDelay = 3 * o.SampleInterval
		}
	}
}
