package slots_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/slots"
)

// faultySampler passes readings through from inner, except that the
// readings numbered in faults (1 for the first) panic or return the
// garbage given instead.
type faultySampler struct {
	inner  slots.Sampler
	n      int
	faults map[int]*slots.Usage // nil: panic
}

func (s *faultySampler) Sample() (slots.Usage, error) {
	s.n++
	if u, ok := s.faults[s.n]; ok {
		if u == nil {
			panic("the sampler's file vanished")
		}
		return *u, nil
	}
	return s.inner.Sample()
}

// TestResourceBasedSamplerPanicIsSkipped: a Sampler that panics, on the
// path of a blocking reservation, does not take the reserver down or
// leave the supplier stuck: the reading is skipped and counted, and later
// reservations are served.
func TestResourceBasedSamplerPanicIsSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &faultySampler{inner: &fixedReading{}, faults: map[int]*slots.Usage{1: nil}}
		s, err := slots.NewResourceBased(slots.ResourceOptions{TargetCPU: 0.5, TargetMemory: 0.5, MinSlots: 1, Sampler: r})
		require.NoError(t, err)

		var p slots.Permit
		require.NotPanics(t, func() { p, err = s.ReserveSlot(context.Background(), noRC) }, "a Sampler's panic reached the reserver")
		require.NoError(t, err)
		st := s.State()
		require.ErrorIs(t, st.Err, slots.ErrBadSample)
		require.ErrorContains(t, st.Err, "the sampler's file vanished")
		require.EqualValues(t, 1, st.Skipped)
		require.EqualValues(t, 1, st.Panics)
		require.Zero(t, st.Garbage)

		// The lock was released: the next reservation waits for a slot,
		// and is served when the first is released.
		ch := reserveAsync(context.Background(), s)
		requireBlocked(t, ch)
		s.ReleaseSlot(slots.ReleaseInfo{Permit: p})
		got := <-ch
		require.NoError(t, got.err)
		s.ReleaseSlot(slots.ReleaseInfo{Permit: got.p})

		time.Sleep(time.Second) // the next reading is a good one
		_, ok := s.TryReserveSlot(noRC)
		require.True(t, ok)
		st = s.State()
		require.NoError(t, st.Err)
		require.EqualValues(t, 1, st.Skipped, "a good reading counted as skipped")
	})
}

// TestResourceBasedGarbageReadingsAreSkipped: readings of NaN, ±Inf,
// negative or absurd figures, among good ones, are skipped and counted;
// the supplier keeps admitting on the good readings, and its estimate and
// decisions stay finite.
func TestResourceBasedGarbageReadingsAreSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval = 100 * time.Millisecond
		garbage := []slots.Usage{
			{CPU: math.NaN(), Memory: 0.2},
			{CPU: math.Inf(1), Memory: 0.2},
			{CPU: 0.3, Memory: math.Inf(-1)},
			{CPU: -0.5, Memory: 0.2},
			{CPU: 0.3, Memory: math.NaN()},
			{CPU: 1e300, Memory: 0.2},
		}
		w := &workload{perSlot: 0.02, base: 0.1, lag: 1, rng: rand.New(rand.NewPCG(1, 1))}
		faults := map[int]*slots.Usage{}
		for i := range garbage {
			faults[5+7*i] = &garbage[i] // among the probes and the growth
		}
		r := &faultySampler{inner: w, faults: faults}
		s, err := slots.NewResourceBased(slots.ResourceOptions{
			TargetCPU: 0.7, TargetMemory: 0.9, SampleInterval: interval, LoadDelay: interval, Sampler: r,
		})
		require.NoError(t, err)
		for range 100 {
			time.Sleep(interval)
			w.step(s)
			st := s.State()
			for _, v := range []float64{st.SlotLoad.CPU, st.SlotLoad.Memory, st.Usage.CPU, st.Usage.Memory} {
				require.False(t, math.IsNaN(v) || math.IsInf(v, 0), "tick %d: state %+v", w.tick, st)
			}
		}
		st := s.State()
		require.EqualValues(t, len(garbage), st.Garbage)
		require.EqualValues(t, len(garbage), st.Skipped)
		require.Zero(t, st.Panics)
		// Room for (0.7-0.1)/0.02 = 30 slots: the controller got there
		// on the good readings.
		require.Greater(t, st.Held, 20, "the supplier stopped admitting: %+v", st)
		require.InDelta(t, 0.02, st.SlotLoad.CPU, 0.01)
	})
}
