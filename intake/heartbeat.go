package intake

import (
	"context"
	"fmt"
	"time"

	"github.com/weftrt/weft/internal/core"
)

// heartbeat extends the leases of the tasks the worker holds, queued or
// running, every Config.Heartbeat, so that a long task (or one that waits
// long in a busy pool) is not delivered again while this worker still
// means to run it. One goroutine serves every task: it wakes four times
// per period and beats the tasks whose last beat is three quarters of a
// period old, so no lease goes more than a period without one (waking
// twice and beating at a whole period let a task delivered between two
// wake-ups go one and a half periods, and a Heartbeat shorter than the
// lease did not keep it).
//
// stopped is closed once a Shutdown or Close has stopped polling (the
// scaler's done); nil once this goroutine, or the one it took over from,
// has returned the unstarted tasks.
func (w *Worker) heartbeat(stopped <-chan struct{}) {
	returned := false
	defer func() {
		if returned {
			close(w.heartbeatDone)
			return
		}
		// User code this goroutine called ended it with runtime.Goexit
		// (a supplier's ReleaseSlot returning a task: see releaseSlot).
		// The heartbeat goes on in a new goroutine, or the leases of the
		// tasks still held would run out, and those tasks run twice.
		go w.heartbeat(stopped)
	}()
	every := w.cfg.Heartbeat
	period := max(every/4, time.Millisecond)
	tick := time.NewTicker(period)
	defer tick.Stop()
	due := max(every-period, 0) // a beat this old is due at this wake-up: the next is too late
	var held []*inflight
	for {
		select {
		case <-tick.C:
		case <-stopped:
			// Return the unstarted tasks here too: a Shutdown whose
			// context ended before polling stopped returned without
			// draining, and until something drains the registry it never
			// goes quiet, and this goroutine would beat on until Close.
			stopped = nil
			w.reclaim(w.registry.drain(), nil)
			continue
		case <-w.registry.quiet:
			returned = true
			return
		case <-w.settleCtx.Done():
			returned = true
			return
		}
		held = w.registry.snapshot(held)
		for _, r := range held {
			w.beat(r, due)
		}
		clear(held) // let settled tasks be collected
	}
}

func (w *Worker) beat(r *inflight, due time.Duration) {
	now := time.Now().UnixNano()
	if r.state.Load() == taskSettling || now-r.lastBeat.Load() < int64(due) {
		return
	}
	r.lastBeat.Store(now)
	ctx, cancel := context.WithTimeout(w.settleCtx, w.cfg.SettleTimeout)
	var err error
	if pan := core.Catch(func() { err = r.task.InProgress(ctx) }); pan != nil {
		err = fmt.Errorf("the source panicked: %w", pan) // not the heartbeat's end
	}
	cancel()
	switch {
	case err == nil:
		w.counts.heartbeats.Add(1)
	case r.state.Load() != taskSettling:
		// A beat that crossed the task's settlement fails harmlessly;
		// only one for a task still held means its lease is at risk.
		w.counts.settleErrors.Add(1)
		w.report(fmt.Errorf("weft/intake: extending the lease of task %s: %w", r.task.ID(), err))
	}
}
