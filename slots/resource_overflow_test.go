package slots_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/slots"
)

// TestResourceBasedAverageOfManySlotsOverALongSpell: the average of the
// slots out between two decisions is the integral of slots over time
// divided by the time. Held in a Duration of slot-nanoseconds, that
// integral overflows once slots times the spell passes 292 years: a
// thousand long tasks beside which nobody reserves for 107 days. The
// controller would then fit its per-slot load to a garbage slot count.
func TestResourceBasedAverageOfManySlotsOverALongSpell(t *testing.T) {
	var avgs []float64
	slots.SetTraceDecision(func(n float64, _ [2]float64, _ float64, _ int) { avgs = append(avgs, n) })
	t.Cleanup(func() { slots.SetTraceDecision(nil) })
	// Inside synctest the clock is the bubble's: time.Sleep below moves it
	// at once, so the 200-day spell takes no real time.
	synctest.Test(t, func(t *testing.T) {
		const n = 1000
		w := &heldLoad{perSlot: 0.0001}
		s, err := slots.NewResourceBased(slots.ResourceOptions{
			TargetCPU: 0.9, TargetMemory: 0.9, MinSlots: n, Sampler: w,
		})
		require.NoError(t, err)
		for range n {
			_, ok := s.TryReserveSlot(noRC)
			require.True(t, ok)
			w.held.Add(1)
		}
		require.Len(t, avgs, 1) // the first reading's
		time.Sleep(200 * 24 * time.Hour)
		for i := 0; len(avgs) < 2 && i < 20; i++ {
			s.TryReserveSlot(noRC) // refused: MinSlots are out and the budget is MinSlots
			time.Sleep(100 * time.Millisecond)
		}
		require.Len(t, avgs, 2, "no decision after the spell")
		require.InDelta(t, n, avgs[1], 1, "average slots out over the spell")
	})
}

// TestResourceBasedDefaultLoadDelayDoesNotWrap: LoadDelay defaults to
// three sample intervals; for a SampleInterval over a third of the
// largest Duration that product wraps negative, and the supplier decides
// at every reading instead of at most once per LoadDelay.
func TestResourceBasedDefaultLoadDelayDoesNotWrap(t *testing.T) {
	decisions := 0
	slots.SetTraceDecision(func(float64, [2]float64, float64, int) { decisions++ })
	t.Cleanup(func() { slots.SetTraceDecision(nil) })
	synctest.Test(t, func(t *testing.T) {
		const interval = 1 << 62
		s, err := slots.NewResourceBased(slots.ResourceOptions{
			TargetCPU: 0.5, TargetMemory: 0.5, SampleInterval: interval, Sampler: &fixedReading{},
		})
		require.NoError(t, err)
		s.TryReserveSlot(noRC) // the first reading decides
		require.Equal(t, 1, decisions)
		time.Sleep(interval)
		s.TryReserveSlot(noRC)
		require.Equal(t, 1, decisions, "decided again after one SampleInterval, less than the default LoadDelay of three")
	})
}
