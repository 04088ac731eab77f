package scheduler_test

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/sleep"
)

func newPool(t *testing.T, opts ...scheduler.Option) *scheduler.Pool {
	t.Helper()
	p, err := scheduler.New(opts...)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p
}

func TestNewWorkerCount(t *testing.T) {
	for _, n := range []int{-1, 0, sleep.MaxWorkers + 1} {
		_, err := scheduler.New(scheduler.WithWorkers(n))
		assert.ErrorIs(t, err, scheduler.ErrWorkers, "n=%d", n)
	}
	p := newPool(t)
	assert.Equal(t, runtime.GOMAXPROCS(0), p.Workers())
	p8 := newPool(t, scheduler.WithWorkers(8)) // more workers than cores
	assert.Equal(t, 8, p8.Workers())
}

func TestRunOnWorker(t *testing.T) {
	p := newPool(t, scheduler.WithWorkers(3))
	var idx int
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
		idx = w.Index()
		assert.Same(t, p, w.Pool())
		return nil
	}))
	assert.True(t, idx >= 0 && idx < 3)
}

func TestRunPanicPropagatesAndPoolSurvives(t *testing.T) {
	p := newPool(t, scheduler.WithWorkers(2))
	boom := errors.New("boom")
	r := func() (r any) {
		defer func() { r = recover() }()
		_ = p.Run(context.Background(), func(*scheduler.Worker) error { panic(boom) })
		return nil
	}()
	pan, ok := r.(*scheduler.Panic)
	require.True(t, ok, "got %T", r)
	assert.Same(t, boom, pan.Value)
	assert.ErrorIs(t, pan, boom)
	assert.Contains(t, string(pan.Stack), "TestRunPanicPropagatesAndPoolSurvives")
	ran := false
	require.NoError(t, p.Run(context.Background(), func(*scheduler.Worker) error {
		ran = true
		return nil
	}))
	assert.True(t, ran)
}

func TestUseAfterClose(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	p.Close()
	p.Close() // idempotent
	ctx := context.Background()
	assert.ErrorIs(t, p.Run(ctx, func(*scheduler.Worker) error {
		return nil
	}), scheduler.ErrClosed)
	assert.ErrorIs(t, p.Spawn(ctx, func(*scheduler.Worker) {}), scheduler.ErrClosed)
	assert.ErrorIs(t, p.Broadcast(ctx, func(*scheduler.Worker) {}), scheduler.ErrClosed)
}

func TestNilFunctions(t *testing.T) {
	p := newPool(t, scheduler.WithWorkers(1))
	ctx := context.Background()
	assert.PanicsWithValue(t, "weft/scheduler: Run with a nil function", func() { _ = p.Run(ctx, nil) })
	assert.PanicsWithValue(t, "weft/scheduler: Spawn with a nil function", func() { _ = p.Spawn(ctx, nil) })
	assert.PanicsWithValue(t, "weft/scheduler: Broadcast with a nil function", func() { _ = p.Broadcast(ctx, nil) })
	assert.PanicsWithValue(t, "weft/scheduler: New: option 2 of 2 is nil: want an Option such as WithWorkers(n)",
		func() { _, _ = scheduler.New(scheduler.WithWorkers(1), nil) })
}

// TestBadSleepTunablesNameTheOption: sleep's own error, wrapped so that it
// names the option the value came from.
func TestBadSleepTunablesNameTheOption(t *testing.T) {
	_, err := scheduler.New(scheduler.WithSleep(sleep.Tunables{SearchRounds: sleep.MaxSearchRounds + 1}))
	require.ErrorIs(t, err, sleep.ErrTunables)
	assert.Contains(t, err.Error(), "WithSleep")
	assert.Contains(t, err.Error(), strconv.Itoa(sleep.MaxSearchRounds+1))
}

func TestCancelledContext(t *testing.T) {
	p := newPool(t, scheduler.WithWorkers(1))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, p.Run(ctx, func(*scheduler.Worker) error {
		t.Error("ran")
		return nil
	}), context.Canceled)
	assert.ErrorIs(t, p.Spawn(ctx, func(*scheduler.Worker) { t.Error("ran") }), context.Canceled)
}

// TestCloseRunsAcceptedWork: Close waits for every accepted task, and no
// worker goroutine survives it.
func TestCloseRunsAcceptedWork(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p, err := scheduler.New(scheduler.WithWorkers(3))
	require.NoError(t, err)
	var ran atomic.Int64
	const tasks = 200
	for range tasks {
		require.NoError(t, p.Spawn(context.Background(), func(*scheduler.Worker) {
			time.Sleep(50 * time.Microsecond)
			ran.Add(1)
		}))
	}
	p.Close()
	assert.Equal(t, int64(tasks), ran.Load())
	assert.Zero(t, p.Stats().Pending)
}

