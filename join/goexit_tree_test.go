package join_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
)

// tree forks a binary tree of depth d; the leaf numbered bad calls
// Goexit. running counts leaves in progress.
func goexitTree(w *scheduler.Worker, d int, id *atomic.Int32, bad int32, running *atomic.Int32, kind int) {
	if d == 0 {
		running.Add(1)
		defer running.Add(-1)
		if id.Add(1) == bad {
			runtime.Goexit()
		}
		for range 50 {
			runtime.Gosched()
		}
		return
	}
	k := (kind + d) % 3
	if kind >= 3 {
		k = kind - 3
	}
	switch k {
	case 0:
		join.Join(w, func(w *scheduler.Worker) { goexitTree(w, d-1, id, bad, running, kind) },
			func(w *scheduler.Worker) { goexitTree(w, d-1, id, bad, running, kind) })
	case 1:
		join.Call(w, func(w *scheduler.Worker, _ int) int { goexitTree(w, d-1, id, bad, running, kind); return 0 }, 0, 1)
	default:
		scope.Run(w, func(s *scope.Scope) {
			s.Spawn(func(s *scope.Scope) { goexitTree(s.Worker(), d-1, id, bad, running, kind) })
			goexitTree(s.Worker(), d-1, id, bad, running, kind)
		})
	}
}

func TestGoexitInTrees(t *testing.T) {
	for _, only := range []int{-1, 3, 4, 5} {
		t.Run(map[int]string{-1: "mixed", 3: "Join", 4: "Call", 5: "scope"}[only], func(t *testing.T) { goexitTrees(t, only) })
	}
}

func goexitTrees(t *testing.T, only int) {
	p, err := scheduler.New(scheduler.WithWorkers(3), scheduler.WithHeartbeat(time.Nanosecond))
	require.NoError(t, err)
	defer p.Close()
	for i := range 200 {
		var id, running atomic.Int32
		var v any
		func() {
			defer func() { v = recover() }()
			_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
				kind := i % 3
				if only >= 0 {
					kind = only
				}
				goexitTree(w, 6, &id, int32(1+i%64), &running, kind)
				return nil
			})
		}()
		require.IsType(t, &scheduler.Panic{}, v, i)
		require.True(t, errors.Is(v.(*scheduler.Panic), scheduler.ErrGoexit), i)
		require.Zero(t, running.Load(), "iteration %d: leaves still running when the caller got Goexit", i)
	}
}

// goexitLeaves is goexitTree with several leaves that call Goexit: a
// worker whose join waits, in its deferred guard, for a half that a thief
// runs after the first Goexit may meet another one in a job it runs
// meanwhile. The caller must still be released only once every leaf has
// returned.
func TestSeveralGoexitsInTrees(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(4), scheduler.WithHeartbeat(time.Nanosecond))
	require.NoError(t, err)
	defer p.Close()
	trees := 100
	if testing.Short() {
		trees = 20
	}
	for i := range trees {
		var running atomic.Int32
		var v any
		func() {
			defer func() { v = recover() }()
			_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
				goexitLeaves(w, 7, &running, i%3)
				return nil
			})
		}()
		require.IsType(t, &scheduler.Panic{}, v, i)
		require.True(t, errors.Is(v.(*scheduler.Panic), scheduler.ErrGoexit), i)
		require.Zero(t, running.Load(), "iteration %d: leaves still running when the caller got Goexit", i)
	}
}

// goexitLeaves forks a binary tree of depth d whose every eighth leaf
// calls Goexit; the others yield for a while, so that halves are stolen.
func goexitLeaves(w *scheduler.Worker, d int, running *atomic.Int32, kind int) {
	if d == 0 {
		running.Add(1)
		defer running.Add(-1)
		for range 50 {
			runtime.Gosched()
		}
		if rand.IntN(8) == 0 {
			runtime.Goexit()
		}
		return
	}
	switch (kind + d) % 3 {
	case 0:
		join.Join(w, func(w *scheduler.Worker) { goexitLeaves(w, d-1, running, kind) },
			func(w *scheduler.Worker) { goexitLeaves(w, d-1, running, kind) })
	case 1:
		join.Call(w, func(w *scheduler.Worker, _ int) int { goexitLeaves(w, d-1, running, kind); return 0 }, 0, 1)
	default:
		join.Both(w, func(w *scheduler.Worker) int { goexitLeaves(w, d-1, running, kind); return 0 },
			func(w *scheduler.Worker) int { goexitLeaves(w, d-1, running, kind); return 0 })
	}
}
