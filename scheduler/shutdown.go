package scheduler

import (
	"context"

	"github.com/weftrt/weft/internal/core"
)

// Shutdown stops the pool the way http.Server.Shutdown stops a server: it
// refuses new outside work (ErrClosed), waits for every task already
// accepted to finish, then stops the workers and waits for their
// goroutines to exit.
//
// If ctx is done first, Shutdown drops the outside tasks that have not
// started (their Run callers get ErrClosed), tells the workers to exit as
// soon as their current tasks return, and returns ctx.Err() without
// waiting for them. Call Close afterwards to wait. Like http.Server's, it
// returns ctx.Err() only if work was still running: with nothing pending
// it returns nil even if ctx is already done.
//
// Callers waiting for a slot (Run, Spawn, Broadcast) return ErrClosed as
// soon as Shutdown starts. Shutdown and Close panic if called from a task
// of the pool (they would wait for that task forever) or on the default
// pool, which the whole process shares.
func (p *Pool) Shutdown(ctx context.Context) error {
	p.check("Shutdown", ctx)
	p.checkStoppable("Shutdown")
	p.submitMu.Lock()
	p.closing.Store(true)
	p.submitMu.Unlock()
	p.door.close()
	if p.pending.Load() == 0 {
		p.drainOnce.Do(func() { close(p.drained) })
	}
	select {
	case <-p.drained: // drained wins over a done ctx: nothing was left running
		p.eng.Terminate()
		p.eng.Wait()
		return nil
	default:
	}
	select {
	case <-p.drained:
		p.eng.Terminate()
		p.eng.Wait()
		return nil
	case <-ctx.Done():
		// The workers are told to exit even when a supplier's panic
		// comes out of the drop; it is re-raised after that.
		pan := p.abandonQueued()
		p.eng.Terminate()
		core.Repanic(pan)
		return ctx.Err()
	}
}

// Close is Shutdown without a deadline: it returns once every accepted
// task has finished and every worker goroutine has exited. It is safe to
// call more than once and after Shutdown.
func (p *Pool) Close() {
	p.check("Close", context.Background())
	p.checkStoppable("Close")
	_ = p.Shutdown(context.Background())
}

// abandonQueued drops the outside tasks still in the injector. It returns
// the first supplier panic that no waiter or handler takes, for Shutdown
// to re-raise once every task is dropped, so that no Run caller is left
// waiting.
//
// A supplier's runtime.Goexit in ReleaseSlot ends Shutdown's goroutine
// here: the task being dropped still ends (see runJob.abandon), and the
// workers, not yet told to exit, run the tasks still queued.
func (p *Pool) abandonQueued() *Panic {
	var first *Panic
	for {
		j := p.eng.TakeInjected()
		if j == nil {
			return first
		}
		first = firstPanic(first, j.Runner().(abandoner).abandon(ErrClosed))
	}
}
