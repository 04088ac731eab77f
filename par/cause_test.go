package par_test

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/internal/slottest"
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
	body := func(int, int) error { return nil }
	inPool := func(*scheduler.Worker, int, int) error { return nil }
	onOne(t, func(w *scheduler.Worker) {
		assert.ErrorIs(t, par.ForRangeErr(ctx, w, 0, 10, inPool), errWhy, "inline")
		assert.ErrorIs(t, par.ForRangeErr(ctx, w, 0, 10_000, inPool), errWhy, "long")
		assert.ErrorIs(t, par.ForErr(ctx, w, 10, func(int) error { return nil }), errWhy, "ForErr inline")
		_, err := par.MapErr(ctx, w, seqOf(1000), func(x int) (int, error) { return x, nil })
		assert.ErrorIs(t, err, errWhy, "MapErr")
	})
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	assert.ErrorIs(t, par.ForRangeErrOn(ctx, p, 0, 10_000, body), errWhy, "On form")

	// Cancelled while the On form waits for a slot that never comes, from
	// a supplier that wraps the context's error in its own.
	sup := slottest.NewWrapping()
	p2, err := scheduler.New(scheduler.WithWorkers(1), scheduler.WithSupplier(sup))
	require.NoError(t, err)
	defer p2.Close()
	ctx2, cancel2 := context.WithCancelCause(context.Background())
	got := make(chan error)
	// MinLen: no probe on the caller, so the loop goes to the pool at once.
	go func() { got <- par.ForRangeErrOn(ctx2, p2, 0, 10_000, body, par.MinLen(1)) }()
	<-sup.Waiting
	cancel2(errWhy)
	assert.ErrorIs(t, <-got, errWhy, "On form waiting for a slot")
}

// An On form whose ctx ends while its task waits for a busy worker
// reports the cause whatever the loop: an empty loop returned nil, a
// long one the cause, as one cancelled before the call did for both.
func TestOnCancelledWhileQueuedReturnsCause(t *testing.T) {
	errWhy := errors.New("why")
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	// Two loops that enter the pool: ForEachSeqOn always does, even over
	// an empty sequence; ForRangeOn with MinLen skips the probe on the
	// caller and hands the whole loop to the pool.
	loops := map[string]func(ctx context.Context) error{
		"empty ForEachSeqOn": func(ctx context.Context) error {
			return par.ForEachSeqOn(ctx, p, slices.Values([]int(nil)), func(int) {})
		},
		"long ForRangeOn": func(ctx context.Context) error {
			return par.ForRangeOn(ctx, p, 0, 10_000, func(int, int) {}, par.MinLen(1))
		},
	}
	for name, loop := range loops {
		release, busy := make(chan struct{}), make(chan struct{})
		go func() {
			_ = p.Run(context.Background(), func(*scheduler.Worker) error {
				close(busy)
				<-release // not in Block: the one worker takes nothing else
				return nil
			})
		}()
		<-busy
		ctx, cancel := context.WithCancelCause(context.Background())
		got := make(chan error, 1)
		go func() { got <- loop(ctx) }()
		for p.Stats().Pending < 2 { // the loop's task is accepted, queued
			runtime.Gosched()
		}
		cancel(errWhy)
		close(release)
		assert.ErrorIs(t, <-got, errWhy, name)
	}
}
