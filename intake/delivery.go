package intake

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// A delivery is one task the worker holds, from the poll that brought it
// to its settlement. Its methods are the steps of its life, and this file
// reads in their order:
//
//	book       polled: on the worker's books, where the heartbeat keeps its lease
//	admit      its Deliveries and Key read (the source's code, read once)
//	dispatch   started, queued in its key's line, or sent back at once
//	turn       its slot marked used and its handler run, on a goroutine of its own
//	end        its handler returned: its slot goes back, its key's next task goes on
//	settle     Ack, Nack or Terminate; then off the books (settled)
//	sendBack   or, never run, returned to the source unrun (handed back)
//	abandon    or its goroutine ended in user code (runtime.Goexit): the worker fails
//
// Its state moves queued -> running -> settling (through ended while the
// settlements in flight are at MaxSettling), or queued -> settling when it
// goes back unrun. Leaving queued is a CAS: of its turn coming and a
// Shutdown reclaiming it, exactly one wins.
type delivery struct {
	w      *Worker
	task   Task
	permit slots.Permit
	ep     *pollEpoch // the epoch of the poll that brought it (see dispatch)
	poll   uint64     // the number of that poll (see pollClock)
	key    string     // its Key, "" for none; set by admit
	// deliveries is the task's Deliveries, set by admit.
	deliveries int32
	state      atomic.Int32
	// lastBeat is when its lease was last extended, in unix nanoseconds:
	// its poll, or its last InProgress (see heartbeat).
	lastBeat atomic.Int64
	// back says it must go back unrun when its turn in its key's line
	// comes (see keyLines.enter, handBackInOrder). Written before it
	// enters its line, or by enter, under the line's lock; read by
	// whoever takes it from the line.
	back bool

	// The fields below belong to the goroutine that holds the delivery:
	// its poller's, then its own (turn), then its settlement's. Each
	// hands it on with a go statement, a line's lock or a channel, which
	// orders these writes before the next holder's reads.
	heads     bool  // it heads its key's line: the key's next turn is its to pass on
	ran       bool  // its handler began
	inHandler bool  // its handler is running (see runHandler)
	released  bool  // its slot's release has begun (the tracker records it before the supplier hears)
	room      bool  // it holds a token of settleRoom (MaxSettling)
	result    error // what its handler returned, for its settlement
	settles   bool  // its settlement has begun
	gone      bool  // it is off the books
}

const (
	queued   int32 = iota // polled, not started: in its poller's hands or its key's line
	running               // its turn has begun
	ended                 // its handler returned; waiting for room to settle (its lease is still kept)
	settling              // being acknowledged, returned or terminated
)

// book records t, polled with permit p by poll seq of epoch ep, on the
// worker's books (the registry), where the heartbeat keeps its lease from
// now on and Shutdown finds it. It calls no user code.
func (w *Worker) book(t Task, p slots.Permit, ep *pollEpoch, seq uint64) *delivery {
	d := &delivery{w: w, task: t, permit: p, ep: ep, poll: seq}
	d.lastBeat.Store(time.Now().UnixNano())
	w.registry.add(d)
	w.counts.received.Add(1)
	return d
}

// admit reads the task's Deliveries and Key, and reports whether it may
// be dispatched. They are the source's code, read once here rather than
// wherever the worker needs them (neither changes within a delivery), so
// that a failure in them meets the worker in one place. A task whose
// Deliveries or Key panics does not run: the worker cannot know its key,
// and it could overtake a task of its key (see unread).
func (d *delivery) admit() bool {
	w := d.w
	n := 0
	if err := w.call("its Deliveries", func() { n = d.task.Deliveries() }); err != nil {
		d.unread(false, "its Deliveries", err)
		return false
	}
	d.deliveries = int32(max(min(n, math.MaxInt32), 0)) // a source's nonsense must not wrap
	if d.deliveries > 1 {
		w.counts.redelivered.Add(1)
	}
	if err := w.call("its Key", func() { d.key = taskKey(d.task) }); err != nil {
		d.unread(true, "its Key", err)
		return false
	}
	return true
}

