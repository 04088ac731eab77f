package intake_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// With slots.NewFixed(16) and handlers that wait, 16 run at once, on any
// number of CPUs: the slots are the concurrency. Before, the handlers ran
// on the default pool's GOMAXPROCS workers, and on a 2-core machine 2 ran
// at once while the other 14 tasks sat queued, holding their slots.
func TestSlotsAreTheConcurrency(t *testing.T) {
	const n = 16
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: time.Millisecond})
	putN(q, n)
	var running atomic.Int32
	all := make(chan struct{})
	w := newWorker(t, intake.Config{
		Source: q, Supplier: slots.NewFixed(n),
		Handler: func(context.Context, intake.Task) error {
			if running.Add(1) == n {
				close(all)
			}
			<-all // each waits until all n run at once
			return nil
		},
	})
	select {
	case <-all:
	case <-time.After(30 * time.Second): // a hang guard only
		t.Fatalf("%d of %d handlers ran at once", running.Load(), n)
	}
	eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == n }, "every task acknowledged")
}

// A handler's CPU work forks on a pool it enters: the forks run, and the
// handler gets the result.
func TestHandlerForksOnAPool(t *testing.T) {
	pool := scheduler.Default()
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: time.Millisecond})
	putN(q, 8)
	var wrong atomic.Int32
	w := newWorker(t, intake.Config{
		Source: q, Supplier: slots.NewFixed(4),
		Handler: func(ctx context.Context, _ intake.Task) error {
			var got int
			err := pool.Run(ctx, func(w *scheduler.Worker) error {
				got = fib(w, 20)
				return nil
			})
			if got != 6765 {
				wrong.Add(1)
			}
			return err
		},
	})
	eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == 8 }, "every task acknowledged")
	require.Zero(t, wrong.Load(), "a handler's forks summed wrong")
}

func fib(w *scheduler.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := join.Call(w, fib, n-1, n-2)
	return a + b
}
