package scheduler

import (
	"context"

	"github.com/weftrt/weft/latch"
	"github.com/weftrt/weft/slots"
)

// Run runs f on a worker of the pool and waits for it to return. If f
// panics, Run re-raises the panic in the caller as a *Panic carrying the
// original value and stack; the pool keeps working.
//
// Run first reserves a slot from the pool's supplier (see WithSupplier),
// waiting for one as long as ctx allows. It returns ctx.Err() if ctx ends
// before f is queued, and ErrClosed if the pool is shutting down.
//
// Run is for goroutines outside the pool: the caller blocks on a
// condition variable, it does not spin. A task that already has a *Worker
// should call f(w) directly, or use the join and scope packages: a worker
// blocked in Run cannot run anything else.
func (p *Pool) Run(ctx context.Context, f func(*Worker)) error {
	if f == nil {
		panic("weft/scheduler: Run with a nil function")
	}
	permit, err := p.admit(ctx)
	if err != nil {
		return err
	}
	j := &runJob{pool: p, f: f, permit: permit}
	j.job.Init(j)
	if err := p.inject(&j.job, permit); err != nil {
		return err
	}
	j.done.Wait()
	if j.err != nil {
		return j.err
	}
	Repanic(j.panic)
	return nil
}

// runJob is a Run call's job: its caller waits on done.
type runJob struct {
	job    Job
	pool   *Pool
	f      func(*Worker)
	permit slots.Permit
	done   latch.Blocking
	panic  *Panic // written before done is set
	err    error  // ErrClosed if the job was abandoned unstarted
}

// RunJob runs f under the task's slot and releases the waiting caller.
func (j *runJob) RunJob(w *Worker) {
	j.pool.door.start(j.permit)
	j.panic = CatchWorker(j.f, w)
	j.pool.door.finish(j.permit, j.panic)
	j.done.Set()
	j.pool.taskDone()
}

func (j *runJob) abandon(err error) {
	j.pool.door.neverUsed(j.permit)
	j.err = err
	j.done.Set()
	j.pool.taskDone()
}

// Spawn queues f to run on some worker and returns without waiting. If f
// panics, the panic goes to the pool's panic handler (WithPanicHandler);
// without one it is re-raised on the worker, which crashes the program.
//
// Like Run, Spawn first reserves a slot, waiting as long as ctx allows; it
// returns ctx.Err() if ctx ends first, and ErrClosed if the pool is
// shutting down.
func (p *Pool) Spawn(ctx context.Context, f func(*Worker)) error {
	if f == nil {
		panic("weft/scheduler: Spawn with a nil function")
	}
	permit, err := p.admit(ctx)
	if err != nil {
		return err
	}
	return p.spawn(f, permit)
}

// TrySpawn is Spawn without waiting for a slot: it returns ErrNoSlot if
// the pool's supplier has none free right now.
func (p *Pool) TrySpawn(f func(*Worker)) error {
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
	job    Job
	pool   *Pool
	f      func(*Worker)
	permit slots.Permit
}

// RunJob runs f under the task's slot; a panic goes to the panic handler.
func (j *spawnJob) RunJob(w *Worker) {
	j.pool.door.start(j.permit)
	pan := CatchWorker(j.f, w)
	j.pool.door.finish(j.permit, pan)
	j.pool.taskDone()
	if pan == nil {
		return
	}
	if h := j.pool.cfg.panicHandler; h != nil {
		h(pan)
		return
	}
	panic(pan)
}

func (j *spawnJob) abandon(error) {
	j.pool.door.neverUsed(j.permit)
	j.pool.taskDone()
}

// admit checks that the pool is open and reserves a slot for one task.
func (p *Pool) admit(ctx context.Context) (slots.Permit, error) {
	if p.closing.Load() {
		return slots.Permit{}, ErrClosed // fail fast, before waiting for a slot
	}
	return p.door.reserve(ctx)
}

// abandoner is a queued outside task that can be dropped unstarted when a
// Shutdown's deadline passes.
type abandoner interface {
	abandon(err error)
}
