package intake_test

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// goexitSupplier calls runtime.Goexit (t.FailNow, require.* in a test's
// supplier) once in MarkSlotUsed or ReleaseSlot when armed. In
// ReleaseSlot it does so after the inner supplier took the slot back, on
// the first release that releaseWhen accepts (any release if it is nil);
// releaseWhen sees every release while armed, so it may count them.
// fired, if set, is closed when the ReleaseSlot Goexit happens.
type goexitSupplier struct {
	slots.Supplier
	markArmed, releaseArmed atomic.Bool
	releaseWhen             func(slots.ReleaseInfo) bool
	fired                   chan struct{}
}

func (s *goexitSupplier) MarkSlotUsed(u slots.UsedInfo) {
	s.Supplier.MarkSlotUsed(u)
	if s.markArmed.CompareAndSwap(true, false) {
		runtime.Goexit()
	}
}

func (s *goexitSupplier) ReleaseSlot(r slots.ReleaseInfo) {
	s.Supplier.ReleaseSlot(r)
	if !s.releaseArmed.Load() || (s.releaseWhen != nil && !s.releaseWhen(r)) {
		return
	}
	if s.releaseArmed.CompareAndSwap(true, false) {
		if s.fired != nil {
			close(s.fired)
		}
		runtime.Goexit()
	}
}

// A supplier that calls runtime.Goexit in MarkSlotUsed: the task is
// returned unrun and runs again, its slot comes back, Shutdown returns.
func TestSupplierMarkGoexitLosesNoSlot(t *testing.T) {
	sup := &goexitSupplier{Supplier: slots.NewFixed(1)}
	sup.markArmed.Store(true)
	runWithPanickySupplier(t, &panickySupplier{Supplier: sup})
}

// armedRelease returns a supplier of n slots that calls runtime.Goexit
// in the first ReleaseSlot that when accepts.
func armedRelease(n int, when func(slots.ReleaseInfo) bool) *goexitSupplier {
	s := &goexitSupplier{Supplier: slots.NewFixed(n), releaseWhen: when, fired: make(chan struct{})}
	s.releaseArmed.Store(true)
	return s
}

func unusedRelease(r slots.ReleaseInfo) bool { return r.Reason.Kind() == slots.ReasonNeverUsed }

// nthRelease accepts the n-th release that when accepts.
func nthRelease(n int64, when func(slots.ReleaseInfo) bool) func(slots.ReleaseInfo) bool {
	var seen atomic.Int64
	return func(r slots.ReleaseInfo) bool { return when(r) && seen.Add(1) == n }
}

// scriptSource answers its first poll with its tasks (it must be asked
// for all of them); with late set, only once the poll's context has
// ended, as a remote source whose reply was already on its way would,
// and with failed set also with the context's error. Every later poll
// waits for its context and answers nothing. polls counts the polls
// begun; second is closed when the second begins.
type scriptSource struct {
	tasks        []intake.Task
	late, failed bool
	polls        atomic.Int64
	second       chan struct{}
}

func newScriptSource(tasks ...intake.Task) *scriptSource {
	return &scriptSource{tasks: tasks, second: make(chan struct{})}
}

func (s *scriptSource) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	switch s.polls.Add(1) {
	case 1:
	case 2:
		close(s.second)
		fallthrough
	default:
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if n < len(s.tasks) {
		panic("scriptSource: asked for " + strconv.Itoa(n) + " of its " + strconv.Itoa(len(s.tasks)) + " tasks")
	}
	if !s.late {
		return s.tasks, nil
	}
	<-ctx.Done()
	if s.failed {
		return s.tasks, ctx.Err()
	}
	return s.tasks, nil
}

// fakeTasks returns n tasks that count their settlements in c; a task
// settled twice fails its second settlement (a SettleError).
func fakeTasks(n int, c *fakeCounts) []intake.Task {
	tasks := make([]intake.Task, n)
	for i := range tasks {
		tasks[i] = &fakeTask{id: strconv.Itoa(i), deliveries: 1, acked: &c.acked, nacked: &c.nacked, terminated: &c.terminated}
	}
	return tasks
}

type fakeCounts struct{ acked, nacked, terminated counter }

// goexitReports counts the errors reported to OnError that say a
// supplier called runtime.Goexit.
type goexitReports struct{ n atomic.Int64 }

