package intake_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// Both tests run in a synctest bubble: the 30ms lease and the heartbeats
// are on the bubble's clock, which moves only once every goroutine in it
// waits, so a busy machine cannot stall a heartbeat or an ack past a
// lease (on the real clock 20ms of slack were routinely lost).

// Without heartbeats, a task that runs past its lease is delivered again
// (here to the same worker, in a free slot) while the first run goes on;
// the first run's ack then fails: at-least-once, not exactly-once.
func TestLeaseExpiryRedeliversRunningTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := intake.NewMemQueue(intake.MemQueueConfig{Lease: 30 * time.Millisecond, PollWait: 5 * time.Millisecond})
		q.Put([]byte("slow"))
		var runs, secondDeliveries atomic.Int64
		second := make(chan struct{})
		w := newWorker(t, intake.Config{
			Source:    q,
			Supplier:  slots.NewFixed(2),
			Heartbeat: -1,
			OnError:   func(error) {},
			Handler: func(_ context.Context, task intake.Task) error {
				if runs.Add(1) == 1 {
					<-second // hold the first run until the redelivery has run
					return nil
				}
				secondDeliveries.Store(int64(task.Deliveries()))
				close(second)
				return nil
			},
		})
		settled(t, q, w)
		s := w.Stats()
		require.EqualValues(t, 2, runs.Load())
		require.EqualValues(t, 2, secondDeliveries.Load(), "the second run is the task's second delivery")
		require.EqualValues(t, 1, s.Redelivered)
		require.EqualValues(t, 1, s.Acked)
		require.EqualValues(t, 1, s.SettleErrors, "the first run's ack came too late")
	})
}

// With heartbeats (by default a third of the source's lease), a task that
// runs for many leases is not delivered again.
func TestHeartbeatsKeepLongTaskLeased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := intake.NewMemQueue(intake.MemQueueConfig{Lease: 30 * time.Millisecond, PollWait: 5 * time.Millisecond})
		q.Put([]byte("slow"))
		var runs atomic.Int64
		w := newWorker(t, intake.Config{
			Source:   q,
			Supplier: slots.NewFixed(2),
			Handler: func(context.Context, intake.Task) error {
				runs.Add(1)
				time.Sleep(200 * time.Millisecond)
				return nil
			},
		})
		settled(t, q, w)
		s := w.Stats()
		require.EqualValues(t, 1, runs.Load())
		require.EqualValues(t, 1, s.Acked)
		require.Zero(t, s.Redelivered)
		require.Zero(t, s.SettleErrors)
		require.GreaterOrEqual(t, s.Heartbeats, uint64(4))
	})
}

// settled waits, on the bubble's clock, until q holds no task and w has
// none in a slot or settling.
func settled(t *testing.T, q *intake.MemQueue, w *intake.Worker) {
	t.Helper()
	for i := 0; q.Len() > 0 || w.Stats().Slots.InUse > 0 || w.Stats().Settling > 0; i++ {
		if i == 1000 {
			t.Fatalf("not settled after 10s of the bubble's clock: %+v", w.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	synctest.Wait()
}
