package slots_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/weftrt/weft/slots"
)

// With the smallest RampThrottle (1ns), the first raise of the budget
// divides the time since the zero lastRaise (saturated to the largest
// Duration) by 1ns and adds it to the floor: int64 overflow, and the
// budget goes negative. The budget must never fall below MinSlots, and a
// raise must raise it.
func TestRampThrottleOneNanosecondBudget(t *testing.T) {
	// Inside synctest the clock is the bubble's: every time.Sleep here
	// moves it at once, and nothing depends on the machine's speed.
	synctest.Test(t, func(t *testing.T) {
		s, err := slots.NewResourceBased(slots.ResourceOptions{
			TargetCPU: 0.8, TargetMemory: 0.8, MinSlots: 2, MaxSlots: 8,
			RampThrottle: time.Nanosecond,
			Sampler:      &fixedReading{u: slots.Usage{CPU: 0.1, Memory: 0.1}},
		})
		if err != nil {
			t.Fatal(err)
		}
		var budgets []int
		for range 40 {
			s.TryReserveSlot(noRC) // granted or refused (starved): never released
			st := s.State()
			budgets = append(budgets, st.Budget)
			if st.Budget < 2 {
				t.Fatalf("budget %d below MinSlots 2 (held %d); budgets so far %v", st.Budget, st.Held, budgets)
			}
			time.Sleep(100 * time.Millisecond) // one SampleInterval
		}
		if budgets[len(budgets)-1] <= 2 {
			t.Fatalf("budget never raised under low usage: %v", budgets)
		}
	})
}
