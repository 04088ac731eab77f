package slots_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/weftrt/weft/slots"
)

// heldLoad is a Sampler whose CPU reading is perSlot times the slots the
// test holds, showing at once.
type heldLoad struct {
	held    atomic.Int64
	perSlot float64
}

func (h *heldLoad) Sample() (slots.Usage, error) {
	return slots.Usage{CPU: h.perSlot * float64(h.held.Load())}, nil
}

// A quiet spell in which nobody
// reserves (so nothing is sampled) right after the first probe must not be
// taken for a step that showed late. Counted as the time the probe took
// to show, it would make LoadDelay an hour, and freeze the budget for an
// hour although the load of each slot shows at once.
func TestIdleGapDoesNotStretchLoadDelay(t *testing.T) {
	// Inside synctest the clock is the bubble's: every time.Sleep here
	// moves it at once, and nothing depends on the machine's speed.
	synctest.Test(t, func(t *testing.T) {
		const interval = 100 * time.Millisecond
		w := &heldLoad{perSlot: 0.05}
		s, err := slots.NewResourceBased(slots.ResourceOptions{
			TargetCPU: 0.8, TargetMemory: 1,
			SampleInterval: interval, LoadDelay: 3 * interval,
			Sampler: w,
		})
		if err != nil {
			t.Fatal(err)
		}
		reserve := func(d time.Duration) bool {
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			if _, err := s.ReserveSlot(ctx, slots.ReserveContext{}); err != nil {
				return false
			}
			w.held.Add(1)
			return true
		}
		if !reserve(10 * time.Second) {
			t.Fatal("first probe slot not granted")
		}
		time.Sleep(time.Hour) // one task runs; nobody reserves
		if !reserve(10 * time.Second) {
			t.Fatal("second slot not granted")
		}
		// Each slot's load shows at once and there is room for 15: the
		// third slot must come within a few LoadDelays, not an hour.
		if !reserve(10 * time.Second) {
			t.Fatalf("third slot not granted within 10s after an idle hour; state %+v", s.State())
		}
	})
}
