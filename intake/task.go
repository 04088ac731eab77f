package intake

import (
	"fmt"
	"math"
	"time"

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

// spawn queues r on the pool. The pool's door admits freely by default;
// if the user bounded it, Spawn may wait here, which only delays the
// caller.
func (w *Worker) spawn(r *inflight) {
	if err := w.cfg.Pool.Spawn(w.pollCtx, func(sw *scheduler.Worker) { w.run(r, sw) }); err != nil {
		w.refused(r, err)
	}
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
