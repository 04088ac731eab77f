package par_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// TestOnFormsNilContext: every On form refuses a nil ctx on the caller's
// goroutine, naming itself, before anything runs, as scheduler.Pool.Run,
// join.On and scope.On do: one rule for every entry from outside.
func TestOnFormsNilContext(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	xs := seqOf(1000)
	add := func(a, b int) int { return a + b }
	ran := false
	body := func(int) { ran = true }
	var nilCtx context.Context
	for name, call := range map[string]func(){
		"ForOn":         func() { _ = par.ForOn(nilCtx, p, 1000, body) },
		"ForErrOn":      func() { _ = par.ForErrOn(nilCtx, p, 10, func(int) error { ran = true; return nil }) },
		"ForRangeOn":    func() { _ = par.ForRangeOn(nilCtx, p, 0, 10, func(int, int) { ran = true }) },
		"ForRangeErrOn": func() { _ = par.ForRangeErrOn(nilCtx, p, 0, 10, func(int, int) error { ran = true; return nil }) },
		"ForEachOn":     func() { _ = par.ForEachOn(nilCtx, p, xs, func(int, *int) { ran = true }) },
		"ForEachErrOn":  func() { _ = par.ForEachErrOn(nilCtx, p, xs, func(int, *int) error { ran = true; return nil }) },
		"MapOn":         func() { _, _ = par.MapOn(nilCtx, p, xs, func(x int) int { ran = true; return x }) },
		"MapErrOn":      func() { _, _ = par.MapErrOn(nilCtx, p, xs, func(x int) (int, error) { ran = true; return x, nil }) },
		"ReduceRangeOn": func() {
			_, _ = par.ReduceRangeOn(nilCtx, p, 0, 1000, 0, func(lo, hi int) int { ran = true; return 0 }, add)
		},
		"MapReduceOn":  func() { _, _ = par.MapReduceOn(nilCtx, p, xs, 0, func(x int) int { ran = true; return x }, add) },
		"ForEachSeqOn": func() { _ = par.ForEachSeqOn(nilCtx, p, slices.Values(xs), body) },
		"ForEachSeqErrOn": func() {
			_ = par.ForEachSeqErrOn(nilCtx, p, slices.Values(xs), func(int) error { ran = true; return nil })
		},
		"ForRangeWithOn": func() { _ = par.ForRangeWithOn(nilCtx, p, xs, 0, 10, func([]int, int, int) { ran = true }) },
		"ReduceRangeWithOn": func() {
			_, _ = par.ReduceRangeWithOn(nilCtx, p, xs, 0, 10, 0, func([]int, int, int) int { ran = true; return 0 }, add)
		},
	} {
		assert.PanicsWithValue(t, "weft/par: "+name+" with a nil context: pass context.Background() or context.TODO()", call, name)
		assert.False(t, ran, "%s ran its body with a nil context", name)
	}
}

// TestTaskErrFormsNilContext: the task forms that take a context refuse a
// nil one as the On forms do, naming themselves, before anything runs.
// They used to read it as context.Background, while the package doc said
// that a nil context panics in every form.
func TestTaskErrFormsNilContext(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	xs := seqOf(1000)
	add := func(a, b int) int { return a + b }
	var nilCtx context.Context
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
		ran := false
		for name, call := range map[string]func(){
			"ForErr": func() { _ = par.ForErr(nilCtx, w, 1000, func(int) error { ran = true; return nil }) },
			"ForRangeErr": func() {
				_ = par.ForRangeErr(nilCtx, w, 0, 10, func(*scheduler.Worker, int, int) error { ran = true; return nil })
			},
			"ForEachErr": func() { _ = par.ForEachErr(nilCtx, w, xs, func(int, *int) error { ran = true; return nil }) },
			"MapErr":     func() { _, _ = par.MapErr(nilCtx, w, xs, func(x int) (int, error) { ran = true; return x, nil }) },
			"ReduceRangeErr": func() {
				_, _ = par.ReduceRangeErr(nilCtx, w, 0, 1000, 0, func(*scheduler.Worker, int, int) (int, error) { ran = true; return 0, nil }, add)
			},
			"MapReduceErr": func() {
				_, _ = par.MapReduceErr(nilCtx, w, xs, 0, func(x int) (int, error) { ran = true; return x, nil }, add)
			},
			"ForEachSeqErr": func() {
				_ = par.ForEachSeqErr(nilCtx, w, slices.Values(xs), func(int) error { ran = true; return nil })
			},
		} {
			assert.PanicsWithValue(t, "weft/par: "+name+" with a nil context: pass context.Background() or context.TODO()", call, name)
			assert.False(t, ran, "%s ran its body with a nil context", name)
		}
		return nil
	}))
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
			_, _ = par.ReduceRangeOn(ctx, p, 0, 100, 0, func(lo, hi int) int { return 0 }, nil)
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
