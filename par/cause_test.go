package par_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// TestCancelledBeforeStartReturnsCause: the Err forms document that
// a cancelled ctx makes them return the context's cause, and they do when
// the cancellation comes while the loop runs (run's AfterFunc and leaf use
// context.Cause); a ctx cancelled before the call returns ctx.Err()
// instead, so the same cancellation gives two different errors depending
// on timing.
func TestCancelledBeforeStartReturnsCause(t *testing.T) {
	errWhy := errors.New("why")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errWhy)
	body := func(*scheduler.Worker, int, int) error { return nil }
	onOne(t, func(w *scheduler.Worker) {
		assert.ErrorIs(t, par.ForRangeErr(ctx, w, 0, 10, body), errWhy, "inline")
		assert.ErrorIs(t, par.ForRangeErr(ctx, w, 0, 10_000, body), errWhy, "long")
		assert.ErrorIs(t, par.ForErr(ctx, w, 10, func(int) error { return nil }), errWhy, "ForErr inline")
		_, err := par.MapErr(ctx, w, seqOf(1000), func(x int) (int, error) { return x, nil })
		assert.ErrorIs(t, err, errWhy, "MapErr")
	})
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	assert.ErrorIs(t, par.ForRangeErrOn(ctx, p, 0, 10_000, body), errWhy, "On form")
}
