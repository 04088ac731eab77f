package par

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
)

// The On forms pass defaultConfig by pointer down their long path, which
// must only read it: a loop that wrote its probe's findings there would
// hand them to every later loop without options. Loops that probe, share
// their rest and split leave it as it was.
func TestOnFormsLeaveTheDefaultConfigAlone(t *testing.T) {
	want := defaultConfig
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	xs := make([]float64, 1<<16)
	for _, n := range []int{DefaultInlineLen + 1, 1000, len(xs)} {
		_, err := ReduceRangeOn(context.Background(), p, 0, n, 0, func(lo, hi int) float64 {
			s := 0.0
			for _, x := range xs[lo:hi] {
				s += x
			}
			return s
		}, func(a, b float64) float64 { return a + b })
		require.NoError(t, err)
		require.NoError(t, ForErrOn(context.Background(), p, n, func(i int) error { xs[i]++; return nil }))
	}
	require.Equal(t, want, defaultConfig)
}