// dispatch starts the task, or queues it in its key's line, or settles it
// at once if it must not run. d.ep is the epoch of its poll: a pause
// since the poll began ended it, and then none of the poll's tasks runs,
// even if a Resume has come since (it may come while an earlier task of
// the poll goes back, and a later task of its key must not run before
// it). halted is read first: a Resume that ends the pause seen there
// comes after the Pause cancelled the epoch, or after haltedBack did.
func (d *delivery) dispatch() {
	w := d.w
	if w.halted() || d.ep.ctx.Err() != nil {
		w.haltedBack(d.ep)
		d.handBackInOrder()
		return
	}
	if limit := w.cfg.MaxDeliveries; limit > 0 && int(d.deliveries) > limit {
		// Delivered more often than it may fail: the processes that ran
		// it before died with it. Do not let it take this one down too.
		if d.state.CompareAndSwap(queued, settling) {
			d.terminateUnrun(fmt.Errorf("%w: delivered %d times, limit %d", ErrPoison, d.deliveries, limit))
		}
		return
	}
	if d.key != "" {
		if !w.keys.enter(d.key, d) {
			return // its turn comes after the task of its key before it
		}
		d.heads = true
		if d.back {
			d.handBackFenced()
			return
		}
	}
	d.start()
}

// start runs the task's turn on a goroutine of its own, and after it the
// turns of the tasks of its key that wait behind it: a goroutine per task
// running, so that the slots are the concurrency.
func (d *delivery) start() { go d.w.run(d, nil) }

// run runs d's turn, then those of the tasks of its key that waited
// behind it, one after another. exited, if not nil, is the Goexit of d's
// handler on the goroutine before this one: d's turn goes on from its end.
func (w *Worker) run(d *delivery, exited *scheduler.Panic) {
	defer func() {
		if d != nil { // the goroutine is ending in user code: runtime.Goexit
			w.runExited(d)
		}
	}()
	if exited != nil {
		d = d.end(exited)
	}
	for d != nil {
		d = d.turn()
	}
}

// runExited goes on from a turn whose goroutine runtime.Goexit ended. In
// the handler, that is the task's own failure (t.Fatal in a test's
// handler): the turn ends on a new goroutine, the task failed with
// scheduler.ErrGoexit. Anywhere else, the worker fails (see call), and
// the delivery is abandoned.
func (w *Worker) runExited(d *delivery) {
	if d.inHandler {
		d.inHandler = false
		w.counts.panics.Add(1)
		go w.run(d, core.Recovered[scheduler.Panic](nil)) // the stack is the handler's
		return
	}
	d.abandon()
}

// turn runs the task, unless it must go back unrun, and returns the next
// task of its key, whose turn comes now.
func (d *delivery) turn() *delivery {
	w := d.w
	// A task handed back while it waited in its line (a Shutdown), or
	// whose line must go back (d.back), takes its line back with it.
	if d.back && !w.halted() {
		d.handBackLine()
		return nil
	}
	if w.halted() || !d.state.CompareAndSwap(queued, running) {
		w.haltedBack(d.ep) // before d goes back: see haltedBack
		d.handBackLine()
		return nil
	}
	if !d.markUsed() {
		// It went back unrun, and its source delivers it again: the
		// tasks of its key behind it must not run before it.
		d.handBackLine() // passes over d, already claimed
		return nil
	}
	w.counts.started.Add(1)
	return d.end(d.runHandler())
}

// markUsed marks the task's slot used and reports whether its handler may
// run. A supplier that panics in MarkSlotUsed leaves the slot recorded as
// used by the tracker: it is released as failed, with the panic, and the
// task, which never ran, goes back unrun (HandBack where it has it), as a
// Pause returns one. A failure would count toward MaxDeliveries and
// could terminate a task whose handler never ran.
func (d *delivery) markUsed() bool {
	w := d.w
	var err error
	info := slots.TaskInfo{Kind: w.cfg.Kind, Data: d.task}
	if pan := w.call("the supplier's MarkSlotUsed", func() { err = w.tracker.MarkUsed(d.permit, info) }); pan != nil {
		w.report(taskErr("the supplier failed marking the slot of", d.task, pan))
		d.state.Store(settling)
		// Tasks of its key waiting behind it go back with it (turn); one
		// of its poll not yet dispatched must too, or it would start a
		// line of its own and run first: end the poll's epoch, as a
		// pause does, before it goes back.
		w.haltedBack(d.ep)
		d.giveBack(slots.TaskFailed(pan))
		return false
	}
	must(err) // a tracker protocol error is a bug of ours: let it crash
	return true
}

