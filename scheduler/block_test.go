package scheduler_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

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
	require.NoError(t, p.Run(ctx, func(w *scheduler.Worker) error {
		close(started)
		w.Block(func() { <-ch })
		assert.True(t, w.IsCurrent(), "Block returns on the task's own goroutine")
		return nil
	}))
	assert.Equal(t, uint64(1), p.Stats().Blocked)
}

// TestBlockPublishesPrivateForks: the halves of a join may wait for each
// other if the waiting half blocks through Block, which publishes the
// other half for the stand-in to run; nested Blocks work too. The rounds
// reuse the worker's frames: Unfork must leave no private fork below the
// heartbeat scan's start, or from the second round on Block publishes
// nothing and the halves would wait for each other for ever. The test
// checks, before each wait, that the forks it waits on were published
// (the pool's Published count), and fails at once if not; a wait also
// gives up after hangBound, which matters only if something else broke.
func TestBlockPublishesPrivateForks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := pool(t, scheduler.WithWorkers(1))
	defer p.Close()
	for round := range 20 {
		base := p.Stats().Published
		// published reports whether the round's first n forks are
		// published, so that a wait for the other half can end.
		published := func(n uint64, where string) bool {
			if got := p.Stats().Published - base; got < n {
				t.Errorf("round %d, %s: %d of the round's forks published when Block's f started, want %d: "+
					"Block left the other half private, nobody can run it, and waiting for it would hang",
					round, where, got, n)
				return false
			}
			return true
		}
		ch := make(chan struct{})
		var ran atomic.Int32
		require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
			join.Join(w,
				func(w *scheduler.Worker) {
					w.Block(func() {
						if published(1, "outer join") {
							waitOrFail(t, ch, "the outer join's second half")
						}
					})
					ran.Add(1)
				},
				func(w *scheduler.Worker) {
					inner := make(chan struct{})
					join.Join(w,
						func(w *scheduler.Worker) {
							w.Block(func() {
								if published(2, "inner join") {
									waitOrFail(t, inner, "the inner join's second half")
								}
							})
						},
						func(*scheduler.Worker) { close(inner) })
					close(ch)
					ran.Add(1)
				})
			return nil
		}))
		assert.Equal(t, int32(2), ran.Load())
		if t.Failed() {
			break
		}
	}
}

// hangBound bounds a wait that correct code always ends. It only matters
// when the code is broken: it turns a hang into a failure.
const hangBound = 20 * time.Second

// waitOrFail waits until done is closed, or fails t after hangBound. It
// may be called from any goroutine.
func waitOrFail(t *testing.T, done <-chan struct{}, what string) {
	timer := time.NewTimer(hangBound)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.Errorf("hang: %s did not run within %v", what, hangBound)
	}
}

// TestBlockMisuse: a nil function or a foreign *Worker is refused.
func TestBlockMisuse(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := pool(t, scheduler.WithWorkers(1))
	defer p.Close()
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
		assert.PanicsWithValue(t, "weft/scheduler: Block with a nil function", func() { w.Block(nil) })
		got := make(chan any)
		go func() { got <- catch(func() { w.Block(func() {}) }) }()
		assert.Contains(t, <-got, "not the calling goroutine's")
		return nil
	}))
}
