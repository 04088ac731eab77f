//go:build !386

package wefttemporal_test

import (
	"context"
	"fmt"
	"time"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
	wefttemporal "github.com/weftrt/weft/temporal"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// A worker whose activity slots come from a weft Fixed(4) behind a
// Pauseable, and whose activity computes on a weft pool. The example's
// Temporal server runs in the test process; a deployment dials its own
// (client.Dial) instead of exampleClient.
func Example() {
	c := exampleClient()

	pool, err := scheduler.New()
	if err != nil {
		panic(err)
	}
	defer pool.Close()

	// Four activities at once, and a switch to stop taking new ones.
	activities := slots.NewPauseable(slots.NewFixed(4))
	tuner, err := wefttemporal.NewTuner(wefttemporal.TunerOptions{Activity: activities})
	if err != nil {
		panic(err)
	}
	w := worker.New(c, "example", worker.Options{Tuner: tuner, WorkerStopTimeout: time.Minute})

	// sumOfSquares sums i*i for i < n on the pool's workers, heartbeating
	// while it runs, so that a cancellation reaches it.
	sumOfSquares := func(ctx context.Context, n int) (int, error) {
		var sum int
		err := wefttemporal.Compute(ctx, pool, func(ctx context.Context, w *scheduler.Worker) error {
			var err error
			sum, err = par.ReduceRangeErr(ctx, w, 0, n, 0, func(_ *scheduler.Worker, lo, hi int) (int, error) {
				s := 0
				for i := lo; i < hi; i++ {
					s += i * i
				}
				return s, nil
			}, func(a, b int) int { return a + b })
			return err
		})
		return sum, err
	}
	w.RegisterActivityWithOptions(sumOfSquares, activity.RegisterOptions{Name: "sumOfSquares"})
	w.RegisterWorkflowWithOptions(func(ctx workflow.Context, n int) (int, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: time.Minute,
			HeartbeatTimeout:    10 * time.Second,
		})
		var sum int
		err := workflow.ExecuteActivity(ctx, "sumOfSquares", n).Get(ctx, &sum)
		return sum, err
	}, workflow.RegisterOptions{Name: "squares"})
	if err := w.Start(); err != nil {
		panic(err)
	}

	activities.Pause(slots.PauseOptions{}) // no activity starts from here...
	run, err := c.ExecuteWorkflow(context.Background(),
		client.StartWorkflowOptions{TaskQueue: "example"}, "squares", 1000)
	if err != nil {
		panic(err)
	}
	activities.Resume() // ... to here
	var sum int
	if err := run.Get(context.Background(), &sum); err != nil {
		panic(err)
	}
	w.Stop()

	st := tuner.Supplier(wefttemporal.Activity).Stats()
	fmt.Println("sum:", sum)
	fmt.Println("activity slots out after Stop:", st.InUse+st.Reserved)
	// Output:
	// sum: 332833500
	// activity slots out after Stop: 0
}

// exampleClient is a client of the test process's Temporal server.
func exampleClient() client.Client { return server.GetDefaultClient() }
