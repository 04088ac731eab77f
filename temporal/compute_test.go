//go:build !386

package wefttemporal_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
	wefttemporal "github.com/weftrt/weft/temporal"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

func newPool(t *testing.T) *scheduler.Pool {
	t.Helper()
	pool, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// An activity that computes on the pool with par gets the right answer:
// step(i) sums the first i odd numbers, i*i, in chunks on the pool's
// workers.
func TestComputeOnThePool(t *testing.T) {
	pool := newPool(t)
	step := func(ctx context.Context, i int) (int, error) {
		var sum int
		err := wefttemporal.Compute(ctx, pool, func(ctx context.Context, w *scheduler.Worker) error {
			var err error
			sum, err = par.ReduceRangeErr(ctx, w, 0, i, 0, func(_ *scheduler.Worker, lo, hi int) (int, error) {
				s := 0
				for k := lo; k < hi; k++ {
					s += 2*k + 1
				}
				return s, nil
			}, func(a, b int) int { return a + b })
			return err
		})
		return sum, err
	}
	startWorker(t, "compute", nil, step, worker.Options{})
	sum, err := result(t, startFanOut(t, "compute", 40))
	require.NoError(t, err)
	require.Equal(t, sumOfSquares(40), sum)
}

// cancelled is the workflow of the cancellation test: one activity with a
// heartbeat timeout, whose cancellation it waits for.
func cancelled(ctx workflow.Context) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Hour,
		HeartbeatTimeout:    time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
		WaitForCancellation: true,
	})
	return workflow.ExecuteActivity(ctx, "step", 1<<30).Get(ctx, nil)
}

// An activity computing on the pool is cancelled with its workflow:
// Compute's heartbeats bring the cancellation to the activity's ctx, the
// loop stops handing out chunks, the running ones see ctx end, and
// Compute returns the cause the SDK gave, a *temporal.CanceledError.
func TestComputeHonoursCancellation(t *testing.T) {
	pool := newPool(t)
	sig := newSignal()
	var chunks atomic.Int32
	var computeErr atomic.Pointer[error]
	step := func(ctx context.Context, n int) (int, error) {
		err := wefttemporal.Compute(ctx, pool, func(ctx context.Context, w *scheduler.Worker) error {
			return par.ForErr(ctx, w, n, func(int) error {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				chunks.Add(1)
				sig.changed()
				<-ctx.Done() // every element runs until the activity is cancelled
				return ctx.Err()
			})
		})
		computeErr.Store(&err)
		sig.changed()
		return 0, err
	}
	w := worker.New(server.GetDefaultClient(), "compute-cancel", worker.Options{WorkerStopTimeout: hangGuard})
	w.RegisterWorkflowWithOptions(cancelled, workflow.RegisterOptions{Name: "cancelled"})
	w.RegisterActivityWithOptions(step, activity.RegisterOptions{Name: "step"})
	require.NoError(t, w.Start())
	defer w.Stop()

	c := server.GetDefaultClient()
	run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{TaskQueue: "compute-cancel"}, "cancelled")
	require.NoError(t, err)
	sig.await(t, "the loop to start", func() bool { return chunks.Load() > 0 })
	require.NoError(t, c.CancelWorkflow(context.Background(), run.GetID(), run.GetRunID()))
	sig.await(t, "Compute to return", func() bool { return computeErr.Load() != nil })

	require.True(t, temporal.IsCanceledError(*computeErr.Load()), "Compute returned %v", *computeErr.Load())
	require.LessOrEqual(t, chunks.Load(), int32(pool.Workers()), "elements started: one per worker, then none after the cancellation")
	_, err = result(t, run)
	var canceled *temporal.CanceledError
	require.True(t, errors.As(err, &canceled), "workflow result: %v", err)
	require.NoError(t, pool.Run(context.Background(), func(*scheduler.Worker) error { return nil }), "the pool after the cancellation")
}
