package intake

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// Worker polls a Source for tasks, within the slots its supplier grants,
// and runs each on a goroutine of its own. Create one with New; stop it with Shutdown or
// Close. Its methods are safe for concurrent use.
type Worker struct {
	cfg     Config // with defaults; read-only after New
	tracker *slots.Tracker
	pause   *slots.Pauseable // the supplier the tracker holds

	scaler   scaler
	registry registry
	keys     keyLines  // serializes the tasks of each key (see keys.go)
	clock    pollClock // numbers the polls, for the keys' fences
	counts   counters

	// stopping is set once, by the first Shutdown or Close, before the
	// polls are cancelled: a poller or a task that sees it hands its tasks
	// back rather than running them.
	stopping atomic.Bool

	// pollCtx ends every poll and reservation: cancelled by stop.
	pollCtx    context.Context
	cancelPoll context.CancelFunc
	// runCtx is the handlers' context: cancelled by Close and by a
	// Shutdown whose deadline passes.
	runCtx    context.Context
	cancelRun context.CancelFunc
	// settleCtx bounds settlements (acks, nacks): cancelled by Close only,
	// so that tasks finishing during a Shutdown are still acknowledged.
	settleCtx    context.Context
	cancelSettle context.CancelFunc

	// epochMu guards epoch, the context of polls begun since the last
	// Pause; Pause cancels it, ending the polls in flight, and starts a
	// new one (a child of pollCtx).
	epochMu sync.Mutex
	epoch   *pollEpoch

	// settleRoom holds a token per settlement in flight (tasks whose
	// handler returned and whose slot was released); its capacity is
	// MaxSettling.
	settleRoom chan struct{}

	heartbeatDone chan struct{} // closed when the heartbeat goroutine exits; nil: none
	stopOnce      sync.Once

	// failure is the error the worker failed with (see fail), set once;
	// nil while it has not failed.
	failure atomic.Pointer[error]
}

type pollEpoch struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// New starts a worker: its pollers begin polling at once.
func New(cfg Config) (*Worker, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	w := &Worker{cfg: cfg}
	if p, ok := cfg.Supplier.(*slots.Pauseable); ok {
		w.pause = p
	} else {
		w.pause = slots.NewPauseable(cfg.Supplier)
	}
	w.tracker = slots.NewTracker(w.pause)
	w.registry.init()
	w.keys.init(&w.clock)
	w.settleRoom = make(chan struct{}, cfg.MaxSettling)
	w.pollCtx, w.cancelPoll = context.WithCancel(context.Background())
	w.runCtx, w.cancelRun = context.WithCancel(context.Background())
	w.settleCtx, w.cancelSettle = context.WithCancel(context.Background())
	w.epoch = newPollEpoch(w.pollCtx)
	w.scaler.init(cfg.MinPollers, cfg.MaxPollers, cfg.MaxBatch)
	if cfg.Heartbeat > 0 {
		w.heartbeatDone = make(chan struct{})
		go w.heartbeat(w.scaler.done) // after scaler.init
	}
	for range cfg.MinPollers {
		w.scaler.enter()
		go w.poll()
	}
	return w, nil
}

func newPollEpoch(parent context.Context) *pollEpoch {
	ctx, cancel := context.WithCancelCause(parent)
	return &pollEpoch{ctx: ctx, cancel: cancel}
}

// Source returns the worker's source (the default MemQueue if Config had
// none).
func (w *Worker) Source() Source { return w.cfg.Source }

// Pause stops the worker taking new work: pollers stop reserving slots,
// polls in flight are cancelled, and tasks already polled but not started
// are returned to the source unrun (Nack with no delay). Tasks running go
// on. Pause pauses the worker's Pauseable supplier, so every other user of
// a shared Pauseable pauses too; pausing that supplier directly has the
// same effect, except that polls in flight are let finish (their tasks
// are then returned unrun).
func (w *Worker) Pause() {
	w.pause.Pause(slots.PauseOptions{})
	w.epochMu.Lock()
	defer w.epochMu.Unlock()
	// After the supplier is paused, so that a poller that takes the new
	// epoch also sees the pause (see currentEpoch).
	w.epoch.cancel(slots.ErrPaused)
	w.epoch = newPollEpoch(w.pollCtx)
}

// Resume lets a paused worker poll again.
func (w *Worker) Resume() { w.pause.Resume() }

// Paused reports whether the worker's supplier is paused.
func (w *Worker) Paused() bool { return w.pause.Paused() }

// halted reports whether the worker must not start tasks: it is paused or
// stopping.
func (w *Worker) halted() bool { return w.stopping.Load() || w.pause.Paused() }

// currentEpoch returns the context for a poll about to begin. A Pause
// either happened before the epoch was read, and then halted reports it,
// or after, and then it cancels the epoch returned: either way no poll
// runs on into a pause.
func (w *Worker) currentEpoch() *pollEpoch {
	w.epochMu.Lock()
	defer w.epochMu.Unlock()
	return w.epoch
}

