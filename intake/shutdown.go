package intake

import "context"

// Shutdown stops the worker gracefully: it stops polling (polls in flight
// are cancelled), returns to the source the tasks polled but not started
// (HandBack, or Nack with no delay), and waits for the running tasks to
// finish and be settled. Then every slot the worker reserved has been
// released, and it returns nil, or the error the worker failed with
// (ErrFailed) if it had stopped by itself.
//
// If ctx ends first, Shutdown cancels the handlers' context and returns
// ctx.Err() without waiting further: the handlers still running keep
// their slots until they return, and their tasks are settled as usual,
// except that a handler that returns context.Canceled for it hands its
// task back (see Handler) instead of counting a failure.
// Shutdown may be called more than once, and after Close.
//
// Shutdown does not close the source: it belongs to the caller, and must
// outlive the worker.
func (w *Worker) Shutdown(ctx context.Context) error {
	w.stop()
	select {
	case <-w.scaler.done:
	case <-ctx.Done():
		w.cancelRun()
		return ctx.Err()
	}
	w.reclaim(w.registry.drain(), nil)
	select {
	case <-w.registry.quiet:
	case <-ctx.Done():
		w.cancelRun()
		return ctx.Err()
	}
	if w.heartbeatDone != nil {
		<-w.heartbeatDone // it exits once the registry is quiet
	}
	return w.err()
}

// Close stops the worker at once: it stops polling, cancels the handlers'
// context, returns the unstarted tasks to the source, and cancels
// settlements still in flight (their tasks are delivered again when their
// leases run out). It waits for the worker's own goroutines, not for
// handlers: a handler that ignores its context runs on, and releases its
// slot when it returns. Close may be called more than once, and after
// Shutdown.
func (w *Worker) Close() {
	w.stop()
	w.cancelRun()
	<-w.scaler.done // the pollers' polls are cancelled: they exit promptly
	w.reclaim(w.registry.drain(), w.cancelSettle)
	if w.heartbeatDone != nil {
		<-w.heartbeatDone
	}
}

// stop ends polling, once: pollers and tasks that start from now on see
// stopping and hand their tasks back.
func (w *Worker) stop() {
	w.stopOnce.Do(func() {
		w.stopping.Store(true)
		w.scaler.stop()
		w.cancelPoll()
	})
}

// reclaim hands back the deliveries of ds not yet started, then calls
// then, if it is not nil. If the source ends the goroutine handing one
// back (runtime.Goexit: the worker fails, see call), the caller never
// returns, but the rest still go back, from a new goroutine, and then
// comes what the caller had left to do.
func (w *Worker) reclaim(ds []*delivery, then func()) {
	rest, done := ds, false
	defer func() {
		if !done {
			go w.reclaim(rest, then)
		}
	}()
	for len(rest) > 0 {
		d := rest[0]
		rest = rest[1:] // before: handing d back is done even if it never returns
		d.handBack()    // only if it has not started
	}
	done = true
	if then != nil {
		then()
	}
}
