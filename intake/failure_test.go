package intake_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/intake/intaketest"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

var noDelay = intake.Exponential(0, 0)

// A payload the handler cannot parse fails on every delivery: it is
// returned with a backoff until its MaxDeliveries-th failure, then
// terminated. Good tasks around it are unaffected.
func TestMalformedPayloadsAreRetriedThenTerminated(t *testing.T) {
	const good, bad, maxDeliveries = 50, 5, 3
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 5 * time.Millisecond})
	for i := range good + bad {
		if i%(good/bad+1) == 0 {
			q.Put([]byte(fmt.Sprintf("not a number %d", i)))
		} else {
			q.Put([]byte(strconv.Itoa(i)))
		}
	}
	l := intaketest.NewLedger(4)
	var sum atomic.Int64
	w := newWorker(t, intake.Config{
		Source:        q,
		Supplier:      l.Supplier(slots.NewFixed(4)),
		MaxDeliveries: maxDeliveries,
		Backoff:       intake.Exponential(time.Millisecond, 4*time.Millisecond),
		Handler: func(_ context.Context, task intake.Task) error {
			n, err := strconv.Atoi(string(task.Payload()))
			if err != nil {
				return fmt.Errorf("malformed payload: %w", err)
			}
			sum.Add(int64(n))
			return nil
		},
	})
	eventually(t, 10*time.Second, func() bool { return q.Len() == 0 }, "queue drained, %d left", q.Len())
	require.NoError(t, w.Shutdown(context.Background()))

	dead := q.Terminated()
	require.Len(t, dead, bad)
	for _, d := range dead {
		require.Contains(t, string(d.Payload), "not a number")
		require.Equal(t, maxDeliveries, d.Deliveries)
		require.Contains(t, d.Reason, "malformed payload")
	}
	s := w.Stats()
	require.EqualValues(t, good, s.Acked)
	require.EqualValues(t, bad*maxDeliveries, s.Failed)
	require.EqualValues(t, bad*(maxDeliveries-1), s.Nacked)
	require.EqualValues(t, bad, s.Terminated)
	require.EqualValues(t, bad*(maxDeliveries-1), s.Redelivered)
	require.Empty(t, l.Problems())
	ls := l.Stats()
	require.Equal(t, bad*maxDeliveries, ls.Released[slots.ReasonFailed], "each failure releases its slot as failed")
	require.Zero(t, ls.Out)
}

// failEvenTasksOnce runs n tasks through a worker whose handler calls
// fail on the first delivery of every even task, waits until all are
// acked and shuts the worker down; the caller checks what each failure
// turned into.
func failEvenTasksOnce(t *testing.T, n int, fail func()) (intake.Stats, *intaketest.Ledger) {
	t.Helper()
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 5 * time.Millisecond})
	putN(q, n)
	l := intaketest.NewLedger(3)
	w := newWorker(t, intake.Config{
		Source:   q,
		Supplier: l.Supplier(slots.NewFixed(3)),
		Backoff:  noDelay,
		Handler: func(_ context.Context, task intake.Task) error {
			if k, _ := strconv.Atoi(string(task.Payload())); task.Deliveries() == 1 && k%2 == 0 {
				fail()
			}
			return nil
		},
	})
	eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == uint64(n) }, "all acked")
	require.NoError(t, w.Shutdown(context.Background()))
	return w.Stats(), l
}

// A handler's panic does not reach the pool's panic handler (there is
// none here: it would crash the test): the task is returned for a retry,
// its slot released as failed with the *scheduler.Panic, and the worker
// goes on.
func TestHandlerPanicIsRetried(t *testing.T) {
	s, l := failEvenTasksOnce(t, 20, func() { panic("first delivery of an even task") })
	require.EqualValues(t, 10, s.Panics)
	require.EqualValues(t, 10, s.Failed)
	require.EqualValues(t, 10, s.Nacked)
	require.EqualValues(t, 10, s.Redelivered)
	require.Empty(t, l.Problems())
	failures := l.Stats().Failures
	require.Len(t, failures, 10)
	for _, err := range failures {
		var pan *scheduler.Panic
		require.ErrorAs(t, err, &pan)
		require.Equal(t, "first delivery of an even task", pan.Value)
	}
}

// TestHandlerGoexitIsRetried: a handler that calls runtime.Goexit (t.Fatal
// in a test's handler) fails its task with scheduler.ErrGoexit instead of
// leaving it, and its slot, stuck; the task is retried and the pool goes
// on with a replaced worker.
func TestHandlerGoexitIsRetried(t *testing.T) {
	s, l := failEvenTasksOnce(t, 10, runtime.Goexit)
	require.EqualValues(t, 5, s.Redelivered)
	require.Empty(t, l.Problems())
	for _, err := range l.Stats().Failures {
		require.ErrorIs(t, err, scheduler.ErrGoexit)
	}
}

// A handler that knows a task can never succeed says so with Poison: it is
// terminated on its first delivery.
func TestPoisonTerminatesAtOnce(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 5 * time.Millisecond})
	q.Put([]byte("x"))
	cause := errors.New("unsupported version")
	w := newWorker(t, intake.Config{
		Source:   q,
		Supplier: slots.NewFixed(1),
		Handler: func(context.Context, intake.Task) error {
			return intake.Poison(cause)
		},
	})
	eventually(t, 5*time.Second, func() bool { return w.Stats().Terminated == 1 }, "terminated")
	require.NoError(t, w.Shutdown(context.Background()))
	dead := q.Terminated()
	require.Len(t, dead, 1)
	require.Equal(t, 1, dead[0].Deliveries)
	require.Contains(t, dead[0].Reason, "unsupported version")
	require.True(t, errors.Is(intake.Poison(cause), cause))
	require.ErrorIs(t, intake.Poison(nil), intake.ErrPoison)
}

// A task delivered more often than MaxDeliveries (the processes that ran
// it died, so none of its deliveries failed cleanly) is terminated without
// running.
func TestOverDeliveredTaskIsTerminatedUnrun(t *testing.T) {
	var terminated counter
	src := &onceSource{task: &fakeTask{id: "crasher", deliveries: 4, terminated: &terminated}}
	var ran atomic.Bool
	w := newWorker(t, intake.Config{
		Source:        src,
		Supplier:      slots.NewFixed(1),
		MaxDeliveries: 3,
		Handler: func(context.Context, intake.Task) error {
			ran.Store(true)
			return nil
		},
	})
	eventually(t, 5*time.Second, func() bool { return terminated.Load() == 1 }, "terminated")
	require.NoError(t, w.Shutdown(context.Background()))
	require.False(t, ran.Load())
	require.EqualValues(t, 1, w.Stats().Terminated)
	require.True(t, slotsIdle(w))
}

// onceSource delivers one task, then waits for its context.
type onceSource struct {
	task *fakeTask
	sent atomic.Bool
}

func (o *onceSource) Poll(ctx context.Context, _ int) ([]intake.Task, error) {
	if o.sent.CompareAndSwap(false, true) {
		return []intake.Task{o.task}, nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}
