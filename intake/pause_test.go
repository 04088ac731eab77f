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

// A paused worker starts no task: tasks queued meanwhile wait in the
// source, and run after Resume.
func TestPauseStartsNoNewTask(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 5 * time.Millisecond})
	var paused atomic.Bool
	var ranWhilePaused atomic.Int64
	w := newWorker(t, intake.Config{
		Source:   q,
		Supplier: slots.NewFixed(4),
		Handler: func(context.Context, intake.Task) error {
			if paused.Load() {
				ranWhilePaused.Add(1)
			}
			return nil
		},
	})
	putN(q, 20)
	eventually(t, 5*time.Second, func() bool { return w.Stats().Acked == 20 }, "first 20 acked")

	w.Pause()
	paused.Store(true)
	require.True(t, w.Stats().Paused)
	started := w.Stats().Started
	putN(q, 20)
	time.Sleep(50 * time.Millisecond) // room for a start that should not happen
	// A poll already past its epoch check when Pause came may lease some
	// of the new tasks; they are handed back unrun, so the backlog is
	// whole again only once they are back.
	eventually(t, 5*time.Second, func() bool { return q.Backlog() == 20 && w.Stats().Settling == 0 }, "the 20 new tasks back in the queue")
	require.Equal(t, started, w.Stats().Started)
	require.Zero(t, ranWhilePaused.Load())

	paused.Store(false)
	w.Resume()
	eventually(t, 5*time.Second, func() bool { return w.Stats().Acked == 40 }, "all 40 acked")
}

// A poll that answers after the worker paused (its tasks were taken off
// the source before the pause cancelled it) has its tasks returned unrun.
func TestPauseReturnsTasksOfPollsInFlight(t *testing.T) {
	var nacked counter
	src := &lateSource{polled: make(chan struct{}), nacked: &nacked}
	w := newWorker(t, intake.Config{
		Source:   src,
		Supplier: slots.NewFixed(3),
		Handler: func(context.Context, intake.Task) error {
			t.Error("a task ran while paused")
			return nil
		},
	})
	<-src.polled
	w.Pause()
	eventually(t, 5*time.Second, func() bool { return nacked.Load() == 3 }, "3 tasks returned")
	require.Zero(t, w.Stats().Started)
	require.EqualValues(t, 3, w.Stats().HandedBack)
	eventually(t, 5*time.Second, func() bool { return slotsIdle(w) }, "slots released")
}

// lateSource's first poll waits for cancellation and then answers with
// one task per slot asked for (as a remote source whose reply was already
// on its way would); later polls wait for cancellation and answer nothing.
type lateSource struct {
	polled chan struct{}
	n      atomic.Int64
	nacked *counter
}

func (s *lateSource) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	first := s.n.Add(1) == 1
	if first {
		close(s.polled)
	}
	<-ctx.Done()
	if !first {
		return nil, ctx.Err()
	}
	tasks := make([]intake.Task, n)
	for i := range tasks {
		tasks[i] = &fakeTask{id: "late", deliveries: 1, nacked: s.nacked}
	}
	return tasks, ctx.Err()
}
