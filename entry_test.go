package weft_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
)

// entry is one way into the pool from outside, called with ctx on p; ran
// reports whether the task's function ran.
type entry struct {
	name string
	pkg  string
	call func(ctx context.Context, p *scheduler.Pool, ran *atomic.Bool) error
}

// entries lists every form that enters the pool from outside. Each must
// follow one rule: ctx and a pool first, a nil ctx panics naming the form,
// a ctx ended before the call gives its cause without running anything.
func entries() []entry {
	task := func(ran *atomic.Bool) func(*scheduler.Worker) { return func(*scheduler.Worker) { ran.Store(true) } }
	xs := []int{1, 2, 3}
	return []entry{
		{"Run", "scheduler", func(ctx context.Context, p *scheduler.Pool, ran *atomic.Bool) error {
			return p.Run(ctx, func(*scheduler.Worker) error { ran.Store(true); return nil })
		}},
		{"RunValue", "scheduler", func(ctx context.Context, p *scheduler.Pool, ran *atomic.Bool) error {
			_, err := scheduler.RunValue(ctx, p, func(*scheduler.Worker) (int, error) { ran.Store(true); return 1, nil })
			return err
		}},
		{"Spawn", "scheduler", func(ctx context.Context, p *scheduler.Pool, ran *atomic.Bool) error {
			done := make(chan struct{})
			if err := p.Spawn(ctx, func(*scheduler.Worker) { ran.Store(true); close(done) }); err != nil {
				return err
			}
			<-done
			return nil
		}},
		{"Broadcast", "scheduler", func(ctx context.Context, p *scheduler.Pool, ran *atomic.Bool) error {
			return p.Broadcast(ctx, func(*scheduler.Worker) { ran.Store(true) })
		}},
		{"On", "join", func(ctx context.Context, p *scheduler.Pool, ran *atomic.Bool) error {
			return join.On(ctx, p, task(ran), task(ran))
		}},
		{"CallOn", "join", func(ctx context.Context, p *scheduler.Pool, ran *atomic.Bool) error {
			_, _, err := join.CallOn(ctx, p, func(_ *scheduler.Worker, x int) int { ran.Store(true); return x }, 1, 2)
			return err
		}},
		{"BothOn", "join", func(ctx context.Context, p *scheduler.Pool, ran *atomic.Bool) error {
			f := func(*scheduler.Worker) int { ran.Store(true); return 0 }
			_, _, err := join.BothOn(ctx, p, f, f)
			return err
		}},
		{"On", "scope", func(ctx context.Context, p *scheduler.Pool, ran *atomic.Bool) error {
			return scope.On(ctx, p, func(*scope.Scope) { ran.Store(true) })
		}},
		{"GroupOn", "scope", func(ctx context.Context, p *scheduler.Pool, ran *atomic.Bool) error {
			return scope.GroupOn(ctx, p, func(*scope.Scope) error { ran.Store(true); return nil })
		}},
		{"ForOn", "par", func(ctx context.Context, p *scheduler.Pool, ran *atomic.Bool) error {
			return par.ForOn(ctx, p, 3, func(int) { ran.Store(true) })
		}},
		{"MapErrOn", "par", func(ctx context.Context, p *scheduler.Pool, ran *atomic.Bool) error {
			_, err := par.MapErrOn(ctx, p, xs, func(x int) (int, error) { ran.Store(true); return x, nil })
			return err
		}},
		{"ReduceRangeOn", "par", func(ctx context.Context, p *scheduler.Pool, ran *atomic.Bool) error {
			_, err := par.ReduceRangeOn(ctx, p, 0, 3, 0, func(lo, hi int) int { ran.Store(true); return hi - lo },
				func(a, b int) int { return a + b })
			return err
		}},
		{"ForEachSeqOn", "par", func(ctx context.Context, p *scheduler.Pool, ran *atomic.Bool) error {
			return par.ForEachSeqOn(ctx, p, slices.Values(xs), func(int) { ran.Store(true) })
		}},
	}
}

func TestEntriesRefuseANilContextByName(t *testing.T) {
	for _, e := range entries() {
		var ran atomic.Bool
		v := func() (v any) {
			defer func() { v = recover() }()
			_ = e.call(nil, scheduler.Default(), &ran) //nolint:staticcheck // a nil ctx is the misuse under test
			return nil
		}()
		require.NotNil(t, v, "%s.%s accepted a nil context", e.pkg, e.name)
		assert.Contains(t, v, "weft/"+e.pkg+": "+e.name+" with a nil context", "%s.%s", e.pkg, e.name)
		assert.False(t, ran.Load(), "%s.%s ran its task with a nil context", e.pkg, e.name)
	}
}

func TestEntriesGiveTheCauseOfAnEndedContext(t *testing.T) {
	why := errors.New("why")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(why)
	for _, e := range entries() {
		var ran atomic.Bool
		err := e.call(ctx, scheduler.Default(), &ran)
		assert.ErrorIs(t, err, why, "%s.%s", e.pkg, e.name)
		assert.False(t, ran.Load(), "%s.%s ran its task with an ended context", e.pkg, e.name)
	}
}

func TestEntriesTakeANilPoolAsTheDefault(t *testing.T) {
	for _, e := range entries() {
		if e.name == "Run" || e.name == "Spawn" || e.name == "Broadcast" {
			continue // methods: a nil *Pool is a misuse, named (scheduler's tests)
		}
		var ran atomic.Bool
		require.NoError(t, e.call(context.Background(), nil, &ran), "%s.%s", e.pkg, e.name)
		assert.True(t, ran.Load(), "%s.%s did not run its task", e.pkg, e.name)
	}
}

func TestEntriesReportAClosedPool(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	p.Close()
	for _, e := range entries() {
		var ran atomic.Bool
		assert.ErrorIs(t, e.call(context.Background(), p, &ran), scheduler.ErrClosed, "%s.%s", e.pkg, e.name)
		assert.False(t, ran.Load(), "%s.%s ran on a closed pool", e.pkg, e.name)
	}
}

// Run and RunValue return what the task returns: its error, and its result.
func TestRunReturnsTheTasksErrorAndResult(t *testing.T) {
	errTask := errors.New("task failed")
	err := scheduler.Default().Run(context.Background(), func(*scheduler.Worker) error { return errTask })
	assert.ErrorIs(t, err, errTask)
	n, err := scheduler.RunValue(context.Background(), nil, func(*scheduler.Worker) (int, error) { return 42, nil })
	require.NoError(t, err)
	assert.Equal(t, 42, n)
	n, err = scheduler.RunValue(context.Background(), nil, func(*scheduler.Worker) (int, error) { return 7, errTask })
	assert.ErrorIs(t, err, errTask)
	assert.Zero(t, n, "RunValue returned a result beside the task's error")
}
