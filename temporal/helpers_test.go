//go:build !386

package wefttemporal_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// fanOut is the tests' workflow: it runs n activities "step" at once, with
// arguments 0 to n-1, and returns the sum of their results.
func fanOut(ctx workflow.Context, n int) (int, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Hour,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
		WaitForCancellation: true,
	})
	futures := make([]workflow.Future, n)
	for i := range futures {
		futures[i] = workflow.ExecuteActivity(ctx, "step", i)
	}
	sum := 0
	for _, f := range futures {
		var r int
		if err := f.Get(ctx, &r); err != nil {
			return 0, err
		}
		sum += r
	}
	return sum, nil
}

// startWorker starts a worker on queue with tuner, the fanOut workflow and
// step as its activity; it is stopped when the test ends, if the test did
// not stop it. Unless opts say otherwise, Stop waits (up to hangGuard) for
// every task and reservation to end: with the SDK's default of no wait,
// Stop returns while its pollers are still handing back their slots.
func startWorker(t *testing.T, queue string, tuner worker.WorkerTuner, step any, opts worker.Options) *stoppable {
	t.Helper()
	opts.Tuner = tuner
	if opts.WorkerStopTimeout == 0 {
		opts.WorkerStopTimeout = hangGuard
	}
	w := worker.New(server.GetDefaultClient(), queue, opts)
	w.RegisterWorkflowWithOptions(fanOut, workflow.RegisterOptions{Name: "fanout"})
	w.RegisterActivityWithOptions(step, activity.RegisterOptions{Name: "step"})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	s := &stoppable{w: w}
	t.Cleanup(s.Stop)
	return s
}

type stoppable struct {
	w    worker.Worker
	once sync.Once
}

func (s *stoppable) Stop() { s.once.Do(s.w.Stop) }

// startFanOut starts the fanOut workflow of n activities on queue.
func startFanOut(t *testing.T, queue string, n int) client.WorkflowRun {
	t.Helper()
	run, err := server.GetDefaultClient().ExecuteWorkflow(context.Background(),
		client.StartWorkflowOptions{TaskQueue: queue}, "fanout", n)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// result waits for run's result.
func result(t *testing.T, run client.WorkflowRun) (int, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	var sum int
	err := run.Get(ctx, &sum)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("workflow %s still running after %v", run.GetID(), hangGuard)
	}
	return sum, err
}

// sumOfSquares is what fanOut returns when step(i) is i*i.
func sumOfSquares(n int) int { return (n - 1) * n * (2*n - 1) / 6 }
