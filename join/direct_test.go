package join_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// deepDepth is well past the forks a worker keeps (core's maxAhead), so
// that the joins near the leaves run as plain calls.
const deepDepth = 14

// deepSum sums the leaves of a complete tree of the given depth with
// join.Call, calling leaf at each leaf with its index.
func deepSum(w *scheduler.Worker, depth int, leaf func(i int) int) int {
	type node struct{ depth, index int }
	var walk func(w *scheduler.Worker, n node) int
	walk = func(w *scheduler.Worker, n node) int {
		if n.depth == 0 {
			return leaf(n.index)
		}
		a, b := join.Call(w, walk, node{n.depth - 1, 2 * n.index}, node{n.depth - 1, 2*n.index + 1})
		return a + b
	}
	return walk(w, node{depth, 0})
}

// A deep Call tree computes what a shallow one does, on any pool size.
func TestDeepCallTree(t *testing.T) {
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		got := deepSum(w, deepDepth, func(i int) int { return i })
		n := 1 << deepDepth
		assert.Equal(t, n*(n-1)/2, got)
	})
}

// A panic in a leaf far below the forks a worker keeps still reaches
// Call's caller as a *scheduler.Panic carrying the original value, and
// the pool goes on working: the plain calls between pass it on to the
// join that made the nearest fork, which settles its other half first.
func TestDeepCallPanicReachesCaller(t *testing.T) {
	boom := errors.New("deep leaf")
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		for _, bad := range []int{0, 1 << 10, 1<<deepDepth - 1} {
			p := recoverPanic(t, func() {
				deepSum(w, deepDepth, func(i int) int {
					if i == bad {
						panic(boom)
					}
					return 1
				})
			})
			assert.Same(t, boom, p.Value, "leaf %d", bad)
			assert.Contains(t, string(p.Stack), "direct_test.go", "the stack is where the panic happened")
		}
		assert.Equal(t, 1<<12, deepSum(w, 12, func(int) int { return 1 }), "the pool still works")
	})
}

// runtime.Goexit in a deep leaf ends Run's task with a *scheduler.Panic
// carrying ErrGoexit, as in a shallow join.
func TestDeepCallGoexit(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	var v any
	func() {
		defer func() { v = recover() }()
		_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
			deepSum(w, deepDepth, func(i int) int {
				if i == 1<<10 {
					runtime.Goexit()
				}
				return 1
			})
			return nil
		})
	}()
	require.IsType(t, &scheduler.Panic{}, v)
	assert.ErrorIs(t, v.(*scheduler.Panic), scheduler.ErrGoexit)
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
		assert.Equal(t, 1<<10, deepSum(w, 10, func(int) int { return 1 }))
		return nil
	}))
}

// A worker deep in plain calls still gives its older forks to a worker
// that is idle: each plain call counts toward the heartbeat, which
// publishes the worker's oldest fork, the root's second half, for the
// other worker to take. The first leaf keeps making deep Calls, each one
// a plain call, until the second half has started elsewhere; without
// the heartbeat's count in plain calls it would wait for ever, so it
// gives up after a bound (a count of calls, not a clock).
func TestDeepDirectCallsStillPublish(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	const bound = 50_000_000
	var secondStarted atomic.Bool
	calls := 0
	noop := func(*scheduler.Worker, int) int { return 0 }
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
		join.Call(w, func(w *scheduler.Worker, half int) int {
			if half == 1 {
				secondStarted.Store(true)
				return 0
			}
			return deepSum(w, deepDepth, func(i int) int {
				for i == 0 && !secondStarted.Load() && calls < bound {
					join.Call(w, noop, 0, 0)
					calls++
				}
				return 0
			})
		}, 0, 1)
		return nil
	}))
	assert.Less(t, calls, bound, "the root's second half was never published to the idle worker")
}
