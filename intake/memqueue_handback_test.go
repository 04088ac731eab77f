package intake_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// With MaxDeliveries 1 (no retries), a MemQueue task that a pause
// returned unrun (its poll was answered as the worker paused) is run
// after Resume, not terminated as "delivered more often than it may
// fail": it never ran, and a hand-back is not a delivery that failed.
func TestMemQueuePauseHandBackDoesNotCountADelivery(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 20 * time.Millisecond})
	sup := slots.NewPauseable(slots.NewFixed(2))
	var ranY atomic.Int32
	w := newWorker(t, intake.Config{
		Source:        &pauseOnPayload{MemQueue: q, sup: sup, payload: "Y"},
		Supplier:      sup,
		MaxDeliveries: 1,
		Handler: func(_ context.Context, task intake.Task) error {
			if string(task.Payload()) == "Y" {
				ranY.Add(1)
			}
			return nil
		},
	})
	q.Put([]byte("Y"))
	eventually(t, 10*time.Second, func() bool { return w.Stats().HandedBack == 1 }, "Y handed back")
	require.Zero(t, ranY.Load(), "Y ran in a paused worker")
	w.Resume()
	eventually(t, 10*time.Second, func() bool { return q.Len() == 0 }, "Y settled")
	require.NoError(t, w.Shutdown(context.Background()))
	require.Empty(t, q.Terminated(), "a task that never ran was terminated")
	require.EqualValues(t, 1, ranY.Load())
	require.EqualValues(t, 1, w.Stats().Acked)
}

// pauseOnPayload pauses sup directly (not through the worker, so the
// poll goes on) the first time a poll brings a task with payload.
type pauseOnPayload struct {
	*intake.MemQueue
	sup     *slots.Pauseable
	payload string
	done    atomic.Bool
}

func (p *pauseOnPayload) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	tasks, err := p.MemQueue.Poll(ctx, n)
	for _, t := range tasks {
		if string(t.Payload()) == p.payload && p.done.CompareAndSwap(false, true) {
			p.sup.Pause(slots.PauseOptions{})
		}
	}
	return tasks, err
}
