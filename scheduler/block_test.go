package scheduler_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// TestBlockLetsQueuedWorkRun: on a one-worker pool, a task that waits for
// a task queued behind it deadlocks, unless it waits inside Block, whose
// stand-in runs the queued task.
func TestBlockLetsQueuedWorkRun(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := pool(t, scheduler.WithWorkers(1))
	defer p.Close()
	ctx := context.Background()
	ch := make(chan struct{})
	started := make(chan struct{})
	go func() {
		<-started
		assert.NoError(t, p.Spawn(ctx, func(*scheduler.Worker) { close(ch) }))
	}()
	require.NoError(t, p.Run(ctx, func(w *scheduler.Worker) {
		close(started)
		w.Block(func() { <-ch })
		assert.True(t, w.IsCurrent(), "Block returns on the task's own goroutine")
	}))
	assert.Equal(t, uint64(1), p.Stats().Blocked)
}

// TestBlockPublishesPrivateForks: the halves of a join may wait for each
// other if the waiting half blocks through Block, which publishes the
// other half for the stand-in to run; nested Blocks work too.
func TestBlockPublishesPrivateForks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := pool(t, scheduler.WithWorkers(1))
	defer p.Close()
	for range 20 {
		ch := make(chan struct{})
		var ran atomic.Int32
		require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) {
			join.Join(w,
				func(w *scheduler.Worker) { w.Block(func() { <-ch }); ran.Add(1) },
				func(w *scheduler.Worker) {
					inner := make(chan struct{})
					join.Join(w,
						func(w *scheduler.Worker) { w.Block(func() { <-inner }) },
						func(*scheduler.Worker) { close(inner) })
					close(ch)
					ran.Add(1)
				})
		}))
		assert.Equal(t, int32(2), ran.Load())
	}
}

// TestBlockMisuse: a nil function or a foreign *Worker is refused.
func TestBlockMisuse(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := pool(t, scheduler.WithWorkers(1))
	defer p.Close()
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) {
		assert.PanicsWithValue(t, "weft/scheduler: Block with a nil function", func() { w.Block(nil) })
		got := make(chan any)
		go func() { got <- catch(func() { w.Block(func() {}) }) }()
		assert.Contains(t, <-got, "not the calling goroutine's")
	}))
}