func (g *goexitReports) onError(t *testing.T) func(error) {
	return func(err error) {
		if errors.Is(err, scheduler.ErrGoexit) {
			g.n.Add(1)
		}
		t.Logf("worker: %v", err)
	}
}

// blockPool keeps the pool's only worker busy until the returned function
// is called (or the test ends), so that the tasks the intake worker spawns
// wait in the pool's queue, not started.
func blockPool(t *testing.T, pool *scheduler.Pool) (release func()) {
	block, blocked := make(chan struct{}), make(chan struct{})
	require.NoError(t, pool.Spawn(context.Background(), func(*scheduler.Worker) { close(blocked); <-block }))
	<-blocked
	var once sync.Once
	release = func() { once.Do(func() { close(block) }) }
	t.Cleanup(release)
	return release
}

// shutdownInTime shuts w down; the deadline only turns a hang into a
// failure.
func shutdownInTime(t *testing.T, w *intake.Worker) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := w.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v: the worker's books never balanced (stats %+v)", err, w.Stats())
	}
}

// books are the task figures of a worker's Stats that must come out
// exactly.
type books struct{ Received, Started, Acked, Nacked, HandedBack, Terminated uint64 }

// requireBooks checks a worker that has shut down: its figures are want,
// every task it received was started, handed back or (never run)
// terminated, once; every task started was settled once; nothing is
// still settling, and it holds no slot.
func requireBooks(t *testing.T, w *intake.Worker, want books) {
	t.Helper()
	st := w.Stats()
	got := books{st.Received, st.Started, st.Acked, st.Nacked, st.HandedBack, st.Terminated}
	require.Equal(t, want, got, "stats %+v", st)
	require.Equal(t, st.Received, st.Started+st.HandedBack+st.Terminated, "a task was lost or counted twice: %+v", st)
	require.Equal(t, st.Started, st.Acked+st.Nacked, "a started task was not settled once: %+v", st)
	require.Zero(t, st.Settling, "%+v", st)
	require.Zero(t, st.SettleErrors, "a settlement failed (made twice?): %+v", st)
	require.True(t, slotsIdle(w), "slots still held: %+v", st.Slots)
}

// requireFired waits for the armed Goexit.
func requireFired(t *testing.T, sup *goexitSupplier) {
	t.Helper()
	select {
	case <-sup.fired:
	case <-time.After(10 * time.Second): // a hang guard only
		t.Fatal("the supplier's ReleaseSlot never called runtime.Goexit: the test does not test what it says")
	}
}

// requireReported checks that the worker told OnError about the
// supplier's Goexit: a fault in user code is not swallowed. (It is
// reported before the goroutine ends, so by the end of a test.)
func requireReported(t *testing.T, reports *goexitReports) {
	t.Helper()
	require.Positive(t, reports.n.Load(), "the supplier's Goexit was not reported to OnError")
}

