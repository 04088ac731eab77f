package par_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// TestCancelInLastChunkIsReported: a context that ends before a loop
// returns is reported, by its cause, even when it ends in the loop's last
// (or only) chunk, when no chunk is left to be stopped. Before, the loops
// looked at ctx only before starting a chunk, and run's AfterFunc callback,
// on a goroutine of its own, had not recorded the cause by the time the
// loop returned: ForRangeErr, ForErr, MapErr, ForEachSeqErr and every On
// form returned nil (MapOn its result) for a cancellation that happened.
//
// The body cancels ctx itself when it gets the loop's last element, so
// the cancellation is in the loop for sure, whatever the timing. n = 10
// runs inline, as one chunk; n = 1000 with MinLen(100) is split, without
// the probe, and on one worker the last element is in the last chunk.
func TestCancelInLastChunkIsReported(t *testing.T) {
	errWhy := errors.New("why")
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	add := func(a, b int) int { return a + b }
	// inPool runs a task form on a worker of p; the On forms are called
	// from the test's goroutine.
	inPool := func(f func(w *scheduler.Worker) error) error {
		var err error
		require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
			err = f(w)
			return nil
		}))
		return err
	}
	type form func(ctx context.Context, n int, last func(i int), opts []par.Option) error
	forms := map[string]form{
		"ForRangeErr": func(ctx context.Context, n int, last func(int), opts []par.Option) error {
			return inPool(func(w *scheduler.Worker) error {
				return par.ForRangeErr(ctx, w, 0, n, func(_ *scheduler.Worker, lo, hi int) error { last(hi - 1); return nil }, opts...)
			})
		},
		"ForErr": func(ctx context.Context, n int, last func(int), opts []par.Option) error {
			return inPool(func(w *scheduler.Worker) error {
				return par.ForErr(ctx, w, n, func(i int) error { last(i); return nil }, opts...)
			})
		},
		"MapErr": func(ctx context.Context, n int, last func(int), opts []par.Option) error {
			return inPool(func(w *scheduler.Worker) error {
				out, err := par.MapErr(ctx, w, seqOf(n), func(x int) (int, error) { last(x); return x, nil }, opts...)
				assert.Nil(t, out, "MapErr's result with an error")
				return err
			})
		},
		"ForEachSeqErr": func(ctx context.Context, n int, last func(int), opts []par.Option) error {
			return inPool(func(w *scheduler.Worker) error {
				return par.ForEachSeqErr(ctx, w, slices.Values(seqOf(n)), func(x int) error { last(x); return nil }, opts...)
			})
		},
		"ForRangeOn": func(ctx context.Context, n int, last func(int), opts []par.Option) error {
			return par.ForRangeOn(ctx, p, 0, n, func(lo, hi int) { last(hi - 1) }, opts...)
		},
		"ForOn": func(ctx context.Context, n int, last func(int), opts []par.Option) error {
			return par.ForOn(ctx, p, n, last, opts...)
		},
		"ForEachOn": func(ctx context.Context, n int, last func(int), opts []par.Option) error {
			return par.ForEachOn(ctx, p, seqOf(n), func(i int, _ *int) { last(i) }, opts...)
		},
		"ForRangeErrOn": func(ctx context.Context, n int, last func(int), opts []par.Option) error {
			return par.ForRangeErrOn(ctx, p, 0, n, func(lo, hi int) error { last(hi - 1); return nil }, opts...)
		},
		"MapOn": func(ctx context.Context, n int, last func(int), opts []par.Option) error {
			out, err := par.MapOn(ctx, p, seqOf(n), func(x int) int { last(x); return x }, opts...)
			assert.Nil(t, out, "MapOn's result with an error")
			return err
		},
		"ReduceRangeOn": func(ctx context.Context, n int, last func(int), opts []par.Option) error {
			_, err := par.ReduceRangeOn(ctx, p, 0, n, 0, func(lo, hi int) int { last(hi - 1); return hi - lo }, add, opts...)
			return err
		},
		"MapReduceOn": func(ctx context.Context, n int, last func(int), opts []par.Option) error {
			_, err := par.MapReduceOn(ctx, p, seqOf(n), 0, func(x int) int { last(x); return x }, add, opts...)
			return err
		},
		"ForEachSeqErrOn": func(ctx context.Context, n int, last func(int), opts []par.Option) error {
			return par.ForEachSeqErrOn(ctx, p, slices.Values(seqOf(n)), func(x int) error { last(x); return nil }, opts...)
		},
		"ForRangeWithOn": func(ctx context.Context, n int, last func(int), opts []par.Option) error {
			return par.ForRangeWithOn(ctx, p, last, 0, n, func(last func(int), lo, hi int) { last(hi - 1) }, opts...)
		},
		"ReduceRangeWithOn": func(ctx context.Context, n int, last func(int), opts []par.Option) error {
			_, err := par.ReduceRangeWithOn(ctx, p, last, 0, n, 0, func(last func(int), lo, hi int) int { last(hi - 1); return hi - lo }, add, opts...)
			return err
		},
	}
	loops := []struct {
		name string
		n    int
		opts []par.Option
	}{
		{"only chunk", 10, nil},
		{"last chunk", 1000, []par.Option{par.MinLen(100)}},
	}
	for name, f := range forms {
		for _, l := range loops {
			t.Run(name+"/"+l.name, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				last := func(i int) {
					if i == l.n-1 {
						cancel(errWhy)
					}
				}
				assert.ErrorIs(t, f(ctx, l.n, last, l.opts), errWhy)
			})
		}
	}
}

// TestCancelledEmptyLoopIsReported: an empty loop whose ctx has ended
// reports it, as every other loop does and as ForEachSeqErr and the On
// forms already did for an empty one. Before, the index and slice forms
// run inside the pool returned nil for an empty loop, whatever ctx said.
func TestCancelledEmptyLoopIsReported(t *testing.T) {
	errWhy := errors.New("why")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errWhy)
	onOne(t, func(w *scheduler.Worker) {
		assert.ErrorIs(t, par.ForRangeErr(ctx, w, 0, 0, func(*scheduler.Worker, int, int) error { return nil }), errWhy, "ForRangeErr")
		assert.ErrorIs(t, par.ForErr(ctx, w, 0, func(int) error { return nil }), errWhy, "ForErr")
		out, err := par.MapErr(ctx, w, nil, func(x int) (int, error) { return x, nil })
		assert.ErrorIs(t, err, errWhy, "MapErr")
		assert.Nil(t, out, "MapErr")
		assert.ErrorIs(t, par.ForEachSeqErr(ctx, w, slices.Values([]int(nil)), func(int) error { return nil }), errWhy, "ForEachSeqErr")
	})
}
