package slots_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/slots"
)

// fixedReading is a Sampler that returns whatever it is set to.
type fixedReading struct {
	u   slots.Usage
	err error
}

func (r *fixedReading) Sample() (slots.Usage, error) { return r.u, r.err }

func TestResourceOptionsAreChecked(t *testing.T) {
	ok := slots.ResourceOptions{TargetCPU: 0.8, TargetMemory: 1, Sampler: &fixedReading{}}
	_, err := slots.NewResourceBased(ok)
	require.NoError(t, err)

	bad := map[string]func(o *slots.ResourceOptions){
		"zero cpu":      func(o *slots.ResourceOptions) { o.TargetCPU = 0 },
		"negative cpu":  func(o *slots.ResourceOptions) { o.TargetCPU = -0.5 },
		"cpu over 1":    func(o *slots.ResourceOptions) { o.TargetCPU = 1.01 },
		"NaN memory":    func(o *slots.ResourceOptions) { o.TargetMemory = math.NaN() },
		"zero memory":   func(o *slots.ResourceOptions) { o.TargetMemory = 0 },
		"min over max":  func(o *slots.ResourceOptions) { o.MinSlots, o.MaxSlots = 3, 2 },
		"negative min":  func(o *slots.ResourceOptions) { o.MinSlots = -1 },
		"negative ramp": func(o *slots.ResourceOptions) { o.RampThrottle = -time.Second },
	}
	for name, mutate := range bad {
		o := ok
		mutate(&o)
		_, err := slots.NewResourceBased(o)
		require.Error(t, err, name)
	}
}

// TestResourceOptionsErrorsNameTheValue: every refusal names the field,
// the value given and what is allowed.
func TestResourceOptionsErrorsNameTheValue(t *testing.T) {
	ok := slots.ResourceOptions{TargetCPU: 0.8, TargetMemory: 1, Sampler: &fixedReading{}}
	for _, tc := range []struct {
		mutate func(o *slots.ResourceOptions)
		want   []string
	}{
		{func(o *slots.ResourceOptions) { o.TargetCPU = 0 }, []string{"ResourceOptions.TargetCPU = 0:", "want a fraction in (0, 1]"}},
		{func(o *slots.ResourceOptions) { o.TargetCPU = 1.5 }, []string{"ResourceOptions.TargetCPU = 1.5:", "(0, 1]"}},
		{func(o *slots.ResourceOptions) { o.TargetMemory = -0.25 }, []string{"ResourceOptions.TargetMemory = -0.25:", "(0, 1]"}},
		{func(o *slots.ResourceOptions) { o.TargetMemory = math.NaN() }, []string{"ResourceOptions.TargetMemory = NaN:", "(0, 1]"}},
		{func(o *slots.ResourceOptions) { o.MinSlots = -1 }, []string{"ResourceOptions.MinSlots = -1:", "want >= 0"}},
		{func(o *slots.ResourceOptions) { o.MaxSlots = -7 }, []string{"ResourceOptions.MaxSlots = -7:", "want >= 0 (0: no bound)"}},
		{func(o *slots.ResourceOptions) { o.MinSlots, o.MaxSlots = 3, 2 }, []string{"MinSlots = 3 above MaxSlots = 2", "want MinSlots <= MaxSlots"}},
		{func(o *slots.ResourceOptions) { o.RampThrottle = -time.Second }, []string{"ResourceOptions.RampThrottle = -1s:", "want >= 0"}},
		{func(o *slots.ResourceOptions) { o.SampleInterval = -time.Millisecond }, []string{"ResourceOptions.SampleInterval = -1ms:", "want >= 0 (0: the default, 100ms)"}},
		{func(o *slots.ResourceOptions) { o.LoadDelay = -2 * time.Second }, []string{"ResourceOptions.LoadDelay = -2s:", "want >= 0"}},
	} {
		o := ok
		tc.mutate(&o)
		_, err := slots.NewResourceBased(o)
		require.Error(t, err, tc.want[0])
		assert.True(t, strings.HasPrefix(err.Error(), "weft/slots: "), err.Error())
		for _, w := range tc.want {
			assert.Contains(t, err.Error(), w)
		}
	}
}

