package scheduler_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/weftrt/weft/scheduler"
)

// TestBlockThatReturnsAtOnceHandsNothingOver: a Block whose f has returned
// before its stand-in goroutine runs does not wait for that goroutine to
// take the worker and give it back. With one processor the stand-in cannot
// run before f returns, so no Block of the loop below hands over (bar one
// the runtime preempts mid-call). Before, every Block waited for its
// stand-in: each was a switch to a new goroutine and back through the
// processor's next-goroutine slot, whose time slice the pair shared, and
// on one processor a task calling Block in a loop kept every other
// goroutine waiting for up to 10 ms a turn (a Run from outside waited
// 350-580 ms in a Block storm). A Block whose f does wait still hands
// its worker over, and a stand-in that was not needed ends by Close.
func TestBlockThatReturnsAtOnceHandsNothingOver(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	p := pool(t, scheduler.WithWorkers(1))
	defer p.Close()
	const blocks = 1000
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
		for range blocks {
			w.Block(func() {})
		}
		return nil
	}))
	assert.Equal(t, uint64(blocks), p.Stats().Blocked)
	assert.Less(t, scheduler.HandedOver(p), uint64(blocks/10),
		"Blocks whose f returned at once still waited for a stand-in to take the worker over")

	ran := make(chan struct{})
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
		w.Block(func() {
			// Queued behind this task on the only worker: only a stand-in
			// can run it.
			assert.NoError(t, p.Spawn(context.Background(), func(*scheduler.Worker) { close(ran) }))
			<-ran
		})
		return nil
	}))
	assert.Positive(t, scheduler.HandedOver(p), "a Block whose f waited was not handed over")
}
