package scheduler_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
	"github.com/weftrt/weft/slots"
)

// catch runs f and returns what it panicked with, or nil.
func catch(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

func pool(t *testing.T, opts ...scheduler.Option) *scheduler.Pool {
	t.Helper()
	p, err := scheduler.New(opts...)
	require.NoError(t, err)
	return p
}

// requireGoexit asserts that v is the *Panic a task's Goexit turns into.
func requireGoexit(t *testing.T, v any) {
	t.Helper()
	p, ok := v.(*scheduler.Panic)
	require.True(t, ok, "want a *scheduler.Panic, got %#v", v)
	require.ErrorIs(t, p, scheduler.ErrGoexit)
}

// TestGoexitInTask: runtime.Goexit in a task (what t.FailNow does) fails
// the task's waiter with ErrGoexit instead of hanging it, the worker
// goroutine is replaced, and the pool keeps working and closes.
func TestGoexitInTask(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, workers := range []int{1, 2} {
		p := pool(t, scheduler.WithWorkers(workers))
		ctx := context.Background()
		requireGoexit(t, catch(func() {
			_ = p.Run(ctx, func(*scheduler.Worker) error {
				runtime.Goexit()
				return nil
			})
		}))

		// in the stolen or inline half of a join, and in a scope task
		requireGoexit(t, catch(func() {
			_ = join.On(context.Background(), p, func(*scheduler.Worker) {}, func(*scheduler.Worker) { runtime.Goexit() })
		}))
		requireGoexit(t, catch(func() {
			_, _, _ = join.BothOn(context.Background(), p,
				func(*scheduler.Worker) int { runtime.Goexit(); return 0 },
				func(*scheduler.Worker) int { return 1 })
		}))
		requireGoexit(t, catch(func() {
			_, _, _ = join.BothOn(context.Background(), p,
				func(*scheduler.Worker) int { return 0 },
				func(*scheduler.Worker) int { runtime.Goexit(); return 1 })
		}))
		requireGoexit(t, catch(func() {
			_ = scope.On(context.Background(), p, func(s *scope.Scope) { s.Spawn(func(*scope.Scope) { runtime.Goexit() }) })
		}))

		var ran atomic.Int32
		for range 2 * workers {
			require.NoError(t, p.Run(ctx, func(*scheduler.Worker) error {
				ran.Add(1)
				return nil
			}))
		}
		require.NoError(t, p.Broadcast(ctx, func(*scheduler.Worker) { ran.Add(1) }))
		assert.Equal(t, int32(3*workers), ran.Load())
		assert.GreaterOrEqual(t, p.Stats().Replaced, uint64(5))
		p.Close()
	}
}

// TestGoexitInSpawnGoesToHandler: a detached task's Goexit reaches the
// panic handler.
func TestGoexitInSpawnGoesToHandler(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	got := make(chan *scheduler.Panic, 1)
	p := pool(t, scheduler.WithWorkers(1), scheduler.WithPanicHandler(func(p *scheduler.Panic) { got <- p }))
	require.NoError(t, p.Spawn(context.Background(), func(*scheduler.Worker) { runtime.Goexit() }))
	requireGoexit(t, <-got)
	p.Close()
}

// TestFatalInTaskFailsTheTest: t.Fatal inside a task fails the test that
// called Run, instead of hanging it. The failing test runs in a child
// process, which must exit with a failure and the fatal message.
func TestFatalInTaskFailsTheTest(t *testing.T) {
	if os.Getenv("WEFT_FATAL_CHILD") == "1" {
		p, err := scheduler.New(scheduler.WithWorkers(1))
		require.NoError(t, err)
		defer p.Close()
		_ = p.Run(context.Background(), func(*scheduler.Worker) error {
			t.Fatal("fatal inside a task")
			return nil
		})
		return
	}
	if testing.Short() {
		t.Skip("runs a child test process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFatalInTaskFailsTheTest$", "-test.count=1")
	cmd.Env = append(os.Environ(), "WEFT_FATAL_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the child test passed:\n%s", out)
	assert.Contains(t, string(out), "fatal inside a task")
	assert.Contains(t, string(out), "--- FAIL: TestFatalInTaskFailsTheTest")
}

// panicky is a supplier (Fixed underneath) that panics in MarkSlotUsed or
// ReleaseSlot when told to.
type panicky struct {
	slots.Supplier
	onMark, onRelease atomic.Bool
}

func (s *panicky) MarkSlotUsed(u slots.UsedInfo) {
	s.Supplier.MarkSlotUsed(u)
	if s.onMark.Load() {
		panic("supplier: mark")
	}
}

func (s *panicky) ReleaseSlot(r slots.ReleaseInfo) {
	s.Supplier.ReleaseSlot(r)
	if s.onRelease.Load() {
		panic("supplier: release")
	}
}

// TestSupplierPanics: a supplier's panic in MarkSlotUsed or ReleaseSlot
// reaches whoever waits for the task (Run's and Broadcast's callers, the
// panic handler for Spawn), the slot is back, and the pool keeps working.
func TestSupplierPanics(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	handled := make(chan *scheduler.Panic, 1)
	s := &panicky{Supplier: slots.NewFixed(2)}
	var leaks atomic.Int32
	p := pool(t, scheduler.WithWorkers(2),
		scheduler.WithSupplier(s, slots.WithLeakHook(func(slots.Leak) { leaks.Add(1) })),
		scheduler.WithPanicHandler(func(p *scheduler.Panic) { handled <- p }))
	defer p.Close()
	defer func() {
		runtime.GC() // leak detection runs at garbage collection
		runtime.GC()
		assert.Zero(t, leaks.Load(), "permits dropped without release")
	}()
	ctx := context.Background()
	settled := func() {
		t.Helper()
		st := p.Stats().Slots
		assert.Zero(t, st.InUse, "slots in use")
		assert.Zero(t, st.Reserved, "slots reserved")
	}
	for _, tc := range []struct {
		name string
		flag *atomic.Bool
		want string
	}{{"mark", &s.onMark, "supplier: mark"}, {"release", &s.onRelease, "supplier: release"}} {
		t.Run(tc.name, func(t *testing.T) {
			tc.flag.Store(true)
			v := catch(func() {
				_ = p.Run(ctx, func(*scheduler.Worker) error {
					return nil
				})
			})
			require.IsType(t, &scheduler.Panic{}, v)
			assert.Equal(t, tc.want, v.(*scheduler.Panic).Value)

			v = catch(func() { _ = p.Broadcast(ctx, func(*scheduler.Worker) {}) })
			require.IsType(t, &scheduler.Panic{}, v)
			assert.Equal(t, tc.want, v.(*scheduler.Panic).Value)

			require.NoError(t, p.Spawn(ctx, func(*scheduler.Worker) {}))
			assert.Equal(t, tc.want, (<-handled).Value)
			tc.flag.Store(false)

			require.NoError(t, p.Run(ctx, func(*scheduler.Worker) error {
				return nil
			}))
			settled()
		})
	}
}

// TestRunFromOwnTask: Run, join.On, scope.On and Broadcast called from a
// task of the same pool work (inline, on the calling worker) instead of
// blocking the worker on itself, even on a one-worker pool.
func TestRunFromOwnTask(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, workers := range []int{1, 3} {
		p := pool(t, scheduler.WithWorkers(workers))
		ctx := context.Background()
		var inner, parts atomic.Int32
		require.NoError(t, p.Run(ctx, func(w *scheduler.Worker) error {
			require.NoError(t, p.Run(ctx, func(v *scheduler.Worker) error {
				assert.Same(t, w, v, "Run from a task runs on the task's worker")
				inner.Add(1)

				return nil
			}))
			require.NoError(t, join.On(context.Background(), p, func(*scheduler.Worker) { inner.Add(1) }, func(*scheduler.Worker) { inner.Add(1) }))
			require.NoError(t, scope.On(context.Background(), p, func(s *scope.Scope) { s.Spawn(func(*scope.Scope) { inner.Add(1) }) }))
			require.NoError(t, p.Broadcast(ctx, func(*scheduler.Worker) { parts.Add(1) }))

			return nil
		}))
		assert.Equal(t, int32(4), inner.Load())
		assert.Equal(t, int32(workers), parts.Load(), "one Broadcast part per worker")
		p.Close()
	}
}

// TestStopFromOwnTaskPanics: Close and Shutdown from a task of the pool
// panic with a message naming the mistake instead of waiting for
// themselves; the pool still closes from outside.
func TestStopFromOwnTaskPanics(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := pool(t, scheduler.WithWorkers(1))
	for _, stop := range []func(){p.Close, func() { _ = p.Shutdown(context.Background()) }} {
		v := catch(func() {
			_ = p.Run(context.Background(), func(*scheduler.Worker) error {
				stop()
				return nil
			})
		})
		require.IsType(t, &scheduler.Panic{}, v)
		assert.Contains(t, v.(*scheduler.Panic).Value, "called from a task of the pool it stops")
	}
	p.Close()
}

// TestMisusedPools: nil and zero pools, nil contexts and closing the
// default pool panic with messages that say what to do.
func TestMisusedPools(t *testing.T) {
	var nilPool *scheduler.Pool
	var zero scheduler.Pool
	noop := func(*scheduler.Worker) {}
	task := func(*scheduler.Worker) error { return nil }
	live := pool(t, scheduler.WithWorkers(1))
	defer live.Close()
	for _, tc := range []struct {
		name string
		call func()
		want string
	}{
		{"nil pool Run", func() { _ = nilPool.Run(context.Background(), task) }, "Run on a nil *Pool"},
		{"nil pool Spawn", func() { _ = nilPool.Spawn(context.Background(), noop) }, "Spawn on a nil *Pool"},
		{"nil pool Close", func() { nilPool.Close() }, "Close on a nil *Pool"},
		{"zero pool Run", func() { _ = zero.Run(context.Background(), task) }, "did not make"},
		{"zero pool Broadcast", func() { _ = zero.Broadcast(context.Background(), noop) }, "did not make"},
		//lint:ignore SA1012 a nil context is the misuse under test
		{"nil ctx Run", func() { _ = live.Run(nil, task) }, "nil context"},
		//lint:ignore SA1012 a nil context is the misuse under test
		{"nil ctx Spawn", func() { _ = live.Spawn(nil, noop) }, "nil context"},
		{"default Close", func() { scheduler.Default().Close() }, "default pool"},
		{"default Shutdown", func() { _ = scheduler.Default().Shutdown(context.Background()) }, "default pool"},
	} {
		v := catch(tc.call)
		require.NotNil(t, v, tc.name)
		assert.Contains(t, v, tc.want, tc.name)
	}
	require.NoError(t, scheduler.Default().Run(context.Background(), task), "the default pool still works")
}

// TestShutdownDoneContextIdlePool: with nothing pending, Shutdown returns
// nil even if its context is already done (http.Server's rule), every time.
func TestShutdownDoneContextIdlePool(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 50 {
		p := pool(t, scheduler.WithWorkers(2))
		require.NoError(t, p.Shutdown(ctx))
		p.Close()
	}
}

// waiting is a supplier (Fixed underneath) that reports when a caller
// starts waiting in ReserveSlot.
type waiting struct {
	slots.Supplier
	entered chan struct{}
}

func (s *waiting) ReserveSlot(ctx context.Context, rc slots.ReserveContext) (slots.Permit, error) {
	s.entered <- struct{}{}
	return s.Supplier.ReserveSlot(ctx, rc)
}

// TestCloseWakesSlotWaiters: a Run waiting for a slot returns ErrClosed
// when the pool starts shutting down, not when its own context ends;
// with a context that can never end and with one that can.
func TestCloseWakesSlotWaiters(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Run("background", func(t *testing.T) { closeWakesSlotWaiters(t, context.Background()) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t.Run("cancellable", func(t *testing.T) { closeWakesSlotWaiters(t, ctx) })
}

func closeWakesSlotWaiters(t *testing.T, ctx context.Context) {
	s := &waiting{Supplier: slots.NewFixed(1), entered: make(chan struct{}, 2)}
	p := pool(t, scheduler.WithWorkers(1), scheduler.WithSupplier(s))
	release := make(chan struct{})
	require.NoError(t, p.Spawn(ctx, func(*scheduler.Worker) { <-release })) // holds the only slot
	<-s.entered
	errc := make(chan error)
	go func() {
		errc <- p.Run(ctx, func(*scheduler.Worker) error {
			return nil
		})
	}()
	<-s.entered // the Run is in ReserveSlot now
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	err := <-errc
	assert.True(t, errors.Is(err, scheduler.ErrClosed), "got %v", err)
	close(release)
	<-closed
}
