package par_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// hist is a reduction result that exists only as chunk or identity makes
// it, as most results other than numbers do: combine may rely on getting
// two of them, and mergeHist dereferences both.
type hist struct{ n int }

func mergeHist(a, b *hist) *hist { return &hist{a.n + b.n} }

// histOf is a chunk of a few microseconds, enough that a loop of them
// splits and idle workers steal from it.
func histOf(lo, hi int) *hist {
	s := 0
	for i := range 200 {
		s += i
	}
	return &hist{hi - lo + s - 199*200/2}
}

// recovered runs f and returns what it panicked with, unwrapped from a
// *scheduler.Panic so that a failed check prints the value, not a stack.
func recovered(f func()) (v any) {
	defer func() {
		v = recover()
		if p, ok := v.(*scheduler.Panic); ok {
			v = p.Value
		}
	}()
	f()
	return nil
}

// TestReducePanicKeepsValue: a panic in a chunk of a reduction reaches the
// caller with its own value. Before, the owner of a range whose other half
// a thief had taken went on combining the results of the chunks it then
// skipped, zero values, and a combine that cannot take them (here, a nil
// *hist) panicked in turn, and that panic, the owner's, replaced the
// chunk's.
func TestReducePanicKeepsValue(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(4), scheduler.WithHeartbeat(time.Nanosecond))
	require.NoError(t, err)
	defer p.Close()
	const n = 20_000
	for range 20 {
		v := recovered(func() {
			_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
				par.ReduceRange(w, 0, n, &hist{}, func(_ *scheduler.Worker, lo, hi int) *hist {
					if lo <= n/2 && n/2 < hi {
						panic(errBoom)
					}
					return histOf(lo, hi)
				}, mergeHist, par.MinLen(1))
				return nil
			})
		})
		require.Equal(t, errBoom, v, "the chunk's panic value was replaced")
	}
}

// TestReduceOnCancelledCombinesOnlyResults: a cancellation while
// ReduceRangeOn or MapReduceOn runs comes back as the context's cause.
// Before, the chunks skipped after it reached combine as zero values, and
// a combine that cannot take them turned the cancellation into a panic.
func TestReduceOnCancelledCombinesOnlyResults(t *testing.T) {
	errWhy := errors.New("why")
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	forms := map[string]func(ctx context.Context, cancel context.CancelCauseFunc) error{
		"ReduceRangeOn": func(ctx context.Context, cancel context.CancelCauseFunc) error {
			_, err := par.ReduceRangeOn(ctx, p, 0, 1000, &hist{}, func(lo, hi int) *hist {
				cancel(errWhy)
				return histOf(lo, hi)
			}, mergeHist, par.MinLen(1))
			return err
		},
		"MapReduceOn": func(ctx context.Context, cancel context.CancelCauseFunc) error {
			_, err := par.MapReduceOn(ctx, p, seqOf(1000), &hist{}, func(int) *hist {
				cancel(errWhy)
				return &hist{1}
			}, mergeHist, par.MinLen(1))
			return err
		},
	}
	for name, form := range forms {
		ctx, cancel := context.WithCancelCause(context.Background())
		var err error
		v := recovered(func() { err = form(ctx, cancel) })
		cancel(nil)
		if assert.Nil(t, v, "%s: combine got a chunk that did not run", name) {
			assert.ErrorIs(t, err, errWhy, name)
		}
	}
}

// TestCombinePanicStopsLoop: a panic in combine stops the loop as one in
// a chunk does. Before, it unwound through the joins above it, and each
// ran its unstarted half, so nearly the whole rest of the loop ran before
// the caller saw the panic. One worker, so that "nothing ran after" is
// exact.
func TestCombinePanicStopsLoop(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	const n = 10_000
	var after, combines atomic.Int64
	var panicked atomic.Bool
	v := recovered(func() {
		_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
			par.ReduceRange(w, 0, n, 0, func(_ *scheduler.Worker, lo, hi int) int {
				if panicked.Load() {
					after.Add(int64(hi - lo))
				}
				return hi - lo
			}, func(a, b int) int {
				if combines.Add(1) == 1 {
					panicked.Store(true)
					panic(errBoom)
				}
				return a + b
			}, par.MinLen(1))
			return nil
		})
	})
	assert.Equal(t, errBoom, v)
	assert.Zero(t, after.Load(), "elements run after combine panicked")
}
