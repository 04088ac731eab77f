package par_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// countOn and joinOn are the With On forms' bodies of these tests: they
// use only their parameters.
func countOn(v visits, lo, hi int) {
	for i := lo; i < hi; i++ {
		v[i+offset].Add(1)
	}
}

func joinOn(xs []string, lo, hi int) string { return strings.Join(xs[lo+offset:hi+offset], "") }

// offset puts the tests' ranges at [-offset, n-offset): negative indices
// take the same paths as any others.
const offset = 5

// The With On forms cover their range exactly once, and combine in range
// order, on every path: on the caller (a short loop), through the probe on
// the caller, and shared with the pool, with and without options.
func TestWithOnFormsCoverTheRange(t *testing.T) {
	ctx := context.Background()
	optionSets := map[string][]par.Option{"none": nil, "MinLen(1),MaxLen(7)": {par.MinLen(1), par.MaxLen(7)}}
	for name, p := range pools(t) {
		for optName, opts := range optionSets {
			for _, n := range lengths {
				t.Run(fmt.Sprintf("%s/%s/n=%d", name, optName, n), func(t *testing.T) {
					v := make(visits, n)
					require.NoError(t, par.ForRangeWithOn(ctx, p, v, -offset, n-offset, countOn, opts...))
					v.requireOnce(t)

					xs := make([]string, n)
					for i := range xs {
						xs[i] = strconv.Itoa(i%10) + ","
					}
					got, err := par.ReduceRangeWithOn(ctx, p, xs, -offset, n-offset, "", joinOn, concatStrings, opts...)
					require.NoError(t, err)
					assert.Equal(t, strings.Join(xs, ""), got)
				})
			}
		}
	}
}

// A short loop of a With On form runs on the calling goroutine, enters
// the pool for nothing, and allocates nothing: the reason these forms
// exist beside ForRangeOn and ReduceRangeOn, whose capturing closures Go
// puts on the heap.
func TestWithOnFormsShortLoopAllocatesNothing(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	ctx := context.Background()
	xs := make([]float64, par.DefaultInlineLen)
	for i := range xs {
		xs[i] = float64(i)
	}
	sumOn := func(xs []float64, lo, hi int) float64 { return sumWith(nil, xs, lo, hi) }
	scaleOn := func(xs []float64, lo, hi int) { scaleWith(nil, xs, lo, hi) }
	before := p.Stats().Injected
	var sum float64
	require.Zero(t, testing.AllocsPerRun(100, func() {
		sum, err = par.ReduceRangeWithOn(ctx, p, xs, 0, len(xs), 0, sumOn, add)
	}))
	require.NoError(t, err)
	assert.Equal(t, float64(len(xs)*(len(xs)-1)/2), sum)
	require.Zero(t, testing.AllocsPerRun(100, func() {
		err = par.ForRangeWithOn(ctx, p, xs, 0, len(xs), scaleOn)
	}))
	require.NoError(t, err)
	assert.Equal(t, float64(2*(len(xs)-1)), xs[len(xs)-1])
	assert.Equal(t, before, p.Stats().Injected, "a short loop entered the pool")
}

// A short loop from outside checks what a long one checks, before and
// after its only chunk: an ended ctx (the body does not run), a closed
// pool (nor then), a ctx that ends while the body runs. It re-raises a
// panic or a Goexit as a *scheduler.Panic, as a loop in the pool does.
// The short path is written out apart from the one that enters the pool,
// so each form runs it here: the With On forms, and ForOn for the others.
func TestShortLoopsOnTheCallerCheckAsTheLongOnesDo(t *testing.T) {
	errWhy := errors.New("why")
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	closed, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	p.Close()
	closed.Close()
	open, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer open.Close()
	forms := map[string]func(ctx context.Context, p *scheduler.Pool, body func()) error{
		"ForRangeWithOn": func(ctx context.Context, p *scheduler.Pool, body func()) error {
			return par.ForRangeWithOn(ctx, p, body, 0, 3, func(body func(), _, _ int) { body() })
		},
		"ReduceRangeWithOn": func(ctx context.Context, p *scheduler.Pool, body func()) error {
			_, err := par.ReduceRangeWithOn(ctx, p, body, 0, 3, 0, func(body func(), lo, hi int) int { body(); return hi - lo }, func(a, b int) int { return a + b })
			return err
		},
		"ForOn": func(ctx context.Context, p *scheduler.Pool, body func()) error {
			return par.ForOn(ctx, p, 3, func(int) { body() })
		},
	}
	// A body's error comes before a ctx that ended while it ran.
	errBody := errors.New("body")
	ctx, cancel := context.WithCancelCause(context.Background())
	err = par.ForErrOn(ctx, open, 3, func(i int) error { cancel(errWhy); return errBody })
	assert.ErrorIs(t, err, errBody, "ForErrOn: the body's error and a ctx ended in the chunk")
	for name, form := range forms {
		ran := 0
		body := func() { ran++ }
		ended, cancel := context.WithCancelCause(context.Background())
		cancel(errWhy)
		assert.ErrorIs(t, form(ended, open, body), errWhy, "%s with an ended ctx", name)
		assert.ErrorIs(t, form(context.Background(), closed, body), scheduler.ErrClosed, "%s on a closed pool", name)
		assert.Zero(t, ran, "%s ran its body", name)

		ctx, cancel := context.WithCancelCause(context.Background())
		assert.ErrorIs(t, form(ctx, open, func() { cancel(errWhy) }), errWhy, "%s: ctx ended in its only chunk", name)

		for what, bad := range map[string]func(){"panic": func() { panic(errWhy) }, "Goexit": runtime.Goexit} {
			// On a goroutine of its own: a Goexit goes on after the
			// panic that replaced it is recovered.
			got := make(chan any, 1)
			go func() {
				defer func() { got <- recover() }()
				_ = form(context.Background(), open, bad)
			}()
			v := <-got
			require.IsType(t, &scheduler.Panic{}, v, "%s: %s", name, what)
		}
	}
}
