package intake_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// A pool whose door is bounded (nested admission, which the package doc
// says still works) has the poller wait at the door before it hands the
// pool each task of its poll. The poll's tasks it has not handed on yet
// still hold their deliveries, so their leases must be kept by heartbeats
// like those of queued and running tasks. Here one poll brings three
// tasks to a door of one: the first runs for three leases, the second
// waits at the door, and the third waits behind it, in the poller's hands.
// Before, the third was taken onto the worker's books only once the
// second got through the door: unbeaten, its lease ran out, the queue
// delivered it again, it ran twice, and its first Ack failed.
func TestDoorWaitKeepsLease(t *testing.T) {
	// Inside synctest the clock is the bubble's: every time.Sleep here
	// moves it at once, and nothing depends on the machine's speed.
	synctest.Test(t, func(t *testing.T) {
		const n = 3
		const lease = 300 * time.Millisecond
		q := intake.NewMemQueue(intake.MemQueueConfig{Lease: lease, PollWait: 50 * time.Millisecond})
		for i := range n {
			q.Put([]byte(strconv.Itoa(i)))
		}
		pool, err := scheduler.New(scheduler.WithWorkers(2), scheduler.WithName(t.Name()),
			scheduler.WithSupplier(slots.NewFixed(1)))
		require.NoError(t, err)
		t.Cleanup(pool.Close)
		var mu sync.Mutex
		runs := map[string]int{}
		first, release := make(chan struct{}), make(chan struct{})
		w := newWorker(t, intake.Config{
			Source:     q,
			Supplier:   slots.NewFixed(n),
			Pool:       pool,
			MaxBatch:   n,
			MaxPollers: 1,
			OnError:    func(error) {},
			Handler: func(_ context.Context, _ *scheduler.Worker, task intake.Task) error {
				mu.Lock()
				runs[task.ID()]++
				c := len(runs)
				mu.Unlock()
				if c == 1 && task.ID() == "1" {
					close(first)
					<-release
				}
				return nil
			},
		})
		<-first
		synctest.Wait() // the poller waits at the door with the second task
		sl := w.Stats().Slots
		require.Equal(t, n, sl.InUse+sl.Reserved, "one poll holds every task: %+v", sl)
		time.Sleep(3 * lease)
		close(release)
		for i := 0; q.Len() > 0 || w.Stats().Settling > 0; i++ {
			if i == 1000 {
				t.Fatalf("not settled: %+v", w.Stats())
			}
			time.Sleep(10 * time.Millisecond)
		}
		synctest.Wait()
		s := w.Stats()
		mu.Lock()
		defer mu.Unlock()
		for id, r := range runs {
			require.Equal(t, 1, r, "task %s ran %d times: its lease ran out while its poller waited at the door", id, r)
		}
		require.Len(t, runs, n)
		require.EqualValues(t, n, s.Acked)
		require.Zero(t, s.SettleErrors)
		require.Zero(t, s.Redelivered)
	})
}
