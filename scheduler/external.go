package scheduler

import (
	"context"

	"github.com/weftrt/weft/latch"
)

// Run runs f on a worker of the pool and waits for it to return. If f
// panics, Run re-raises the panic in the caller as a *Panic carrying the
// original value and stack; the pool keeps working.
//
// Run is for goroutines outside the pool: the caller blocks on a
// condition variable, it does not spin. A task that already has a *Worker
// should call f(w) directly, or use the join and scope packages: a worker
// blocked in Run cannot run anything else. Run returns ErrClosed if the
// pool is shutting down, and ctx.Err() if ctx is done before f is queued.
func (p *Pool) Run(ctx context.Context, f func(*Worker)) error {
	if f == nil {
		panic("weft/scheduler: Run with a nil function")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	j := &runJob{pool: p, f: f}
	j.job.Init(j)
	if err := p.inject(&j.job); err != nil {
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
	job   Job
	pool  *Pool
	f     func(*Worker)
	done  latch.Blocking
	panic *Panic // written before done is set
	err   error  // ErrClosed if the job was abandoned unstarted
}

func (j *runJob) RunJob(w *Worker) {
	j.panic = CatchWorker(j.f, w)
	j.done.Set()
	j.pool.taskDone()
}

func (j *runJob) abandon(err error) {
	j.err = err
	j.done.Set()
	j.pool.taskDone()
}

// Spawn queues f to run on some worker and returns without waiting. If f
// panics, the panic goes to the pool's panic handler (WithPanicHandler);
// without one it is re-raised on the worker, which crashes the program.
// Spawn returns ErrClosed if the pool is shutting down, and ctx.Err() if
// ctx is done before f is queued.
func (p *Pool) Spawn(ctx context.Context, f func(*Worker)) error {
	if f == nil {
		panic("weft/scheduler: Spawn with a nil function")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	j := &spawnJob{pool: p, f: f}
	j.job.Init(j)
	return p.inject(&j.job)
}

// spawnJob is a detached task.
type spawnJob struct {
	job  Job
	pool *Pool
	f    func(*Worker)
}

func (j *spawnJob) RunJob(w *Worker) {
	pan := CatchWorker(j.f, w)
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

func (j *spawnJob) abandon(error) { j.pool.taskDone() }

// abandoner is a queued outside task that can be dropped unstarted when a
// Shutdown's deadline passes.
type abandoner interface {
	abandon(err error)
}
