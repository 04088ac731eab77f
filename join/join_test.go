package join_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

var workerCounts = []int{1, 2, 4, 8}

// onPools runs f on a worker of a fresh pool of each size.
func onPools(t *testing.T, f func(t *testing.T, w *scheduler.Worker)) {
	for _, n := range workerCounts {
		t.Run(fmt.Sprintf("workers=%d", n), func(t *testing.T) {
			p, err := scheduler.New(scheduler.WithWorkers(n))
			require.NoError(t, err)
			defer p.Close()
			require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
				f(t, w)
				return nil
			}))
		})
	}
}

func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

func fibCall(w *scheduler.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := join.Call(w, fibCall, n-1, n-2)
	return a + b
}

func fibJoin(w *scheduler.Worker, n int) int {
	if n < 2 {
		return n
	}
	var a, b int
	join.Join(w,
		func(w *scheduler.Worker) { a = fibJoin(w, n-1) },
		func(w *scheduler.Worker) { b = fibJoin(w, n-2) })
	return a + b
}

func fibBoth(w *scheduler.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := join.Both(w,
		func(w *scheduler.Worker) int { return fibBoth(w, n-1) },
		func(w *scheduler.Worker) int { return fibBoth(w, n-2) })
	return a + b
}

func TestFib(t *testing.T) {
	n := 22
	if testing.Short() {
		n = 18
	}
	want := fibSeq(n)
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		assert.Equal(t, want, fibCall(w, n))
		assert.Equal(t, want, fibJoin(w, n))
		assert.Equal(t, want, fibBoth(w, n))
	})
}

// sum adds xs by splitting it in halves down to a grain.
func sum(w *scheduler.Worker, xs []int64) int64 {
	if len(xs) <= 64 {
		var s int64
		for _, x := range xs {
			s += x
		}
		return s
	}
	mid := len(xs) / 2
	var a, b int64
	join.Join(w, func(w *scheduler.Worker) { a = sum(w, xs[:mid]) }, func(w *scheduler.Worker) { b = sum(w, xs[mid:]) })
	return a + b
}

func TestParallelSum(t *testing.T) {
	for _, size := range []int{0, 1, 63, 64, 65, 1000, 100_003} {
		xs := make([]int64, size)
		var want int64
		for i := range xs {
			xs[i] = rand.Int64N(1000)
			want += xs[i]
		}
		onPools(t, func(t *testing.T, w *scheduler.Worker) {
			assert.Equal(t, want, sum(w, xs), "size %d", size)
		})
	}
}

// TestCallAllocatesNothing: Call with a top-level function allocates
// nothing in steady state, on one worker and with thieves about.
func TestCallAllocatesNothing(t *testing.T) {
	for _, n := range []int{1, 2} {
		if n > 1 && raceEnabled {
			continue // see raceEnabled
		}
		p, err := scheduler.New(scheduler.WithWorkers(n))
		require.NoError(t, err)
		var allocs float64
		require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
			fibCall(w, 15) // warm the frame cache
			allocs = testing.AllocsPerRun(20, func() { fibCall(w, 15) })

			return nil
		}))
		p.Close()
		if n == 1 {
			assert.Zero(t, allocs, "workers=%d", n)
		} else {
			// A thief's first steals may grow its frame cache; amortised
			// over 986 joins per run that must stay far below one.
			assert.Less(t, allocs, 1.0, "workers=%d", n)
		}
	}
}

// TestBothAllocatesOncePerFork: Both allocates b's closure and nothing
// else, where the same fib written with Join allocates b and the variable
// it assigns.
func TestBothAllocatesOncePerFork(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	forks := float64(fibForks(15))
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
		fibBoth(w, 15) // warm the frame cache
		// Bounds, not equalities: a stray allocation elsewhere in the
		// process may count too.
		assert.LessOrEqual(t, testing.AllocsPerRun(20, func() { fibBoth(w, 15) }), forks, "Both")
		assert.GreaterOrEqual(t, testing.AllocsPerRun(20, func() { fibJoin(w, 15) }), 2*forks, "Join")

		return nil
	}))
}

func TestJoinOutsidePool(t *testing.T) {
	var a, b bool
	require.NoError(t, join.On(context.Background(), nil, func(*scheduler.Worker) { a = true }, func(*scheduler.Worker) { b = true }))
	assert.True(t, a && b)
	x, y, err := join.CallOn(context.Background(), nil, func(_ *scheduler.Worker, n int) int { return n * 2 }, 3, 4)
	require.NoError(t, err)
	assert.Equal(t, 6, x)
	assert.Equal(t, 8, y)
	s, n, err := join.BothOn(context.Background(), nil,
		func(*scheduler.Worker) string { return "a" },
		func(*scheduler.Worker) int { return 2 })
	require.NoError(t, err)
	assert.Equal(t, "a", s)
	assert.Equal(t, 2, n)

	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	p.Close()
	assert.ErrorIs(t, join.On(context.Background(), p, func(*scheduler.Worker) {}, func(*scheduler.Worker) {}), scheduler.ErrClosed)
	_, _, err = join.BothOn(context.Background(), p, func(*scheduler.Worker) int { return 1 }, func(*scheduler.Worker) int { return 2 })
	assert.ErrorIs(t, err, scheduler.ErrClosed)
}

