package slots_test

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/slots"
)

// switchSampler reads through read, which the test may swap between
// readings; reads counts the readings taken.
type switchSampler struct {
	mu    sync.Mutex
	read  func(n int) (slots.Usage, error)
	reads int
}

func (s *switchSampler) Sample() (slots.Usage, error) {
	s.mu.Lock()
	s.reads++
	n, read := s.reads, s.read
	s.mu.Unlock()
	return read(n)
}

func (s *switchSampler) set(read func(n int) (slots.Usage, error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.read = read
}

func (s *switchSampler) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

// TestResourceBasedFailingSamplerFailsReservations: with MinSlots 0 the
// budget starts at 0 and only a good reading can raise it. A Sampler that
// never reads well (returns errors, panics, returns garbage) made every
// reservation wait until its context ended, the cause visible only in
// State().Err. After three failed readings in a row such a reservation,
// and every one waiting with it, now fails with ErrBadSample, naming the
// Sampler's fault; later ones fail at once; once the Sampler reads well
// again, reservations are served.
func TestResourceBasedFailingSamplerFailsReservations(t *testing.T) {
	const interval = 100 * time.Millisecond
	errRead := errors.New("cgroup file vanished")
	for _, tc := range []struct {
		name string
		read func(int) (slots.Usage, error)
		want string
	}{
		{"error", func(int) (slots.Usage, error) { return slots.Usage{}, errRead }, "cgroup file vanished"},
		{"panic", func(int) (slots.Usage, error) { panic("no figures") }, "Sampler panicked: no figures"},
		{"garbage", func(int) (slots.Usage, error) { return slots.Usage{CPU: math.NaN()}, nil }, "CPU reading NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The sleeps and timeouts here run on the bubble's clock.
			synctest.Test(t, func(t *testing.T) {
				smp := &switchSampler{read: tc.read}
				s, err := slots.NewResourceBased(slots.ResourceOptions{
					TargetCPU: 0.5, TargetMemory: 0.5, SampleInterval: interval, Sampler: smp,
				})
				require.NoError(t, err)
				// Before, the hour passed and the reservations ended with
				// DeadlineExceeded.
				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				start := time.Now()
				waiting := make([]<-chan reserveResult, 4)
				for i := range waiting {
					waiting[i] = reserveAsync(ctx, s)
				}
				for _, ch := range waiting {
					r := <-ch
					require.ErrorIs(t, r.err, slots.ErrBadSample)
					require.ErrorContains(t, r.err, tc.want)
					require.ErrorContains(t, r.err, "budget is 0 (MinSlots 0)")
					if tc.name == "error" {
						require.ErrorIs(t, r.err, errRead, "the Sampler's own error is wrapped too")
					}
					require.True(t, r.p.IsZero())
				}
				require.Equal(t, 2*interval, time.Since(start), "not after the third failed reading")
				require.Equal(t, 3, smp.count())

				// Still failing: the next reservation fails without waiting.
				start = time.Now()
				_, err = s.ReserveSlot(ctx, noRC)
				require.ErrorIs(t, err, slots.ErrBadSample)
				require.Zero(t, time.Since(start))
				_, ok := s.TryReserveSlot(noRC)
				require.False(t, ok)
				require.ErrorContains(t, s.State().Err, tc.want)
				require.Zero(t, s.State().Held)

				smp.set(func(int) (slots.Usage, error) { return slots.Usage{}, nil })
				time.Sleep(interval) // on the bubble's clock: the next reading is due
				p, err := s.ReserveSlot(ctx, noRC)
				require.NoError(t, err, "a good reading ends the failure")
				s.ReleaseSlot(slots.ReleaseInfo{Permit: p})
			})
		})
	}
}

// TestResourceBasedFailingSamplerThroughTracker: a Tracker passes the
// error on and counts the failure; nothing stays reserved.
func TestResourceBasedFailingSamplerThroughTracker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		smp := &switchSampler{read: func(int) (slots.Usage, error) { panic("no figures") }}
		s, err := slots.NewResourceBased(slots.ResourceOptions{TargetCPU: 0.5, TargetMemory: 0.5, Sampler: smp})
		require.NoError(t, err)
		tr := slots.NewTracker(s)
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		_, err = tr.Reserve(ctx, "")
		require.ErrorIs(t, err, slots.ErrBadSample)
		st := tr.Stats()
		require.EqualValues(t, 1, st.Failures)
		require.Zero(t, st.Reserved)
	})
}

