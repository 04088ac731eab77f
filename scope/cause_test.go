package scope_test

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/internal/slottest"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
	"github.com/weftrt/weft/slots"
)

// TestGroupOnCancelledReturnsCause: a GroupOn whose context is cancelled
// before its body starts returned ctx.Err() (context.Canceled), dropping
// the cause that par's On forms return for the same cancellation. Each
// way of not starting is checked: a context already done, one cancelled
// while GroupOn waits for a slot, and a GroupOn from a task of the same
// pool (where Run takes a path of its own).
func TestGroupOnCancelledReturnsCause(t *testing.T) {
	errWhy := errors.New("why")
	ran := func(*scope.Scope) error { t.Error("the body ran under a cancelled context"); return nil }

	t.Run("already done", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errWhy)
		assert.ErrorIs(t, scope.GroupOn(ctx, nil, ran), errWhy)
	})

	t.Run("waiting for a slot", func(t *testing.T) {
		p, err := scheduler.New(scheduler.WithWorkers(1), scheduler.WithSupplier(slots.NewFixed(1)))
		require.NoError(t, err)
		defer p.Close()
		release, held := make(chan struct{}), make(chan struct{})
		go func() {
			_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
				close(held)
				w.Block(func() { <-release })
				return nil
			})
		}()
		<-held
		defer close(release)
		ctx, cancel := context.WithCancelCause(context.Background())
		got := make(chan error)
		go func() { got <- scope.GroupOn(ctx, p, ran) }()
		// Cancelled before or after GroupOn starts to wait: either way the
		// body cannot start, and the error must be the cause.
		cancel(errWhy)
		assert.ErrorIs(t, <-got, errWhy)
	})

	// Cancelled once GroupOn has its slot and is queued, while every
	// worker is busy: the body has not started, so it must not start
	// (it ran under the done context, and GroupOn returned what it
	// returned, here nil).
	t.Run("queued behind a busy worker", func(t *testing.T) {
		p, err := scheduler.New(scheduler.WithWorkers(1))
		require.NoError(t, err)
		defer p.Close()
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
		got := make(chan error)
		go func() { got <- scope.GroupOn(ctx, p, ran) }()
		for p.Stats().Pending < 2 { // GroupOn's task is accepted, queued
			select {
			case err := <-got:
				t.Fatalf("GroupOn returned before its task was queued: %v", err)
			default:
				runtime.Gosched()
			}
		}
		cancel(errWhy)
		close(release)
		assert.ErrorIs(t, <-got, errWhy)
	})

	t.Run("on a supplier that wraps the context's error", func(t *testing.T) {
		sup := slottest.NewWrapping()
		p, err := scheduler.New(scheduler.WithWorkers(1), scheduler.WithSupplier(sup))
		require.NoError(t, err)
		defer p.Close()
		ctx, cancel := context.WithCancelCause(context.Background())
		got := make(chan error)
		go func() { got <- scope.GroupOn(ctx, p, ran) }()
		<-sup.Waiting
		cancel(errWhy) // no slot ever comes: the reservation ends with ctx
		assert.ErrorIs(t, <-got, errWhy)
	})

	t.Run("from a task of the pool", func(t *testing.T) {
		p, err := scheduler.New(scheduler.WithWorkers(2))
		require.NoError(t, err)
		defer p.Close()
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errWhy)
		require.NoError(t, p.Run(context.Background(), func(*scheduler.Worker) error {
			assert.ErrorIs(t, scope.GroupOn(ctx, p, ran), errWhy)
			return nil
		}))
	})
}
