package slots_test

import (
	"fmt"
	"math"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/weftrt/weft/slots"
)

// workload simulates tasks that each add a fixed load, which shows in the
// readings lag samples after the task starts and stops showing lag samples
// after it ends, on top of a base load, plus a little deterministic noise.
type workload struct {
	base, perSlot [2]float64 // CPU, memory
	lag           int        // in samples
	duration      int        // samples a task runs; 0: forever
	noise         float64

	tick    int
	running []task
	ended   []task // ended tasks whose load still shows
	history []slots.Usage
}

type task struct {
	permit     slots.Permit
	start, end int
}

// Sample is the simulated reading at the current tick.
func (w *workload) Sample() (slots.Usage, error) {
	var n [2]float64
	count := func(t task, endsShowing bool) {
		if w.tick-t.start >= w.lag && (!endsShowing || w.tick-t.end < w.lag) {
			for i := range n {
				n[i] += w.perSlot[i]
			}
		}
	}
	for _, t := range w.running {
		count(t, false)
	}
	for _, t := range w.ended {
		count(t, true)
	}
	jitter := w.noise * math.Sin(float64(w.tick)*1.7)
	u := slots.Usage{CPU: w.base[0] + n[0] + jitter, Memory: w.base[1] + n[1]}
	w.history = append(w.history, u)
	return u, nil
}

// step advances one sample: ends due tasks, then starts tasks while the
// supplier grants them (demand is unlimited).
func (w *workload) step(s slots.Supplier) {
	w.tick++
	kept := w.running[:0]
	for _, t := range w.running {
		if w.duration > 0 && w.tick-t.start >= w.duration {
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
		w.running = append(w.running, task{permit: p, start: w.tick})
	}
}

// settle reports the first sample from which CPU usage stays within band of
// target, and the largest overshoot above target.
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

// TestResourceBasedSettles drives the controller with simulated workloads
// and checks that CPU usage settles near the target within maxSamples and
// never overshoots it by more than the stated margin: one slot's load
// (noise included). Time is synctest's, so the run is deterministic and
// does not sleep.
func TestResourceBasedSettles(t *testing.T) {
	const (
		target     = 0.7
		maxSamples = 40
	)
	cases := []struct {
		perSlot, base, noise float64
		lag, duration        int
		delay                int // LoadDelay in samples; 0: lag
	}{
		{perSlot: 0.05, base: 0.1, lag: 3},
		{perSlot: 0.05, base: 0.1, lag: 3, duration: 5},
		{perSlot: 0.02, base: 0.3, lag: 5, duration: 7, noise: 0.005},
		{perSlot: 0.15, base: 0.05, lag: 2, duration: 3},
		{perSlot: 0.01, base: 0.0, lag: 1, noise: 0.003},
		{perSlot: 0.004, base: 0.2, lag: 4, duration: 20, noise: 0.002},
		{perSlot: 0.05, base: 0.1, lag: 3, duration: 6, delay: 2},
		{perSlot: 0.05, base: 0.1, lag: 3, duration: 6, delay: 5},
		{perSlot: 0.03, base: 0.1, lag: 2, duration: 0, delay: 1},
	}
	for _, c := range cases {
		if c.delay == 0 {
			c.delay = c.lag
		}
		name := fmt.Sprintf("slot=%v/base=%v/lag=%d/delay=%d/dur=%d/noise=%v", c.perSlot, c.base, c.lag, c.delay, c.duration, c.noise)
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const interval = 100 * time.Millisecond
				w := &workload{
					base: [2]float64{c.base, 0.2}, perSlot: [2]float64{c.perSlot, 0.001},
					lag: c.lag, duration: c.duration, noise: c.noise,
				}
				s, err := slots.NewResourceBased(slots.ResourceOptions{
					TargetCPU: target, TargetMemory: 0.9,
					SampleInterval: interval, LoadDelay: time.Duration(c.delay) * interval,
					Sampler: w,
				})
				if err != nil {
					t.Fatal(err)
				}
				if os.Getenv("TRACE") != "" {
					slots.TraceController = func(visible int, u [2]float64, k float64, budget int) {
						t.Logf("tick=%d held=%d vis=%d u=%.3f k=%.4f b=%d", w.tick, len(w.running), visible, u[0], k, budget)
					}
					defer func() { slots.TraceController = nil }()
				}
				for range 150 {
					time.Sleep(interval)
					w.step(s)
				}
				band := c.perSlot + 2*c.noise
				settled, over := settle(w.history, target, band)
				t.Logf("settled at sample %d (band ±%.3f), overshoot %.4f, final %d slots, est %.4f",
					settled, band, over, s.State().Held, s.State().SlotLoad.CPU)
				if settled < 0 || settled > maxSamples {
					t.Errorf("did not settle within %d samples: %v", maxSamples, cpuTrace(w.history))
				}
				if over > c.perSlot+c.noise {
					t.Errorf("overshoot %.4f > one slot %.4f: %v", over, c.perSlot+c.noise, cpuTrace(w.history))
				}
			})
		})
	}
}

func cpuTrace(h []slots.Usage) []string {
	out := make([]string, len(h))
	for i, u := range h {
		out[i] = fmt.Sprintf("%.3f", u.CPU)
	}
	return out
}
