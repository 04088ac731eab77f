package par_test

import (
	"context"
	"errors"
	"runtime"
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

	// Cancelled while the On form waits for a slot that never comes, from
	// a supplier that wraps the context's error in its own.
	sup := slottest.NewWrapping()
	p2, err := scheduler.New(scheduler.WithWorkers(1), scheduler.WithSupplier(sup))
	require.NoError(t, err)
	defer p2.Close()
	ctx2, cancel2 := context.WithCancelCause(context.Background())
	got := make(chan error)
	go func() { got <- par.ForRangeErrOn(ctx2, p2, 0, 10_000, body) }()
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
	for _, n := range []int{0, 10_000} {
		release, busy := make(chan struct{}), make(chan struct{})
		go func() {
			_ = p.Run(context.Background(), func(*scheduler.Worker) {
				close(busy)
				<-release // not in Block: the one worker takes nothing else
			})
		}()
		<-busy
		ctx, cancel := context.WithCancelCause(context.Background())
		got := make(chan error)
		// ForRangeOn enters the pool whatever the loop (its body may
		// nest a loop on its worker); ForOn would run these inline.
		go func() { got <- par.ForRangeOn(ctx, p, 0, n, func(*scheduler.Worker, int, int) {}) }()
		for p.Stats().Pending < 2 { // ForRangeOn's task is accepted, queued
			select {
			case err := <-got:
				t.Fatalf("ForRangeOn returned before its task was queued: %v", err)
			default:
				runtime.Gosched()
			}
		}
		cancel(errWhy)
		close(release)
		assert.ErrorIs(t, <-got, errWhy, "a loop of %d", n)
	}
}
