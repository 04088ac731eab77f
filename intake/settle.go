package intake

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// terminateUnrun terminates a poison task that never ran, then releases
// its slot.
func (w *Worker) terminateUnrun(r *inflight, err error) {
	settled := false
	defer func() {
		// The source ended this goroutine in Terminate (settle reported
		// it, failed, as a panic): the slot and record still go back,
		// from a goroutine of their own, as ReleaseSlot is the
		// supplier's code (see releaseSlot).
		if !settled {
			go w.release(r, slots.NeverUsed())
		}
	}()
	w.terminate(r, err)
	settled = true
	w.release(r, slots.NeverUsed())
}

// asyncAck returns the task's AsyncAcker if its settlement is an Ack the
// source can confirm without a goroutine of the worker's waiting.
func (w *Worker) asyncAck(r *inflight, err error) (AsyncAcker, bool) {
	if err != nil {
		return nil, false
	}
	a, ok := r.task.(AsyncAcker)
	return a, ok
}

// ackAsync acknowledges a task whose slot endTask released; done ends
// its settlement (settled), as settleEnded does for the others.
func (w *Worker) ackAsync(r *inflight, a AsyncAcker) {
	var once atomic.Bool
	done := func(err error) {
		if !once.CompareAndSwap(false, true) {
			return
		}
		if err != nil {
			w.counts.settleErrors.Add(1)
			w.report(taskErr("settling", r.task, err))
		} else {
			w.counts.acked.Add(1)
		}
		w.settled(r)
	}
	returned := false
	defer func() {
		// A panic in AckAsync fails the Ack, unless the source called
		// done first; so does runtime.Goexit, which goes on ending the
		// goroutine. done neither blocks nor calls the source, so it
		// runs here either way.
		if !returned {
			done(fault("the source", recover()))
		}
	}()
	a.AckAsync(w.settleCtx, w.cfg.SettleTimeout, done)
	returned = true
}

// endTask releases the slot of a task whose handler returned err, then
// settles it; the caller holds a token of settleRoom for the settlement.
// wait says whether the caller's goroutine may wait for a settlement (it
// is not a pool worker's).
func (w *Worker) endTask(r *inflight, err error, wait bool) {
	reason := slots.TaskComplete()
	if err != nil {
		reason = slots.TaskFailed(err)
		w.counts.failed.Add(1)
	}
	w.counts.settling.Add(1)
	released := false
	defer func() {
		// The supplier ended this goroutine in ReleaseSlot (see
		// releaseSlot): the task is settled all the same, or its token
		// and record would never come back, and Shutdown would wait for
		// them forever. released is set before the settlement begins, so
		// the task is settled once: from here, or below.
		if !released {
			go w.settleEndedTask(r, err, true)
		}
	}()
	w.releaseSlot(r.permit, reason)
	released = true
	w.settleEndedTask(r, err, wait)
}

// settleEndedTask settles a task whose slot endTask released. An Ack the
// source confirms without a goroutine of ours (AsyncAcker) is sent from
// here; any other settlement waits here if wait is set, else on a
// goroutine of its own.
func (w *Worker) settleEndedTask(r *inflight, err error, wait bool) {
	switch a, ok := w.asyncAck(r, err); {
	case ok:
		w.ackAsync(r, a)
	case wait:
		w.settleEnded(r, err)
	default:
		go w.settleEnded(r, err)
	}
}

// releaseSlot releases p through the tracker. The tracker records the
// release before it calls the supplier, so a supplier that fails in
// ReleaseSlot loses no slot of ours. A panic is reported and goes no
// further: unwinding through the worker's bookkeeping (a settleRoom
// token, the registry, a poll) would leave it stuck.
//
// runtime.Goexit (t.FailNow or require.* in a test's supplier) cannot be
// stopped: it is reported, and the goroutine ends. So whatever a caller
// still has to do after a release it does from a deferred call, which
// runs as the goroutine ends: there if it neither blocks nor calls user
// code (release), else on a new goroutine that goes on from where the
// release left off (endTask, handBackLine, reclaim, the poller's
// pollFrom, the heartbeat). A deferred call that cannot tell whether a
// release returned keeps a flag set after it, as released is here.
func (w *Worker) releaseSlot(p slots.Permit, reason slots.ReleaseReason) {
	released := false
	defer func() {
		if released {
			return // recover only when unwinding: it is not free
		}
		if v := recover(); v != nil {
			w.report(fmt.Errorf("weft/intake: the supplier panicked releasing %v: %w", p, core.Recovered(v)))
			return
		}
		w.report(fmt.Errorf("weft/intake: releasing %v: %w; the worker's remaining work goes on in another",
			p, goexitError("the supplier's ReleaseSlot")))
	}()
	err := w.tracker.Release(p, reason)
	released = true
	must(err)
}

// settleEnded settles a task whose slot endTask released, then gives its
// settleRoom token back. It has a goroutine to itself.
func (w *Worker) settleEnded(r *inflight, err error) {
	nacked, backingOff := false, false
	defer func() {
		// Also when the source ends the goroutine (runtime.Goexit) in
		// the settlement, which settle reports as failed, as it does a
		// panic: what is left neither blocks nor calls user code.
		if backingOff {
			// The user's Backoff ended it (backoff reported it): the
			// Nack, the source's code, goes on from a new goroutine
			// with the default delay.
			go w.nackEnded(r, defaultBackoff(int(r.deliveries)))
			return
		}
		if nacked {
			w.counts.nacked.Add(1) // even if the Nack failed, as ever
		}
		w.settled(r)
	}()
	switch {
	case err == nil:
		if w.settle(r.task, r.task.Ack) == nil {
			w.counts.acked.Add(1)
		}
	case w.cutShort(err):
		// The worker ended the handler (Close, or a Shutdown whose
		// deadline passed): no failure of the task's own, so it is
		// returned as one that did not run through, never terminated.
		nacked = true
		w.settle(r.task, func(ctx context.Context) error { return returnUnrun(ctx, r.task) })
	case w.poisoned(r, err):
		w.terminate(r, err)
	default:
		backingOff = true
		delay := w.backoff("Backoff", w.cfg.Backoff, defaultBackoff, int(r.deliveries))
		backingOff, nacked = false, true
		w.settle(r.task, func(ctx context.Context) error { return r.task.Nack(ctx, delay) })
	}
}

