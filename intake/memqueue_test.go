package intake_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
)

func poll1(t *testing.T, q *intake.MemQueue) intake.Task {
	t.Helper()
	tasks, err := q.Poll(context.Background(), 1)
	require.NoError(t, err)
	require.Len(t, tasks, 1)
	return tasks[0]
}

// A delivery not settled within the lease is delivered again, with its
// count raised; the old delivery can no longer settle it.
func TestMemQueueLeaseExpiryRedelivers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := intake.NewMemQueue(intake.MemQueueConfig{Lease: time.Minute, PollWait: time.Hour})
		id := q.Put([]byte("p"))
		first := poll1(t, q)
		require.Equal(t, id, first.ID())
		require.Equal(t, 1, first.Deliveries())

		start := time.Now()
		second := poll1(t, q) // waits for the lease to end
		require.Equal(t, time.Minute, time.Since(start))
		require.Equal(t, id, second.ID())
		require.Equal(t, 2, second.Deliveries())

		ctx := context.Background()
		require.ErrorIs(t, first.Ack(ctx), intake.ErrLeaseLost)
		require.ErrorIs(t, first.InProgress(ctx), intake.ErrLeaseLost)
		require.NoError(t, second.Ack(ctx))
		require.ErrorIs(t, second.Ack(ctx), intake.ErrLeaseLost, "settled once")
		require.Equal(t, 0, q.Len())
	})
}

// InProgress moves the end of the lease to a full Lease from now.
func TestMemQueueInProgressExtendsLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := intake.NewMemQueue(intake.MemQueueConfig{Lease: time.Minute, PollWait: time.Hour})
		q.Put([]byte("p"))
		d := poll1(t, q)
		ctx := context.Background()
		for range 5 {
			time.Sleep(50 * time.Second)
			require.NoError(t, d.InProgress(ctx))
		}
		require.Equal(t, 0, len(mustPoll(t, q, 30*time.Second)), "still leased")
		require.NoError(t, d.Ack(ctx))
	})
}

// Nack returns the task after its delay; a settlement after Nack fails.
func TestMemQueueNackDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := intake.NewMemQueue(intake.MemQueueConfig{Lease: time.Hour, PollWait: time.Hour})
		q.Put([]byte("p"))
		d := poll1(t, q)
		ctx := context.Background()
		require.NoError(t, d.Nack(ctx, 10*time.Second))
		require.ErrorIs(t, d.Ack(ctx), intake.ErrLeaseLost)
		require.EqualValues(t, 1, q.Backlog())
		require.Empty(t, mustPoll(t, q, 9*time.Second))
		start := time.Now()
		again := poll1(t, q)
		require.Equal(t, time.Second, time.Since(start))
		require.Equal(t, 2, again.Deliveries())
		require.NoError(t, again.Nack(ctx, 0))
		require.Equal(t, 3, poll1(t, q).Deliveries(), "no delay: at once")
	})
}

func TestMemQueueTerminateRecords(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{})
	q.Put([]byte("bad"))
	d := poll1(t, q)
	require.NoError(t, d.Terminate(context.Background(), "cannot parse"))
	require.Equal(t, 0, q.Len())
	require.Equal(t, []intake.Terminated{{ID: d.ID(), Payload: []byte("bad"), Deliveries: 1, Reason: "cannot parse"}}, q.Terminated())
}

// Poll returns up to n tasks, oldest first; with none it waits PollWait
// and returns empty; a cancelled context ends it with the context's error.
func TestMemQueuePoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: time.Second})
		for _, p := range []string{"a", "b", "c"} {
			q.Put([]byte(p))
		}
		tasks, err := q.Poll(context.Background(), 2)
		require.NoError(t, err)
		require.Len(t, tasks, 2)
		require.Equal(t, "a", string(tasks[0].Payload()))
		require.Equal(t, "b", string(tasks[1].Payload()))
		require.Len(t, mustPoll(t, q, time.Second), 1)

		start := time.Now()
		require.Empty(t, mustPoll(t, q, time.Hour))
		require.Equal(t, time.Second, time.Since(start))

		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			time.Sleep(100 * time.Millisecond)
			cancel()
		}()
		_, err = q.Poll(ctx, 1)
		require.ErrorIs(t, err, context.Canceled)

		// A Put wakes a waiting Poll.
		go func() {
			time.Sleep(100 * time.Millisecond)
			q.Put([]byte("d"))
		}()
		start = time.Now()
		require.Equal(t, "d", string(poll1(t, q).Payload()))
		require.Equal(t, 100*time.Millisecond, time.Since(start))
	})
}

// mustPoll polls for up to n tasks, giving up after d.
func mustPoll(t *testing.T, q *intake.MemQueue, d time.Duration) []intake.Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	tasks, err := q.Poll(ctx, 10)
	if err != nil {
		require.ErrorIs(t, err, context.DeadlineExceeded)
	}
	return tasks
}