// runHandler runs the handler and returns its error, or its panic as one.
// A handler that calls runtime.Goexit ends the goroutine here, with
// inHandler still set: run's deferred call goes on (runExited).
func (d *delivery) runHandler() (err error) {
	w := d.w
	d.ran, d.inHandler = true, true
	defer func() {
		if !d.inHandler {
			return // returned: recover only when unwinding, it is not free
		}
		if v := recover(); v != nil {
			d.inHandler = false
			w.counts.panics.Add(1)
			err = core.Recovered[scheduler.Panic](v)
		}
	}()
	err = w.cfg.Handler(w.runCtx, d.task)
	d.inHandler = false
	return err
}

// end ends the turn of a task whose handler returned err (a panic
// included) and returns the next task of its key. Its slot goes back now,
// on this goroutine, so that a poller can reuse it at once, before the
// settlement, which may be a round trip to a server. If the settlements
// in flight are at MaxSettling, the task keeps its slot and waits for
// room on a goroutine of its own (finish), its lease kept meanwhile, and
// polling slows down with it.
func (d *delivery) end(err error) *delivery {
	w := d.w
	d.result = err
	if err != nil {
		w.counts.failed.Add(1)
	}
	select {
	case w.settleRoom <- struct{}{}:
		d.room = true
		d.state.Store(settling)
		w.counts.settling.Add(1)
		d.releaseSlot(releaseReason(err))
		next := d.passTurn(false)
		d.settleNow(err, next == nil)
		return next
	default:
		d.state.Store(ended)
		next := d.passTurn(false)
		go w.hold(d, func() { d.finish(err) })
		return next
	}
}

// releaseReason is the slot's release reason for a task whose handler
// returned err.
func releaseReason(err error) slots.ReleaseReason {
	if err != nil {
		return slots.TaskFailed(err)
	}
	return slots.TaskComplete()
}

// passTurn ends the task's turn in its key's line and returns the task of
// the key to run (or hand back) next, or nil (always nil for a task with
// no key). fence says a line that ends with it fences the key anew (see
// keyLines.next).
func (d *delivery) passTurn(fence bool) *delivery {
	if d.key == "" || !d.heads {
		return nil
	}
	d.heads = false
	n := d.w.keys.next(d.key, fence)
	if n != nil {
		n.heads = true
	}
	return n
}

// finish waits for room among the settlements in flight (MaxSettling),
// then releases the slot of a task whose handler returned err, and
// settles it.
func (d *delivery) finish(err error) {
	d.w.settleRoom <- struct{}{}
	d.room = true
	d.state.Store(settling)
	d.w.counts.settling.Add(1)
	d.releaseSlot(releaseReason(err))
	d.settle(err)
}

// settleNow settles a task whose slot end released: here if inline, or if
// it is an Ack the source confirms by itself (AsyncAcker, which only
// sends it); else on a goroutine of its own, so that the next task of its
// key need not wait for a round trip.
func (d *delivery) settleNow(err error, inline bool) {
	if _, async := d.task.(AsyncAcker); inline || (async && err == nil) {
		d.settle(err)
		return
	}
	go d.w.hold(d, func() { d.settle(err) })
}

// settle settles a task whose handler returned err and whose slot is
// released, and then takes it off the books (settled). An Ack the source
// confirms by itself ends with the confirmation (ackAsync).
func (d *delivery) settle(err error) {
	w := d.w
	d.settles = true
	switch {
	case err == nil:
		if a, ok := d.task.(AsyncAcker); ok {
			d.ackAsync(a)
			return
		}
		if w.settleCall(d.task, "Ack", d.task.Ack) == nil {
			w.counts.acked.Add(1)
		}
	case w.cutShort(err):
		// The worker ended the handler (Close, or a Shutdown whose
		// deadline passed): no failure of the task's own, so it is
		// returned as one that did not run through, never terminated.
		w.settleCall(d.task, unrunName(d.task), func(ctx context.Context) error { return returnUnrun(ctx, d.task) })
		w.counts.nacked.Add(1)
	case w.poisoned(d, err):
		d.terminate(err)
	default:
		delay := w.backoff("Backoff", w.cfg.Backoff, defaultBackoff, int(d.deliveries))
		w.settleCall(d.task, "Nack", func(ctx context.Context) error { return d.task.Nack(ctx, delay) })
		w.counts.nacked.Add(1) // even if the Nack failed, as ever
	}
	d.settled()
}

