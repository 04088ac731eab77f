package intake_test

import (
	"context"
	"errors"
	"hash/fnv"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/intake/intaketest"
	"github.com/weftrt/weft/slots"
)

// The slot invariant under stress, audited from the supplier's and the
// source's side at once (see ledger): producers keep adding tasks, a
// third of first deliveries fail (errors and panics), pauses and resumes
// come at random, several pollers run, and every task still ends acked
// exactly once while slots out never exceed the maximum and polls never
// ask for more tasks than there are free slots.
func TestSlotInvariantUnderStress(t *testing.T) {
	const maxSlots = 8
	n := 4000
	if testing.Short() {
		n = 800
	}
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: time.Millisecond})
	l := intaketest.NewLedger(maxSlots)
	var running, peakRunning atomic.Int64
	var mu sync.Mutex
	acked := make(map[string]int)
	w := newWorker(t, intake.Config{
		Source:   l.Source(q),
		Supplier: l.Supplier(slots.NewFixed(maxSlots)),
		// slots, not pool workers, bound what runs
		MinPollers: 1,
		MaxPollers: 4,
		MaxBatch:   3,
		Backoff:    intake.Exponential(100*time.Microsecond, time.Millisecond),
		OnError:    func(error) {},
		Handler: func(_ context.Context, task intake.Task) error {
			r := running.Add(1)
			defer running.Add(-1)
			for p := peakRunning.Load(); r > p && !peakRunning.CompareAndSwap(p, r); p = peakRunning.Load() {
			}
			h := fnv.New32a()
			h.Write(task.Payload())
			roll := h.Sum32() % 100
			if roll < 30 { // some tasks take a while, so that tasks overlap
				time.Sleep(time.Duration(roll) * 10 * time.Microsecond)
			}
			if task.Deliveries() == 1 {
				switch {
				case roll%3 == 1:
					return errors.New("transient")
				case roll%10 == 2:
					panic("transient panic")
				}
			}
			mu.Lock()
			acked[string(task.Payload())]++
			mu.Unlock()
			return nil
		},
	})

	stop := make(chan struct{})
	waitChaos := pauseAtRandom(w, 1, 3*time.Millisecond, stop)
	var producers sync.WaitGroup
	for p := range 2 { // producers
		producers.Go(func() {
			for i := p; i < n; i += 2 {
				q.Put([]byte(strconv.Itoa(i)))
				if i%50 == 0 {
					time.Sleep(100 * time.Microsecond)
				}
			}
		})
	}

	producers.Wait()
	// The chaos goes on until the queue drains: it resumes often enough.
	eventually(t, 60*time.Second, func() bool { return q.Len() == 0 }, "all tasks settled, %d left", q.Len())
	close(stop)
	waitChaos()
	require.NoError(t, w.Shutdown(context.Background()))

	require.Empty(t, l.Problems())
	mu.Lock()
	require.Len(t, acked, n)
	for p, k := range acked {
		require.Equal(t, 1, k, "task %s succeeded %d times", p, k)
	}
	mu.Unlock()
	s := w.Stats()
	require.EqualValues(t, n, s.Acked)
	require.Equal(t, s.Started, s.Acked+s.Failed)
	require.Equal(t, s.Received, s.Started+s.HandedBack)
	require.LessOrEqual(t, peakRunning.Load(), int64(maxSlots))
	ls := l.Stats()
	require.Zero(t, ls.Out, "every permit released")
	require.LessOrEqual(t, ls.PeakOut, maxSlots)
	t.Logf("tasks %d: started %d, failed %d (panics %d), handed back %d; polls %d (%d empty); peak slots out %d, peak asked %d, peak running %d; grants %d",
		n, s.Started, s.Failed, s.Panics, s.HandedBack, s.Polls, s.EmptyPolls, ls.PeakOut, ls.PeakAsked, peakRunning.Load(), ls.Grants)
}