// A supplier that calls runtime.Goexit in ReleaseSlot ends the goroutine
// that released the slot, wherever that is; what that goroutine still had
// to do goes on without it. Each subtest makes the Goexit happen at one
// of the places the worker releases a slot, and requires that every task
// is settled once, the books balance, and Shutdown returns. Without that,
// the worker's books never balanced there and Shutdown waited forever.
func TestSupplierReleaseGoexitHangsNothing(t *testing.T) {
	// The release after a handler returned, on the pool worker that ran
	// it: the task must still be acknowledged.
	t.Run("AfterHandler", func(t *testing.T) {
		var c fakeCounts
		var reports goexitReports
		sup := armedRelease(4, func(r slots.ReleaseInfo) bool { return r.Used })
		w := newWorker(t, intake.Config{
			Source: newScriptSource(fakeTasks(4, &c)...), Supplier: sup, Pool: newPool(t, 2),
			MaxPollers: 1, OnError: reports.onError(t),
			Handler: func(context.Context, *scheduler.Worker, intake.Task) error { return nil },
		})
		requireFired(t, sup)
		eventually(t, 10*time.Second, func() bool { return c.acked.Load() == 4 }, "all 4 tasks acknowledged (acked %d)", c.acked.Load())
		shutdownInTime(t, w)
		requireBooks(t, w, books{Received: 4, Started: 4, Acked: 4})
		requireReported(t, &reports)
	})

	// The same release made by a task that waited for room among the
	// settlements in flight (MaxSettling), on a goroutine of its own.
	t.Run("AfterHandlerWaitingForRoom", func(t *testing.T) {
		var c fakeCounts
		var reports goexitReports
		gate, ackStarted := make(chan struct{}), make(chan struct{})
		first := &gatedTask{fakeTask: fakeTask{id: "first", deliveries: 1, acked: &c.acked}, gate: gate, started: ackStarted}
		second := &fakeTask{id: "second", deliveries: 1, acked: &c.acked}
		sup := armedRelease(2, nthRelease(2, func(r slots.ReleaseInfo) bool { return r.Used }))
		pool := newPool(t, 2)
		w := newWorker(t, intake.Config{
			Source: newScriptSource(first, second), Supplier: sup, Pool: pool,
			MaxPollers: 1, MaxSettling: 1, OnError: reports.onError(t),
			Handler: func(_ context.Context, _ *scheduler.Worker, task intake.Task) error {
				if task == intake.Task(second) {
					<-ackStarted // the first holds the only room to settle
				}
				return nil
			},
		})
		// Once both handlers' pool jobs are done, the second has found no
		// room and waits for it; its release (the second of a used slot)
		// comes once the first's Ack is let through.
		eventually(t, 10*time.Second, func() bool {
			select {
			case <-ackStarted:
				return pool.Stats().Pending == 0
			default:
				return false
			}
		}, "both handlers returned, the first's Ack in flight")
		close(gate)
		requireFired(t, sup)
		eventually(t, 10*time.Second, func() bool { return c.acked.Load() == 2 }, "both tasks acknowledged (acked %d)", c.acked.Load())
		shutdownInTime(t, w)
		requireBooks(t, w, books{Received: 2, Started: 2, Acked: 2})
		requireReported(t, &reports)
	})

	// The permits a poll did not fill, released by the poller: the tasks
	// the poll brought must still run, and the other permit come back.
	t.Run("UnusedPermitsOfPoll", func(t *testing.T) {
		var c fakeCounts
		var reports goexitReports
		sup := armedRelease(4, unusedRelease) // the poll asks for 4 and gets 2
		w := newWorker(t, intake.Config{
			Source: newScriptSource(fakeTasks(2, &c)...), Supplier: sup, Pool: newPool(t, 2),
			MaxPollers: 1, OnError: reports.onError(t),
			Handler: func(context.Context, *scheduler.Worker, intake.Task) error { return nil },
		})
		requireFired(t, sup)
		eventually(t, 10*time.Second, func() bool { return c.acked.Load() == 2 }, "both tasks acknowledged (acked %d)", c.acked.Load())
		shutdownInTime(t, w)
		requireBooks(t, w, books{Received: 2, Started: 2, Acked: 2})
		requireReported(t, &reports)
	})

	// The permits of a poll that a Pause stopped before it asked the
	// source: the poller must go on polling after Resume.
	t.Run("UnusedPermitsOfHaltedPoll", func(t *testing.T) {
		var c fakeCounts
		var reports goexitReports
		hook := &refusalHook{Supplier: slots.NewFixed(4)}
		sup := &goexitSupplier{Supplier: hook, releaseWhen: unusedRelease, fired: make(chan struct{})}
		sup.releaseArmed.Store(true)
		pause := slots.NewPauseable(sup)
		// Paused until the worker is made: then the poller reserves all 4
		// slots and, on the refusal of a fifth, the worker pauses between
		// its reservation and its poll.
		pause.Pause(slots.PauseOptions{})
		hook.do = func() { pause.Pause(slots.PauseOptions{}) }
		hook.armed.Store(true)
		w := newWorker(t, intake.Config{
			Source: newScriptSource(fakeTasks(2, &c)...), Supplier: pause, Pool: newPool(t, 2),
			MaxPollers: 1, MaxBatch: 8, OnError: reports.onError(t),
			Handler: func(context.Context, *scheduler.Worker, intake.Task) error { return nil },
		})
		pause.Resume()
		requireFired(t, sup)
		eventually(t, 10*time.Second, func() bool { return slotsIdle(w) }, "the halted poll's permits released: %+v", w.Stats().Slots)
		w.Resume()
		eventually(t, 10*time.Second, func() bool { return c.acked.Load() == 2 }, "both tasks acknowledged after Resume (acked %d)", c.acked.Load())
		shutdownInTime(t, w)
		requireBooks(t, w, books{Received: 2, Started: 2, Acked: 2})
		requireReported(t, &reports)
	})

	// Tasks of a poll that answered after a Pause cancelled it, handed
	// back by the poller: the rest of them must be handed back too.
	for _, failed := range []bool{false, true} {
		name := "HandBackOfPausedPoll"
		if failed {
			name = "HandBackOfFailedPoll"
		}
		t.Run(name, func(t *testing.T) {
			var c fakeCounts
			var reports goexitReports
			src := newScriptSource(fakeTasks(3, &c)...)
			src.late, src.failed = true, failed
			sup := armedRelease(3, unusedRelease)
			w := newWorker(t, intake.Config{
				Source: src, Supplier: sup, Pool: newPool(t, 1),
				MaxPollers: 1, OnError: reports.onError(t),
				Handler: func(context.Context, *scheduler.Worker, intake.Task) error {
					t.Error("a task ran while paused")
					return nil
				},
			})
			eventually(t, 10*time.Second, func() bool { return src.polls.Load() == 1 }, "the first poll began")
			w.Pause()
			requireFired(t, sup)
			eventually(t, 10*time.Second, func() bool { return c.nacked.Load() == 3 }, "all 3 tasks handed back (%d)", c.nacked.Load())
			shutdownInTime(t, w)
			requireBooks(t, w, books{Received: 3, HandedBack: 3})
			requireReported(t, &reports)
		})
	}

	// A task delivered more often than MaxDeliveries, terminated unrun by
	// the poller: the poller must go on.
	t.Run("PoisonTerminatedUnrun", func(t *testing.T) {
		var c fakeCounts
		var reports goexitReports
		task := &fakeTask{id: "poison", deliveries: 3, terminated: &c.terminated}
		sup := armedRelease(1, unusedRelease)
		w := newWorker(t, intake.Config{
			Source: newScriptSource(task), Supplier: sup, Pool: newPool(t, 1),
			MaxPollers: 1, MaxDeliveries: 2, OnError: reports.onError(t),
			Handler: func(context.Context, *scheduler.Worker, intake.Task) error {
				t.Error("a poison task ran")
				return nil
			},
		})
		requireFired(t, sup)
		eventually(t, 10*time.Second, func() bool { return c.terminated.Load() == 1 }, "the task terminated")
		shutdownInTime(t, w)
		requireBooks(t, w, books{Received: 1, Terminated: 1})
		requireReported(t, &reports)
	})

	// A task that a pool worker found the worker paused for, handed back
	// there: the task of its key that waited behind it must be handed
	// back too.
	t.Run("HandBackOnPoolWorker", func(t *testing.T) {
		var c fakeCounts
		var reports goexitReports
		k0 := &keyedFake{key: "k", fakeTask: fakeTask{id: "k/0", deliveries: 1, nacked: &c.nacked}}
		k1 := &keyedFake{key: "k", fakeTask: fakeTask{id: "k/1", deliveries: 1, nacked: &c.nacked}}
		src := newScriptSource(k0, k1)
		// The NeverUsed releases: the permit the first poll (for 3) left
		// unused, the permit of the second poll (ended by the Pause), and
		// then k/0's.
		var unused atomic.Int64
		sup := armedRelease(3, func(r slots.ReleaseInfo) bool { return unusedRelease(r) && unused.Add(1) == 3 })
		pool := newPool(t, 1)
		release := blockPool(t, pool)
		w := newWorker(t, intake.Config{
			Source: src, Supplier: sup, Pool: pool,
			MaxPollers: 1, OnError: reports.onError(t),
			Handler: func(context.Context, *scheduler.Worker, intake.Task) error {
				t.Error("a task ran while paused")
				return nil
			},
		})
		<-src.second // k/0 waits in the pool, k/1 behind it in its key's line
		w.Pause()
		eventually(t, 10*time.Second, func() bool { return unused.Load() == 2 }, "the second poll's permit released")
		release()
		requireFired(t, sup)
		eventually(t, 10*time.Second, func() bool { return c.nacked.Load() == 2 }, "both tasks handed back (%d)", c.nacked.Load())
		shutdownInTime(t, w)
		requireBooks(t, w, books{Received: 2, HandedBack: 2})
		requireReported(t, &reports)
	})

	// Tasks a Shutdown hands back from its caller's goroutine: that call
	// cannot return (its goroutine ends), but the other tasks still go
	// back, and another Shutdown returns.
	t.Run("HandBackAtShutdown", func(t *testing.T) {
		var c fakeCounts
		var reports goexitReports
		sup := armedRelease(2, unusedRelease)
		pool := newPool(t, 1)
		blockPool(t, pool)
		w := newWorker(t, intake.Config{
			Source: newScriptSource(fakeTasks(2, &c)...), Supplier: sup, Pool: pool,
			MaxPollers: 1, OnError: reports.onError(t),
			Handler: func(context.Context, *scheduler.Worker, intake.Task) error {
				t.Error("a task ran after Shutdown")
				return nil
			},
		})
		eventually(t, 10*time.Second, func() bool { return w.Stats().Received == 2 }, "both tasks polled")
		returned, ended := false, make(chan struct{})
		go func() {
			defer close(ended)
			_ = w.Shutdown(context.Background())
			returned = true
		}()
		requireFired(t, sup)
		<-ended
		require.False(t, returned, "Shutdown returned on a goroutine that called runtime.Goexit")
		eventually(t, 10*time.Second, func() bool { return c.nacked.Load() == 2 }, "both tasks handed back (%d)", c.nacked.Load())
		shutdownInTime(t, w)
		requireBooks(t, w, books{Received: 2, HandedBack: 2})
		requireReported(t, &reports)
	})
}

