package par_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// TestSeqNoBatchStartsAfterError: ForEachSeqErr promises that after
// the first error no new batch starts. On one worker the queued batches
// run (last queued first) only when the pulling ends, so batch {1} fails
// first and batch {0}, queued before it but not started, must not run.
func TestSeqNoBatchStartsAfterError(t *testing.T) {
	onOne(t, func(w *scheduler.Worker) {
		var after atomic.Int64
		var failed atomic.Bool
		err := par.ForEachSeqErr(context.Background(), w, slices.Values([]int{0, 1}), func(i int) error {
			if failed.Load() {
				after.Add(1)
			}
			if i == 1 {
				failed.Store(true)
				return errBoom
			}
			return nil
		}, par.MinLen(1))
		assert.ErrorIs(t, err, errBoom)
		assert.Zero(t, after.Load(), "a batch started after the first error")
	})
}

// TestSeqNoBatchStartsAfterCancel: the same for a cancelled context.
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
			if i == 3 {
				cancelled.Store(true)
				cancel()
			}
			return nil
		}, par.MinLen(2))
		assert.ErrorIs(t, err, context.Canceled)
		assert.Zero(t, after.Load(), "a batch started after the context was cancelled")
	})
}
