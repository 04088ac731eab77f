package scheduler

import (
	"context"
	"errors"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/latch"
	"github.com/weftrt/weft/slots"
)

// Run runs f on a worker of the pool, waits for it to return, and returns
// f's error. It is the way into the pool from a goroutine outside it:
//
//	err := pool.Run(ctx, func(w *scheduler.Worker) error {
//		return par.ForErr(ctx, w, len(xs), check)
//	})
//
// For a result as well as an error, use RunValue.
//
// Run first reserves a slot from the pool's supplier (see WithSupplier),
// waiting for one as long as ctx allows. If ctx ends before f starts
// (already ended, while Run waits for a slot, or while the task waits for
// a free worker), f does not run and Run returns context.Cause(ctx); once
// f has started, ctx is f's to watch. Run returns ErrClosed if the pool is
// shutting down. If f panics, Run re-raises the panic in the caller as a
// *Panic carrying the original value and stack; the pool keeps working.
// A nil ctx or a nil f panics, naming the mistake.
//
// The caller blocks on a condition variable; it does not spin. Called
// from a task of the same pool, Run calls f on the task's own worker
// instead, like a fork: no slot, no queue, and no worker blocked waiting
// for itself. A task that has its *Worker should call f(w) directly, or
// use the join, scope and par packages.
func (p *Pool) Run(ctx context.Context, f func(*Worker) error) error {
	p.check("Run", ctx)
	if f == nil {
		panic("weft/scheduler: Run with a nil function")
	}
	if w := p.eng.Current(); w != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		var err error
		core.Repanic(core.CatchWorker[Panic](func(w *Worker) { err = f(w) }, (*Worker)(w)))
		return err
	}
	j := &runJob{pool: p, ctx: ctx, f: f}
	j.job.Init(j)
	if p.eng.InTask() {
		// A task blocked in Worker.Block: its worker belongs to a stand-in,
		// so f cannot run inline, but the task holds a slot already, as
		// when it calls Run directly. Waiting for a second slot could wait
		// for its own forever.
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		j.slotless = true
		if err := p.accept(1, func() { p.injectCount.Add(1); p.eng.Inject(&j.job) }); err != nil {
			return err
		}
		return j.wait()
	}
	permit, err := p.admit(ctx)
	if err != nil {
		return causeOf(ctx, err)
	}
	j.permit = permit
	if err := p.inject(&j.job, permit); err != nil {
		return err
	}
	return j.wait()
}

// RunValue is Run for a task with a result: it returns f's result and
// error, or R's zero value and the error that kept f from running.
//
//	sum, err := scheduler.RunValue(ctx, pool, func(w *scheduler.Worker) (int, error) {
//		return par.ReduceRange(w, 0, len(xs), 0, sumChunk, add), nil
//	})
//
// A nil pool is the default pool. Go has no generic methods, which is why
// this is a function and not a method of Pool.
func RunValue[R any](ctx context.Context, p *Pool, f func(*Worker) (R, error)) (R, error) {
	if f == nil {
		panic("weft/scheduler: RunValue with a nil function")
	}
	if p == nil {
		p = Default()
	}
	p.check("RunValue", ctx)
	var r R
	err := p.Run(ctx, func(w *Worker) error {
		var err error
		r, err = f(w)
		return err
	})
	if err != nil {
		var zero R
		return zero, err
	}
	return r, nil
}

// causeOf returns ctx's cause if err is ctx's error (a supplier may wrap
// it), and err otherwise: the same cancellation reads the same whether it
// came while waiting for a slot or before the task started.
func causeOf(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		return context.Cause(ctx)
	}
	return err
}

// wait waits for the job to finish and returns Run's result.
func (j *runJob) wait() error {
	// Every path from here releases the caller: RunJob (through RunThen,
	// whatever f does) or abandon.
	j.done.Wait()
	if j.err != nil {
		return j.err
	}
	core.Repanic(j.panic)
	return j.result
}