// gatedTask's Ack closes started and waits for gate.
type gatedTask struct {
	fakeTask
	gate, started chan struct{}
}

func (g *gatedTask) Ack(ctx context.Context) error {
	close(g.started)
	<-g.gate
	return g.fakeTask.Ack(ctx)
}

// refusalHook calls do, once when armed, the first time its supplier
// refuses a TryReserveSlot.
type refusalHook struct {
	slots.Supplier
	armed atomic.Bool
	do    func()
}

func (h *refusalHook) TryReserveSlot(rc slots.ReserveContext) (slots.Permit, bool) {
	p, ok := h.Supplier.TryReserveSlot(rc)
	if !ok && h.armed.CompareAndSwap(true, false) {
		h.do()
	}
	return p, ok
}

// goexitPollSource calls runtime.Goexit (t.FailNow in a test's source)
// in its first Poll when armed, and is a scriptSource otherwise.
type goexitPollSource struct {
	*scriptSource
	armed atomic.Bool
}

func (s *goexitPollSource) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	if s.armed.CompareAndSwap(true, false) {
		runtime.Goexit()
	}
	return s.scriptSource.Poll(ctx, n)
}

// A source that calls runtime.Goexit in Poll ends the poller's goroutine,
// as a supplier's Goexit in ReleaseSlot does; the poller goes on in
// another: the poll fails (reported, counted, backed off), its slots come
// back, and the next poll's tasks run.
func TestSourcePollGoexitHangsNothing(t *testing.T) {
	var c fakeCounts
	var reports goexitReports
	src := &goexitPollSource{scriptSource: newScriptSource(fakeTasks(2, &c)...)}
	src.armed.Store(true)
	w := newWorker(t, intake.Config{
		Source: src, Supplier: slots.NewFixed(2), Pool: newPool(t, 2),
		MaxPollers: 1, OnError: reports.onError(t),
		Handler: func(context.Context, *scheduler.Worker, intake.Task) error { return nil },
	})
	eventually(t, 10*time.Second, func() bool { return c.acked.Load() == 2 }, "both tasks acknowledged (acked %d)", c.acked.Load())
	shutdownInTime(t, w)
	requireBooks(t, w, books{Received: 2, Started: 2, Acked: 2})
	s := w.Stats()
	require.EqualValues(t, 1, s.PollErrors)
	require.EqualValues(t, src.polls.Load()+1, s.Polls, "Polls counts every poll, the one ended by Goexit too")
	requireReported(t, &reports)
}