// haltedBack ends ep, the epoch of a poll one of whose tasks is about to
// go back unrun because the worker is halted (or because the supplier
// failed marking its slot: see markUsed), if no Pause has ended it:
// the supplier was paused directly (a Pauseable shared with others), not
// with Worker.Pause, or the task saw the pause before Pause ended the
// epoch. Then a Resume may come before the poll's later tasks are
// dispatched or started, and with the epoch still live one of them could
// run before the task handed back, which its source delivers again. It
// is called before the hand-back, so that every task of the poll not yet
// dispatched by then sees the epoch ended (dispatch). Like a Pause,
// it ends the polls in flight of that epoch: tasks they bring would go
// back too.
func (w *Worker) haltedBack(ep *pollEpoch) {
	if ep.ctx.Err() != nil {
		return // ended by a Pause (which began the next epoch) or a stop
	}
	w.epochMu.Lock()
	defer w.epochMu.Unlock()
	ep.cancel(slots.ErrPaused)
	if w.epoch == ep {
		w.epoch = newPollEpoch(w.pollCtx)
	}
}

// report passes an error the worker handled to Config.OnError.
//
// OnError runs on a goroutine of its own, which report waits for. The
// worker reports from the middle of its bookkeeping (a settlement, a
// poll, a hand-back, a release), on whichever goroutine met the error,
// and runtime.Goexit in OnError (t.FailNow, require.* in a test's hook)
// cannot be stopped: run there, it would end that goroutine and strand
// the rest. Isolating the hook costs a goroutine per error reported, on
// error paths only; a continuation (see releaseSlot) at each of report's
// callers would cost every one of them. An OnError that calls Goexit is
// told so, once; a panic in it crashes the program, as a panic in a
// goroutine does, but not from here (see raise).
//
// A taskError's task ID is read here, isolated too: Task.ID is the
// source's code.
func (w *Worker) report(err error) {
	f := w.cfg.OnError
	if f == nil || err == nil {
		return
	}
	if te, ok := err.(*taskError); ok {
		te.readID()
	}
	pan, exited := isolated(func() { f(err) })
	if exited {
		// Once: a hook that always calls Goexit is not told of it forever.
		pan, _ = isolated(func() {
			f(fmt.Errorf("weft/intake: %w, reporting: %w", goexitError("OnError"), err))
		})
	}
	if pan != nil {
		w.raise(pan)
	}
}

// raise crashes the program with a panic of OnError's, as a panic in any
// goroutine's code does in Go, from a goroutine of its own: never on
// report's caller, which is in the middle of the worker's bookkeeping.
// Unwound through it and recovered by a caller (of Shutdown, say), the
// panic would leave a slot held or a task unsettled.
func (w *Worker) raise(pan *scheduler.Panic) {
	go core.Repanic(&scheduler.Panic{Value: fmt.Sprintf("weft/intake: Config.OnError panicked: %v", pan.Value), Stack: pan.Stack})
}

// isolated runs f on a goroutine of its own and waits for it to end. It
// returns what f panicked with, or exited if f called runtime.Goexit.
func isolated(f func()) (pan *scheduler.Panic, exited bool) {
	done := make(chan struct{})
	go func() {
		returned := false
		defer func() {
			if !returned {
				if v := recover(); v != nil {
					pan = core.Recovered[scheduler.Panic](v)
				} else {
					exited = true
				}
			}
			close(done)
		}()
		f()
		returned = true
	}()
	<-done
	return pan, exited
}

// fault is the error for user code (who) that did not return: v is what
// recover returned, nil for runtime.Goexit.
func fault(who string, v any) error {
	if v == nil {
		return goexitError(who)
	}
	return fmt.Errorf("%s panicked: %w", who, core.Recovered[scheduler.Panic](v))
}

// goexitError reports that user code (the string names it) called
// runtime.Goexit. It matches scheduler.ErrGoexit (errors.Is) without
// that error's text, which speaks of a task on a pool worker and of the
// pool replacing the worker's goroutine: the code here is a source's, a
// supplier's or a hook's, called by the intake worker, which fails (see
// fail), or a handler's, whose task fails.
type goexitError string

func (e goexitError) Error() string {
	return string(e) + " called runtime.Goexit (t.FailNow, t.Fatal and require.* do), which ended " +
		"the goroutine that called it; in a test, fail from the test's own goroutine, or use t.Error and return"
}

func (goexitError) Unwrap() error { return core.ErrGoexit }

// taskError is an error about a task, as reported to OnError: "weft/intake:
// <what> task <ID>: <err>".
type taskError struct {
	what string
	task Task
	err  error
	id   string // read by report (readID)
	// idErr is how Task.ID failed, if it did; the error wraps it too.
	idErr error
}

func taskErr(what string, t Task, err error) error {
	return &taskError{what: what, task: t, err: err}
}

func (e *taskError) Error() string {
	if e.idErr != nil {
		return fmt.Sprintf("weft/intake: %s task ?: %v (reading its ID: %v)", e.what, e.err, e.idErr)
	}
	return fmt.Sprintf("weft/intake: %s task %s: %v", e.what, e.id, e.err)
}

func (e *taskError) Unwrap() []error {
	if e.idErr != nil {
		return []error{e.err, e.idErr}
	}
	return []error{e.err}
}

// readID reads the task's ID for Error, on a goroutine of its own (see
// report).
func (e *taskError) readID() {
	var id string
	switch pan, exited := isolated(func() { id = e.task.ID() }); {
	case exited:
		e.idErr = fault("Task.ID", nil)
	case pan != nil:
		e.idErr = fault("Task.ID", pan)
	default:
		e.id = id
	}
}
