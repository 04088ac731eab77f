package slots

import "math"

// The resources a controller watches, as indexes into its arrays.
const (
	resCPU = iota
	resMemory
	numResources
)

// Tunables of the controller; docs/slots.md explains them.
const (
	// ctlGain is the share of the room left under a target that one
	// decision may fill with new slots. Below 1 so that a per-slot load
	// estimated up to 1/ctlGain times too small still does not overshoot.
	ctlGain = 0.5
	// ctlSureGain replaces ctlGain while the last step confirmed the
	// per-slot load estimate within estAgree, to shorten the approach.
	ctlSureGain = 0.7
	estAgree    = 0.2
	// ctlShrinkAt is how far over a target, in slots, usage must be before
	// the budget is cut. Growth needs a whole slot of room, so the budget
	// holds still while usage is within [target - 1 slot, target + 0.5
	// slot]: noise in the readings does not make it chatter.
	ctlShrinkAt = 0.5
	// ctlUnseen is the share of a step's predicted effect on usage below
	// which the step has not shown yet: LoadDelay is too short for this
	// workload, and the decision waits.
	ctlUnseen = 0.5
	// ctlStillMoving: a step that has shown less than 1-ctlStillMoving of
	// its predicted effect, while the last reading still moved usage by
	// more than ctlStillMoving of it, is still arriving; the decision
	// waits for it too.
	ctlStillMoving = 0.25
	// ctlMaxWaits bounds the readings a decision waits for its step.
	ctlMaxWaits = 8
	// ctlMinVisible is the least predicted change of usage that is checked
	// at all, so that noise cannot stall decisions on small steps.
	ctlMinVisible = 0.01
	// estDecay is the weight of the per-slot load estimate's history at
	// each new observation.
	estDecay = 0.7
	// estFloor is the least per-slot load believed: a smaller reading
	// (a resource the tasks do not use, or noise) means the resource
	// does not limit the budget, and growth is held to doubling.
	estFloor = 1e-4
)

// traceDecision, when set (by tests), sees every decision.
var traceDecision func(n float64, u [numResources]float64, k float64, budget int)

// lateness says whether a decision had to wait for the step before it to
// show in the readings.
type lateness uint8

const (
	onTime    lateness = iota
	lateStep           // a measured step showed late: LoadDelay is too short
	lateProbe          // the first probe showed late, and was watched one more reading to see it stop
)

// controller turns usage readings into a slot budget. It decides once
// per LoadDelay, the time a change of slots takes to show in the
// readings, so each decision sees the whole effect of the one before and
// no correction is made twice (the overshoot of a controller that acts on
// stale readings). At each decision it measures, per resource, the load
// one slot adds: the change of usage since the last decision over the
// change of the average number of slots out, by decayed least squares.
// It then adds the share ctlGain of the slots that fit under the target
// (at least one, at most doubling the budget), holds, or removes the
// slots over the target; the least of the resources' budgets wins.
type controller struct {
	targets            [numResources]float64
	est                [numResources]slopeEstimator
	minSlots, maxSlots int // maxSlots 0: no bound

	budget  int
	started bool
	waits   int                   // readings waited for the last step to show
	late    lateness              // whether the last step showed only after waits
	lastN   float64               // average slots out over the previous period
	lastU   [numResources]float64 // the reading at the previous decision
}

// decide sets the budget from n, the average slots out since the last
// decision, the reading u (and prev, the reading before it), and whether
// reservations found the budget full since the last decision. It returns
// the budget before throttling, or wait true if the last step has not
// shown in the readings yet: then nothing changed, and the caller should
// decide again at the next reading without starting a new period.
func (c *controller) decide(n float64, u, prev [numResources]float64, starved bool) (budget int, wait bool) {
	if c.started {
		unseen := c.unseen(n, u, prev)
		if unseen && c.waits < ctlMaxWaits {
			c.waits++
			return c.budget, true
		}
		c.late = onTime
		if !unseen && c.waits > 0 {
			c.late = lateStep
			if !c.est[resCPU].known {
				c.late = lateProbe
			}
		}
		c.waits = 0
		for i := range c.est {
			c.est[i].add(n-c.lastN, u[i]-c.lastU[i])
		}
	}
	c.started, c.lastN, c.lastU = true, n, u
	b := math.MaxInt
	for i := range c.targets {
		b = min(b, c.propose(i, n, u[i], starved))
	}
	if c.maxSlots > 0 {
		b = min(b, c.maxSlots)
	}
	if traceDecision != nil {
		traceDecision(n, u, c.est[resCPU].k, b)
	}
	return max(b, c.minSlots), false
}

// unseen reports whether the last step has yet to show: usage has moved
// less than ctlUnseen of what the estimate predicts for the change of
// slots, or less than 1-ctlStillMoving of it and is still moving, as a
// load that grows over several readings does. Before any slope is known,
// a step of a slot or more counts as unseen until some resource has moved
// by ctlMinVisible and then stopped: the first estimate is the one every
// later check relies on, so it is worth waiting for.
func (c *controller) unseen(n float64, u, prev [numResources]float64) bool {
	dn := n - c.lastN
	if math.Abs(dn) < 0.5 {
		return false
	}
	moved, moving := false, false
	for i := range c.est {
		du, last := u[i]-c.lastU[i], math.Abs(u[i]-prev[i])
		k, known := c.est[i].slope()
		if want := k * dn; known && math.Abs(want) >= ctlMinVisible {
			seen := du / want
			if seen < ctlUnseen || seen < 1-ctlStillMoving && last > ctlStillMoving*math.Abs(want) {
				return true
			}
		}
		moved = moved || math.Abs(du) >= ctlMinVisible
		moving = moving || last >= ctlMinVisible/2
	}
	return !c.est[resCPU].known && (!moved || moving)
}

// propose returns resource i's budget.
func (c *controller) propose(i int, n, u float64, starved bool) int {
	room := c.targets[i] - u
	k, known := c.est[i].slope()
	fit := math.Copysign(1, room) // unmeasured: probe one slot at a time
	if known {
		fit = room / k // slots that fit under the target; negative: too many
	}
	switch {
	case fit >= 1 && starved:
		// Grow by a share of the room, at least one slot and at most
		// doubling, which bounds the harm of a misread slope.
		gain := ctlGain
		if c.est[i].sure {
			gain = ctlSureGain
		}
		return c.budget + min(max(int(gain*fit), 1), max(c.budget, 1))
	case fit <= -ctlShrinkAt:
		// Cut from the slots actually out: a budget that demand never
		// filled would not shed any load.
		return min(c.budget, int(math.Ceil(n))) - max(int(math.Round(-fit)), 1)
	}
	return c.budget
}

// slopeEstimator fits dUsage = k * dSlots through the origin over
// exponentially decayed observations: the steps the controller makes.
// Using differences cancels the base load of the rest of the machine.
type slopeEstimator struct {
	xx, xy float64 // decayed sums of dSlots² and dSlots*dUsage
	k      float64
	known  bool
	sure   bool // the last step's own slope agreed with the estimate before it
}

// add takes one step; steps of less than half a slot say too little.
func (e *slopeEstimator) add(dx, dy float64) {
	if math.Abs(dx) < 0.5 {
		return
	}
	e.sure = e.known && math.Abs(dy/dx-e.k) <= estAgree*e.k
	e.xx = e.xx*estDecay + dx*dx
	e.xy = e.xy*estDecay + dx*dy
	e.k = max(e.xy/e.xx, estFloor)
	e.known = true
}

func (e *slopeEstimator) slope() (float64, bool) { return e.k, e.known }
