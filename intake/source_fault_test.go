package intake_test

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// trap calls runtime.Goexit (t.FailNow, require.* in a test's source or
// hook), or with panics set panics with errTrap, the first time it is
// sprung, and never again; fired is closed then.
type trap struct {
	panics bool
	armed  atomic.Bool
	fired  chan struct{}
}

var errTrap = errors.New("trap sprung")

func newTrap(panics bool) *trap {
	tr := &trap{panics: panics, fired: make(chan struct{})}
	tr.armed.Store(true)
	return tr
}

func (tr *trap) spring() {
	if tr != nil && tr.armed.CompareAndSwap(true, false) {
		close(tr.fired)
		if tr.panics {
			panic(errTrap)
		}
		runtime.Goexit()
	}
}

// sprung reports whether err is a report of tr's fault.
func (tr *trap) sprung(err error) bool {
	if tr.panics {
		var pan *scheduler.Panic
		return errors.As(err, &pan) && pan.Value == errTrap
	}
	return errors.Is(err, scheduler.ErrGoexit)
}

// wait waits for the trap to be sprung.
func (tr *trap) wait(t *testing.T) {
	t.Helper()
	select {
	case <-tr.fired:
	case <-time.After(10 * time.Second): // a hang guard only
		t.Fatal("the trap was never sprung: the test does not test what it says")
	}
}

// settlements are what a source saw: the tasks it took back, by how.
type settlements struct{ Acked, Nacked, Terminated, HandedBack int64 }

type trapCounts struct{ acked, nacked, terminated, handedBack counter }

func (c *trapCounts) get() settlements {
	return settlements{c.acked.Load(), c.nacked.Load(), c.terminated.Load(), c.handedBack.Load()}
}

// trapTask is a task of a hand-made source that springs its trap, if it
// has one, in its method named at (before that method does anything
// else). It counts its settlements; a second settlement fails
// (errNotFake, a SettleError). Its Ack fails with ackErr if that is set.
// It is Keyed (key "" is no key), an OrderKeeper and a HandBacker.
type trapTask struct {
	id         string
	key        string
	deliveries int
	at         string
	trap       *trap
	ackErr     error
	c          *trapCounts
	settled    atomic.Bool
	taken      counter // Taken calls, the one that sprang the trap included
	beats      counter // InProgress calls, the one that sprang the trap included
}

func (k *trapTask) spring(method string) {
	if k.at == method {
		k.trap.spring()
	}
}

func (k *trapTask) settle(c *counter) error {
	if !k.settled.CompareAndSwap(false, true) {
		return errNotFake
	}
	c.Add(1)
	return nil
}

func (k *trapTask) ID() string      { k.spring("ID"); return k.id }
func (k *trapTask) Payload() []byte { return nil }
func (k *trapTask) Deliveries() int { k.spring("Deliveries"); return k.deliveries }
func (k *trapTask) Key() string     { k.spring("Key"); return k.key }
func (k *trapTask) Taken()          { k.taken.Add(1); k.spring("Taken") }

func (k *trapTask) Ack(context.Context) error {
	k.spring("Ack")
	if k.ackErr != nil {
		return k.ackErr
	}
	return k.settle(&k.c.acked)
}

func (k *trapTask) Nack(context.Context, time.Duration) error {
	k.spring("Nack")
	return k.settle(&k.c.nacked)
}

func (k *trapTask) Terminate(context.Context, string) error {
	k.spring("Terminate")
	return k.settle(&k.c.terminated)
}

func (k *trapTask) HandBack(context.Context) error {
	k.spring("HandBack")
	return k.settle(&k.c.handedBack)
}

func (k *trapTask) InProgress(context.Context) error {
	k.beats.Add(1)
	k.spring("InProgress")
	return nil
}

// asyncTrapTask is a trapTask that acknowledges with AckAsync: done is
// called before AckAsync returns, or, with ackErr set, from a goroutine
// of the source's own, as a confirmation from a server would come.
type asyncTrapTask struct{ *trapTask }