// TestResourceBasedSamplerFailingNowAndThenFailsNoReservation: readings
// that fail two in every three, or keep failing once the budget is above
// 0, fail no reservation: the supplier decides on the good ones, and a
// reservation over a budget of 1 or more waits for a release, as before.
func TestResourceBasedSamplerFailingNowAndThenFailsNoReservation(t *testing.T) {
	const interval = 100 * time.Millisecond
	errRead := errors.New("busy")

	t.Run("two in three", func(t *testing.T) {
		// The sleeps and timeouts here run on the bubble's clock.
		synctest.Test(t, func(t *testing.T) {
			var held atomic.Int64
			smp := &switchSampler{read: func(n int) (slots.Usage, error) {
				if n%3 != 0 {
					return slots.Usage{}, errRead
				}
				return slots.Usage{CPU: 0.05 * float64(held.Load())}, nil
			}}
			s, err := slots.NewResourceBased(slots.ResourceOptions{
				TargetCPU: 0.8, TargetMemory: 1, MaxSlots: 5, SampleInterval: interval, LoadDelay: interval, Sampler: smp,
			})
			require.NoError(t, err)
			for i := range 5 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				_, err := s.ReserveSlot(ctx, noRC)
				cancel()
				require.NoError(t, err, "slot %d; state %+v", i, s.State())
				held.Add(1)
			}
			require.Positive(t, s.State().Skipped)
		})
	})

	t.Run("with a budget", func(t *testing.T) {
		// The sleep here runs on the bubble's clock.
		synctest.Test(t, func(t *testing.T) {
			smp := &switchSampler{read: func(int) (slots.Usage, error) { return slots.Usage{}, nil }}
			s, err := slots.NewResourceBased(slots.ResourceOptions{
				TargetCPU: 0.5, TargetMemory: 0.5, MaxSlots: 1, SampleInterval: interval, Sampler: smp,
			})
			require.NoError(t, err)
			p, err := s.ReserveSlot(context.Background(), noRC)
			require.NoError(t, err)
			require.Equal(t, 1, s.State().Budget)

			smp.set(func(int) (slots.Usage, error) { return slots.Usage{}, errRead })
			ch := reserveAsync(context.Background(), s)
			time.Sleep(10 * interval) // ten failed readings, on the bubble's clock
			requireBlocked(t, ch)
			require.GreaterOrEqual(t, s.State().Skipped, uint64(3))
			s.ReleaseSlot(slots.ReleaseInfo{Permit: p})
			r := <-ch
			require.NoError(t, r.err, "a release serves a reservation under a budget of 1")
			s.ReleaseSlot(slots.ReleaseInfo{Permit: r.p})
		})
	})
}

// TestResourceBasedGoexitSamplerFailsReservations: a Sampler that calls
// runtime.Goexit at every reading ends each reservation that takes one;
// those readings count as failed, so the reservations left fail with
// ErrBadSample instead of waiting for a reading that never comes.
func TestResourceBasedGoexitSamplerFailsReservations(t *testing.T) {
	// The timeouts here run on the bubble's clock.
	synctest.Test(t, func(t *testing.T) {
		smp := &switchSampler{read: func(int) (slots.Usage, error) { runtime.Goexit(); return slots.Usage{}, nil }}
		s, err := slots.NewResourceBased(slots.ResourceOptions{TargetCPU: 0.5, TargetMemory: 0.5, Sampler: smp})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		var wg sync.WaitGroup
		var returned []error
		var mu sync.Mutex
		for range 4 {
			wg.Go(func() {
				_, err := s.ReserveSlot(ctx, noRC)
				mu.Lock()
				returned = append(returned, err)
				mu.Unlock()
			})
		}
		wg.Wait()
		require.Equal(t, 3, smp.count())
		require.Len(t, returned, 1, "three reservations read and were ended; the fourth returns")
		require.ErrorIs(t, returned[0], slots.ErrBadSample)
		require.ErrorContains(t, returned[0], "Sampler called runtime.Goexit")
	})
}
