package scheduler_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
	"github.com/weftrt/weft/slots"
)

// Once Run or Broadcast has returned, the task is finished, and
// Stats().Pending must not count it. The worker used to release the
// caller first and end the pending task after, so a caller that read
// Stats at once often still saw it (under -race in about half the
// rounds). Nothing but the order is at stake, so the test runs many
// rounds and counts every round that saw its own task.
func TestPendingIsZeroOnceTheCallReturns(t *testing.T) {
	rounds := 2000
	if testing.Short() {
		rounds = 300
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		call func(p *scheduler.Pool)
	}{
		{"run", func(p *scheduler.Pool) {
			_ = p.Run(ctx, func(*scheduler.Worker) error {
				return nil
			})
		}},
		{"run from Block", func(p *scheduler.Pool) {
			_ = p.Run(ctx, func(w *scheduler.Worker) error {
				w.Block(func() {
					_ = p.Run(ctx, func(*scheduler.Worker) error {
						return nil
					})
					assert.EqualValues(t, 1, p.Stats().Pending, "the slotless Run's task is still counted")
				})

				return nil
			})
		}},
		{"broadcast", func(p *scheduler.Pool) { _ = p.Broadcast(ctx, func(*scheduler.Worker) {}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pool(t, scheduler.WithWorkers(2), scheduler.WithSupplier(slots.NewFixed(2)))
			defer p.Close()
			seen := 0
			for range rounds {
				tc.call(p)
				if p.Stats().Pending != 0 {
					seen++
				}
			}
			require.Zero(t, seen, "rounds of %d where Stats().Pending counted a task whose call had returned", rounds)
		})
	}
}

// A supplier that calls runtime.Goexit in MarkSlotUsed for a Broadcast
// from outside ends the caller's goroutine, where Broadcast marks its
// slot. The slot, which the tracker already counts as used, was never
// released: lost for good, so that a bounded pool admitted one task
// fewer ever after. It must come back once the parts have run.
func TestBroadcastMarkGoexitLosesNoSlot(t *testing.T) {
	s := &goexitSupplier{}
	p := pool(t, scheduler.WithWorkers(2), scheduler.WithSupplier(s))
	s.onMark.Store(true)
	var parts atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = p.Broadcast(context.Background(), func(*scheduler.Worker) { parts.Add(1) })
		t.Error("Broadcast returned: the supplier's Goexit did not end its goroutine")
	}()
	hangGuard(t, "the Broadcast caller's goroutine ended by the supplier's Goexit", done)
	assert.EqualValues(t, 2, parts.Load(), "the goroutine ended before every part had run")
	st := p.Stats().Slots
	assert.Zero(t, st.InUse, "slot lost")
	assert.Zero(t, st.Reserved, "slot lost")
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	hangGuard(t, "Close after a Broadcast whose supplier called Goexit in MarkSlotUsed", closed)
}

// goexitOnDrop calls runtime.Goexit in ReleaseSlot, once, for a slot that
// was never used: the release of a task that Shutdown drops.
type goexitOnDrop struct {
	slots.Unlimited
	on atomic.Bool
}

func (s *goexitOnDrop) ReleaseSlot(r slots.ReleaseInfo) {
	if !r.Used && s.on.CompareAndSwap(true, false) {
		runtime.Goexit()
	}
}

// A Shutdown whose deadline has passed drops the queued tasks, releasing
// their slots on Shutdown's goroutine. A supplier's Goexit there ends that
// goroutine; the task being dropped was then left pending and its Run
// caller waiting, for ever, and every later Close waited for it too. The
// caller must get ErrGoexit (as when the release fails on a worker), the
// tasks still queued must run, and Close must return.
func TestDropReleaseGoexitHangsNothing(t *testing.T) {
	for _, kind := range []string{"run", "spawn"} {
		t.Run(kind, func(t *testing.T) {
			s := &goexitOnDrop{}
			handled := make(chan *scheduler.Panic, 1)
			p := pool(t, scheduler.WithWorkers(1), scheduler.WithSupplier(s),
				scheduler.WithPanicHandler(func(pp *scheduler.Panic) { handled <- pp }))
			ctx := context.Background()
			hold, holding := make(chan struct{}), make(chan struct{})
			first := make(chan error, 1)
			go func() {
				first <- p.Run(ctx, func(*scheduler.Worker) error {
					close(holding)
					<-hold
					return nil
				})
			}()
			<-holding
			// Queued behind the held worker: the one Shutdown drops first,
			// and one after it.
			dropped := make(chan any, 1)
			if kind == "run" {
				go func() {
					dropped <- catch(func() {
						_ = p.Run(ctx, func(*scheduler.Worker) error {
							return nil
						})
					})
				}()
			} else {
				require.NoError(t, p.Spawn(ctx, func(*scheduler.Worker) { t.Error("the dropped task ran") }))
			}
			for p.Stats().Pending != 2 {
				runtime.Gosched()
			}
			later := make(chan error, 1)
			go func() {
				later <- p.Run(ctx, func(*scheduler.Worker) error {
					return nil
				})
			}()
			for p.Stats().Pending != 3 {
				runtime.Gosched()
			}
			s.on.Store(true)
			shut := make(chan struct{})
			go func() {
				defer close(shut)
				c, cancel := context.WithCancel(ctx)
				cancel()
				_ = p.Shutdown(c)
				t.Error("Shutdown returned: the supplier's Goexit did not end its goroutine")
			}()
			<-shut
			close(hold)
			require.NoError(t, <-first)
			done := make(chan struct{})
			go func() {
				defer close(done)
				if kind == "run" {
					requireGoexitAsync(t, <-dropped)
				}
				assert.NoError(t, <-later, "a task queued after the dropped one")
				p.Close()
			}()
			hangGuard(t, "Run caller or Close after a Goexit in the release of a dropped task", done)
			assert.Zero(t, p.Stats().Pending)
			assert.Zero(t, p.Stats().Slots.InUse)
			assert.Zero(t, p.Stats().Slots.Reserved)
			assert.Empty(t, handled, "the panic handler got the dropped task's Goexit in ReleaseSlot, which a worker does not give it either")
		})
	}
}