func TestNilFunctions(t *testing.T) {
	f := func(*scheduler.Worker) {}
	assert.PanicsWithValue(t, "weft/join: Join with a nil a (the first function): want two non-nil functions",
		func() { join.Join(nil, nil, f) })
	assert.PanicsWithValue(t, "weft/join: Join with a nil b (the second function): want two non-nil functions",
		func() { join.Join(nil, f, nil) })
	assert.PanicsWithValue(t, "weft/join: Call with a nil function", func() {
		join.Call[int, int](nil, nil, 1, 2)
	})
	g := func(*scheduler.Worker) int { return 0 }
	assert.PanicsWithValue(t, "weft/join: Both with a nil a (the first function): want two non-nil functions",
		func() { join.Both[int, int](nil, nil, g) })
	assert.PanicsWithValue(t, "weft/join: Both with a nil b (the second function): want two non-nil functions",
		func() { join.Both[int, int](nil, g, nil) })
	assert.PanicsWithValue(t, "weft/join: BothOn with a nil b (the second function): want two non-nil functions",
		func() { _, _, _ = join.BothOn[int, int](context.Background(), nil, g, nil) })
	nilWorker := "weft/join: nil worker: from outside the pool, use join.On, join.CallOn or join.BothOn"
	assert.PanicsWithValue(t, nilWorker, func() { join.Both(nil, g, g) })
	assert.PanicsWithValue(t, nilWorker, func() { join.Join(nil, f, f) })
	assert.PanicsWithValue(t, nilWorker, func() {
		join.Call(nil, func(*scheduler.Worker, int) int { return 0 }, 1, 2)
	})
	assert.PanicsWithValue(t, "weft/join: On with a nil a (the first function): want two non-nil functions",
		func() { _ = join.On(context.Background(), nil, nil, f) })
}

var errA, errB = errors.New("a"), errors.New("b")

// recoverPanic runs f and returns the *scheduler.Panic it raised.
func recoverPanic(t *testing.T, f func()) *scheduler.Panic {
	t.Helper()
	var r any
	func() {
		defer func() { r = recover() }()
		f()
	}()
	p, ok := r.(*scheduler.Panic)
	require.True(t, ok, "want a *scheduler.Panic, got %T (%v)", r, r)
	return p
}

func TestPanics(t *testing.T) {
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		var otherRan atomic.Bool
		spin := func(*scheduler.Worker) { otherRan.Store(true) }
		cases := []struct {
			name string
			a, b func(*scheduler.Worker)
			want error
		}{
			{"a", func(*scheduler.Worker) { panic(errA) }, spin, errA},
			{"b", spin, func(*scheduler.Worker) { panic(errB) }, errB},
			{"both: a wins", func(*scheduler.Worker) { panic(errA) }, func(*scheduler.Worker) { panic(errB) }, errA},
			{"nested", func(w *scheduler.Worker) {
				join.Join(w, spin, func(w *scheduler.Worker) { fibCall(w, 5); panic(errB) })
			}, spin, errB},
		}
		for _, c := range cases {
			otherRan.Store(false)
			p := recoverPanic(t, func() { join.Join(w, c.a, c.b) })
			assert.Same(t, c.want, p.Value, c.name)
			assert.Contains(t, string(p.Stack), "join_test.TestPanics", c.name)
			if c.name != "both: a wins" {
				assert.True(t, otherRan.Load(), "%s: the other half finished first", c.name)
			}
		}
		// The pool keeps working.
		assert.Equal(t, 55, fibCall(w, 10))
	})
}

func TestBothPanics(t *testing.T) {
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		var otherRan atomic.Bool
		spin := func(w *scheduler.Worker) int { otherRan.Store(true); return fibCall(w, 5) }
		fail := func(err error) func(*scheduler.Worker) int {
			return func(*scheduler.Worker) int { panic(err) }
		}
		cases := []struct {
			name string
			a, b func(*scheduler.Worker) int
			want error
		}{
			{"a", fail(errA), spin, errA},
			{"b", spin, fail(errB), errB},
			{"both: a wins", fail(errA), fail(errB), errA},
		}
		for _, c := range cases {
			otherRan.Store(false)
			p := recoverPanic(t, func() { join.Both(w, c.a, c.b) })
			assert.Same(t, c.want, p.Value, c.name)
			if c.name != "both: a wins" {
				assert.True(t, otherRan.Load(), "%s: the other half finished first", c.name)
			}
		}
		a, b := join.Both(w, spin, func(*scheduler.Worker) string { return "b" })
		assert.Equal(t, 5, a)
		assert.Equal(t, "b", b)
	})
}

func TestCallPanics(t *testing.T) {
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		f := func(_ *scheduler.Worker, n int) int {
			if n == 2 {
				panic(errB)
			}
			return n
		}
		p := recoverPanic(t, func() { join.Call(w, f, 1, 2) })
		assert.Same(t, errB, p.Value)
		a, b := join.Call(w, f, 1, 3)
		assert.Equal(t, []int{1, 3}, []int{a, b})
	})
}
