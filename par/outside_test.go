package par_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

func TestOnForms(t *testing.T) {
	ctx := context.Background()
	for name, p := range pools(t) {
		t.Run(name, func(t *testing.T) {
			xs := seqOf(5000)
			v := make(visits, len(xs))
			require.NoError(t, par.ForEachOn(ctx, p, xs, func(i int, x *int) { v[*x].Add(1) }))
			v.requireOnce(t)

			strs, err := par.MapOn(ctx, p, xs, strconv.Itoa)
			require.NoError(t, err)
			for i, s := range strs {
				require.Equal(t, strconv.Itoa(i), s)
			}

			sum, err := par.MapReduceOn(ctx, p, xs, 0, func(x int) int { return x }, func(a, b int) int { return a + b })
			require.NoError(t, err)
			assert.Equal(t, 5000*4999/2, sum)

			err = par.ForRangeErrOn(ctx, p, 0, 5000, func(lo, hi int) error {
				if lo == 0 {
					return errBoom
				}
				return nil
			})
			assert.ErrorIs(t, err, errBoom)
		})
	}
}

func TestOnClosedPool(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	p.Close()
	assert.ErrorIs(t, par.ForOn(context.Background(), p, 10, func(int) {}), scheduler.ErrClosed)
}
