package intake

import (
	"context"
	"time"
)

// heartbeat extends the leases of the tasks the worker holds, queued or
// running, every Config.Heartbeat, so that a long task (or one that waits
// long in its key's line) is not delivered again while this worker still
// means to run it. One goroutine serves every task: it wakes four times
// per period and beats the tasks whose last beat is three quarters of a
// period old, so no lease goes more than a period without one (waking
// twice and beating at a whole period let a task delivered between two
// wake-ups go one and a half periods, and a Heartbeat shorter than the
// lease did not keep it).
//
// stopped is closed once a Shutdown or Close has stopped polling (the
// scaler's done). If runtime.Goexit in a source's InProgress ends the
// goroutine, the worker fails (see call), and the heartbeat is over: the
// leases of the tasks still running lapse, and their sources may deliver
// them again meanwhile, as at-least-once allows.
func (w *Worker) heartbeat(stopped <-chan struct{}) {
	defer close(w.heartbeatDone)
	every := w.cfg.Heartbeat
	period := max(every/4, time.Millisecond)
	due := max(every-period, 0) // a beat this old is due at this wake-up: the next is too late
	tick := time.NewTicker(period)
	defer tick.Stop()
	var held []*delivery
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
			return
		case <-w.settleCtx.Done():
			return
		}
		held = w.registry.snapshot(held)
		for _, d := range held {
			w.beat(d, due)
		}
		clear(held) // let settled tasks be collected
	}
}

// beat extends d's lease if its last beat is at least due old. A failed
// beat (a panic included) is counted and reported, unless it crossed the
// task's settlement.
func (w *Worker) beat(d *delivery, due time.Duration) {
	now := time.Now().UnixNano()
	if d.state.Load() == settling || now-d.lastBeat.Load() < int64(due) {
		return
	}
	d.lastBeat.Store(now)
	ctx, cancel := context.WithTimeout(w.settleCtx, w.cfg.SettleTimeout)
	defer cancel()
	var err error
	if pan := w.call("the source's InProgress", func() { err = d.task.InProgress(ctx) }); pan != nil {
		err = pan
	}
	switch {
	case err == nil:
		w.counts.heartbeats.Add(1)
	case d.state.Load() != settling:
		// A beat that crossed the task's settlement fails harmlessly;
		// only one for a task still held means its lease is at risk.
		w.counts.settleErrors.Add(1)
		w.report(taskErr("extending the lease of", d.task, err))
	}
}
