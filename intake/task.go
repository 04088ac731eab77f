package intake

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// book records a polled task with the permit reserved for it and the
// epoch and number of its poll, b, on the worker's books (the registry),
// where the heartbeat keeps its lease from now on. It calls no user code.
func (w *Worker) book(t Task, p slots.Permit, b *batch) *inflight {
	r := &inflight{task: t, permit: p, ep: b.ep, poll: b.seq, delivered: time.Now()}
	r.lastBeat.Store(r.delivered.UnixNano())
	w.registry.add(r)
	w.counts.received.Add(1)
	return r
}

// admit reads r's Deliveries and Key, and reports whether r may go on to
// be dispatched: not if either failed, and then r does not run (see
// describe).
func (w *Worker) admit(r *inflight) bool {
	if counted, why := w.describe(r); why != "" {
		w.returnUnread(r, counted, why)
		return false
	}
	return true
}

// describe reads r's Deliveries and Key, reports whether it could read
// Deliveries (counted), and returns what failed, or "". They are the
// source's code, read once here rather than wherever the worker needs
// them (neither changes within a delivery), so that a failure in them
// meets the worker in one place. Deliveries comes first, so that a task
// whose Key fails still has its count for returnUnread. A failure is
// reported; after a panic, admit settles the task (returnUnread);
// runtime.Goexit ends the poller's goroutine, so it is settled from a
// goroutine of its own while the poller goes on with the rest of its
// poll from another (pollFrom).
func (w *Worker) describe(r *inflight) (counted bool, why string) {
	returned := false
	defer func() {
		if returned {
			return // recover only when unwinding: it is not free
		}
		who := "its Deliveries"
		if counted {
			who = "its Key"
		}
		v := recover()
		w.report(taskErr("taking in", r.task, fault(who, v)))
		if v == nil {
			go w.returnUnread(r, counted, who+" called runtime.Goexit")
		} else {
			why = fmt.Sprintf("%s panicked: %v", who, v)
		}
	}()
	// Clamped both ways: a source's nonsense count must not wrap around.
	r.deliveries = int32(max(min(r.task.Deliveries(), math.MaxInt32), 0))
	counted = true
	if r.deliveries > 1 {
		w.counts.redelivered.Add(1)
	}
	r.key = taskKey(r.task)
	returned = true
	return true, ""
}

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

