package par_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// countWith is a ForRangeWith body: it uses only its parameters.
func countWith(_ *scheduler.Worker, v visits, lo, hi int) {
	for i := lo; i < hi; i++ {
		v[i].Add(1)
	}
}

func TestForRangeWithVisitsEveryIndexOnce(t *testing.T) {
	for _, opts := range [][]par.Option{nil, {par.MinLen(1), par.MaxLen(3)}} {
		each(t, func(t *testing.T, w *scheduler.Worker, n int) {
			v := make(visits, n+5)
			par.ForRangeWith(w, v, 5, n+5, countWith, opts...)
			v[5:].requireOnce(t)
			for i := range 5 {
				require.Zero(t, v[i].Load())
			}
		})
	}
}

// joinWith concatenates its strings: not commutative, so a result out
// of range order shows.
func joinWith(_ *scheduler.Worker, xs []string, lo, hi int) string {
	return strings.Join(xs[lo:hi], "")
}
func concatStrings(a, b string) string { return a + b }

func TestReduceRangeWithCombinesInOrder(t *testing.T) {
	each(t, func(t *testing.T, w *scheduler.Worker, n int) {
		xs := make([]string, n)
		for i := range xs {
			xs[i] = strconv.Itoa(i%10) + ","
		}
		want := strings.Join(xs, "")
		assert.Equal(t, want, par.ReduceRangeWith(w, xs, 0, n, "", joinWith, concatStrings, par.MaxLen(7)))
		assert.Equal(t, want, par.ReduceRangeWith(w, xs, 0, n, "", joinWith, concatStrings))
	})
}

// With a body that captures nothing and local data passed as env, a loop
// short enough to run inline allocates nothing at all: what a closure
// over the same data would cost is the reason the With forms exist.
func TestWithFormsAllocateNothing(t *testing.T) {
	onOne(t, func(w *scheduler.Worker) {
		xs := make([]float64, par.DefaultInlineLen)
		for i := range xs {
			xs[i] = float64(i)
		}
		var sum float64
		require.Zero(t, testing.AllocsPerRun(100, func() {
			sum = par.ReduceRangeWith(w, xs, 0, len(xs), 0, sumWith, add)
		}))
		assert.Equal(t, float64(len(xs)*(len(xs)-1)/2), sum)
		require.Zero(t, testing.AllocsPerRun(100, func() {
			par.ForRangeWith(w, xs, 0, len(xs), scaleWith)
		}))
		assert.Equal(t, float64(2*(len(xs)-1)), xs[len(xs)-1])
	})
}

func sumWith(_ *scheduler.Worker, xs []float64, lo, hi int) (s float64) {
	for _, x := range xs[lo:hi] {
		s += x
	}
	return s
}

// scaleWith sets xs[i] to 2i: the same result however often it runs.
func scaleWith(_ *scheduler.Worker, xs []float64, lo, hi int) {
	for i := lo; i < hi; i++ {
		xs[i] = 2 * float64(i)
	}
}

func TestWithFormsNilFunctionPanics(t *testing.T) {
	onOne(t, func(w *scheduler.Worker) {
		assert.PanicsWithValue(t, "weft/par: ForRangeWith with a nil body function", func() {
			par.ForRangeWith[int](w, 0, 0, 0, nil)
		})
		assert.PanicsWithValue(t, "weft/par: ReduceRangeWith with a nil chunk function", func() {
			par.ReduceRangeWith[int](w, 0, 0, 1, 0, nil, func(a, b int) int { return a + b })
		})
		assert.PanicsWithValue(t, "weft/par: ReduceRangeWith with a nil combine function", func() {
			par.ReduceRangeWith(w, 0, 0, 1, 0, func(*scheduler.Worker, int, int, int) int { return 0 }, nil)
		})
		assert.PanicsWithValue(t, "weft/par: ForRangeWithOn with a nil body function", func() {
			_ = par.ForRangeWithOn[int](context.Background(), nil, 0, 0, 0, nil)
		})
		assert.PanicsWithValue(t, "weft/par: ReduceRangeWithOn with a nil chunk function", func() {
			_, _ = par.ReduceRangeWithOn[int](context.Background(), nil, 0, 0, 1, 0, nil, func(a, b int) int { return a + b })
		})
		assert.PanicsWithValue(t, "weft/par: ReduceRangeWithOn with a nil combine function", func() {
			_, _ = par.ReduceRangeWithOn(context.Background(), nil, 0, 0, 1, 0, func(int, int, int) int { return 0 }, nil)
		})
		assert.PanicsWithValue(t, "weft/par: nil worker: from outside the pool, use the On forms (ForOn, MapOn, ...)", func() {
			par.ForRangeWith(nil, 0, 0, 1, func(*scheduler.Worker, int, int, int) {})
		})
	})
}
