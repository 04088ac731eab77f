package par_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// runawayAt is where endless gives up: far more items than any batch
// bound lets the pulling take after a failure, so a loop that reaches it
// would have pulled an endless sequence for ever. It ends the test
// instead of hanging it, and without a clock.
const runawayAt = 100_000

// endless is a sequence that never ends of its own accord: it counts the
// items it yields in pulled, and stops at runawayAt, setting ranAway.
func endless(pulled *atomic.Int64, ranAway *atomic.Bool) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; ; i++ {
			if i == runawayAt {
				ranAway.Store(true)
				return
			}
			pulled.Add(1)
			if !yield(i) {
				return
			}
		}
	}
}

// TestSeqFailureInAnEarlyBatchStopsPulling: the third item of an endless
// sequence fails. The loop must stop within a few batches of that item,
// on any number of workers, and run its first items. Before, the worker
// that pulled the sequence ran the newest batch itself whenever
// 2 × workers batches waited, while the older ones waited for a free
// worker: on a one-worker pool (or one whose other workers are busy) the
// first batch, the one that fails, never ran, and the pulling never
// stopped.
func TestSeqFailureInAnEarlyBatchStopsPulling(t *testing.T) {
	const failAt, batch = 2, 16 // the default batch: the failing item is in the first
	cases := []struct {
		name    string
		workers int // of the pool
		busy    int // workers held by another task for the whole loop
		// bounded: whether the number of items pulled after the failing
		// one is deterministic. With a free worker besides the puller,
		// that worker may take the failing batch, and how long it then
		// takes to run it is up to the OS; the puller stops as soon as it
		// has (TestSeqPullsNothingOnceCancelled), but the count is timing.
		bounded bool
	}{
		{"1 worker", 1, 0, true},
		{"2 workers, one busy", 2, 1, true},
		{"2 workers", 2, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := scheduler.New(scheduler.WithWorkers(c.workers))
			require.NoError(t, err)
			defer p.Close()
			release := holdWorkers(t, p, c.busy)
			defer release()

			var pulled atomic.Int64
			var ranAway atomic.Bool
			var first [failAt]atomic.Bool
			err = par.ForEachSeqErrOn(context.Background(), p, endless(&pulled, &ranAway), func(i int) error {
				if i < failAt {
					first[i].Store(true)
				}
				if i == failAt {
					return errBoom
				}
				return nil
			})
			assert.ErrorIs(t, err, errBoom)
			assert.False(t, ranAway.Load(), "the pulling did not stop: %d items pulled", pulled.Load())
			for i := range first {
				assert.True(t, first[i].Load(), "item %d did not run", i)
			}
			if c.bounded {
				// The failing batch waits behind at most 2 × workers
				// batches (the bound on waiting batches); the pulling
				// worker runs the oldest each time it would exceed it.
				most := int64((2*c.workers + 1) * batch)
				assert.LessOrEqual(t, pulled.Load()-(failAt+1), most, "items pulled after the failing one")
			}
		})
	}
}

// holdWorkers occupies n workers of p with tasks that do nothing until
// the returned function is called, and returns once they all run. A task
// that waits outside Block keeps its worker: the pool has n workers fewer.
func holdWorkers(t *testing.T, p *scheduler.Pool, n int) (release func()) {
	t.Helper()
	stop := make(chan struct{})
	done := make(chan struct{}, n)
	running := make(chan struct{}, n)
	for range n {
		go func() {
			defer func() { done <- struct{}{} }()
			assert.NoError(t, p.Run(context.Background(), func(*scheduler.Worker) error {
				running <- struct{}{}
				<-stop
				return nil
			}))
		}()
	}
	for range n {
		<-running
	}
	return func() {
		close(stop)
		for range n {
			<-done
		}
	}
}
