package slots

import "math"

// The resources a controller watches, as indexes into its arrays.
const (
	resCPU = iota
	resMemory
	numResources
)

// Tunables of the controller; see the package documentation.
const (
	// ctlGain is the share of the free room under a target that one
	// sample may fill with new slots. Below 1 so that a per-slot load
	// estimated up to 1/ctlGain times too small still does not overshoot.
	ctlGain = 0.5
	// ctlShrinkAt is how far over a target, in slots, usage must be before
	// the budget is cut. Together with growth needing a whole slot of
	// room, it leaves a dead band of 1.5 slots around the target in
	// which the budget holds still, so noise does not make it chatter.
	ctlShrinkAt = 0.5
	// estDecay weighs the per-slot load estimate's history: each sample
	// counts this much less than the next one.
	estDecay = 0.9
	// estMinVariance is how much the slot count must have varied over the
	// remembered samples before a slope is read from them.
	estMinVariance = 0.05
	// estFloor is the least per-slot load believed: a slope that reads
	// lower (a resource the tasks do not use, or noise) means the
	// resource does not limit the budget.
	estFloor = 1e-3
)

// controller turns usage readings into a slot budget. For each resource it
// estimates the load one slot adds (the slope of usage against the slots
// whose load the reading reflects, by decayed least squares) and sets the
// budget to those slots plus the slots that fit in the room left under the
// target. Slots granted too recently to show in the readings are not
// "visible": the budget is counted from the visible ones, so while a grant
// is on its way the budget does not grant it again, and the usual
// overshoot of a lagging proportional controller does not happen.
type controller struct {
	targets            [numResources]float64
	est                [numResources]slopeEstimator
	minSlots, maxSlots int // maxSlots 0: no bound
}

// budget returns how many slots may be out, given the visible slots and
// the reading. Each resource proposes visible+step; the least wins, then
// the minimum and maximum apply.
func (c *controller) budget(visible int, u [numResources]float64) int {
	b := math.MaxInt
	for i := range c.targets {
		c.est[i].add(float64(visible), u[i])
		b = min(b, visible+c.step(i, visible, u[i]))
	}
	if c.maxSlots > 0 {
		b = min(b, c.maxSlots)
	}
	if TraceController != nil {
		TraceController(visible, u, c.est[0].k, b)
	}
	return max(b, c.minSlots)
}

// step returns how many slots resource i wants added (or, negative, taken
// away) beyond the visible ones.
func (c *controller) step(i, visible int, u float64) int {
	room := c.targets[i] - u
	k, known := c.est[i].slope()
	if !known {
		// Nothing measured yet: probe one slot at a time.
		switch {
		case room > 0:
			return 1
		case room < 0:
			return -1
		}
		return 0
	}
	fit := room / k // slots that fit under the target
	switch {
	case fit >= 1:
		// Grow by a share of the room, at least one slot, and at most
		// double at a time, which bounds the harm of a slope misread
		// from few samples.
		return min(max(int(ctlGain*fit), 1), max(2*visible, 1))
	case fit <= -ctlShrinkAt:
		return -int(math.Round(-fit))
	}
	return 0
}

// slopeEstimator fits usage = base + k*slots over exponentially decayed
// samples and keeps the last k it could read.
type slopeEstimator struct {
	w, x, y, xx, xy float64 // decayed sums of 1, slots, usage, slots², slots*usage
	k               float64
	known           bool
}

func (e *slopeEstimator) add(x, y float64) {
	e.w = e.w*estDecay + 1
	e.x = e.x*estDecay + x
	e.y = e.y*estDecay + y
	e.xx = e.xx*estDecay + x*x
	e.xy = e.xy*estDecay + x*y
	mx, my := e.x/e.w, e.y/e.w
	v := e.xx/e.w - mx*mx
	if v < estMinVariance {
		// The slot count has not moved enough to tell its effect from
		// the base load: keep the slope read before.
		return
	}
	e.k = max((e.xy/e.w-mx*my)/v, estFloor)
	e.known = true
}

func (e *slopeEstimator) slope() (float64, bool) { return e.k, e.known }