// runJob is a Run call's job: its caller waits on done.
type runJob struct {
	job    core.Job
	pool   *Pool
	ctx    context.Context
	f      func(*Worker) error
	permit slots.Permit
	// slotless: a Run from a task blocked in Block, which holds no permit
	// of its own (the task's covers it).
	slotless bool
	done     latch.Blocking
	panic    *Panic // written before done is set
	err      error  // ErrClosed if the job was abandoned unstarted
	result   error  // f's error, or ctx's cause if f did not start; before done
}

// RunJob runs f under the task's slot and releases the waiting caller.
func (j *runJob) RunJob(w *core.Worker) {
	if j.slotless {
		core.RunThen((*Worker)(w), j.call, j.finish)
		return
	}
	// The mark runs under RunThen too: a supplier that calls
	// runtime.Goexit in MarkSlotUsed ends this goroutine, and the caller
	// must still be released.
	core.RunThen((*Worker)(w), func(w *Worker) {
		core.Repanic(j.pool.door.start(j.permit)) // the supplier panicked: f does not run
		j.call(w)
	}, j.finish)
}

// call runs f unless ctx ended while the task waited for a worker.
func (j *runJob) call(w *Worker) {
	if j.ctx.Err() != nil {
		j.result = context.Cause(j.ctx)
		return
	}
	j.result = j.f(w)
}

// finish releases the slot and the caller, who re-raises the task's panic
// or else the supplier's.
//
// The task stops being pending (taskDone) before its caller is released:
// a caller that reads Stats().Pending once Run has returned must not see
// its own task there still. Ending it first cannot let Close return too
// early: Close waits for the workers' goroutines, and this one still sets
// done before it can exit.
func (j *runJob) finish(p *Panic) {
	j.panic = p
	if !j.slotless {
		released := false
		defer func() {
			if !released { // the supplier called runtime.Goexit in ReleaseSlot
				j.panic = firstPanic(p, core.Recovered[Panic](nil))
			}
			j.pool.taskDone()
			j.done.Set()
		}()
		j.panic = firstPanic(p, j.pool.door.finish(j.permit, p))
		released = true
		return
	}
	j.pool.taskDone()
	j.done.Set()
}

func (j *runJob) abandon(err error) *Panic {
	// The release runs the supplier's ReleaseSlot on Shutdown's goroutine,
	// and a runtime.Goexit there ends that goroutine: the deferred call
	// still releases the caller (with ErrGoexit, as when the release fails
	// on a worker) and ends the task, or Run and every later Close would
	// wait for it forever.
	released := j.slotless
	defer func() {
		if !released {
			j.panic = core.Recovered[Panic](nil)
		}
		j.pool.taskDone() // before the caller is released: see finish
		j.done.Set()
	}()
	if !j.slotless {
		j.panic = j.pool.door.neverUsed(j.permit)
		released = true
	}
	if j.panic == nil {
		j.err = err
	}
	return nil // the caller re-raises it
}

// Spawn queues f to run on some worker and returns without waiting. If f
// panics, the panic goes to the pool's panic handler (WithPanicHandler);
// without one it is re-raised on a goroutine of its own, which crashes the program.
// If f calls runtime.Goexit, the handler gets a *Panic carrying ErrGoexit;
// without one, f just ends, as a goroutine would.
//
// Like Run, Spawn first reserves a slot, waiting as long as ctx allows; it
// returns context.Cause(ctx) if ctx ends first, and ErrClosed if the pool
// is shutting down. Once queued, the task runs whatever becomes of ctx.
func (p *Pool) Spawn(ctx context.Context, f func(*Worker)) error {
	p.check("Spawn", ctx)
	if f == nil {
		panic("weft/scheduler: Spawn with a nil function")
	}
	permit, err := p.admit(ctx)
	if err != nil {
		return causeOf(ctx, err)
	}
	return p.spawn(f, permit)
}

// TrySpawn is Spawn without waiting for a slot: it returns ErrNoSlot if
// the pool's supplier has none free right now.
func (p *Pool) TrySpawn(f func(*Worker)) error {
	p.check("TrySpawn", context.Background())
	if f == nil {
		panic("weft/scheduler: TrySpawn with a nil function")
	}
	if p.closing.Load() {
		return ErrClosed
	}
	permit, err := p.door.tryReserve()
	if err != nil {
		return err
	}
	return p.spawn(f, permit)
}