func (a asyncTrapTask) AckAsync(_ context.Context, _ time.Duration, done func(error)) {
	a.spring("AckAsync")
	if a.ackErr != nil {
		go done(a.ackErr)
		return
	}
	done(a.settle(&a.c.acked))
}

// goexitCase is one subtest's tasks, of which the one at index trapped
// has the trap, at method at; reports counts the reports of the trap's
// fault to OnError.
type goexitCase struct {
	trap    *trap
	c       trapCounts
	tasks   []*trapTask
	reports counter
}

// newCase makes a subtest's goexitCase of n tasks.
type newCase func(n, trapped int, at string) *goexitCase

func caseMaker(panics bool) newCase {
	return func(n, trapped int, at string) *goexitCase {
		g := &goexitCase{trap: newTrap(panics)}
		for i := range n {
			g.tasks = append(g.tasks, &trapTask{id: strconv.Itoa(i), deliveries: 1, c: &g.c})
		}
		g.tasks[trapped].at, g.tasks[trapped].trap = at, g.trap
		return g
	}
}

// onError is an OnError that counts the reports of the trap's fault, and
// logs every report.
func (g *goexitCase) onError(t *testing.T) func(error) {
	return func(err error) {
		if g.trap.sprung(err) {
			g.reports.Add(1)
		}
		t.Logf("worker: %v", err)
	}
}

// list returns the tasks as a source delivers them, AckAsync ones if
// async is set.
func (g *goexitCase) list(async bool) []intake.Task {
	out := make([]intake.Task, len(g.tasks))
	for i, k := range g.tasks {
		out[i] = k
		if async {
			out[i] = asyncTrapTask{k}
		}
	}
	return out
}

// onErrorTrap is g.onError that then springs g's trap if when accepts
// the error.
func (g *goexitCase) onErrorTrap(t *testing.T, when func(error) bool) func(error) {
	report := g.onError(t)
	return func(err error) {
		report(err)
		if when(err) {
			g.trap.spring()
		}
	}
}

// answer is one poll's reply from a seqSource.
type answer struct {
	tasks []intake.Task
	err   error
}

// seqSource answers its polls with its answers, in order, whatever they
// asked for; then it waits for each poll's context.
type seqSource struct {
	answers []answer
	polls   atomic.Int64
}

func (s *seqSource) Poll(ctx context.Context, _ int) ([]intake.Task, error) {
	if i := int(s.polls.Add(1)) - 1; i < len(s.answers) {
		return s.answers[i].tasks, s.answers[i].err
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// downSupplier fails its first ReserveSlot with errDown, and refuses
// every TryReserveSlot until then, so that the worker's first
// reservation comes to that ReserveSlot.
type downSupplier struct {
	slots.Supplier
	failed atomic.Bool
}

var errDown = errors.New("supplier down")

func (s *downSupplier) ReserveSlot(ctx context.Context, rc slots.ReserveContext) (slots.Permit, error) {
	if s.failed.CompareAndSwap(false, true) {
		return slots.Permit{}, errDown
	}
	return s.Supplier.ReserveSlot(ctx, rc)
}

func (s *downSupplier) TryReserveSlot(rc slots.ReserveContext) (slots.Permit, bool) {
	if !s.failed.Load() {
		return slots.Permit{}, false
	}
	return s.Supplier.TryReserveSlot(rc)
}

// backoffCalls records the attempts a Backoff is called with, and springs
// tr (if not nil) in each call.
type backoffCalls struct {
	mu    sync.Mutex
	calls []int
}

func (b *backoffCalls) backoff(tr *trap) intake.Backoff {
	return func(n int) time.Duration {
		b.mu.Lock()
		b.calls = append(b.calls, n)
		b.mu.Unlock()
		tr.spring()
		return 0
	}
}

func (b *backoffCalls) get() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]int(nil), b.calls...)
}

// figures are the task figures of a worker's Stats that must come out
// exactly.
type figures struct{ Received, Started, Acked, Nacked, HandedBack, Terminated, Failed, SettleErrors uint64 }

