package par_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// TestOnFormsNilContext: the On forms take a nil ctx as
// context.Background() (par.on does so explicitly, and ForRangeOn, MapOn,
// ForEachSeqOn work with one), but ReduceRangeOn and MapReduceOn hand the
// nil ctx to run, which calls ctx.Done() on it: a nil-pointer panic from
// inside the pool.
func TestOnFormsNilContext(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	xs := seqOf(1000)
	add := func(a, b int) int { return a + b }
	//lint:ignore SA1012 a nil context is what is tested
	require.NoError(t, par.ForOn(nil, p, 1000, func(int) {}))
	assert.NotPanics(t, func() {
		//lint:ignore SA1012 a nil context is what is tested
		sum, err := par.ReduceRangeOn(nil, p, 0, 1000, 0, func(_ *scheduler.Worker, lo, hi int) int { return hi - lo }, add)
		assert.NoError(t, err)
		assert.Equal(t, 1000, sum)
	})
	assert.NotPanics(t, func() {
		//lint:ignore SA1012 a nil context is what is tested
		sum, err := par.MapReduceOn(nil, p, xs, 0, func(x int) int { return x }, add)
		assert.NoError(t, err)
		assert.Equal(t, 1000*999/2, sum)
	})
}

// TestOnFormsNilFunctions: the task forms refuse a nil function with
// a message naming it (TestNilFunctionPanics); the On forms let it through
// to a chunk, where it fails as a nil-pointer dereference on some worker
// (or, for an empty range, not at all).
func TestOnFormsNilFunctions(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	ctx := context.Background()
	add := func(a, b int) int { return a + b }
	cases := map[string]func(){
		"ForRangeOn": func() { _ = par.ForRangeOn(ctx, p, 0, 100, nil) },
		"ForOn":      func() { _ = par.ForOn(ctx, p, 100, nil) },
		"ForEachOn":  func() { _ = par.ForEachOn[int](ctx, p, seqOf(100), nil) },
		"MapOn":      func() { _, _ = par.MapOn[int, int](ctx, p, seqOf(100), nil) },
		"ReduceRangeOn/chunk": func() {
			_, _ = par.ReduceRangeOn[int](ctx, p, 0, 100, 0, nil, add)
		},
		"ReduceRangeOn/combine": func() {
			_, _ = par.ReduceRangeOn(ctx, p, 0, 100, 0, func(_ *scheduler.Worker, lo, hi int) int { return 0 }, nil)
		},
		"MapReduceOn/f":       func() { _, _ = par.MapReduceOn[int, int](ctx, p, seqOf(100), 0, nil, add) },
		"MapReduceOn/combine": func() { _, _ = par.MapReduceOn(ctx, p, seqOf(100), 0, func(x int) int { return x }, nil) },
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			v := func() (v any) {
				defer func() { v = recover() }()
				f()
				return nil
			}()
			s, ok := v.(string)
			assert.True(t, ok, "want a plain panic naming the nil function, got %T: %v", v, v)
			assert.Contains(t, s, "nil")
		})
	}
}
