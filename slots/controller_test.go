package slots_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/weftrt/weft/slots"
)

// workload simulates tasks for a ResourceBased supplier to admit. Each
// task adds perSlot CPU (and a little memory) on top of a base load; its
// load shows lag samples after it starts, all at once or (ramp) growing
// evenly over those samples, and leaves the same way after it ends.
// Demand is unlimited: every sample, tasks start while the supplier grants
// slots. Readings carry noise, drawn from a seeded generator.
type workload struct {
	base, perSlot float64
	lag           int  // samples
	ramp          bool // load grows over lag samples instead of appearing at once
	duration      int  // mean samples a task runs (uniform in [d/2, 3d/2]); 0: forever
	noise         float64
	baseJump      float64 // added to base from sample jumpAt on
	jumpAt        int

	rng     *rand.Rand
	tick    int
	running []task
	ended   []task // ended tasks whose load may still show
	history []slots.Usage
}

type task struct {
	permit     slots.Permit
	start, end int // end is meaningful once the task is in ended
	stop       int // the sample the task will end at; 0: never
}

// shown is the share of a task's load that a reading at tick shows.
func (w *workload) shown(t task, ended bool) float64 {
	in := w.fraction(w.tick - t.start)
	if ended {
		in -= w.fraction(w.tick - t.end)
	}
	return in
}

// fraction is the share of a step of load that shows age samples after it.
func (w *workload) fraction(age int) float64 {
	switch {
	case age >= w.lag:
		return 1
	case w.ramp && w.lag > 0:
		return float64(age) / float64(w.lag)
	}
	return 0
}

// Sample is the simulated reading at the current tick.
func (w *workload) Sample() (slots.Usage, error) {
	cpu := w.base + w.noise*(2*w.rng.Float64()-1)
	if w.tick >= w.jumpAt && w.jumpAt > 0 {
		cpu += w.baseJump
	}
	var slotsShown float64
	for _, t := range w.running {
		slotsShown += w.shown(t, false)
	}
	for _, t := range w.ended {
		slotsShown += w.shown(t, true)
	}
	cpu += w.perSlot * slotsShown
	u := slots.Usage{CPU: cpu, Memory: 0.2 + 0.001*slotsShown}
	w.history = append(w.history, u)
	return u, nil
}

// step advances one sample: ends due tasks, then starts tasks while the
// supplier grants them.
func (w *workload) step(s slots.Supplier) {
	w.tick++
	kept := w.running[:0]
	for _, t := range w.running {
		if t.stop != 0 && w.tick >= t.stop {
			t.end = w.tick
			w.ended = append(w.ended, t)
			s.ReleaseSlot(slots.ReleaseInfo{Permit: t.permit})
			continue
		}
		kept = append(kept, t)
	}
	w.running = kept
	for {
		p, ok := s.TryReserveSlot(slots.ReserveContext{})
		if !ok {
			break
		}
		t := task{permit: p, start: w.tick}
		if w.duration > 0 {
			t.stop = w.tick + w.duration/2 + w.rng.IntN(w.duration+1)
		}
		w.running = append(w.running, t)
	}
}

// settle returns the first sample from which CPU usage stays within band
// of target (-1 if it never does), and the largest overshoot above target.
func settle(h []slots.Usage, target, band float64) (settled int, overshoot float64) {
	settled = -1
	for i, u := range h {
		overshoot = max(overshoot, u.CPU-target)
		if math.Abs(u.CPU-target) > band {
			settled = -1
		} else if settled < 0 {
			settled = i
		}
	}
	return settled, overshoot
}

