package par_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// TestBadLengthOptionsPanic: MinLen and MaxLen refuse a length below 1,
// naming it. Before, MinLen(n < 1) was read as MinLen(1) and MaxLen(n < 1)
// as no bound, so a length computed wrong (a zero, an overflow) went
// unnoticed.
func TestBadLengthOptionsPanic(t *testing.T) {
	for _, n := range []int{0, -1, -7} {
		assert.PanicsWithValue(t, minLenPanic(n), func() { par.MinLen(n) })
		assert.PanicsWithValue(t, maxLenPanic(n), func() { par.MaxLen(n) })
	}
	assert.NotPanics(t, func() { par.MinLen(1); par.MaxLen(1) })
}

func minLenPanic(n int) string {
	return "weft/par: MinLen(" + strconv.Itoa(n) + "): a chunk holds at least 1 element; MinLen(1) lets every element be a chunk of its own"
}

func maxLenPanic(n int) string {
	return "weft/par: MaxLen(" + strconv.Itoa(n) + "): a chunk holds at least 1 element; leave MaxLen out for no bound"
}

// TestMinLenOverMaxLenPanics: MinLen longer than MaxLen asks for chunks
// that cannot exist; every form refuses it, naming both, when the loop
// starts (before any element runs, and for an empty loop too), in either
// order of the options. An On form refuses it on the caller's goroutine.
// Before, MinLen silently won.
func TestMinLenOverMaxLenPanics(t *testing.T) {
	const want = "weft/par: MinLen(50) with MaxLen(5): the shortest chunk would be longer than the longest"
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	ctx := context.Background()
	add := func(a, b int) int { return a + b }
	type form struct {
		name    string
		outside bool // an On form: called from the test's goroutine
		run     func(w *scheduler.Worker, n int, ran func(), opts []par.Option)
	}
	forms := []form{
		{"For", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			par.For(w, n, func(int) { ran() }, opts...)
		}},
		{"ForRange", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			par.ForRange(w, 0, n, func(*scheduler.Worker, int, int) { ran() }, opts...)
		}},
		{"ForEach", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			par.ForEach(w, seqOf(n), func(int, *int) { ran() }, opts...)
		}},
		{"ForErr", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			_ = par.ForErr(ctx, w, n, func(int) error { ran(); return nil }, opts...)
		}},
		{"ForRangeErr", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			_ = par.ForRangeErr(ctx, w, 0, n, func(*scheduler.Worker, int, int) error { ran(); return nil }, opts...)
		}},
		{"Map", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			par.Map(w, seqOf(n), func(x int) int { ran(); return x }, opts...)
		}},
		{"MapErr", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			_, _ = par.MapErr(ctx, w, seqOf(n), func(x int) (int, error) { ran(); return x, nil }, opts...)
		}},
		{"Filter", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			par.Filter(w, seqOf(n), func(int) bool { ran(); return true }, opts...)
		}},
		{"Reduce", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			par.Reduce(w, seqOf(n), 0, func(a, b int) int { ran(); return a + b }, opts...)
		}},
		{"ReduceRange", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			par.ReduceRange(w, 0, n, 0, func(*scheduler.Worker, int, int) int { ran(); return 0 }, add, opts...)
		}},
		{"MapReduce", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			par.MapReduce(w, seqOf(n), 0, func(x int) int { ran(); return x }, add, opts...)
		}},
		{"ForRangeWith", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			par.ForRangeWith(w, ran, 0, n, func(_ *scheduler.Worker, ran func(), _, _ int) { ran() }, opts...)
		}},
		{"ReduceRangeWith", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			par.ReduceRangeWith(w, ran, 0, n, 0, func(_ *scheduler.Worker, ran func(), _, _ int) int { ran(); return 0 }, add, opts...)
		}},
		{"ForEachSeq", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			par.ForEachSeq(w, slices.Values(seqOf(n)), func(int) { ran() }, opts...)
		}},
		{"ForEachSeq2", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			par.ForEachSeq2(w, slices.All(seqOf(n)), func(int, int) { ran() }, opts...)
		}},
		{"ForEachSeqErr", false, func(w *scheduler.Worker, n int, ran func(), opts []par.Option) {
			_ = par.ForEachSeqErr(ctx, w, slices.Values(seqOf(n)), func(int) error { ran(); return nil }, opts...)
		}},
		{"ForRangeOn", true, func(_ *scheduler.Worker, n int, ran func(), opts []par.Option) {
			_ = par.ForRangeOn(ctx, p, 0, n, func(int, int) { ran() }, opts...)
		}},
		{"ForOn", true, func(_ *scheduler.Worker, n int, ran func(), opts []par.Option) {
			_ = par.ForOn(ctx, p, n, func(int) { ran() }, opts...)
		}},
		{"ForEachOn", true, func(_ *scheduler.Worker, n int, ran func(), opts []par.Option) {
			_ = par.ForEachOn(ctx, p, seqOf(n), func(int, *int) { ran() }, opts...)
		}},
		{"ForRangeErrOn", true, func(_ *scheduler.Worker, n int, ran func(), opts []par.Option) {
			_ = par.ForRangeErrOn(ctx, p, 0, n, func(int, int) error { ran(); return nil }, opts...)
		}},
		{"MapOn", true, func(_ *scheduler.Worker, n int, ran func(), opts []par.Option) {
			_, _ = par.MapOn(ctx, p, seqOf(n), func(x int) int { ran(); return x }, opts...)
		}},
		{"ReduceRangeOn", true, func(_ *scheduler.Worker, n int, ran func(), opts []par.Option) {
			_, _ = par.ReduceRangeOn(ctx, p, 0, n, 0, func(int, int) int { ran(); return 0 }, add, opts...)
		}},
		{"MapReduceOn", true, func(_ *scheduler.Worker, n int, ran func(), opts []par.Option) {
			_, _ = par.MapReduceOn(ctx, p, seqOf(n), 0, func(x int) int { ran(); return x }, add, opts...)
		}},
		{"ForEachSeqErrOn", true, func(_ *scheduler.Worker, n int, ran func(), opts []par.Option) {
			_ = par.ForEachSeqErrOn(ctx, p, slices.Values(seqOf(n)), func(int) error { ran(); return nil }, opts...)
		}},
		{"ForRangeWithOn", true, func(_ *scheduler.Worker, n int, ran func(), opts []par.Option) {
			_ = par.ForRangeWithOn(ctx, p, ran, 0, n, func(ran func(), _, _ int) { ran() }, opts...)
		}},
		{"ReduceRangeWithOn", true, func(_ *scheduler.Worker, n int, ran func(), opts []par.Option) {
			_, _ = par.ReduceRangeWithOn(ctx, p, ran, 0, n, 0, func(ran func(), _, _ int) int { ran(); return 0 }, add, opts...)
		}},
	}
	orders := map[string][]par.Option{
		"MinLen first": {par.MinLen(50), par.MaxLen(5)},
		"MaxLen first": {par.MaxLen(5), par.MinLen(50)},
	}
	for _, f := range forms {
		for order, opts := range orders {
			for _, n := range []int{0, 100} {
				ran := false
				call := func(w *scheduler.Worker) {
					assert.PanicsWithValue(t, want, func() { f.run(w, n, func() { ran = true }, opts) },
						"%s, %s, n=%d", f.name, order, n)
				}
				if f.outside {
					call(nil)
				} else {
					require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error { call(w); return nil }))
				}
				assert.False(t, ran, "%s, %s, n=%d: the loop ran before refusing its options", f.name, order, n)
			}
		}
	}
}