// ackAsync acknowledges the task with AckAsync; the source's done ends
// its settlement (settled). The settlement's token passes to done with
// the call. A panic in AckAsync fails the Ack, unless the source called
// done first; so does runtime.Goexit, which also fails the worker (see
// call): done runs here then, as it neither blocks nor calls the source.
func (d *delivery) ackAsync(a AsyncAcker) {
	w := d.w
	var once atomic.Bool
	done := func(err error) {
		if !once.CompareAndSwap(false, true) {
			return
		}
		if err != nil {
			w.counts.settleErrors.Add(1)
			w.report(taskErr("settling", d.task, err))
		} else {
			w.counts.acked.Add(1)
		}
		d.settled()
	}
	d.room = false // done's now: an abandon must not give it back too
	const who = "the source's AckAsync"
	returned := false
	defer func() {
		if !returned {
			done(goexitError(who))
		}
	}()
	if err := w.call(who, func() { a.AckAsync(w.settleCtx, w.cfg.SettleTimeout, done) }); err != nil {
		done(err)
	}
	returned = true
}

// terminate settles a poison task. It counts the task as terminated only
// once the source took the Terminate: one that failed is reported (and
// counted among SettleErrors), and the source delivers it again, to be
// terminated again.
func (d *delivery) terminate(err error) {
	w := d.w
	reason := terminateReason(err)
	if reason != err.Error() {
		// The reason the source keeps (and, for JetStream, sends to every
		// subscriber of its advisories) carries no stack: the worker's
		// own error hook gets the whole of it.
		w.report(taskErr("terminating", d.task, err))
	}
	if w.settleCall(d.task, "Terminate", func(ctx context.Context) error { return d.task.Terminate(ctx, reason) }) == nil {
		w.counts.terminated.Add(1)
	}
}

// settled ends the settlement of a task whose slot end released, whichever
// way it went: its settleRoom token goes back, and it leaves the books.
func (d *delivery) settled() {
	d.w.counts.settling.Add(-1)
	<-d.w.settleRoom
	d.leave()
}

// leave takes the task off the books.
func (d *delivery) leave() {
	d.gone = true
	d.w.registry.remove(d)
}

// unread settles a task whose Deliveries or Key (who) failed with err
// (counted says Deliveries was read). It must not run, as the worker cannot know
// its key. It goes back as a failed task does, not as one handed back,
// so that a task whose Key always fails does not come straight back to
// fail again, for ever: with a Nack after Backoff, or terminated on its
// MaxDeliveries-th delivery. One whose Deliveries failed cannot be held
// to MaxDeliveries: it returns as after a first failure, every time,
// paced by Backoff(1) and reported each time. Either way it never ran,
// so it counts as handed back (or terminated), never as started or
// failed.
func (d *delivery) unread(counted bool, who string, err error) {
	w := d.w
	w.report(taskErr("taking in", d.task, err))
	if !d.state.CompareAndSwap(queued, settling) {
		return // a Shutdown handed it back first
	}
	n := int(d.deliveries)
	if limit := w.cfg.MaxDeliveries; counted && limit > 0 && n >= limit {
		why := err.Error()
		if pan := (*scheduler.Panic)(nil); errors.As(err, &pan) {
			why = fmt.Sprintf("%s panicked: %v", who, pan.Value) // the reason the source keeps: no stack
		}
		d.terminateUnrun(fmt.Errorf("%w: %s, on delivery %d of at most %d", ErrPoison, why, n, limit))
		return
	}
	n = max(n, 1) // an unread count: as after a first failure
	delay := w.backoff("Backoff", w.cfg.Backoff, defaultBackoff, n)
	d.sendBack(slots.NeverUsed(), "Nack", func(ctx context.Context) error { return d.task.Nack(ctx, delay) })
}

// terminateUnrun terminates a poison task that never ran, claimed by the
// caller, then releases its slot.
func (d *delivery) terminateUnrun(err error) {
	defer d.release(slots.NeverUsed()) // also if the source ends the goroutine in Terminate
	d.terminate(err)
}

// handBackInOrder hands the task back, unrun. A keyed one goes back
// through its key's line: at once if it is first there, else when its
// turn comes, so that the source gets the key's tasks back in the order
// it gave them.
func (d *delivery) handBackInOrder() {
	if d.key == "" {
		d.handBack()
		return
	}
	d.back = true // before enter publishes d to the line
	if d.w.keys.enter(d.key, d) {
		d.heads = true
		d.handBackLine()
	}
}