// requireFigures checks a worker that has shut down: its figures are
// want, nothing is still settling, and it holds no slot.
func requireFigures(t *testing.T, w *intake.Worker, want figures) {
	t.Helper()
	st := w.Stats()
	got := figures{st.Received, st.Started, st.Acked, st.Nacked, st.HandedBack, st.Terminated, st.Failed, st.SettleErrors}
	require.Equal(t, want, got, "stats %+v", st)
	require.Zero(t, st.Settling, "%+v", st)
	require.True(t, slotsIdle(w), "slots still held: %+v", st.Slots)
}

// requireReportedOnce checks that OnError heard of the trap's fault once.
func requireReportedOnce(t *testing.T, g *goexitCase) {
	t.Helper()
	require.EqualValues(t, 1, g.reports.Load(), "reports to OnError of the fault (wrapping ErrGoexit, or the panic)")
}

var (
	errHandler = errors.New("handler failed")
	errAck     = errors.New("ack refused")
	errPoll    = errors.New("source down")
)

func nop(context.Context, intake.Task) error { return nil }

// mustNotRun is a handler for tasks that must be returned unrun.
func mustNotRun(t *testing.T) intake.Handler {
	return func(context.Context, intake.Task) error {
		t.Error("a task ran that must not")
		return nil
	}
}

// onlyHooks skips, in a Goexit run (panics unset), the subtests whose
// Goexit is not a hook's: those fail the worker now.
func onlyHooks(t *testing.T, panics bool) {
	t.Helper()
	name := t.Name()
	if !panics && !strings.Contains(name, "/OnError") && !strings.HasSuffix(name, "/ID") {
		t.Skip("a Goexit here fails the worker: TestGoexitOutsideHandlerFailsTheWorker")
	}
}

func notGoexit(err error) bool { return !errors.Is(err, scheduler.ErrGoexit) }

// The hooks the worker calls on goroutines of their own, OnError and a
// task's ID (read for a report), may call runtime.Goexit (t.FailNow,
// require.* in a test's hook): it ends only that call, OnError hears of
// it, and the worker goes on. (A Goexit in a source's or a supplier's
// other code fails the worker: TestGoexitOutsideHandlerFailsTheWorker.)
func TestHookGoexitHangsNothing(t *testing.T) { testSourceFaults(t, false) }

// A source's calls panicking: each call fails, reported, and the worker
// goes on (the settlements' panics always did; Key, Deliveries, ID, Taken
// and the backoffs once crashed the process from the worker's
// goroutine). A panic in OnError crashes the program
// (TestOnErrorPanicCrashes), so those subtests are left out.
func TestSourcePanicHangsNothing(t *testing.T) { testSourceFaults(t, true) }