// TestResourceBasedMinAndMax: MinSlots are granted even over the targets,
// and MaxSlots is never exceeded even far under them.
func TestResourceBasedMinAndMax(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		over := &fixedReading{u: slots.Usage{CPU: 0.99, Memory: 0.99}}
		s, err := slots.NewResourceBased(slots.ResourceOptions{TargetCPU: 0.5, TargetMemory: 0.5, MinSlots: 2, MaxSlots: 3, Sampler: over})
		require.NoError(t, err)
		require.Equal(t, 3, s.MaxSlots())
		for range 2 {
			_, ok := s.TryReserveSlot(noRC)
			require.True(t, ok)
		}
		_, ok := s.TryReserveSlot(noRC)
		require.False(t, ok, "granted above MinSlots while over target")

		over.u = slots.Usage{}
		var got int
		for range 100 {
			time.Sleep(time.Second)
			if _, ok := s.TryReserveSlot(noRC); ok {
				got++
			}
		}
		require.Equal(t, 1, got, "MaxSlots exceeded")
		require.Equal(t, 3, s.State().Held)
	})
}

// TestResourceBasedReserveWaits: a blocking reservation waits while the
// budget is full and is granted when a slot is released, or ends with its
// context.
func TestResourceBasedReserveWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &fixedReading{u: slots.Usage{CPU: 0.9}}
		s, err := slots.NewResourceBased(slots.ResourceOptions{TargetCPU: 0.5, TargetMemory: 0.5, MinSlots: 1, Sampler: r})
		require.NoError(t, err)
		p, err := s.ReserveSlot(context.Background(), noRC)
		require.NoError(t, err)

		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err = s.ReserveSlot(ctx, noRC)
		require.ErrorIs(t, err, context.DeadlineExceeded)

		ch := reserveAsync(context.Background(), s)
		requireBlocked(t, ch)
		s.ReleaseSlot(slots.ReleaseInfo{Permit: p})
		got := <-ch
		require.NoError(t, got.err)
		s.ReleaseSlot(slots.ReleaseInfo{Permit: got.p})
		require.Zero(t, s.State().Held)
		require.Panics(t, func() { s.ReleaseSlot(slots.ReleaseInfo{Permit: got.p}) })
	})
}

// TestResourceBasedRampThrottle: the budget grows by at most one slot per
// RampThrottle above MinSlots.
func TestResourceBasedRampThrottle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &workload{perSlot: 0.01, base: 0.1, lag: 1, rng: rand.New(rand.NewPCG(1, 1))}
		s, err := slots.NewResourceBased(slots.ResourceOptions{
			TargetCPU: 0.9, TargetMemory: 0.9, SampleInterval: 100 * time.Millisecond,
			LoadDelay: 100 * time.Millisecond, RampThrottle: time.Second, Sampler: w,
		})
		require.NoError(t, err)
		var budgets []int
		for range 40 {
			time.Sleep(100 * time.Millisecond)
			w.step(s)
			budgets = append(budgets, s.State().Budget)
		}
		for i := 10; i < len(budgets); i++ {
			require.LessOrEqual(t, budgets[i]-budgets[i-10], 1, "budget grew faster than one slot a second: %v", budgets)
		}
		require.Greater(t, budgets[len(budgets)-1], 2)
	})
}

// TestResourceBasedSamplerErrorHoldsBudget: a failed reading changes
// nothing and is reported by State.
func TestResourceBasedSamplerErrorHoldsBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errRead := errors.New("no figures")
		r := &fixedReading{err: errRead}
		s, err := slots.NewResourceBased(slots.ResourceOptions{TargetCPU: 0.5, TargetMemory: 0.5, Sampler: r})
		require.NoError(t, err)
		_, ok := s.TryReserveSlot(noRC)
		require.False(t, ok)
		require.ErrorIs(t, s.State().Err, errRead)
		r.err = nil
		time.Sleep(time.Second)
		_, ok = s.TryReserveSlot(noRC)
		require.True(t, ok, "the first good reading should allow a probe slot")
		st := s.State()
		require.NoError(t, st.Err)
		require.Equal(t, 1, st.Budget)
	})
}

func TestResourceBasedThroughTracker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := slots.NewResourceBased(slots.ResourceOptions{TargetCPU: 0.5, TargetMemory: 0.5, MinSlots: 1, MaxSlots: 4, Sampler: &fixedReading{}})
		require.NoError(t, err)
		a := newAudit(s, 4)
		tr := slots.NewTracker(a)
		p, err := tr.Reserve(context.Background(), "")
		require.NoError(t, err)
		require.NoError(t, tr.MarkUsed(p, slots.TaskInfo{}))
		require.NoError(t, tr.Release(p, slots.TaskComplete()))
		a.check(t, true)
		require.Equal(t, 4, tr.Stats().Available)
	})
}
