package intake

import (
	"errors"
	"fmt"
)

// call runs f, user code named who (a source's, a supplier's or a task's
// method, a backoff), and returns its panic as an error, which the caller
// handles as that code's failure.
//
// runtime.Goexit cannot be stopped, and a Goexit in such code (t.FailNow
// or require.* in a test's source or supplier) is a bug of the user's,
// with no sound way to go on from where it struck: if f calls it, the
// worker fails (see fail) and the calling goroutine ends. What that
// goroutine held is finished from a deferred call of its own: the
// poller's (pollExited), a delivery's holder's (abandon), a reclaim's.
func (w *Worker) call(who string, f func()) (err error) {
	returned := false
	defer func() {
		if returned {
			return // recover only when unwinding: it is not free
		}
		if v := recover(); v != nil {
			err = fault(who, v)
			return
		}
		w.fail(goexitError(who))
	}()
	f()
	returned = true
	return nil
}

// fail ends the worker after user code other than a handler called
// runtime.Goexit (cause says which). It is reported to OnError, each
// time; the first time, the worker stops as a Shutdown stops it, on a
// goroutine of its own: no more polls, every task not started goes back
// to the source, the running ones finish and settle. Stats().Err and
// Shutdown return the first error, which wraps ErrFailed and
// scheduler.ErrGoexit.
func (w *Worker) fail(cause error) {
	err := fmt.Errorf("%w: %w", ErrFailed, cause)
	w.report(err)
	if w.failure.CompareAndSwap(nil, &err) {
		w.counts.failures.Add(1)
		go w.windDown()
	}
}

// windDown stops a worker that failed: as Shutdown does, without waiting
// for the running tasks.
func (w *Worker) windDown() {
	w.stop()
	<-w.scaler.done
	w.reclaim(w.registry.drain(), nil)
}

// err returns the error the worker failed with, or nil.
func (w *Worker) err() error {
	if p := w.failure.Load(); p != nil {
		return *p
	}
	return nil
}

// errAbandoned is why a delivery that the worker's failure caught in
// mid-life is let go (see delivery.abandon): its slot's release reason,
// and the report of one whose settlement it cut short.
var errAbandoned = errors.New("the worker failed holding it: its settlement is left to its lease, and the source delivers it again")