// requireGoexitAsync is requireGoexit for a goroutine other than the test's.
func requireGoexitAsync(t *testing.T, v any) {
	t.Helper()
	p, ok := v.(*scheduler.Panic)
	if assert.True(t, ok, "want a *scheduler.Panic, got %#v", v) {
		assert.ErrorIs(t, p, scheduler.ErrGoexit)
	}
}

// A Shutdown whose deadline has passed re-raises a supplier's panic in
// the release of a dropped detached task that no handler takes. It
// raised it before it told the workers to exit, so they ran on until a
// Close; they must exit once their tasks return, as after any Shutdown
// whose deadline passed.
func TestShutdownPanicStillStopsWorkers(t *testing.T) {
	s := &panicky{Supplier: slots.NewFixed(2)}
	exited := make(chan int, 2)
	p := pool(t, scheduler.WithWorkers(1), scheduler.WithSupplier(s),
		scheduler.WithExitHook(func(i int) { exited <- i }))
	ctx := context.Background()
	hold, holding := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- p.Run(ctx, func(*scheduler.Worker) error {
			close(holding)
			<-hold
			return nil
		})
	}()
	<-holding
	require.NoError(t, p.Spawn(ctx, func(*scheduler.Worker) {}))
	s.onRelease.Store(true)
	c, cancel := context.WithCancel(ctx)
	cancel()
	v := catch(func() { _ = p.Shutdown(c) })
	require.IsType(t, &scheduler.Panic{}, v)
	assert.Equal(t, "supplier: release", v.(*scheduler.Panic).Value)
	s.onRelease.Store(false)
	close(hold)
	require.NoError(t, <-first)
	gone := make(chan struct{})
	go func() { <-exited; close(gone) }()
	hangGuard(t, "the worker after a Shutdown that re-raised a supplier's panic", gone)
	p.Close()
}

// The start and exit hooks are user code, and a runtime.Goexit in them
// (t.FailNow, require.* in a test's hook) must hang nothing. A Goexit in
// the exit hook ended the deferred call that was to count the worker
// out, and Close waited for it forever; one in the start hook ended the
// goroutine before its loop, the replacement ran the hook again, and so
// on for ever: no task ran and Close never returned.
func TestHookGoexitHangsNothing(t *testing.T) {
	for _, which := range []string{"start", "exit", "both"} {
		t.Run(which, func(t *testing.T) {
			var starts, exits atomic.Int32
			start := func(int) { // a hook that always fails: the worst case
				starts.Add(1)
				if which != "exit" {
					runtime.Goexit()
				}
			}
			exit := func(int) {
				exits.Add(1)
				if which != "start" {
					runtime.Goexit()
				}
			}
			p := pool(t, scheduler.WithWorkers(2), scheduler.WithStartHook(start), scheduler.WithExitHook(exit))
			done := make(chan struct{})
			var runs atomic.Int32
			go func() {
				defer close(done)
				for range 10 {
					assert.NoError(t, p.Run(context.Background(), func(*scheduler.Worker) error {
						runs.Add(1)
						return nil
					}))
				}
				assert.NoError(t, p.Broadcast(context.Background(), func(*scheduler.Worker) { runs.Add(1) }))
				p.Close()
			}()
			hangGuard(t, "Run, Broadcast and Close with a Goexit in the "+which+" hook", done)
			assert.EqualValues(t, 12, runs.Load())
			assert.Positive(t, starts.Load())
			assert.GreaterOrEqual(t, exits.Load(), int32(2), "a worker goroutine ended without its exit hook")
		})
	}
}

