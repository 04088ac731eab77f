package par_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// TestSeqNoBatchStartsAfterError: ForEachSeqErr promises that after
// the first error no new batch starts. On one worker the queued batches
// run, oldest first, when the pulling ends, so batch {0} fails first and
// batch {1}, queued but not started, must not run.
func TestSeqNoBatchStartsAfterError(t *testing.T) {
	onOne(t, func(w *scheduler.Worker) {
		var after atomic.Int64
		var failed atomic.Bool
		err := par.ForEachSeqErr(context.Background(), w, slices.Values([]int{0, 1}), func(i int) error {
			if failed.Load() {
				after.Add(1)
			}
			if i == 0 {
				failed.Store(true)
				return errBoom
			}
			return nil
		}, par.MinLen(1))
		assert.ErrorIs(t, err, errBoom)
		assert.Zero(t, after.Load(), "a batch started after the first error")
	})
}

// TestSeqNoBatchStartsAfterCancel: the same for a cancelled context:
// batch {0, 1} cancels it, and batch {2, 3} must not start.
func TestSeqNoBatchStartsAfterCancel(t *testing.T) {
	onOne(t, func(w *scheduler.Worker) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var after atomic.Int64
		var cancelled atomic.Bool
		err := par.ForEachSeqErr(ctx, w, slices.Values([]int{0, 1, 2, 3}), func(i int) error {
			if cancelled.Load() {
				after.Add(1)
			}
			if i == 1 {
				cancelled.Store(true)
				cancel()
			}
			return nil
		}, par.MinLen(2))
		assert.ErrorIs(t, err, context.Canceled)
		assert.Zero(t, after.Load(), "a batch started after the context was cancelled")
	})
}

// TestSeqPullsNothingOnceCancelled: once ctx is cancelled no new item is
// pulled from seq. A ctx cancelled before the call does not call seq at
// all, and one cancelled while seq runs accepts no further item (yield
// returns false at the next one). Before, the pulling looked at the
// context only when a batch was full: it called seq with a cancelled ctx
// and took up to MinLen items more after a cancellation or an error.
func TestSeqPullsNothingOnceCancelled(t *testing.T) {
	errWhy := errors.New("why")
	onOne(t, func(w *scheduler.Worker) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errWhy)
		var pulled atomic.Int64
		err := par.ForEachSeqErr(ctx, w, func(yield func(int) bool) {
			for i := range 1000 {
				pulled.Add(1)
				if !yield(i) {
					return
				}
			}
		}, func(int) error { return nil })
		assert.ErrorIs(t, err, errWhy)
		assert.Zero(t, pulled.Load(), "cancelled before the call: items pulled from seq")
	})
	batches := map[string][]par.Option{"default batch": nil, "batch of 100": {par.MinLen(100)}}
	for name, opts := range batches {
		onOne(t, func(w *scheduler.Worker) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var taken atomic.Int64 // items that yield accepted after the cancellation
			err := par.ForEachSeqErr(ctx, w, func(yield func(int) bool) {
				for i := range 1000 {
					if !yield(i) {
						return
					}
					if i == 5 {
						cancel(errWhy)
					} else if i > 5 {
						taken.Add(1)
					}
				}
			}, func(int) error { return nil }, opts...)
			assert.ErrorIs(t, err, errWhy, name)
			assert.Zero(t, taken.Load(), "%s: items taken from seq after the cancellation", name)
		})
	}
}

// TestSeqHugeMinLen: MinLen(math.MaxInt) says "never split", which the
// range forms honour by running inline; for a sequence it means batches
// of up to that many items. Before, each batch was made with that
// capacity: makeslice panicked (cap out of range), and MinLen(1<<40) ended
// the process, out of memory.
func TestSeqHugeMinLen(t *testing.T) {
	onOne(t, func(w *scheduler.Worker) {
		var visited atomic.Int64
		assert.NotPanics(t, func() {
			par.ForEachSeq(w, slices.Values(seqOf(100)), func(int) { visited.Add(1) }, par.MinLen(math.MaxInt))
		})
		assert.EqualValues(t, 100, visited.Load())
	})
}
