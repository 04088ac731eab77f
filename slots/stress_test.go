package slots_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/slots"
)

var errTaskFailed = errors.New("task failed")

// TestAuditStress runs many reservations at once through a Tracker over a
// Pauseable over a Fixed, with audits around both the Pauseable and the
// Fixed, while another goroutine pauses and resumes (sometimes cancelling
// outstanding reservations). Reservations are cancelled at random, some
// tasks fail, some reserved slots are dropped unused, and some permits are
// released a second time. The audits check that no more than max slots
// are ever out and that every permit is released exactly once; at the end
// nothing may be left reserved.
func TestAuditStress(t *testing.T) {
	const (
		maxSlots = 6
		workers  = 16
	)
	total := 10000
	if testing.Short() {
		total = 1000
	}
	fixed := slots.NewFixed(maxSlots)
	inner := newAudit(fixed, maxSlots)
	pause := slots.NewPauseable(inner)
	outer := newAudit(pause, maxSlots)
	tr := slots.NewTracker(outer)

	stop := make(chan struct{})
	var pauses atomic.Int64
	pauserDone := make(chan struct{})
	go func() {
		defer close(pauserDone)
		rng := rand.New(rand.NewPCG(99, 1))
		for {
			select {
			case <-stop:
				pause.Resume()
				return
			case <-time.After(time.Duration(rng.IntN(300)) * time.Microsecond):
			}
			pause.Pause(slots.PauseOptions{CancelOutstanding: rng.IntN(3) == 0})
			pauses.Add(1)
			time.Sleep(time.Duration(rng.IntN(100)) * time.Microsecond)
			pause.Resume()
		}
	}()

	var (
		next                                    atomic.Int64
		completed, failed, dropped, refused     atomic.Int64
		cancelled, pausedOut, doubles, reserved atomic.Int64
		wg                                      sync.WaitGroup
	)
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 2))
			for next.Add(1) <= int64(total) {
				p, err := reserveOne(rng, tr)
				switch {
				case errors.Is(err, errRefused):
					refused.Add(1)
					continue
				case errors.Is(err, slots.ErrPaused):
					pausedOut.Add(1)
					continue
				case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
					cancelled.Add(1)
					continue
				case err != nil:
					t.Errorf("Reserve: %v", err)
					return
				}
				reserved.Add(1)
				runTask(t, rng, tr, p, &completed, &failed, &dropped)
				if rng.IntN(20) == 0 {
					if err := tr.Release(p, slots.TaskComplete()); !errors.Is(err, slots.ErrReleasedTwice) {
						t.Errorf("second release: %v", err)
					}
					doubles.Add(1)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	<-pauserDone

	t.Logf("reserved %d (complete %d, failed %d, dropped %d), refused %d, cancelled %d, ErrPaused %d, double releases %d, pauses %d, handed back while paused %d",
		reserved.Load(), completed.Load(), failed.Load(), dropped.Load(), refused.Load(), cancelled.Load(),
		pausedOut.Load(), doubles.Load(), pauses.Load(), inner.count(slots.ReasonNeverUsed)-outer.count(slots.ReasonNeverUsed))
	outer.check(t, true)
	inner.check(t, true)
	require.Equal(t, int(reserved.Load()), outer.grants)
	require.Equal(t, outer.count(slots.ReasonComplete), int(completed.Load()))
	require.Equal(t, outer.count(slots.ReasonFailed), int(failed.Load()))
	require.Equal(t, outer.count(slots.ReasonNeverUsed), int(dropped.Load()))
	s := tr.Stats()
	require.Zero(t, s.InUse)
	require.Zero(t, s.Reserved)
	require.Equal(t, uint64(reserved.Load()), s.Issued)
	require.Equal(t, maxSlots, fixed.FreeSlots())
	require.Zero(t, fixed.Waiting())
}

var errRefused = errors.New("refused")

// reserveOne reserves as a mix of callers would: mostly blocking with a
// background context, some with short deadlines, some with a context
// cancelled from elsewhere, some already done, some not blocking.
func reserveOne(rng *rand.Rand, tr *slots.Tracker) (slots.Permit, error) {
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	switch rng.IntN(10) {
	case 0:
		p, ok := tr.TryReserve("try")
		if !ok {
			return p, errRefused
		}
		return p, nil
	case 1, 2:
		ctx, cancel = context.WithTimeout(ctx, time.Duration(rng.IntN(200))*time.Microsecond)
	case 3:
		ctx, cancel = context.WithCancel(ctx)
		d := time.Duration(rng.IntN(50)) * time.Microsecond
		go func() {
			time.Sleep(d)
			cancel()
		}()
	case 4:
		ctx, cancel = context.WithCancel(ctx)
		cancel()
	}
	defer cancel()
	return tr.Reserve(ctx, "task")
}

// runTask plays a task on p: dropped unused, or marked used, run, and
// released as complete or failed.
func runTask(t *testing.T, rng *rand.Rand, tr *slots.Tracker, p slots.Permit, completed, failed, dropped *atomic.Int64) {
	if rng.IntN(7) == 0 {
		require.NoError(t, tr.Release(p, slots.NeverUsed()))
		dropped.Add(1)
		return
	}
	require.NoError(t, tr.MarkUsed(p, slots.TaskInfo{Kind: "task"}))
	for range rng.IntN(4) {
		runtime.Gosched()
	}
	if rng.IntN(10) == 0 {
		require.NoError(t, tr.Release(p, slots.TaskFailed(errTaskFailed)))
		failed.Add(1)
		return
	}
	require.NoError(t, tr.Release(p, slots.TaskComplete()))
	completed.Add(1)
}
