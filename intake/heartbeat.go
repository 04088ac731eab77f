package intake

import (
	"context"
	"time"
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
// has returned the unstarted tasks. rest are the tasks the goroutine it
// took over from had still to beat at its last wake-up.
func (w *Worker) heartbeat(stopped <-chan struct{}, rest []*inflight) {
	returned := false
	defer func() {
		if returned {
			close(w.heartbeatDone)
			return
		}
		// User code this goroutine called ended it with runtime.Goexit
		// (a supplier's ReleaseSlot returning a task: see releaseSlot; a
		// source's InProgress or hand-back). The heartbeat goes on in a
		// new goroutine, with the tasks this wake-up had still to beat,
		// or the leases of the tasks still held would run out, and those
		// tasks run twice. Each beat is taken off rest before it is made,
		// so an InProgress that always calls Goexit costs a goroutine per
		// task per period, and never a loop.
		go w.heartbeat(stopped, rest)
	}()
	every := w.cfg.Heartbeat
	period := max(every/4, time.Millisecond)
	due := max(every-period, 0) // a beat this old is due at this wake-up: the next is too late
	w.beatRest(&rest, due)
	tick := time.NewTicker(period)
	defer tick.Stop()
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
		rest = held
		w.beatRest(&rest, due)
		clear(held) // let settled tasks be collected
	}
}

// beatRest beats the tasks of *rest that are due, taking each off *rest
// before its beat: it is made even if it never returns (see heartbeat).
func (w *Worker) beatRest(rest *[]*inflight, due time.Duration) {
	for len(*rest) > 0 {
		r := (*rest)[0]
		*rest = (*rest)[1:]
		w.beat(r, due)
	}
	*rest = nil
}

func (w *Worker) beat(r *inflight, due time.Duration) {
	now := time.Now().UnixNano()
	if r.state.Load() == taskSettling || now-r.lastBeat.Load() < int64(due) {
		return
	}
	r.lastBeat.Store(now)
	ctx, cancel := context.WithTimeout(w.settleCtx, w.cfg.SettleTimeout)
	defer cancel()
	var err error
	returned := false
	defer func() {
		if !returned {
			// A panic fails the beat, not the heartbeat; so does
			// runtime.Goexit, which goes on ending the goroutine.
			err = fault("the source", recover())
		}
		switch {
		case err == nil:
			w.counts.heartbeats.Add(1)
		case r.state.Load() != taskSettling:
			// A beat that crossed the task's settlement fails harmlessly;
			// only one for a task still held means its lease is at risk.
			w.counts.settleErrors.Add(1)
			w.report(taskErr("extending the lease of", r.task, err))
		}
	}()
	err = r.task.InProgress(ctx)
	returned = true
}