// handBackFenced hands back a task that its key's fence stopped as its
// poll was taken in (dispatch), first in its line, and then the tasks of
// its key that entered behind it meanwhile, if any. It has been out only
// since its poll was answered, and goes back before that poll's tasks are
// Taken: a source that keeps order gave out no other task of the key in
// the meantime. So a line that ends with it leaves the fence as it
// stands, which still holds back what polls begun before the key's
// earlier hand-back bring. Fenced anew, it would stop its own redelivery
// too when that comes to a poll that began while it was out (one waiting
// at the source), and so on, two pollers taking turns, for ever.
func (d *delivery) handBackFenced() {
	d.handBack()
	if n := d.passTurn(false); n != nil {
		// Tasks of the key entered behind it while it went back: they
		// may have been given out while it was out.
		n.handBackLine()
	}
}

// handBackLine hands back, unrun, the task (unless something claimed it
// first) and then the tasks of its key that wait behind it. None of them
// may run now, even if a Resume comes while the line empties: the source
// delivers the first again, and it must run before them.
func (d *delivery) handBackLine() {
	for n := d; n != nil; n = n.passTurn(true) {
		n.handBack()
	}
}

// handBack returns an unstarted task to the source, if nobody started or
// returned it first.
func (d *delivery) handBack() {
	if d.state.CompareAndSwap(queued, settling) {
		d.giveBack(slots.NeverUsed())
	}
}

// giveBack returns a task the caller has claimed, unrun (redelivered at
// once, to this worker after a Resume or to another), and releases its
// slot for reason.
func (d *delivery) giveBack(reason slots.ReleaseReason) {
	d.sendBack(reason, unrunName(d.task), func(ctx context.Context) error { return returnUnrun(ctx, d.task) })
}

// sendBack returns a task the caller has claimed, unrun, with call, and
// releases its slot for reason. The task counts as handed back, and its
// slot and record go back, even if the source ends the goroutine in call
// (then the worker fails: see call).
func (d *delivery) sendBack(reason slots.ReleaseReason, what string, call func(context.Context) error) {
	defer d.release(reason)
	defer d.w.counts.handedBack.Add(1)
	d.w.settleCall(d.task, what, call)
}

// release gives the slot of a task that has been settled or handed back
// and takes it off the books, even if the supplier ends the goroutine in
// ReleaseSlot (the tracker has recorded the release by then).
func (d *delivery) release(reason slots.ReleaseReason) {
	defer d.leave()
	if !d.released {
		d.releaseSlot(reason)
	}
}

// releaseSlot releases the task's slot.
func (d *delivery) releaseSlot(reason slots.ReleaseReason) {
	d.released = true // first: the tracker records the release before the supplier hears of it
	d.w.releaseSlot(d.permit, reason)
}

// abandon finishes, from a goroutine of its own, a delivery whose holder
// runtime.Goexit ended in user code other than its handler, and for which
// the worker is failing (see call). A task that never ran goes back to
// the source; one whose handler returned is settled as it would have
// been, if its settlement had not begun; one whose settlement the Goexit
// struck is left to its lease, and the source delivers it again. Its slot
// and its settlement's token go back, it leaves the books, and the tasks
// of its key that wait behind it go back.
func (d *delivery) abandon() {
	go func() {
		if d.gone {
			return
		}
		defer func() {
			if n := d.passTurn(true); n != nil {
				n.handBackLine()
			}
		}()
		switch {
		case !d.ran:
			d.state.Store(settling)
			d.giveBack(slots.TaskFailed(errAbandoned))
		case !d.released:
			d.releaseSlot(releaseReason(d.result))
			fallthrough
		case d.room && !d.settles:
			d.settle(d.result)
		case d.room:
			d.w.report(taskErr("abandoning", d.task, errAbandoned))
			d.settled()
		default:
			d.leave()
		}
	}()
}

// hold runs f, a step of d's life, on the calling goroutine, a goroutine
// of d's own: if runtime.Goexit in user code ends it, d is abandoned.
func (w *Worker) hold(d *delivery, f func()) {
	done := false
	defer func() {
		if !done {
			d.abandon()
		}
	}()
	f()
	done = true
}