func testSourceFaults(t *testing.T, panics bool) {
	newGoexitCase := caseMaker(panics)
	// The settlements of a task whose handler ran.
	for _, c := range []struct {
		at      string
		handler intake.Handler
		want    figures
		settled settlements
	}{
		{"Ack", nop, figures{Received: 2, Started: 2, Acked: 1, SettleErrors: 1}, settlements{Acked: 1}},
		{"Nack", func(context.Context, intake.Task) error { return errHandler },
			figures{Received: 2, Started: 2, Nacked: 2, Failed: 2, SettleErrors: 1}, settlements{Nacked: 1}},
		{"Terminate", func(context.Context, intake.Task) error { return intake.Poison(errHandler) },
			figures{Received: 2, Started: 2, Terminated: 1, Failed: 2, SettleErrors: 1}, settlements{Terminated: 1}},
		{"AckAsync", nop, figures{Received: 2, Started: 2, Acked: 1, SettleErrors: 1}, settlements{Acked: 1}},
	} {
		t.Run(c.at, func(t *testing.T) {
			onlyHooks(t, panics)
			g := newGoexitCase(2, 0, c.at)
			w := newWorker(t, intake.Config{
				Source: newScriptSource(g.list(c.at == "AckAsync")...), Supplier: slots.NewFixed(2), MaxPollers: 1, OnError: g.onError(t), Handler: c.handler,
				Backoff: func(int) time.Duration { return 0 },
			})
			g.trap.wait(t)
			eventually(t, 10*time.Second, func() bool { return g.c.get() == c.settled }, "the other task settled: %+v", g.c.get())
			shutdownInTime(t, w)
			requireFigures(t, w, c.want)
			require.Equal(t, c.settled, g.c.get())
			requireReportedOnce(t, g)
		})
	}

	// A task delivered more often than MaxDeliveries, terminated unrun by
	// the poller: its slot and record must still be released.
	t.Run("TerminateUnrun", func(t *testing.T) {
		onlyHooks(t, panics)
		g := newGoexitCase(2, 0, "Terminate")
		for _, k := range g.tasks {
			k.deliveries = 3
		}
		w := newWorker(t, intake.Config{
			Source: newScriptSource(g.list(false)...), Supplier: slots.NewFixed(2), MaxPollers: 1, MaxDeliveries: 2, OnError: g.onError(t), Handler: mustNotRun(t),
		})
		g.trap.wait(t)
		eventually(t, 10*time.Second, func() bool { return g.c.terminated.Load() == 1 }, "the other task terminated")
		shutdownInTime(t, w)
		requireFigures(t, w, figures{Received: 2, Terminated: 1, SettleErrors: 1})
		require.Equal(t, settlements{Terminated: 1}, g.c.get())
		requireReportedOnce(t, g)
	})

	// The tasks of a failed poll, handed back by the poller.
	t.Run("HandBackOfFailedPoll", func(t *testing.T) {
		onlyHooks(t, panics)
		g := newGoexitCase(2, 0, "HandBack")
		w := newWorker(t, intake.Config{
			Source:   &seqSource{answers: []answer{{g.list(false), errPoll}}},
			Supplier: slots.NewFixed(2), MaxPollers: 1, OnError: g.onError(t), Handler: mustNotRun(t),
		})
		g.trap.wait(t)
		eventually(t, 10*time.Second, func() bool { return g.c.handedBack.Load() == 1 }, "the other task handed back")
		shutdownInTime(t, w)
		requireFigures(t, w, figures{Received: 2, HandedBack: 2, SettleErrors: 1})
		require.EqualValues(t, 1, w.Stats().PollErrors)
		require.Equal(t, settlements{HandedBack: 1}, g.c.get())
		requireReportedOnce(t, g)
	})

	// A task whose turn in its key's line finds the worker paused, handed
	// back there: the task of its key behind it must be handed back too.
	t.Run("HandBackInLine", func(t *testing.T) {
		onlyHooks(t, panics)
		g := newGoexitCase(3, 1, "HandBack")
		for _, k := range g.tasks {
			k.key = "k"
		}
		running, release := make(chan struct{}), make(chan struct{})
		w := newWorker(t, intake.Config{
			Source: newScriptSource(g.list(false)...), Supplier: slots.NewFixed(3), MaxPollers: 1, OnError: g.onError(t),
			Handler: func(_ context.Context, task intake.Task) error {
				if task.ID() != "0" {
					t.Error("a task ran that must not")
					return nil
				}
				close(running)
				<-release
				return nil
			},
		})
		<-running // 1 and 2 wait behind 0 in their key's line
		eventually(t, 10*time.Second, func() bool { return w.Stats().Received == 3 }, "all three taken in")
		w.Pause()
		close(release)
		g.trap.wait(t)
		eventually(t, 10*time.Second, func() bool { return g.c.handedBack.Load() == 1 }, "the last task handed back")
		shutdownInTime(t, w)
		requireFigures(t, w, figures{Received: 3, Started: 1, Acked: 1, HandedBack: 2, SettleErrors: 1})
		require.Equal(t, settlements{Acked: 1, HandedBack: 1}, g.c.get())
		requireReportedOnce(t, g)
	})

	// A task the source delivered beyond what the poll asked for, handed
	// back by the poller: it still counts as received and handed back.
	t.Run("HandBackOfExtraTask", func(t *testing.T) {
		onlyHooks(t, panics)
		g := newGoexitCase(2, 1, "HandBack")
		w := newWorker(t, intake.Config{
			Source:     &seqSource{answers: []answer{{tasks: g.list(false)}}},
			Supplier:   slots.NewFixed(1), // MaxBatch 1
			MaxPollers: 1, OnError: g.onError(t), Handler: nop,
		})
		g.trap.wait(t)
		eventually(t, 10*time.Second, func() bool { return g.c.acked.Load() == 1 }, "the asked-for task acknowledged")
		shutdownInTime(t, w)
		requireFigures(t, w, figures{Received: 2, Started: 1, Acked: 1, HandedBack: 1, SettleErrors: 1})
		require.Equal(t, settlements{Acked: 1}, g.c.get())
		requireReportedOnce(t, g)
	})

	// A heartbeat: it fails as a panic would (a SettleError), and the
	// heartbeat goes on beating both tasks.
	t.Run("InProgress", func(t *testing.T) {
		onlyHooks(t, panics)
		g := newGoexitCase(2, 0, "InProgress")
		gate := make(chan struct{})
		var once sync.Once
		open := func() { once.Do(func() { close(gate) }) }
		w := newWorker(t, intake.Config{
			Source: newScriptSource(g.list(false)...), Supplier: slots.NewFixed(2), MaxPollers: 1, Heartbeat: 4 * time.Millisecond, OnError: g.onError(t),
			Handler: func(context.Context, intake.Task) error { <-gate; return nil },
		})
		t.Cleanup(open) // before the worker's and the pool's cleanups
		g.trap.wait(t)
		eventually(t, 10*time.Second, func() bool { return g.tasks[0].beats.Load() >= 2 && g.tasks[1].beats.Load() >= 2 },
			"both tasks beaten again after the Goexit (%d, %d)", g.tasks[0].beats.Load(), g.tasks[1].beats.Load())
		open()
		eventually(t, 10*time.Second, func() bool { return g.c.acked.Load() == 2 }, "both tasks acknowledged")
		shutdownInTime(t, w)
		requireFigures(t, w, figures{Received: 2, Started: 2, Acked: 2, SettleErrors: 1})
		require.Equal(t, settlements{Acked: 2}, g.c.get())
		requireReportedOnce(t, g)
	})

	// The poller tells each task of a poll it has taken it in: every
	// task must be told, once.
	t.Run("Taken", func(t *testing.T) {
		onlyHooks(t, panics)
		g := newGoexitCase(3, 0, "Taken")
		w := newWorker(t, intake.Config{
			Source: newScriptSource(g.list(false)...), Supplier: slots.NewFixed(3), MaxPollers: 1, OnError: g.onError(t), Handler: nop,
		})
		g.trap.wait(t)
		eventually(t, 10*time.Second, func() bool { return g.c.acked.Load() == 3 }, "all tasks acknowledged")
		shutdownInTime(t, w) // the poller has retired: it is done with its poll
		for _, k := range g.tasks {
			require.EqualValues(t, 1, k.taken.Load(), "Taken calls of task %s", k.id)
		}
		requireFigures(t, w, figures{Received: 3, Started: 3, Acked: 3})
		requireReportedOnce(t, g)
	})

	// The same for tasks beyond what the poll asked for, told after the
	// poll's own: the extra task after the one whose Taken failed must
	// still be told.
	t.Run("TakenOfExtraTask", func(t *testing.T) {
		onlyHooks(t, panics)
		g := newGoexitCase(3, 1, "Taken")
		w := newWorker(t, intake.Config{
			Source:     &seqSource{answers: []answer{{tasks: g.list(false)}}},
			Supplier:   slots.NewFixed(1), // MaxBatch 1: 1 and 2 are extra
			MaxPollers: 1, OnError: g.onError(t), Handler: nop,
		})
		g.trap.wait(t)
		eventually(t, 10*time.Second, func() bool { return g.c.acked.Load() == 1 }, "the asked-for task acknowledged")
		shutdownInTime(t, w)
		for _, k := range g.tasks {
			require.EqualValues(t, 1, k.taken.Load(), "Taken calls of task %s", k.id)
		}
		requireFigures(t, w, figures{Received: 3, Started: 1, Acked: 1, HandedBack: 2})
		require.Equal(t, settlements{Acked: 1, HandedBack: 2}, g.c.get())
		requireReportedOnce(t, g)
	})

	// Key and Deliveries, read as the poller takes a task in: the task is
	// returned unrun, as a failed task is (a Nack, after Backoff), and
	// its slot comes back. (TestUnreadableTaskIsBackedOffAndTerminated
	// follows such a task through its redeliveries.)
	for _, at := range []string{"Key", "Deliveries"} {
		t.Run(at, func(t *testing.T) {
			onlyHooks(t, panics)
			g := newGoexitCase(2, 0, at)
			g.tasks[0].key = "k"
			w := newWorker(t, intake.Config{
				Source: newScriptSource(g.list(false)...), Supplier: slots.NewFixed(2), MaxPollers: 1, OnError: g.onError(t), Handler: nop,
				Backoff: func(int) time.Duration { return 0 },
			})
			g.trap.wait(t)
			want := settlements{Acked: 1, Nacked: 1}
			eventually(t, 10*time.Second, func() bool { return g.c.get() == want }, "one task run, the other returned: %+v", g.c.get())
			shutdownInTime(t, w)
			requireFigures(t, w, figures{Received: 2, Started: 1, Acked: 1, HandedBack: 1})
			require.Equal(t, want, g.c.get())
			requireReportedOnce(t, g)
		})
	}

	// ID, read for a report (here of a failed Ack): the report is still
	// made, and the settlement ends.
	t.Run("ID", func(t *testing.T) {
		onlyHooks(t, panics)
		g := newGoexitCase(2, 0, "ID")
		g.tasks[0].ackErr = errAck
		w := newWorker(t, intake.Config{
			Source: newScriptSource(g.list(false)...), Supplier: slots.NewFixed(2), MaxPollers: 1, OnError: g.onError(t), Handler: nop,
		})
		g.trap.wait(t)
		eventually(t, 10*time.Second, func() bool { return g.c.acked.Load() == 1 }, "the other task acknowledged")
		shutdownInTime(t, w)
		requireFigures(t, w, figures{Received: 2, Started: 2, Acked: 1, SettleErrors: 1})
		require.Equal(t, settlements{Acked: 1}, g.c.get())
		requireReportedOnce(t, g)
	})

	// The Backoff of a failed task: the task is still returned (with the
	// default delay), and the Backoff is not called again for it.
	t.Run("Backoff", func(t *testing.T) {
		onlyHooks(t, panics)
		g := newGoexitCase(2, 0, "")
		var calls backoffCalls
		w := newWorker(t, intake.Config{
			Source: newScriptSource(g.list(false)...), Supplier: slots.NewFixed(2), MaxPollers: 1, OnError: g.onError(t), Backoff: calls.backoff(g.trap),
			Handler: func(context.Context, intake.Task) error { return errHandler },
		})
		g.trap.wait(t)
		eventually(t, 10*time.Second, func() bool { return g.c.nacked.Load() == 2 }, "both tasks returned")
		shutdownInTime(t, w)
		requireFigures(t, w, figures{Received: 2, Started: 2, Nacked: 2, Failed: 2})
		require.Equal(t, []int{1, 1}, calls.get())
		requireReportedOnce(t, g)
	})

	// The pause after a failed poll, after an empty one, and after a
	// failed reservation: it is taken (with the default backoff), the
	// user's function is not called again for it, and the poller goes on.
	for _, c := range []struct {
		name     string
		source   func(g *goexitCase) intake.Source
		supplier func() slots.Supplier
		set      func(cfg *intake.Config, b intake.Backoff)
		paused   func(intake.Stats) uint64 // the stat that counts the pause's cause, if any
	}{
		{"PollBackoff",
			func(g *goexitCase) intake.Source {
				return &seqSource{answers: []answer{{err: errPoll}, {tasks: g.list(false)}}}
			},
			func() slots.Supplier { return slots.NewFixed(2) },
			func(cfg *intake.Config, b intake.Backoff) { cfg.PollBackoff = b },
			func(s intake.Stats) uint64 { return s.PollErrors }},
		{"EmptyPollBackoff",
			func(g *goexitCase) intake.Source { return &seqSource{answers: []answer{{}, {tasks: g.list(false)}}} },
			func() slots.Supplier { return slots.NewFixed(2) },
			func(cfg *intake.Config, b intake.Backoff) { cfg.EmptyPollBackoff = b },
			func(s intake.Stats) uint64 { return s.EmptyPolls }},
		{"PollBackoffAfterReserveError",
			func(g *goexitCase) intake.Source { return newScriptSource(g.list(false)...) },
			func() slots.Supplier { return &downSupplier{Supplier: slots.NewFixed(2)} },
			func(cfg *intake.Config, b intake.Backoff) { cfg.PollBackoff = b },
			nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			onlyHooks(t, panics)
			g := newGoexitCase(2, 0, "")
			var calls backoffCalls
			cfg := intake.Config{
				Source: c.source(g), Supplier: c.supplier(), MaxPollers: 1, OnError: g.onError(t), Handler: nop,
			}
			c.set(&cfg, calls.backoff(g.trap))
			w := newWorker(t, cfg)
			g.trap.wait(t)
			eventually(t, 10*time.Second, func() bool { return g.c.acked.Load() == 2 }, "both tasks acknowledged")
			shutdownInTime(t, w)
			requireFigures(t, w, figures{Received: 2, Started: 2, Acked: 2})
			if c.paused != nil {
				require.EqualValues(t, 1, c.paused(w.Stats()))
			}
			require.Equal(t, []int{1}, calls.get())
			requireReportedOnce(t, g)
		})
	}

	// OnError, told of a failed settlement, on the settling goroutine or
	// on the source's own (AckAsync's done callback): the settlement still
	// ends. OnError then hears of its own Goexit.
	for _, c := range []struct {
		name  string
		async bool
	}{{"OnErrorAfterFailedAck", false}, {"OnErrorInAckAsyncDone", true}} {
		t.Run(c.name, func(t *testing.T) {
			onlyHooks(t, panics)
			if panics {
				t.Skip("a panic in OnError crashes the program: TestOnErrorPanicCrashes")
			}
			g := newGoexitCase(2, 0, "")
			g.tasks[0].ackErr = errAck
			w := newWorker(t, intake.Config{
				Source: newScriptSource(g.list(c.async)...), Supplier: slots.NewFixed(2), MaxPollers: 1, OnError: g.onErrorTrap(t, notGoexit), Handler: nop,
			})
			g.trap.wait(t)
			eventually(t, 10*time.Second, func() bool { return g.c.acked.Load() == 1 }, "the other task acknowledged")
			shutdownInTime(t, w)
			requireFigures(t, w, figures{Received: 2, Started: 2, Acked: 1, SettleErrors: 1})
			require.Equal(t, settlements{Acked: 1}, g.c.get())
			requireReportedOnce(t, g)
		})
	}

	// OnError, told of a failed poll by the poller: the poller still
	// backs off, with the failure counted (PollBackoff gets 1, then 2).
	t.Run("OnErrorAfterFailedPoll", func(t *testing.T) {
		onlyHooks(t, panics)
		if panics {
			t.Skip("a panic in OnError crashes the program: TestOnErrorPanicCrashes")
		}
		g := newGoexitCase(2, 0, "")
		var calls backoffCalls
		w := newWorker(t, intake.Config{
			Source:   &seqSource{answers: []answer{{err: errPoll}, {err: errPoll}, {tasks: g.list(false)}}},
			Supplier: slots.NewFixed(2), MaxPollers: 1, OnError: g.onErrorTrap(t, notGoexit), PollBackoff: calls.backoff(nil), Handler: nop,
		})
		g.trap.wait(t)
		eventually(t, 10*time.Second, func() bool { return g.c.acked.Load() == 2 }, "both tasks acknowledged")
		shutdownInTime(t, w)
		requireFigures(t, w, figures{Received: 2, Started: 2, Acked: 2})
		require.EqualValues(t, 2, w.Stats().PollErrors)
		require.Equal(t, []int{1, 2}, calls.get())
		requireReportedOnce(t, g)
	})
}
