package par_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// visits counts calls per index, so a test can check each was made once.
type visits []atomic.Int32

func (v visits) requireOnce(t *testing.T) {
	t.Helper()
	for i := range v {
		require.EqualValues(t, 1, v[i].Load(), "index %d", i)
	}
}

func TestForVisitsEveryIndexOnce(t *testing.T) {
	for _, opts := range [][]par.Option{nil, {par.MinLen(1), par.MaxLen(3)}, {par.MinLen(3), par.MaxLen(5)}} {
		each(t, func(t *testing.T, w *scheduler.Worker, n int) {
			v := make(visits, n)
			par.For(w, n, func(i int) { v[i].Add(1) }, opts...)
			v.requireOnce(t)
		})
	}
}

func TestForRangeChunksTileTheRange(t *testing.T) {
	each(t, func(t *testing.T, w *scheduler.Worker, n int) {
		v := make(visits, n+10)
		par.ForRange(w, 10, n+10, func(_ *scheduler.Worker, lo, hi int) {
			assert.Less(t, lo, hi, "empty chunk")
			for i := lo; i < hi; i++ {
				v[i].Add(1)
			}
		}, par.MinLen(1), par.MaxLen(13))
		v[10:].requireOnce(t)
		for i := range 10 {
			require.Zero(t, v[i].Load())
		}
	})
}

func TestMaxLenBoundsChunks(t *testing.T) {
	each(t, func(t *testing.T, w *scheduler.Worker, n int) {
		var longest atomic.Int64
		par.ForRange(w, 0, n, func(_ *scheduler.Worker, lo, hi int) {
			for l := longest.Load(); int64(hi-lo) > l && !longest.CompareAndSwap(l, int64(hi-lo)); l = longest.Load() {
			}
		}, par.MinLen(1), par.MaxLen(10))
		assert.LessOrEqual(t, longest.Load(), int64(10))
	})
}

func TestForEachUpdatesInPlace(t *testing.T) {
	each(t, func(t *testing.T, w *scheduler.Worker, n int) {
		xs := make([]int, n)
		par.ForEach(w, xs, func(i int, x *int) { *x += i + 1 })
		for i, x := range xs {
			require.Equal(t, i+1, x)
		}
	})
}

func TestMapKeepsOrder(t *testing.T) {
	each(t, func(t *testing.T, w *scheduler.Worker, n int) {
		xs := make([]int, n)
		for i := range xs {
			xs[i] = i
		}
		got := par.Map(w, xs, strconv.Itoa, par.MaxLen(10))
		require.Len(t, got, n)
		for i, s := range got {
			require.Equal(t, strconv.Itoa(i), s)
		}
	})
}

func TestReduceCombinesInOrder(t *testing.T) {
	each(t, func(t *testing.T, w *scheduler.Worker, n int) {
		words := make([]string, n)
		for i := range words {
			words[i] = strconv.Itoa(i%10) + " "
		}
		// Concatenation is associative but not commutative: any reordering shows.
		got := par.Reduce(w, words, "", func(a, b string) string { return a + b }, par.MaxLen(10))
		require.Equal(t, strings.Join(words, ""), got)
	})
}

func TestMapReduceAndReduceRange(t *testing.T) {
	each(t, func(t *testing.T, w *scheduler.Worker, n int) {
		xs := make([]int64, n)
		var want int64
		for i := range xs {
			xs[i] = int64(i)
			want += int64(i) * int64(i)
		}
		add := func(a, b int64) int64 { return a + b }
		assert.Equal(t, want, par.MapReduce(w, xs, 0, func(x int64) int64 { return x * x }, add))
		assert.Equal(t, want, par.ReduceRange(w, 0, n, 0, func(_ *scheduler.Worker, lo, hi int) int64 {
			var s int64
			for _, x := range xs[lo:hi] {
				s += x * x
			}
			return s
		}, add, par.MaxLen(50)))
	})
}

func TestFilterKeepsOrder(t *testing.T) {
	each(t, func(t *testing.T, w *scheduler.Worker, n int) {
		xs := make([]int, n)
		for i := range xs {
			xs[i] = i
		}
		odd := func(x int) bool { return x%2 == 1 }
		want := slices.DeleteFunc(slices.Clone(xs), func(x int) bool { return !odd(x) })
		got := par.Filter(w, xs, odd, par.MaxLen(10))
		require.Equal(t, len(want), len(got))
		if len(want) > 0 {
			require.Equal(t, want, got)
		}
	})
}

func TestNilWorkerPanics(t *testing.T) {
	assert.PanicsWithValue(t, "weft/par: nil worker: from outside the pool, use the On forms (ForOn, MapOn, ...)",
		func() { par.For(nil, 10, func(int) {}) })
}

// A nil Option is named by its position, with what is allowed, instead of
// failing as a nil function call.
func TestNilOptionPanics(t *testing.T) {
	onOne(t, func(w *scheduler.Worker) {
		assert.PanicsWithValue(t, "weft/par: option 2 of 2 is nil: want an Option such as MinLen(n) or MaxLen(n)",
			func() { par.For(w, 100, func(int) {}, par.MinLen(4), nil) })
		assert.PanicsWithValue(t, "weft/par: option 1 of 1 is nil: want an Option such as MinLen(n) or MaxLen(n)",
			func() { par.ForEach(w, []int{1, 2, 3}, func(int, *int) {}, nil) })
	})
}

// TestNilFunctionPanics: a nil body fails at the call, naming the loop
// and the parameter, even for an empty loop.
func TestNilFunctionPanics(t *testing.T) {
	onOne(t, func(w *scheduler.Worker) {
		assert.PanicsWithValue(t, "weft/par: For with a nil body function", func() { par.For(w, 0, nil) })
		assert.PanicsWithValue(t, "weft/par: Map with a nil f function", func() { par.Map[int, int](w, nil, nil) })
		assert.PanicsWithValue(t, "weft/par: Reduce with a nil combine function", func() { par.Reduce(w, []int{1}, 0, nil) })
		assert.PanicsWithValue(t, "weft/par: ForEachSeqErr with a nil body function", func() {
			_ = par.ForEachSeqErr[int](context.Background(), w, func(func(int) bool) {}, nil)
		})
	})
}

// A loop of a few expensive elements is split without options: the probe
// times the first element and cuts the rest into chunks of one.
func TestExpensiveElementsAreSplit(t *testing.T) {
	onOne(t, func(w *scheduler.Worker) {
		var chunks atomic.Int64
		par.ForRange(w, 0, 40, func(_ *scheduler.Worker, lo, hi int) {
			chunks.Add(1)
			time.Sleep(time.Duration(hi-lo) * 50 * time.Microsecond)
		})
		assert.Greater(t, chunks.Load(), int64(20))
	})
}

// TestDearElementsGetAChunkEach: a chunk holds at most leafMaxWork (50
// µs) of work by the probe's estimate, where the loop has elements to
// spare, so that an idle worker never waits long for its victim's next
// join. 256 rows of 45 µs on two workers run a row a chunk: with chunks
// of two rows (100 µs), the workers of matmul-256-nested ended 70 µs
// apart. Cheap elements still get chunks of leavesPerWorker per worker,
// and a few expensive ones share a chunk no more.
func TestDearElementsGetAChunkEach(t *testing.T) {
	assert.Equal(t, 1, par.Grain(256, 2, 45_000), "rows of 45 µs")
	assert.Equal(t, 2, par.Grain(256, 2, 20_000), "rows of 20 µs: two to a chunk")
	assert.Equal(t, 10_000_000/(2*64), par.Grain(10_000_000, 2, 0.5), "cheap elements: 64 chunks a worker")
}