// TestResourceBasedSettles drives a ResourceBased supplier with simulated
// workloads: slots that each add a load with a lag of a few samples. It
// checks the controller's promise: usage settles within a band of the
// target (one slot's load plus the noise, and at least 3 points) in at most
// settleWithin samples, then stays there (no oscillation), and never
// exceeds the target by more than one slot's load plus the noise. Time is
// synctest's, so the run is deterministic and takes no real time.
//
// LoadDelay is the lag as configured by the user: equal to the real lag,
// longer, or shorter (the controller then waits for its steps to show and
// lengthens its own delay).
func TestResourceBasedSettles(t *testing.T) {
	const (
		target       = 0.7
		samples      = 200
		settleWithin = 50
	)
	cases := []struct {
		w      workload
		delay  int     // LoadDelay in samples; 0: w.lag
		margin float64 // allowed overshoot; 0: one slot's load plus the noise
	}{
		{w: workload{perSlot: 0.05, base: 0.1, lag: 3}},
		{w: workload{perSlot: 0.05, base: 0.1, lag: 3, duration: 5}},
		{w: workload{perSlot: 0.05, base: 0.1, lag: 3, ramp: true, duration: 8, noise: 0.01}},
		{w: workload{perSlot: 0.02, base: 0.3, lag: 5, duration: 7, noise: 0.005}},
		{w: workload{perSlot: 0.15, base: 0.05, lag: 2, duration: 3}},
		{w: workload{perSlot: 0.01, base: 0.0, lag: 1, noise: 0.003}},
		{w: workload{perSlot: 0.004, base: 0.2, lag: 4, duration: 20, noise: 0.002}},
		{w: workload{perSlot: 0.05, base: 0.1, lag: 3, duration: 6}, delay: 2},
		{w: workload{perSlot: 0.05, base: 0.1, lag: 3, duration: 6}, delay: 6},
		{w: workload{perSlot: 0.03, base: 0.1, lag: 2}, delay: 1},
		// LoadDelay a quarter of a lag over which load grows gradually,
		// under noise: the controller lengthens its delay, but its first
		// estimate of a slot's load is low, so it may overshoot by up to
		// four slots before it settles.
		{w: workload{perSlot: 0.03, base: 0.1, lag: 4, ramp: true, duration: 10, noise: 0.005}, delay: 1, margin: 0.12},
		// Another process takes 20% more CPU midway: the budget must
		// come down as tasks end, and settle again.
		{w: workload{perSlot: 0.04, base: 0.1, lag: 2, duration: 6, baseJump: 0.2, jumpAt: 100}},
	}
	for i, c := range cases {
		w := c.w
		if c.delay == 0 {
			c.delay = w.lag
		}
		name := fmt.Sprintf("%d/slot=%v/lag=%d/delay=%d", i, w.perSlot, w.lag, c.delay)
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const interval = 100 * time.Millisecond
				w.rng = rand.New(rand.NewPCG(1, uint64(i)))
				s, err := slots.NewResourceBased(slots.ResourceOptions{
					TargetCPU: target, TargetMemory: 0.9,
					SampleInterval: interval, LoadDelay: time.Duration(c.delay) * interval,
					Sampler: &w,
				})
				if err != nil {
					t.Fatal(err)
				}
				traceController(t, &w)
				for range samples {
					time.Sleep(interval)
					w.step(s)
				}
				band := max(0.03, w.perSlot+2*w.noise)
				h := w.history
				from := 0
				if w.jumpAt > 0 {
					from = w.jumpAt // judge the recovery from the jump
				}
				settled, over := settle(h[from:], target, band)
				t.Logf("settled at sample %d (band ±%.3f), overshoot %.4f, final %d slots, slot load %.4f",
					settled, band, over, s.State().Held, s.State().SlotLoad.CPU)
				if settled < 0 || settled > settleWithin {
					t.Errorf("did not settle within %d samples: %v", settleWithin, cpuTrace(h))
				}
				margin := c.margin
				if margin == 0 {
					margin = w.perSlot + w.noise
				}
				if over > margin+1e-9 && w.jumpAt == 0 {
					t.Errorf("overshoot %.4f > %.4f: %v", over, margin, cpuTrace(h))
				}
			})
		})
	}
}

// traceController logs the controller's decisions when TRACE is set.
func traceController(t *testing.T, w *workload) {
	if os.Getenv("TRACE") == "" {
		return
	}
	slots.SetTraceDecision(func(n float64, u [2]float64, k float64, budget int) {
		t.Logf("tick=%d held=%d n=%.1f u=%.3f k=%.4f b=%d", w.tick, len(w.running), n, u[0], k, budget)
	})
	t.Cleanup(func() { slots.SetTraceDecision(nil) })
}

func cpuTrace(h []slots.Usage) []string {
	out := make([]string, len(h))
	for i, u := range h {
		out[i] = fmt.Sprintf("%.3f", u.CPU)
	}
	return out
}