func (p *Pool) spawn(f func(*Worker), permit slots.Permit) error {
	j := &spawnJob{pool: p, f: f, permit: permit}
	j.job.Init(j)
	return p.inject(&j.job, permit)
}

// spawnJob is a detached task.
type spawnJob struct {
	job    core.Job
	pool   *Pool
	f      func(*Worker)
	permit slots.Permit
}

// RunJob runs f under the task's slot; a panic goes to the panic handler.
func (j *spawnJob) RunJob(w *core.Worker) {
	// As in runJob.RunJob: a Goexit in MarkSlotUsed still ends the task.
	core.RunThen((*Worker)(w), func(w *Worker) {
		core.Repanic(j.pool.door.start(j.permit)) // the supplier panicked: f does not run
		j.f(w)
	}, j.finish)
}

func (j *spawnJob) finish(pan *Panic) {
	released := false
	defer func() {
		if !released { // the supplier called runtime.Goexit in ReleaseSlot
			j.pool.taskDone()
		}
	}()
	pan = firstPanic(pan, j.pool.door.finish(j.permit, pan))
	released = true
	j.pool.taskDone()
	if pan == nil || j.pool.handlePanic(pan) {
		return
	}
	// Nobody takes it. A panic crashes the program rather than vanish;
	// a Goexit ends quietly, as it would in a goroutine of its own.
	if !errors.Is(pan, ErrGoexit) {
		// Not on this goroutine: a worker also runs jobs while it waits
		// (for a join's stolen half, a scope, a broadcast), and
		// raised here the panic would unwind into the waiting task, whose
		// join or scope would take it for its own and hand it to its
		// caller, who may recover it. A goroutine of its own has no
		// caller to catch it.
		crash(pan)
	}
}

func (j *spawnJob) abandon(error) *Panic {
	// As in runJob.abandon: a Goexit in ReleaseSlot still ends the task.
	released := false
	defer func() {
		if !released {
			j.pool.taskDone()
		}
	}()
	pan := j.pool.door.neverUsed(j.permit)
	released = true
	j.pool.taskDone()
	if pan != nil && !j.pool.handlePanic(pan) {
		return pan
	}
	return nil
}

// handlePanic gives a panic that nobody waits for to the pool's panic
// handler and reports whether there was one.
//
// A handler that panics in turn raises a panic that is nobody's either;
// on this goroutine it would unwind into whatever task the worker is
// waiting in (see spawnJob.finish), so it crashes from a goroutine of its
// own. A handler's Goexit ends this goroutine as a task's would.
func (p *Pool) handlePanic(pan *Panic) bool {
	h := p.cfg.panicHandler
	if h == nil {
		return false
	}
	// A Goexit never returns from Catch: hp is a panic, even one whose
	// value is ErrGoexit (a handler that re-raises the Goexit it got).
	if hp := core.Catch[Panic](func() { h(pan) }); hp != nil {
		crash(hp)
	}
	return true
}

// admit checks that the pool is open and reserves a slot for one task.
func (p *Pool) admit(ctx context.Context) (slots.Permit, error) {
	if p.closing.Load() {
		return slots.Permit{}, ErrClosed // fail fast, before waiting for a slot
	}
	return p.door.reserve(ctx)
}

// abandoner is a queued outside task that can be dropped unstarted when a
// Shutdown's deadline passes. abandon returns a panic of the supplier's
// that nobody else will see (a detached task's, with no panic handler).
type abandoner interface {
	abandon(err error) *Panic
}

// crash raises a detached task's panic that no handler takes, on a
// goroutine of its own (see spawnJob.finish), and never returns. Were the
// worker to go on, it could exit and let Close return, and the program
// end, before that goroutine ever ran: the panic would be lost. Blocked
// here, the worker never exits, so nothing waiting for it returns before
// the crash.
func crash(pan *Panic) {
	go func() { panic(pan) }()
	select {}
}