// TestShutdownDeadline: when the deadline passes, unstarted tasks are
// dropped (their Run callers get ErrClosed) and Shutdown reports it.
func TestShutdownDeadline(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	release := make(chan struct{})
	started := make(chan struct{})
	require.NoError(t, p.Spawn(context.Background(), func(*scheduler.Worker) {
		close(started)
		<-release
	}))
	<-started
	queued := make(chan error)
	go func() {
		queued <- p.Run(context.Background(), func(*scheduler.Worker) error {
			t.Error("ran")
			return nil
		})
	}()
	waitFor(t, func() bool { return p.Stats().Pending == 2 })

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, p.Shutdown(ctx), context.DeadlineExceeded)
	assert.ErrorIs(t, <-queued, scheduler.ErrClosed)
	close(release)
	p.Close()
	assert.Zero(t, p.Stats().Pending)
}

func TestSpawnPanicGoesToHandler(t *testing.T) {
	got := make(chan *scheduler.Panic, 1)
	p := newPool(t, scheduler.WithWorkers(2), scheduler.WithPanicHandler(func(p *scheduler.Panic) { got <- p }))
	require.NoError(t, p.Spawn(context.Background(), func(*scheduler.Worker) { panic("detached") }))
	pan := <-got
	assert.Equal(t, "detached", pan.Value)
	require.NoError(t, p.Run(context.Background(), func(*scheduler.Worker) error {
		return nil
	}), "pool still works")
}

func TestHooks(t *testing.T) {
	var mu sync.Mutex
	started, exited := map[int]bool{}, map[int]bool{}
	p, err := scheduler.New(scheduler.WithWorkers(4), scheduler.WithName("hooks"),
		scheduler.WithStartHook(func(i int) { mu.Lock(); started[i] = true; mu.Unlock() }),
		scheduler.WithExitHook(func(i int) { mu.Lock(); exited[i] = true; mu.Unlock() }))
	require.NoError(t, err)
	require.NoError(t, p.Broadcast(context.Background(), func(*scheduler.Worker) {}))
	p.Close()
	want := map[int]bool{0: true, 1: true, 2: true, 3: true}
	assert.Equal(t, want, started)
	assert.Equal(t, want, exited)
}

func TestBroadcastRunsOncePerWorker(t *testing.T) {
	p := newPool(t, scheduler.WithWorkers(5))
	var mu sync.Mutex
	seen := map[int]int{}
	for range 20 {
		require.NoError(t, p.Broadcast(context.Background(), func(w *scheduler.Worker) {
			mu.Lock()
			seen[w.Index()]++
			mu.Unlock()
		}))
	}
	assert.Equal(t, map[int]int{0: 20, 1: 20, 2: 20, 3: 20, 4: 20}, seen)
}

func TestBroadcastPanic(t *testing.T) {
	p := newPool(t, scheduler.WithWorkers(3))
	var ran atomic.Int32
	assert.Panics(t, func() {
		_ = p.Broadcast(context.Background(), func(w *scheduler.Worker) {
			ran.Add(1)
			if w.Index() == 1 {
				panic("part 1")
			}
		})
	})
	assert.EqualValues(t, 3, ran.Load(), "every part ran before the panic moved on")
}

func TestYield(t *testing.T) {
	p := newPool(t, scheduler.WithWorkers(1))
	var yielded, other bool
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
		require.NoError(t, p.Spawn(context.Background(), func(*scheduler.Worker) { other = true }))
		yielded = w.Yield()
		assert.False(t, w.Yield(), "nothing left")
		return nil
	}))
	assert.True(t, yielded)
	assert.True(t, other)
}

func TestDefaultPool(t *testing.T) {
	d := scheduler.Default()
	assert.Same(t, d, scheduler.Default())
	// Sized by GOMAXPROCS when first used; go test -cpu changes it later.
	assert.Positive(t, d.Workers())
	require.NoError(t, d.Run(context.Background(), func(*scheduler.Worker) error {
		return nil
	}))
}

func TestStats(t *testing.T) {
	p := newPool(t, scheduler.WithWorkers(2))
	for range 10 {
		require.NoError(t, p.Run(context.Background(), func(*scheduler.Worker) error {
			return nil
		}))
	}
	s := p.Stats()
	assert.Equal(t, 2, s.Workers)
	assert.EqualValues(t, 10, s.Injected)
	assert.GreaterOrEqual(t, s.Executed, uint64(10))
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "condition not reached")
		time.Sleep(100 * time.Microsecond)
	}
}

// TestOptionErrorsNameTheValue: a bad option fails New with its sentinel
// and the value the caller gave, not a stand-in.
func TestOptionErrorsNameTheValue(t *testing.T) {
	_, err := scheduler.New(scheduler.WithWorkers(0))
	assert.ErrorIs(t, err, scheduler.ErrWorkers)
	assert.Contains(t, err.Error(), ": 0 (want")
	for _, d := range []time.Duration{0, -time.Millisecond} {
		_, err := scheduler.New(scheduler.WithHeartbeat(d))
		assert.ErrorIs(t, err, scheduler.ErrHeartbeat, "d=%v", d)
		assert.Contains(t, err.Error(), d.String(), "d=%v", d)
	}
	p, err := scheduler.New(scheduler.WithHeartbeat(time.Microsecond))
	require.NoError(t, err)
	p.Close()
}
