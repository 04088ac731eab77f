package intake_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// A Shutdown whose deadline passes cancels the handlers' context; a
// handler that returns for it did not fail on its own. With MaxDeliveries
// 1 its task must be returned for another delivery, not terminated as
// poison: the worker cut it short, the task did nothing wrong.
func TestShutdownDeadlineDoesNotTerminateCutShortTasks(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 5 * time.Millisecond})
	putN(q, 2)
	w, err := intake.New(intake.Config{
		Source:        q,
		Supplier:      slots.NewFixed(2),
		MaxDeliveries: 1,
		Handler: func(ctx context.Context, _ intake.Task) error {
			<-ctx.Done()
			return ctx.Err()
		},
	})
	require.NoError(t, err)
	eventually(t, 5*time.Second, func() bool { return w.Stats().Started == 2 }, "2 started")
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0)) // already past
	defer cancel()
	require.ErrorIs(t, w.Shutdown(ctx), context.DeadlineExceeded)
	require.NoError(t, w.Shutdown(context.Background()))
	require.Empty(t, q.Terminated(), "tasks cut short by Shutdown were terminated as poison")
	require.EqualValues(t, 2, q.Len(), "both tasks still queued")
}
