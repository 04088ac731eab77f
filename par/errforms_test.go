package par_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// Every loop shape has an Err form from inside and from outside the pool:
// each returns its body's error, on a loop that runs inline and on one
// that splits, and the forms without an error say so.
func TestErrFormsReturnTheBodysError(t *testing.T) {
	errBoom := errors.New("boom")
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	ctx := context.Background()
	for _, n := range []int{10, 5000} {
		xs := make([]int, n)
		fail := n / 2
		forms := map[string]func() error{
			"ForEachErr": func() error {
				var err error
				require.NoError(t, p.Run(ctx, func(w *scheduler.Worker) error {
					err = par.ForEachErr(ctx, w, xs, func(i int, _ *int) error { return failAt(i, fail, errBoom) })
					return nil
				}))
				return err
			},
			"ForErrOn": func() error {
				return par.ForErrOn(ctx, p, n, func(i int) error { return failAt(i, fail, errBoom) })
			},
			"ForEachErrOn": func() error {
				return par.ForEachErrOn(ctx, p, xs, func(i int, _ *int) error { return failAt(i, fail, errBoom) })
			},
			"MapErrOn": func() error {
				out, err := par.MapErrOn(ctx, p, xs, func(int) (int, error) { return 0, errBoom })
				require.Nil(t, out, "MapErrOn's result with an error")
				return err
			},
			"ReduceRangeErr": func() error {
				var err error
				require.NoError(t, p.Run(ctx, func(w *scheduler.Worker) error {
					var sum int
					sum, err = par.ReduceRangeErr(ctx, w, 0, n, 0, func(_ *scheduler.Worker, lo, hi int) (int, error) {
						return hi - lo, failIn(lo, hi, fail, errBoom)
					}, addInt)
					require.Zero(t, sum, "ReduceRangeErr's result with an error")
					return nil
				}))
				return err
			},
			"ReduceRangeErrOn": func() error {
				_, err := par.ReduceRangeErrOn(ctx, p, 0, n, 0, func(lo, hi int) (int, error) {
					return hi - lo, failIn(lo, hi, fail, errBoom)
				}, addInt)
				return err
			},
			"MapReduceErr": func() error {
				var err error
				require.NoError(t, p.Run(ctx, func(w *scheduler.Worker) error {
					_, err = par.MapReduceErr(ctx, w, xs, 0, func(int) (int, error) { return 0, errBoom }, addInt)
					return nil
				}))
				return err
			},
			"MapReduceErrOn": func() error {
				_, err := par.MapReduceErrOn(ctx, p, xs, 0, func(int) (int, error) { return 0, errBoom }, addInt)
				return err
			},
			"ForEachSeqErrOn": func() error {
				return par.ForEachSeqErrOn(ctx, p, slices.Values(xs), func(int) error { return errBoom })
			},
		}
		for name, run := range forms {
			require.ErrorIs(t, run(), errBoom, "%s over %d", name, n)
		}
		var seen atomic.Int64
		require.NoError(t, par.ForEachSeqOn(ctx, p, slices.Values(xs), func(int) { seen.Add(1) }))
		require.EqualValues(t, n, seen.Load(), "ForEachSeqOn over %d", n)
		out, err := par.MapErrOn(ctx, p, xs, func(x int) (int, error) { return x + 1, nil })
		require.NoError(t, err)
		require.Len(t, out, n)
		count, err := par.ReduceRangeErrOn(ctx, p, 0, n, 0, func(lo, hi int) (int, error) { return hi - lo, nil }, addInt)
		require.NoError(t, err)
		require.Equal(t, n, count, "ReduceRangeErrOn over %d", n)
		ones, err := par.MapReduceErrOn(ctx, p, xs, 0, func(int) (int, error) { return 1, nil }, addInt)
		require.NoError(t, err)
		require.Equal(t, n, ones, "MapReduceErrOn over %d", n)
	}
}

func failAt(i, at int, err error) error {
	if i == at {
		return err
	}
	return nil
}

func failIn(lo, hi, at int, err error) error {
	if lo <= at && at < hi {
		return err
	}
	return nil
}

func addInt(a, b int) int { return a + b }
