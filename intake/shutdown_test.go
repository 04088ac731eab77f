package intake_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/intake/intaketest"
	"github.com/weftrt/weft/slots"
	"go.uber.org/goleak"
)

// Shutdown with tasks running: it stops polling, waits for the running
// tasks, acknowledges them, and leaves the rest in the queue, ready.
func TestShutdownWaitsForRunningTasks(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 5 * time.Millisecond})
	putN(q, 10)
	l := intaketest.NewLedger(4)
	release := make(chan struct{})
	w, err := intake.New(intake.Config{
		Source:   l.Source(q),
		Supplier: l.Supplier(slots.NewFixed(4)),
		Handler: func(context.Context, intake.Task) error {
			<-release
			return nil
		},
	})
	require.NoError(t, err)
	eventually(t, 5*time.Second, func() bool { return w.Stats().Started == 4 }, "4 tasks started")

	done := make(chan error)
	go func() { done <- w.Shutdown(context.Background()) }()
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned %v with tasks running", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	require.NoError(t, <-done)

	s := w.Stats()
	require.EqualValues(t, 4, s.Acked)
	require.EqualValues(t, 4, s.Started)
	require.Equal(t, 6, q.Len())
	require.EqualValues(t, 6, q.Backlog(), "the unstarted tasks are ready again")
	require.True(t, slotsIdle(w))
	require.Zero(t, s.Pollers)
	require.Empty(t, l.Problems())
	require.Zero(t, l.Stats().Out, "every permit released")
}

// Tasks polled but waiting in their key's line behind a running task
// when Shutdown comes are returned to the source unrun, in order; the
// running one finishes and is acknowledged.
func TestShutdownReturnsTasksWaitingInTheirLine(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 5 * time.Millisecond})
	src := &keyAll{Source: q, key: "k"} // every task has key k: one runs, the others wait
	putN(q, 5)
	running, release := make(chan struct{}), make(chan struct{})
	var started atomic.Int32
	w, err := intake.New(intake.Config{
		Source:   src,
		Supplier: slots.NewFixed(8),
		Handler: func(context.Context, intake.Task) error {
			if started.Add(1) == 1 {
				close(running)
				<-release
			}
			return nil
		},
	})
	require.NoError(t, err)
	<-running
	eventually(t, 5*time.Second, func() bool { return w.Stats().Received == 5 }, "5 polled")

	done := make(chan error, 1)
	go func() { done <- w.Shutdown(context.Background()) }()
	eventually(t, 5*time.Second, func() bool { return w.Stats().HandedBack == 4 }, "4 handed back")
	close(release)
	require.NoError(t, <-done)
	s := w.Stats()
	require.EqualValues(t, 4, s.HandedBack)
	require.EqualValues(t, 1, s.Started)
	require.EqualValues(t, 1, started.Load())
	require.EqualValues(t, 4, q.Backlog())
	require.True(t, slotsIdle(w))
}

// When Shutdown's deadline passes first, it cancels the handlers' context
// and returns the deadline's error; the handlers then return, their tasks
// are returned for a retry and their slots released.
func TestShutdownDeadline(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 5 * time.Millisecond})
	putN(q, 2)
	w, err := intake.New(intake.Config{
		Source:   q,
		Supplier: slots.NewFixed(2),
		Backoff:  noDelay,
		Handler: func(ctx context.Context, _ intake.Task) error {
			<-ctx.Done()
			return ctx.Err()
		},
	})
	require.NoError(t, err)
	eventually(t, 5*time.Second, func() bool { return w.Stats().Started == 2 }, "2 started")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, w.Shutdown(ctx), context.DeadlineExceeded)
	eventually(t, 5*time.Second, func() bool { return slotsIdle(w) }, "slots released")
	require.NoError(t, w.Shutdown(context.Background()), "a second Shutdown waits for the rest")
	require.EqualValues(t, 2, w.Stats().Nacked)
	require.EqualValues(t, 2, q.Backlog())
}

// Close does not wait for handlers: it cancels their context and returns.
func TestCloseIsImmediate(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: time.Hour}) // polls end only by cancellation
	putN(q, 3)
	returned, hold := make(chan struct{}), make(chan struct{})
	w, err := intake.New(intake.Config{
		Source:   q,
		Supplier: slots.NewFixed(2),
		Handler: func(ctx context.Context, _ intake.Task) error {
			<-ctx.Done()
			<-hold // still running once Close has returned
			defer func() { returned <- struct{}{} }()
			return ctx.Err()
		},
	})
	require.NoError(t, err)
	eventually(t, 5*time.Second, func() bool { return w.Stats().Started == 2 }, "2 started")
	closed := make(chan struct{})
	go func() {
		w.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(30 * time.Second): // a hang guard: Close waiting on handlers never returns
		t.Fatal("Close waits for the handlers, which wait for Close to return")
	}
	close(hold)
	<-returned
	<-returned
	eventually(t, 5*time.Second, func() bool { return slotsIdle(w) }, "slots released")
	w.Close() // twice is fine
	require.NoError(t, w.Shutdown(context.Background()))
}

// A Shutdown that gives up at once (its context is already done, so it
// does not wait for the pollers to stop) still leaves nothing running once
// the task in flight has settled: the heartbeat goroutine ends too,
// without a Close.
func TestShutdownGivingUpLeavesNoGoroutine(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 50 * time.Millisecond})
	putN(q, 1)
	before := goleak.IgnoreCurrent()
	release := make(chan struct{})
	w, err := intake.New(intake.Config{
		Source: q, Heartbeat: 10 * time.Millisecond,
		Handler: func(context.Context, intake.Task) error {
			<-release
			return nil
		},
	})
	require.NoError(t, err)
	defer w.Close()
	eventually(t, 5*time.Second, func() bool { return w.Stats().Started == 1 }, "the task started")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, w.Shutdown(ctx), context.Canceled)
	close(release)
	eventually(t, 5*time.Second, func() bool { return w.Stats().Acked == 1 }, "the task acknowledged")
	// goleak retries for under half a second; the pollers' PollWait and a
	// loaded machine can take longer to let the goroutines end, so it is
	// asked again, up to about ten seconds in all.
	var leaks error
	for i := 0; i < 20; i++ {
		if leaks = goleak.Find(before, goleak.IgnoreAnyFunction("github.com/weftrt/weft/internal/core.(*Worker).main")); leaks == nil {
			break
		}
	}
	require.NoError(t, leaks)
}

// keyAll gives every task of its source the same key.
type keyAll struct {
	intake.Source
	key string
}

func (k *keyAll) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	tasks, err := k.Source.Poll(ctx, n)
	for i, t := range tasks {
		tasks[i] = keyedTask{Task: t, key: k.key}
	}
	return tasks, err
}

type keyedTask struct {
	intake.Task
	key string
}

func (k keyedTask) Key() string { return k.key }
