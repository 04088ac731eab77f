package scope

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/latch"
	"github.com/weftrt/weft/scheduler"
)

// Scope is a handle on a group of tasks that Run or Group waits for. Each
// task receives its own *Scope, bound to the worker that runs the task:
// spawn from inside a task with the handle that task received, never with
// a handle captured from an enclosing task (the handle names the worker
// whose deque a spawn pushes to). Like a *testing.T, a handle is valid
// only until the function it was handed to returns.
type Scope struct {
	st *state
	w  *scheduler.Worker
}

// state is what all handles of one scope share.
type state struct {
	count latch.Count // one per unfinished task, plus one for the body
	done  latch.Owned // set by count; owned by the worker that waits
	// panic is the first task panic; CompareAndSwap from nil keeps the
	// first, and every store happens before the task's count.Done, so
	// before the waiter sees done set. In a Group, only the panic whose
	// swap succeeded cancels ctx (see recordPanic).
	panic atomic.Pointer[scheduler.Panic]

	// Group only (ctx is nil for Run).
	ctx     context.Context
	cancel  context.CancelCauseFunc
	errOnce sync.Once
	err     error // the first error; written in errOnce before count.Done
}

// Run calls body with a new scope and returns when body and every task
// spawned in the scope (transitively) have returned. Tasks may borrow
// variables of the enclosing function: they all finish before Run
// returns. If any of them panicked, Run re-raises the first panic, as a
// *scheduler.Panic, after all have finished.
//
// w is the current worker, which must not be nil; a goroutine outside the
// pool calls On.
func Run(w *scheduler.Worker, body func(s *Scope)) {
	if body == nil {
		panic("weft/scope: Run with a nil body")
	}
	if w == nil {
		panic(errNilWorker)
	}
	st := newState(w)
	// RunThen, not Catch: a body that calls runtime.Goexit still waits
	// for the scope's tasks before its goroutine ends.
	core.RunThen(w, func(w *scheduler.Worker) { body(&Scope{st, w}) },
		func(p *scheduler.Panic) { st.finish(w, p) })
	core.Repanic(st.panic.Load())
}

// Group is the error-returning form of Run, with errgroup's semantics and
// work stealing: body and the tasks started with Go return errors; the
// first error cancels the context that s.Context returns, so the other
// tasks can stop early; Group waits for all of them and returns the first
// error. The context is also cancelled when Group returns. A panic takes
// precedence over errors and is re-raised as in Run. w must not be nil; a
// goroutine outside the pool calls GroupOn.
func Group(ctx context.Context, w *scheduler.Worker, body func(s *Scope) error) error {
	if body == nil {
		panic("weft/scope: Group with a nil body")
	}
	if w == nil {
		panic(errNilWorker)
	}
	if ctx == nil {
		panic("weft/scope: Group with a nil context: pass context.Background() or context.TODO()")
	}
	st := newState(w)
	st.ctx, st.cancel = context.WithCancelCause(ctx)
	defer st.cancel(context.Canceled)
	core.RunThen(w, func(w *scheduler.Worker) { st.fail(body(&Scope{st, w})) },
		func(p *scheduler.Panic) { st.finish(w, p) })
	core.Repanic(st.panic.Load())
	return st.err
}

func newState(w *scheduler.Worker) *state {
	st := &state{}
	st.done.Init(engine(w).Sleep(), w.Index())
	st.count.Init(1, &st.done)
	return st
}

// finish ends the body's own count and waits for every task.
func (st *state) finish(w *scheduler.Worker, bodyPanic *scheduler.Panic) {
	st.recordPanic(bodyPanic)
	st.count.Done()
	engine(w).WaitOut(&st.done) // even if a job run meanwhile calls Goexit
}

