package intake

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// returnUnread settles r, a task taken in whose Deliveries or Key failed
// (why says how): it must not run, as the worker cannot know its key (it
// could overtake a task of its key). It goes back as a failed task does,
// not as one handed back, so that a task whose Key always fails does not
// come straight back to fail again, for ever: it returns with a Nack after
// Backoff, or is terminated on its MaxDeliveries-th delivery. One whose
// Deliveries failed cannot be held to MaxDeliveries: it returns as after
// a first failure, every time, paced by Backoff(1) and reported each time.
// Terminating it instead would dead-letter a task whose only fault may be
// a passing one in the source's bookkeeping. Either way it never ran, so
// it counts as handed back (or terminated), never as started or failed.
//
// The source's key order is kept as for a failed task's Nack: a source
// that holds a key back while one of its tasks is out (MemQueue) holds it
// through the delay. In the worker, the task never joined a key's line.
func (w *Worker) returnUnread(r *inflight, counted bool, why string) {
	if !r.state.CompareAndSwap(taskQueued, taskSettling) {
		return // a Shutdown handed it back first
	}
	n := int(r.deliveries)
	if limit := w.cfg.MaxDeliveries; counted && limit > 0 && n >= limit {
		w.terminateUnrun(r, fmt.Errorf("%w: %s, on delivery %d of at most %d", ErrPoison, why, n, limit))
		return
	}
	n = max(n, 1) // an unread count: as after a first failure
	backingOff := true
	defer func() {
		// The user's Backoff ended this goroutine (backoff reported it):
		// the Nack, the source's code, goes on from a new goroutine with
		// the default delay, as for a failed task (settleEnded).
		if backingOff {
			go w.nackUnrun(r, defaultBackoff(n))
		}
	}()
	delay := w.backoff("Backoff", w.cfg.Backoff, defaultBackoff, n)
	backingOff = false
	w.nackUnrun(r, delay)
}

// nackUnrun returns r, claimed by the caller and never run, with a Nack
// after delay: unlike a hand-back, a delivery that counts. Its slot goes
// back unused.
func (w *Worker) nackUnrun(r *inflight, delay time.Duration) {
	w.sendBack(r, slots.NeverUsed(), func(ctx context.Context) error { return r.task.Nack(ctx, delay) })
}

// handBackFenced hands back r, a task that its key's fence stopped as its
// poll was taken in (dispatch), first in its line, and then the tasks of
// its key that entered behind it meanwhile, if any. r has been out only
// since its poll was answered, and goes back before that poll's tasks are
// Taken: a source that keeps order (OrderKeeper, or one that gives out
// one task of a key at a time) gave out no other task of the key in the
// meantime. So a line that ends with r leaves the fence as it stands,
// which still holds back what polls begun before the key's earlier
// hand-back bring. Fenced anew, it would stop r's own redelivery too when
// that comes to a poll that began while r was out (one waiting at the
// source), and so on, two pollers taking turns, for ever.
func (w *Worker) handBackFenced(r *inflight) {
	done := false
	defer func() {
		// The source or the supplier ended this goroutine handing r back
		// (see releaseSlot): its line goes back from a new goroutine,
		// which passes over r and fences the key anew, to be safe.
		if !done {
			go w.handBackLine(r)
		}
	}()
	w.handBack(r)
	done = true
	if n := w.nextOfKey(r, false); n != nil {
		// Tasks of the key entered behind r while it went back: they
		// may have been given out while it was out.
		w.handBackLine(n)
	}
}

// handBackInOrder hands back r, unrun. A keyed r goes back through its
// key's line: at once if it is first there, else when its turn comes, so
// that the source gets the key's tasks back in the order it gave them.
func (w *Worker) handBackInOrder(r *inflight) {
	if r.key == "" {
		w.handBack(r)
		return
	}
	r.back = true // before enter publishes r to the line
	if w.keys.enter(r.key, r) {
		w.handBackLine(r)
	}
}