// nackEnded returns a failed task for a retry after delay, and ends its
// settlement, for settleEnded.
func (w *Worker) nackEnded(r *inflight, delay time.Duration) {
	defer w.settled(r)
	defer w.counts.nacked.Add(1)
	w.settle(r.task, func(ctx context.Context) error { return r.task.Nack(ctx, delay) })
}

// backoff returns b(n), from a Backoff of the user's (Config's field
// name), or fallback(n) if b panics. A panic or runtime.Goexit in b is
// reported. Goexit goes on ending the goroutine: the caller's
// continuation uses fallback without calling b again (settleEnded,
// pauseFor), so a b that always calls Goexit still gets its pause, and
// no goroutine loops on it.
func (w *Worker) backoff(name string, b, fallback Backoff, n int) (d time.Duration) {
	returned := false
	defer func() {
		if returned {
			return
		}
		v := recover()
		w.report(fmt.Errorf("weft/intake: the default backoff stands in: %w", fault(fmt.Sprintf("Config.%s(%d)", name, n), v)))
		d = fallback(n)
	}()
	d = b(n)
	returned = true
	return d
}

// settled ends the settlement of a task whose slot endTask released,
// whichever way it went (settleEnded, or an AsyncAcker's confirmation):
// its settleRoom token goes back, and the worker forgets it.
func (w *Worker) settled(r *inflight) {
	w.counts.settling.Add(-1)
	<-w.settleRoom
	w.registry.remove(r)
}

// cutShort reports whether a task failed with err because the worker
// cancelled its handler's context (Close, or a Shutdown whose deadline
// passed), and not by a fault of its own.
func (w *Worker) cutShort(err error) bool {
	return w.runCtx.Err() != nil && errors.Is(err, context.Canceled) && !errors.Is(err, ErrPoison)
}

// poisoned reports whether r, which failed with err, must not be retried.
func (w *Worker) poisoned(r *inflight, err error) bool {
	if errors.Is(err, ErrPoison) {
		return true
	}
	limit := w.cfg.MaxDeliveries
	return limit > 0 && int(r.deliveries) >= limit
}

// terminate settles a poison task. It counts the task as terminated only
// once the source took the Terminate: one that failed is reported (and
// counted among SettleErrors), and the source delivers the task again,
// to be terminated again.
func (w *Worker) terminate(r *inflight, err error) {
	reason := terminateReason(err)
	if reason != err.Error() {
		// The reason the source keeps (and, for JetStream, sends to every
		// subscriber of its advisories) carries no stack: the worker's
		// own error hook gets the whole of it.
		w.report(taskErr("terminating", r.task, err))
	}
	if w.settle(r.task, func(ctx context.Context) error { return r.task.Terminate(ctx, reason) }) == nil {
		w.counts.terminated.Add(1)
	}
}

// terminateReason is the reason a task that failed with err is terminated
// with: the error's text, except for a panic, whose stack (with the
// handler's source paths) is left out: the panic's value and type say
// what happened.
func terminateReason(err error) string {
	var pan *scheduler.Panic
	if errors.As(err, &pan) {
		// The value is cut short so that the type, after it, survives a
		// source that bounds the reason.
		v := fmt.Sprint(pan.Value)
		if len(v) > maxPanicValue {
			cut := maxPanicValue
			for cut > 0 && !utf8.RuneStart(v[cut]) {
				cut--
			}
			v = v[:cut] + "..."
		}
		return fmt.Sprintf("weft: task panicked: %s (%T)", v, pan.Value)
	}
	return err.Error()
}

// maxPanicValue bounds the panic value's text in a terminate reason.
const maxPanicValue = 256

// release gives a settled task's slot back and forgets the task.
func (w *Worker) release(r *inflight, reason slots.ReleaseReason) {
	// Deferred: a supplier that ends the goroutine in ReleaseSlot (see
	// releaseSlot) must not leave the settled task on the books, where
	// Shutdown would wait for it forever.
	defer w.registry.remove(r)
	w.releaseSlot(r.permit, reason)
}

// settle runs one settlement call under SettleTimeout. A failure is
// counted and reported but not retried: the source's lease runs out and
// it delivers the task again, which is what at-least-once promises.
//
// A source that panics settling is a fault like a supplier's panic:
// unwinding here would skip the release of the task's slot and record
// (and, on a pool worker, the rest of its key's line), and leave Shutdown
// waiting for them forever. It fails the settlement. So does
// runtime.Goexit (t.FailNow, require.* in a test's source), which goes on
// ending the goroutine: each caller finishes from a deferred call, as
// for a Goexit in ReleaseSlot (see releaseSlot).
func (w *Worker) settle(t Task, call func(context.Context) error) (err error) {
	ctx, cancel := context.WithTimeout(w.settleCtx, w.cfg.SettleTimeout)
	defer cancel()
	returned := false
	defer func() {
		if !returned {
			err = fault("the source", recover())
		}
		if err != nil {
			w.counts.settleErrors.Add(1)
			w.report(taskErr("settling", t, err))
		}
	}()
	err = call(ctx)
	returned = true
	return err
}
