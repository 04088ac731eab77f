package scheduler

import (
	"context"
	"sync"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/latch"
	"github.com/weftrt/weft/slots"
)

// Broadcast runs f once on every worker of the pool and waits for all of
// them. It takes one slot from the pool's supplier for the whole call. If
// some parts panic, the first panic is re-raised after all parts finished.
// It returns ErrClosed if the pool is shutting down, and
// context.Cause(ctx) if ctx is done before the parts are queued.
//
// Called from a task of the same pool, Broadcast takes no slot (the task
// holds one), runs the calling worker's part itself and, while the other
// parts run, runs other jobs as any waiting worker does.
func (p *Pool) Broadcast(ctx context.Context, f func(*Worker)) error {
	p.check("Broadcast", ctx)
	if f == nil {
		panic("weft/scheduler: Broadcast with a nil function")
	}
	if w := p.eng.Current(); w != nil {
		return p.broadcastFrom(ctx, w, f)
	}
	// A task blocked in Worker.Block holds a slot already (see Run).
	slotless := p.eng.InTask()
	var permit slots.Permit
	var err error
	if slotless {
		err = ctx.Err()
	} else {
		permit, err = p.admit(ctx)
	}
	if err != nil {
		return causeOf(ctx, err)
	}
	n := p.Workers()
	b := &broadcast{pool: p, f: f, parts: make([]broadcastPart, n)}
	b.count.Init(int64(n), &b.done)
	err = p.accept(n, func() {
		for i := range n {
			part := &b.parts[i]
			part.b = b
			part.job.Init(part)
			p.eng.Mail(i, &part.job)
		}
	})
	if err != nil {
		if !slotless {
			core.Repanic(p.door.neverUsed(permit)) // the supplier's panic, to the caller
		}
		return err
	}
	if slotless {
		b.done.Wait()
		core.Repanic(b.panic)
		return nil
	}
	// One slot for the whole broadcast, used from when it is queued: its
	// parts start on every worker at once. A supplier panic waits, like a
	// part's, until every part is done and the slot is back.
	//
	// The mark runs on the caller's goroutine, and a supplier that calls
	// runtime.Goexit in MarkSlotUsed ends it there: the deferred call
	// still waits for the parts and gives the slot back, which the
	// tracker counts as used, or it would be lost for good.
	marked := false
	defer func() {
		if !marked {
			b.done.Wait()
			_ = p.door.finish(permit, core.Recovered[Panic](nil)) // nobody is left to take a panic of ReleaseSlot's
		}
	}()
	started := p.door.start(permit)
	marked = true
	b.done.Wait()
	core.Repanic(firstPanic(b.panic, started, p.door.finish(permit, firstPanic(b.panic, started))))
	return nil
}

// broadcastFrom is Broadcast called by worker w of p.
func (p *Pool) broadcastFrom(ctx context.Context, w *core.Worker, f func(*Worker)) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	n := p.Workers()
	b := &broadcast{pool: p, f: f, parts: make([]broadcastPart, n)}
	var done latch.Owned
	done.Init(w.Sleep(), w.Index())
	b.count.Init(int64(n), &done)
	err := p.accept(n-1, func() {
		for i := range n {
			if i == w.Index() {
				continue
			}
			part := &b.parts[i]
			part.b = b
			part.job.Init(part)
			p.eng.Mail(i, &part.job)
		}
	})
	if err != nil {
		return err
	}
	own := &b.parts[w.Index()]
	own.b = b
	// RunThen, not Catch, and WaitOut: if the own part, or a job run
	// while waiting, calls runtime.Goexit, the caller must still wait for
	// the other parts before its goroutine ends and its own waiter is
	// released, as a join waits for its other half.
	core.RunThen((*Worker)(w), f, func(pan *Panic) {
		own.finishOwn(pan)
		w.WaitOut(&done)
	})
	core.Repanic(b.panic)
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
	job core.Job
	b   *broadcast
}

// RunJob runs the part on the worker it was addressed to.
func (part *broadcastPart) RunJob(w *core.Worker) {
	core.RunThen((*Worker)(w), part.b.f, part.finish)
}

func (part *broadcastPart) finish(pan *Panic) {
	part.b.pool.taskDone() // before the caller can be released: see runJob.finish
	part.finishOwn(pan)
}

// finishOwn records the part's panic and counts it done; for the part
// that broadcastFrom's caller runs itself, which is no pending task.
func (part *broadcastPart) finishOwn(pan *Panic) {
	b := part.b
	if pan != nil {
		b.once.Do(func() { b.panic = pan })
	}
	b.count.Done()
}
