package scheduler

import "github.com/weftrt/weft/internal/core"

// Worker is one of a pool's worker goroutines, handed to every task it
// runs, the way t.Run hands over a *testing.T. Go has no goroutine-local
// storage, so this handle is how a task forks: pass it to join.Call,
// join.Join, scope.Run and the par functions.
//
// A *Worker is only valid inside the task it was handed to, on that
// task's goroutine: do not keep it, or pass it to another goroutine.
// join and scope check this and panic with a message naming the mistake.
type Worker core.Worker

// engine is w as the scheduler's engine knows it: the same pointer.
func (w *Worker) engine() *core.Worker { return (*core.Worker)(w) }

// Index returns the worker's index, 0 <= Index() < Pool().Workers().
// Tasks use it to pick per-worker state (a buffer, a partial sum) that
// needs no lock, since a worker runs one task at a time.
func (w *Worker) Index() int { return w.engine().Index() }

// Pool returns the pool the worker belongs to.
func (w *Worker) Pool() *Pool { return w.engine().Pool().Owner().(*Pool) }

// Yield runs one pending job of the pool, if there is one, and reports
// whether it did. A long task that does not fork can call it now and then
// to let queued work progress.
func (w *Worker) Yield() bool { return w.engine().Yield() }

// IsCurrent reports whether w runs on the calling goroutine: whether the
// caller is the task w was handed to (or a function it called). A *Worker
// used anywhere else has escaped its task.
func (w *Worker) IsCurrent() bool { return w.engine().IsCurrent() }

// Block runs f, which may block for a long time (on I/O, a channel, a
// lock, another pool), while another goroutine stands in for w: it runs
// w's queued work, steals and sleeps exactly as w would, so the pool keeps
// all its workers and the tasks that f may be waiting for still run, even
// on a one-worker pool. It is Go's hand-off of a P around a system call,
// and Java's ForkJoinPool.managedBlock, for weft's workers.
//
// Use it around any wait that can last longer than a few microseconds or
// that waits for other work of the same pool: without it the worker sits
// idle, and if every worker waits for work queued behind it the pool
// deadlocks. A Join or Both whose halves wait for each other needs it
// too; a join.Call's halves must not wait for each other at all, since
// deep in a recursion Call runs them as plain calls, one after the other.
//
// f must not use w. When f returns, Block waits for the stand-in to
// finish the job it is running, if any, and returns on w's own goroutine;
// a panic in f passes through Block after that. An f that returns before
// the stand-in has started (a wait already over) costs the start of a
// goroutine and no hand-over.
func (w *Worker) Block(f func()) { w.engine().Block(f) }