// dispatch hands a polled task to the pool, or settles it at once if it
// must not run. r.ep is the epoch of the poll that brought r: a pause
// since the poll began ended it, and then none of the poll's tasks runs,
// even if a Resume has come since (it may come while an earlier task of
// the poll is being handed back, and a later task of its key must not run
// before it). halted is read first: a Resume that ends the pause seen
// there comes after the Pause cancelled the epoch, or after haltedBack
// did.
//
// A keyed task goes on to its key's line (see keyLines), which it may
// find fenced: then it goes back too.
func (w *Worker) dispatch(r *inflight) {
	if w.halted() || r.ep.ctx.Err() != nil {
		w.haltedBack(r.ep)
		w.handBackInOrder(r)
		return
	}
	if limit := w.cfg.MaxDeliveries; limit > 0 && int(r.deliveries) > limit {
		// Delivered more often than it may fail: the processes that ran
		// it before died with it. Do not let it take this one down too.
		if r.state.CompareAndSwap(taskQueued, taskSettling) {
			w.terminateUnrun(r, fmt.Errorf("%w: delivered %d times, limit %d", ErrPoison, r.deliveries, limit))
		}
		return
	}
	if r.key != "" {
		if !w.keys.enter(r.key, r) {
			return // its turn comes after the task of its key before it (run)
		}
		if r.back {
			w.handBackFenced(r)
			return
		}
	}
	w.spawn(r)
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

// spawn queues r on the pool. The pool's door admits freely by default;
// if the user bounded it, Spawn may wait here, which only delays the
// caller.
func (w *Worker) spawn(r *inflight) {
	if err := w.cfg.Pool.Spawn(w.pollCtx, func(sw *scheduler.Worker) { w.run(r, sw) }); err != nil {
		w.refused(r, err)
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

// run runs a task on a pool worker, and after it the tasks of its key
// that waited behind it, one by one, on the same worker.
func (w *Worker) run(r *inflight, sw *scheduler.Worker) {
	for r != nil {
		r = w.runOne(r, sw)
	}
}

// nextOfKey ends r's turn in its key's line and returns the task of the
// key to run next, or nil (always nil for a task without a key). fence
// says a line that ends with r fences the key anew (see keyLines.next).
func (w *Worker) nextOfKey(r *inflight, fence bool) *inflight {
	if r.key == "" {
		return nil
	}
	return w.keys.next(r.key, fence)
}

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

// runOne runs r, unless it was handed back or the worker is halted, and
// returns the next task of its key.
func (w *Worker) runOne(r *inflight, sw *scheduler.Worker) (next *inflight) {
	// Halted, r goes back with its line; if a Shutdown handed r back
	// while it waited, its line goes back (handBackLine passes over r).
	// So it does if it must (r.back): the rest of the worker goes on.
	if r.back && !w.halted() {
		w.handBackLine(r)
		return nil
	}
	if w.halted() || !r.state.CompareAndSwap(taskQueued, taskRunning) {
		w.haltedBack(r.ep) // before r goes back: see haltedBack
		w.handBackLine(r)
		return nil
	}
	returned := false
	defer func() {
		// A handler that called runtime.Goexit ends this goroutine, so
		// the key's next task cannot go on here: the pool gets it. From
		// a goroutine of its own: this task holds its slot of the pool's
		// door until it has ended, after this, so a bounded door could
		// have Spawn here wait for that very slot. A Goexit in the
		// supplier's MarkSlotUsed returned r unrun: its line goes back.
		if !returned {
			if r.unmarked {
				go w.handBackLine(r)
			} else if n := w.nextOfKey(r, false); n != nil {
				go w.spawn(n)
			}
		}
	}()
	w.runHandler(r, sw)
	returned = true
	if r.unmarked {
		// r went back unrun (see markUsed), and the source delivers it
		// again: the tasks of its key behind it must not run before it.
		w.handBackLine(r) // passes over r, already claimed
		return nil
	}
	return w.nextOfKey(r, false)
}

// runHandler runs r's handler, and settles r however the handler ends.
func (w *Worker) runHandler(r *inflight, sw *scheduler.Worker) {
	if !w.markUsed(r) {
		return
	}
	w.counts.started.Add(1)
	var err error
	// RunThen settles the task even if the handler calls runtime.Goexit
	// (t.Fatal in a test's handler): it fails, with scheduler.ErrGoexit.
	core.RunThen(sw, func(sw *scheduler.Worker) {
		err = w.cfg.Handler(w.runCtx, sw, r.task)
	}, func(pan *scheduler.Panic) {
		if pan != nil {
			w.counts.panics.Add(1)
			err = pan
		}
		w.ended(r, err)
	})
}

// markUsed marks r's slot used and reports whether its handler may run.
// A supplier that panics in MarkSlotUsed, or calls runtime.Goexit there
// (t.FailNow in a test's supplier), leaves the slot recorded as used by
// the tracker: it is released as failed, with the panic, and the task,
// which never ran, is returned unrun (HandBack where it has it), as a
// Pause returns one. A failure would count toward MaxDeliveries and could
// terminate a task whose handler never ran; unwinding further would lose
// both the slot and the task.
func (w *Worker) markUsed(r *inflight) (run bool) {
	marked := false
	defer func() {
		if marked {
			return
		}
		pan := core.Recovered(recover()) // ErrGoexit when Goexit unwinds
		r.unmarked = true
		w.report(taskErr("the supplier failed marking the slot of", r.task, pan))
		r.state.Store(taskSettling)
		// Tasks of r's key waiting behind it go back with it (runOne);
		// one of its poll not yet dispatched must too, or it would start a
		// line of its own and run first: end the poll's epoch, as a
		// pause does, before r goes back.
		w.haltedBack(r.ep)
		w.giveBack(r, slots.TaskFailed(pan))
	}()
	err := w.tracker.MarkUsed(r.permit, slots.TaskInfo{Kind: w.cfg.Kind, Data: r.task})
	marked = true
	must(err) // a tracker protocol error is a bug of ours: let it crash
	return true
}

// ended settles a task whose handler returned err (or panicked).
func (w *Worker) ended(r *inflight, err error) {
	// The task has ended: its slot goes back now, here, so that a poller
	// can reuse it without waiting for another goroutine to be scheduled
	// (if settlements back up, the finisher does it once there is room).
	// Settling may be a round trip to a server (a JetStream double ack):
	// not on a pool worker, which would sit idle through it. An Ack the
	// source confirms without a goroutine of ours (AsyncAcker) is only
	// sent from here; anything else waits on a goroutine of its own.
	select {
	case w.settleRoom <- struct{}{}:
		r.state.Store(taskSettling)
		w.endTask(r, err, false)
	default:
		// It still holds its delivery while it waits, maybe for many
		// settlements' round trips: the heartbeat keeps its lease, or
		// the source would deliver it again and it would run twice.
		r.state.Store(taskEnded)
		go w.finish(r, err)
	}
}

// finish settles a task whose handler returned err. The task has ended,
// so its slot is released first, once there is room among the
// settlements in flight (MaxSettling): a settlement may be a round trip to
// a server, and overlapping it with the next poll is what keeps the slots
// busy. When settlements back up (a slow server), tasks hold their slots
// while they wait for room, and polling slows down with them.
func (w *Worker) finish(r *inflight, err error) {
	w.settleRoom <- struct{}{}
	r.state.Store(taskSettling)
	w.endTask(r, err, true)
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

// returnUnrun returns a task that never ran: with HandBack where the task
// has it, so that the return does not count as a delivery, else with a
// Nack with no delay.
func returnUnrun(ctx context.Context, t Task) error {
	if h, ok := t.(HandBacker); ok {
		return h.HandBack(ctx)
	}
	return t.Nack(ctx, 0)
}
