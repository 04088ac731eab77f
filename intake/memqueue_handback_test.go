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

// With MaxDeliveries 1 (no retries), a MemQueue task that a Pause
// returned unrun (it waited in the pool behind a running task) is run
// after Resume, not terminated as "delivered more often than it may
// fail": it never ran, and a hand-back is not a delivery that failed.
func TestMemQueuePauseHandBackDoesNotCountADelivery(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 20 * time.Millisecond})
	started, release := make(chan struct{}), make(chan struct{})
	var ranY atomic.Int32
	w := newWorker(t, intake.Config{
		Source:        q,
		Supplier:      slots.NewFixed(2),
		Pool:          newPool(t, 1), // Y waits in the pool behind X
		MaxBatch:      2,
		MaxPollers:    1,
		MaxDeliveries: 1,
		Handler: func(_ context.Context, _ *scheduler.Worker, task intake.Task) error {
			if string(task.Payload()) == "X" {
				close(started)
				<-release
				return nil
			}
			ranY.Add(1)
			return nil
		},
	})
	q.Put([]byte("X"))
	<-started
	q.Put([]byte("Y"))
	eventually(t, 10*time.Second, func() bool { return w.Stats().Received == 2 }, "Y polled, queued behind X")
	w.Pause()
	close(release)
	eventually(t, 10*time.Second, func() bool { return w.Stats().HandedBack == 1 }, "Y handed back")
	w.Resume()
	eventually(t, 10*time.Second, func() bool { return q.Len() == 0 }, "both settled")
	require.NoError(t, w.Shutdown(context.Background()))
	require.Empty(t, q.Terminated(), "a task that never ran was terminated")
	require.EqualValues(t, 1, ranY.Load())
	require.EqualValues(t, 2, w.Stats().Acked)
}