// Close called from a worker's exit hook would wait for that worker's
// goroutine, which runs the hook, forever. The hook used to run after the
// worker had forgotten its goroutine, so the call was not recognized as
// coming from the pool and hung silently; it must be refused as Close from
// a task is. (Close from the start hook is refused the same way: the
// worker knows its goroutine before the hook runs.)
func TestCloseFromExitHookIsRefused(t *testing.T) {
	var p *scheduler.Pool
	got := make(chan any, 1)
	var once atomic.Bool
	p, err := scheduler.New(scheduler.WithWorkers(1), scheduler.WithExitHook(func(int) {
		if !once.CompareAndSwap(false, true) {
			return
		}
		defer func() { got <- recover() }()
		p.Close()
	}))
	require.NoError(t, err)
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case v := <-got:
		assert.Contains(t, v, "exit hook", "Close from the exit hook")
	case <-closed:
		t.Fatal("Close returned before the exit hook reported")
	case <-time.After(20 * time.Second):
		t.Fatal("hang: Close from the exit hook waits for the hook's own goroutine")
	}
	hangGuard(t, "Close after a refused Close in the exit hook", closed)
}

// A start hook may enter its pool (Run runs inline there, and a Yield or
// a join's wait runs other jobs), and a job it runs so may call
// runtime.Goexit, which ends the goroutine inside the hook. The pool used
// to take that for the hook's own Goexit and start the replacement
// without the hook: the hook never failed, yet a worker ran tasks without
// its setup (a locked thread, per-worker state).
func TestJobGoexitInStartHookKeepsTheHook(t *testing.T) {
	var p atomic.Pointer[scheduler.Pool]
	var starts atomic.Int64
	inHook, gate := make(chan struct{}), make(chan struct{})
	pl := pool(t, scheduler.WithWorkers(1), scheduler.WithStartHook(func(int) {
		if starts.Add(1) == 2 { // the first replacement's: p is set
			inHook <- struct{}{}
			<-gate
			_ = p.Load().Run(context.Background(), func(w *scheduler.Worker) error {
				w.Yield()
				return nil
			})
		}
	}), scheduler.WithPanicHandler(func(*scheduler.Panic) {}))
	p.Store(pl)
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A task's Goexit: the replacement runs the hook, which waits.
		assert.NoError(t, pl.Spawn(ctx, func(*scheduler.Worker) { runtime.Goexit() }))
		<-inHook
		// Queued while the hook waits; the hook's Yield runs it, and its
		// Goexit ends the goroutine inside the hook.
		assert.NoError(t, pl.Spawn(ctx, func(*scheduler.Worker) { runtime.Goexit() }))
		close(gate)
		assert.NoError(t, pl.Run(ctx, func(*scheduler.Worker) error {
			return nil
		}))
		pl.Close()
	}()
	hangGuard(t, "a job's Goexit inside the start hook", done)
	s := pl.Stats()
	assert.EqualValues(t, 2, s.Replaced)
	assert.EqualValues(t, 1+s.Replaced, starts.Load(), "a worker goroutine started without the start hook, which never failed")
}

// The job that ends the goroutine inside the start hook may be the hook's
// own (a task of a scope the hook opens) and fail every time: the hook is
// run again only once, and the goroutine after that starts without it, so
// that the pool does not replace goroutines for ever and Close returns.
func TestHookWhoseOwnJobAlwaysGoexitsHangsNothing(t *testing.T) {
	var p atomic.Pointer[scheduler.Pool]
	var starts atomic.Int64
	pl := pool(t, scheduler.WithWorkers(1), scheduler.WithStartHook(func(int) {
		if starts.Add(1) > 1 { // not the first goroutine's: p is set
			_ = scope.On(context.Background(), p.Load(), func(s *scope.Scope) {
				s.Spawn(func(*scope.Scope) { runtime.Goexit() })
			})
		}
	}), scheduler.WithPanicHandler(func(*scheduler.Panic) {}))
	p.Store(pl)
	done := make(chan struct{})
	var ran atomic.Bool
	go func() {
		defer close(done)
		// A task's Goexit: the replacement runs the hook, which fails.
		assert.NoError(t, pl.Spawn(context.Background(), func(*scheduler.Worker) { runtime.Goexit() }))
		assert.NoError(t, pl.Run(context.Background(), func(*scheduler.Worker) error {
			ran.Store(true)
			return nil
		}))
		pl.Close()
	}()
	hangGuard(t, "a start hook whose own job always calls Goexit", done)
	assert.True(t, ran.Load())
	// The first goroutine, the one after the task's Goexit and its retry
	// ran the hook; the last one did without.
	assert.EqualValues(t, 3, starts.Load())
	assert.EqualValues(t, 3, pl.Stats().Replaced)
}