// haltedBack ends ep, the epoch of a poll one of whose tasks is about to
// go back unrun because the worker is halted (or because the supplier
// failed marking its slot: see markUsed), if no Pause has ended it:
// the supplier was paused directly (a Pauseable shared with others), not
// with Worker.Pause, or the task saw the pause before Pause ended the
// epoch. Then a Resume may come before the poll's later tasks are
// dispatched or started, and with the epoch still live one of them could
// run before the task handed back, which its source delivers again. It
// is called before the hand-back, so that every task of the poll not yet
// dispatched by then sees the epoch ended (dispatch). Like a Pause,
// it ends the polls in flight of that epoch: tasks they bring would go
// back too.
func (w *Worker) haltedBack(ep *pollEpoch) {
	if ep.ctx.Err() != nil {
		return // ended by a Pause (which began the next epoch) or a stop
	}
	w.epochMu.Lock()
	defer w.epochMu.Unlock()
	ep.cancel(slots.ErrPaused)
	if w.epoch == ep {
		w.epoch = newPollEpoch(w.pollCtx)
	}
}

// refused hands back r, which the pool refused with err, and the tasks of
// its key behind it: none of them can run here now.
func (w *Worker) refused(r *inflight, err error) {
	if errors.Is(err, scheduler.ErrClosed) {
		// Deferred, to come after the tasks are back even if the supplier
		// ends this goroutine handing one back (see releaseSlot).
		defer func() {
			w.report(fmt.Errorf("weft/intake: the pool is closed; the worker stops: %w", err))
			go w.Close()
		}()
	}
	w.handBackLine(r)
}

// handBackLine hands back, unrun, r (unless something claimed it first)
// and then the tasks of its key that wait behind it. None of them may run
// now, even if a Resume comes while the line empties: the source delivers
// r again, and r must run before them.
func (w *Worker) handBackLine(r *inflight) {
	at, done := r, false
	defer func() {
		// The supplier ended this goroutine releasing at's slot (see
		// releaseSlot). at is back; the tasks behind it still go back, in
		// line order, from a new goroutine, which passes over at: handBack
		// claims a task once.
		if !done {
			go w.handBackLine(at)
		}
	}()
	w.handBack(r)
	for n := w.nextOfKey(r, true); n != nil; n = w.nextOfKey(n, true) {
		at = n
		w.handBack(n)
	}
	done = true
}

// handBack returns an unstarted task to the source, if nobody started or
// returned it first.
func (w *Worker) handBack(r *inflight) {
	if r.state.CompareAndSwap(taskQueued, taskSettling) {
		w.giveBack(r, slots.NeverUsed())
	}
}

// giveBack returns a task that the caller has claimed, unrun (redelivered
// at once, to this worker after a Resume or to another), and releases its
// slot for reason.
func (w *Worker) giveBack(r *inflight, reason slots.ReleaseReason) {
	w.sendBack(r, reason, func(ctx context.Context) error { return returnUnrun(ctx, r.task) })
}

// sendBack returns a task that the caller has claimed, unrun, with call,
// and releases its slot for reason.
func (w *Worker) sendBack(r *inflight, reason slots.ReleaseReason, call func(context.Context) error) {
	settled := false
	defer func() {
		// The source ended this goroutine in the hand-back (settle
		// reported it, failed, as a panic): the task still counts as
		// handed back, and its slot and record go back from a goroutine
		// of their own, as ReleaseSlot is the supplier's code (see
		// releaseSlot). The caller's own continuation goes on with its
		// other tasks.
		if !settled {
			w.counts.handedBack.Add(1)
			go w.release(r, reason)
		}
	}()
	w.settle(r.task, call)
	settled = true
	w.counts.handedBack.Add(1)
	w.release(r, reason)
}

// returnUnrun returns a task that never ran: with HandBack where the task
// has it, so that the return does not count as a delivery, else with a
// Nack with no delay.
func returnUnrun(ctx context.Context, t Task) error {
	if h, ok := t.(HandBacker); ok {
		return h.HandBack(ctx)
	}
	return t.Nack(ctx, 0)
}
