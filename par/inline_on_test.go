package par_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// A loop from outside the pool whose whole work is less than entering the
// pool costs runs on the calling goroutine: the forms whose body gets no
// worker run a loop of the inline length without a job of the pool's
// (longer loops decide by the probe's timing, which BenchmarkOnTiny
// shows). A loop of a few expensive elements still goes to the pool after
// the probe's first element, and a closed pool is reported either way.
func TestSmallLoopsFromOutsideStayOnTheCaller(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	ctx := context.Background()
	xs := make([]float64, 1000)
	small := map[string]func(n int) error{
		"ForOn":     func(n int) error { return par.ForOn(ctx, p, n, func(i int) { xs[i]++ }) },
		"ForErrOn":  func(n int) error { return par.ForErrOn(ctx, p, n, func(i int) error { xs[i]++; return nil }) },
		"ForEachOn": func(n int) error { return par.ForEachOn(ctx, p, xs[:n], func(_ int, x *float64) { *x++ }) },
		"ForEachErrOn": func(n int) error {
			return par.ForEachErrOn(ctx, p, xs[:n], func(_ int, x *float64) error { *x++; return nil })
		},
		"MapOn": func(n int) error {
			_, err := par.MapOn(ctx, p, xs[:n], func(x float64) float64 { return x + 1 })
			return err
		},
		"MapErrOn": func(n int) error {
			_, err := par.MapErrOn(ctx, p, xs[:n], func(x float64) (float64, error) { return x + 1, nil })
			return err
		},
	}
	for name, run := range small {
		for _, n := range []int{1, par.DefaultInlineLen} {
			before := p.Stats().Injected
			require.NoError(t, run(n), "%s over %d", name, n)
			require.Equal(t, before, p.Stats().Injected, "%s over %d entered the pool", name, n)
		}
	}

	// 20 elements of a few hundred microseconds each: the probe's first
	// element shows the rest is worth sharing.
	before := p.Stats().Injected
	require.NoError(t, par.ForOn(ctx, p, 20, func(i int) { spin(2000) }))
	require.Greater(t, p.Stats().Injected, before, "a loop of expensive elements stayed on the caller")

	closed, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	closed.Close()
	require.ErrorIs(t, par.ForOn(ctx, closed, 16, func(int) {}), scheduler.ErrClosed)
	require.ErrorIs(t, par.ForErrOn(ctx, closed, 1000, func(int) error { return nil }), scheduler.ErrClosed)
}

// spin hashes n times: CPU work whose cost the probe sees.
func spin(n int) {
	var h [32]byte
	for range n {
		h = sha256.Sum256(h[:])
	}
	sinkHash.Add(uint32(h[0]))
}

var sinkHash atomic.Uint32

// A ctx cancelled while an On form's probe runs on the caller stops the
// loop after the piece that saw it, for the forms whose body cannot fail
// (which probe without the loop's shared state) as for the Err forms,
// and the form returns the cause.
func TestOnProbeStopsWhenCtxEnds(t *testing.T) {
	errWhy := errors.New("why")
	const n = 100_000
	for name, loop := range map[string]func(ctx context.Context, body func(i int)) error{
		"ForOn": func(ctx context.Context, body func(i int)) error {
			return par.ForOn(ctx, nil, n, body)
		},
		"ReduceRangeOn": func(ctx context.Context, body func(i int)) error {
			_, err := par.ReduceRangeOn(ctx, nil, 0, n, 0, func(lo, hi int) int {
				for i := lo; i < hi; i++ {
					body(i)
				}
				return hi - lo
			}, func(a, b int) int { return a + b })
			return err
		},
		"ForErrOn": func(ctx context.Context, body func(i int)) error {
			return par.ForErrOn(ctx, nil, n, func(i int) error { body(i); return nil })
		},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		var ran atomic.Int64
		err := loop(ctx, func(i int) {
			ran.Add(1)
			if i == 0 { // the probe's first piece, on the caller
				cancel(errWhy)
			}
		})
		assert.ErrorIs(t, err, errWhy, name)
		// The probe's first piece is one element, the next sixteen: the
		// loop stops before the second.
		assert.LessOrEqual(t, ran.Load(), int64(16), "%s went on probing after its ctx ended", name)
	}
}
