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
// means to run it. One goroutine serves every task: it wakes twice per
// period and beats the tasks whose last beat is a period old, so no lease
// goes more than one and a half periods without one.
func (w *Worker) heartbeat() {
	defer close(w.heartbeatDone)
	every := w.cfg.Heartbeat
	tick := time.NewTicker(max(every/2, time.Millisecond))
	defer tick.Stop()
	var held []*inflight
	stopped := w.scaler.done // closed once a Shutdown or Close has stopped polling
	for {
		select {
		case <-tick.C:
		case <-stopped:
			// Return the unstarted tasks here too: a Shutdown whose
			// context ended before polling stopped returned without
			// draining, and until something drains the registry it never
			// goes quiet, and this goroutine would beat on until Close.
			stopped = nil
			for _, r := range w.registry.drain() {
				w.handBack(r) // only those the pool has not started
			}
			continue
		case <-w.registry.quiet:
			return
		case <-w.settleCtx.Done():
			return
		}
		held = w.registry.snapshot(held)
		for _, r := range held {
			w.beat(r, every)
		}
		clear(held) // let settled tasks be collected
	}
}

func (w *Worker) beat(r *inflight, every time.Duration) {
	now := time.Now().UnixNano()
	if r.state.Load() == taskSettling || now-r.lastBeat.Load() < int64(every) {
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
