package intake_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// Without heartbeats, a task that runs past its lease is delivered again
// (here to the same worker, in a free slot) while the first run goes on;
// the first run's ack then fails: at-least-once, not exactly-once.
func TestLeaseExpiryRedeliversRunningTask(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{Lease: 30 * time.Millisecond, PollWait: 5 * time.Millisecond})
	q.Put([]byte("slow"))
	var runs atomic.Int64
	second := make(chan struct{})
	w := newWorker(t, intake.Config{
		Source:    q,
		Supplier:  slots.NewFixed(2),
		Pool:      newPool(t, 2),
		Heartbeat: -1,
		OnError:   func(error) {},
		Handler: func(_ context.Context, _ *scheduler.Worker, task intake.Task) error {
			if runs.Add(1) == 1 {
				<-second // hold the first run until the redelivery has run
				return nil
			}
			require.Equal(t, 2, task.Deliveries())
			close(second)
			return nil
		},
	})
	eventually(t, 5*time.Second, func() bool { return q.Len() == 0 && w.Stats().Slots.InUse == 0 }, "settled")
	s := w.Stats()
	require.EqualValues(t, 2, runs.Load())
	require.EqualValues(t, 1, s.Redelivered)
	require.EqualValues(t, 1, s.Acked)
	require.EqualValues(t, 1, s.SettleErrors, "the first run's ack came too late")
}

// With heartbeats (by default a third of the source's lease), a task that
// runs for many leases is not delivered again.
func TestHeartbeatsKeepLongTaskLeased(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{Lease: 30 * time.Millisecond, PollWait: 5 * time.Millisecond})
	q.Put([]byte("slow"))
	var runs atomic.Int64
	w := newWorker(t, intake.Config{
		Source:   q,
		Supplier: slots.NewFixed(2),
		Pool:     newPool(t, 2),
		Handler: func(context.Context, *scheduler.Worker, intake.Task) error {
			runs.Add(1)
			time.Sleep(200 * time.Millisecond)
			return nil
		},
	})
	eventually(t, 5*time.Second, func() bool { return w.Stats().Acked == 1 }, "acked")
	s := w.Stats()
	require.EqualValues(t, 1, runs.Load())
	require.Zero(t, s.Redelivered)
	require.Zero(t, s.SettleErrors)
	require.GreaterOrEqual(t, s.Heartbeats, uint64(4))
}