// recordPanic keeps the first panic and, in a Group, cancels the context
// with it as the cause: sibling tasks that watch ctx.Done() stop instead
// of waiting for work that will never come. Only the panic that won the
// CompareAndSwap cancels, as only the first error does (errOnce): a later
// panic that cancelled in the gap between the first one's swap and its
// cancel would become the context's cause while Group raises the first.
func (st *state) recordPanic(p *scheduler.Panic) {
	if p == nil {
		return
	}
	if st.panic.CompareAndSwap(nil, p) && st.cancel != nil {
		st.cancel(p)
	}
}

// fail records err if it is the first error and cancels the context.
func (st *state) fail(err error) {
	if err == nil {
		return
	}
	st.errOnce.Do(func() {
		st.err = err
		st.cancel(err)
	})
}

// Worker returns the worker running the task that received s.
func (s *Scope) Worker() *scheduler.Worker { return s.w }

// Context returns the scope's context: for a Group, the context that the
// first error cancels; for Run, context.Background().
func (s *Scope) Context() context.Context {
	if s.st.ctx == nil {
		return context.Background()
	}
	return s.st.ctx
}

// Spawn starts f as a task of the scope. It pushes f onto the current
// worker's deque, where this worker or a thief picks it up.
func (s *Scope) Spawn(f func(s *Scope)) {
	if f == nil {
		panic("weft/scope: Spawn with a nil function")
	}
	s.push(&task{st: s.st, f: f})
}

// Go starts f as a task of a Group; its error counts as in errgroup. Go
// panics if s belongs to Run, which has no error to return.
func (s *Scope) Go(f func(s *Scope) error) {
	if f == nil {
		panic("weft/scope: Go with a nil function")
	}
	if s.st.ctx == nil {
		panic("weft/scope: Go needs a scope made by Group (Run returns no error): " +
			"use s.Spawn in a Run scope, or scope.Group for tasks that return errors")
	}
	s.push(&task{st: s.st, fe: f})
}

func (s *Scope) push(t *task) {
	switch {
	case s.st.done.Probe():
		panic(msgFinished)
	case !s.w.IsCurrent():
		panic("weft/scope: spawn with a *Scope from another goroutine: use the *Scope that your own task " +
			"received (it names the worker whose queue the spawn goes to, which only that worker may touch); " +
			"inside Worker.Block's f the task has given its worker up: spawn before or after Block")
	}
	t.job.Init(t)
	if !s.st.count.TryAdd() {
		// The scope's last task ended between the Probe and here (a
		// *Scope kept past its task, used on the same worker): the same
		// mistake, caught a moment later.
		panic(msgFinished)
	}
	engine(s.w).Push(&t.job)
}

// msgFinished is push's panic for a *Scope used after its scope finished.
const msgFinished = "weft/scope: spawn on a scope that has finished: a *Scope is valid only until " +
	"the function it was handed to returns; spawn from inside that function"

// task is a spawned job; handle is the *Scope its function receives.
type task struct {
	job    core.Job
	st     *state
	f      func(*Scope)
	fe     func(*Scope) error
	handle Scope
}

// RunJob runs the task with a handle bound to the worker that took it.
func (t *task) RunJob(e *core.Worker) {
	w := (*scheduler.Worker)(e)
	t.handle = Scope{t.st, w}
	core.RunThen(w, t.call, t.done)
}

// done ends the task: it records its panic (which, in a Group, also
// cancels the context, as an error would) and counts it down; the waiter
// may return from here on.
func (t *task) done(p *scheduler.Panic) {
	t.st.recordPanic(p)
	t.st.count.Done()
}

func (t *task) call(*scheduler.Worker) {
	if t.f != nil {
		t.f(&t.handle)
		return
	}
	t.st.fail(t.fe(&t.handle))
}

// engine is w as the scheduler's engine knows it, with the queue and wait
// operations that a scope needs: the same pointer (scheduler.Worker is
// defined as core.Worker).
func engine(w *scheduler.Worker) *core.Worker { return (*core.Worker)(w) }
