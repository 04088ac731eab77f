package scheduler

import (
	"context"
	"sync"

	"github.com/weftrt/weft/latch"
)

// Broadcast runs f once on every worker of the pool and waits for all of
// them. It takes one slot from the pool's supplier for the whole call. Call it from outside the pool: a worker that called it would wait
// for its own part. If some parts panic, the first panic is re-raised
// after all parts finished. It returns ErrClosed if the pool is shutting
// down, and ctx.Err() if ctx is done before the parts are queued.
func (p *Pool) Broadcast(ctx context.Context, f func(*Worker)) error {
	if f == nil {
		panic("weft/scheduler: Broadcast with a nil function")
	}
	permit, err := p.admit(ctx)
	if err != nil {
		return err
	}
	b := &broadcast{pool: p, f: f, parts: make([]broadcastPart, len(p.workers))}
	b.count.Init(int64(len(p.workers)), &b.done)
	err = p.accept(len(p.workers), func() {
		for i, w := range p.workers {
			part := &b.parts[i]
			part.b = b
			part.job.Init(part)
			w.mail.Push(&part.job)
			p.sleep.NewJobFor(i)
		}
	})
	if err != nil {
		p.door.neverUsed(permit)
		return err
	}
	// One slot for the whole broadcast, used from when it is queued: its
	// parts start on every worker at once.
	p.door.start(permit)
	b.done.Wait()
	p.door.finish(permit, b.panic)
	Repanic(b.panic)
	return nil
}

type broadcast struct {
	pool  *Pool
	f     func(*Worker)
	parts []broadcastPart
	count latch.Count
	done  latch.Blocking
	once  sync.Once
	panic *Panic // the first part's panic; written before count reaches 0
}

type broadcastPart struct {
	job Job
	b   *broadcast
}

// RunJob runs the part on the worker it was addressed to.
func (part *broadcastPart) RunJob(w *Worker) {
	b := part.b
	if pan := CatchWorker(b.f, w); pan != nil {
		b.once.Do(func() { b.panic = pan })
	}
	b.count.Done()
	b.pool.taskDone()
}
