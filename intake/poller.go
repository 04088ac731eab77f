package intake

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/weftrt/weft/slots"
)

// poller is a poller goroutine's state from one poll to the next.
type poller struct {
	failures int       // polls failed in a row, for PollBackoff
	empties  int       // polls answered empty in a row, for EmptyPollBackoff
	pause    pauseKind // due before the next poll
	took     time.Duration
	// reserved are the permits gathered for the next poll (reserve).
	reserved []slots.Permit
	batch    batch // the poll being taken in
}

// pauseKind says which pause is due before the next poll.
type pauseKind uint8

const (
	noPause      pauseKind = iota
	failedPause            // after a failed poll: PollBackoff
	emptyPause             // after an empty poll: EmptyPollBackoff
	reservePause           // after the supplier failed a reservation: PollBackoff
)

// batch is one poll's permits and tasks, and how far the poller has got
// handing them on: if runtime.Goexit in user code ends the poller on the
// way, pollExited finishes what is left.
type batch struct {
	open    bool
	seq     uint64         // the poll's number (see pollClock)
	permits []slots.Permit // permits[i] is reserved for tasks[i]
	tasks   []Task
	extra   []Task // tasks beyond those asked for
	unused  int    // permits[unused:] are yet to be released unused
	refused int    // extra[refused:] are yet to be handed back
	told    int    // tasks, then extra, from told on are yet to be told Taken
}

// poll is a poller goroutine: reserve, poll, hand the tasks on, pause,
// until the scaler retires it.
func (w *Worker) poll() {
	var st poller
	retired := false
	defer func() {
		if !retired {
			w.pollExited(&st)
		}
	}()
	for !w.scaler.retire() {
		if w.reserve(&st) {
			w.pollOnce(&st)
		}
		w.pace(&st)
	}
	retired = true
}

// pollExited finishes for a poller that runtime.Goexit in user code ended
// (the worker is failing: see call). The tasks it polled are on the books
// and go back with every task not started; the permits it held go back,
// the tasks beyond its ask go back, and those not yet told are told they
// were taken, from a goroutine of its own (finishPoller), before the
// poller stops counting, so that a Shutdown, which waits for the pollers,
// finds every slot released.
func (w *Worker) pollExited(st *poller) {
	b := &st.batch
	permits := st.reserved
	var extra, untold []Task
	if b.open {
		permits = append(permits, b.permits[b.unused:]...)
		extra = b.extra[b.refused:]
		untold = append(untold, b.tasks[min(b.told, len(b.tasks)):]...)
		untold = append(untold, b.extra[max(b.told-len(b.tasks), 0):]...)
		w.clock.end(b.seq)
	}
	go w.finishPoller(permits, extra, untold)
}

// finishPoller releases permits, hands back extra and tells untold, then
// uncounts the poller. Each is taken off its list before its call, so if
// user code ends this goroutine too, another goes on with the rest.
func (w *Worker) finishPoller(permits []slots.Permit, extra, untold []Task) {
	done := false
	defer func() {
		if !done {
			go w.finishPoller(permits, extra, untold)
			return
		}
		w.scaler.leave()
	}()
	for len(permits) > 0 {
		p := permits[0]
		permits = permits[1:]
		w.releaseSlot(p, slots.NeverUsed())
	}
	for len(extra) > 0 {
		t := extra[0]
		extra = extra[1:]
		w.returnExtra(t)
	}
	for len(untold) > 0 {
		t := untold[0]
		untold = untold[1:]
		w.taken(t)
	}
	done = true
}

// reserve takes the slots for one poll into st.reserved: it waits for the
// first and takes as many more as are free right now, up to MaxBatch. So
// the tasks a poll asks for never exceed the slots free for them. It
// reports whether it got any; if not, it has set the pause due. A
// supplier that panics ends the gathering, as a refusal would.
func (w *Worker) reserve(st *poller) bool {
	var p slots.Permit
	var err error
	// Not named by method: the worker's Pauseable may call the supplier's
	// TryReserveSlot for the first slot too.
	if pan := w.call("the supplier, reserving a poll's first slot,", func() { p, err = w.tracker.Reserve(w.pollCtx, w.cfg.Kind) }); pan != nil {
		err = pan
	}
	if err != nil {
		if w.pollCtx.Err() == nil && !errors.Is(err, slots.ErrPaused) {
			// A supplier that fails for reasons of its own: do not spin on it.
			w.report(fmt.Errorf("weft/intake: reserving a slot: %w", err))
			st.pause = reservePause
		}
		return false
	}
	st.reserved = append(make([]slots.Permit, 0, w.cfg.MaxBatch), p)
	for len(st.reserved) < w.cfg.MaxBatch {
		ok := false
		if pan := w.call("the supplier, reserving more slots for a poll,", func() { p, ok = w.tracker.TryReserve(w.cfg.Kind) }); pan != nil {
			w.report(fmt.Errorf("weft/intake: %w", pan))
		}
		if !ok {
			break
		}
		st.reserved = append(st.reserved, p)
	}
	return true
}

// pollOnce asks the source for one task per permit of st.reserved and
// takes in what comes back.
func (w *Worker) pollOnce(st *poller) {
	ep := w.currentEpoch()
	b := &st.batch
	*b = batch{open: true, seq: w.clock.begin(), permits: st.reserved}
	st.reserved = nil
	if w.halted() {
		w.releaseUnused(b)
		w.clock.end(b.seq)
		b.open = false
		return
	}
	start := time.Now()
	var tasks []Task
	var err error
	if pan := w.call("the source's Poll", func() { tasks, err = w.cfg.Source.Poll(ep.ctx, len(b.permits)) }); pan != nil {
		// A source that panics polling fails the poll, as an error would.
		tasks, err = nil, pan
	}
	st.took = time.Since(start)
	w.counts.observePoll(st.took)
	if len(tasks) > len(b.permits) {
		tasks, b.extra = tasks[:len(b.permits)], tasks[len(b.permits):]
		w.report(fmt.Errorf("weft/intake: source returned %d tasks more than asked; returned to it", len(b.extra)))
	}
	b.tasks = tasks
	w.takeIn(st, ep, err)
}

// takeIn hands on a poll's tasks: all are booked first (no user code), so
// that their leases are kept from now on, whatever the calls after wait
// for; the permits no task came for are released, and the tasks beyond
// the ask handed back; then each task is admitted and dispatched, or, if
// the poll failed, handed back; last they are told they were taken, and
// the poll's outcome sets the pause due.
func (w *Worker) takeIn(st *poller, ep *pollEpoch, err error) {
	b := &st.batch
	ds := make([]*delivery, len(b.tasks))
	for i, t := range b.tasks {
		ds[i] = w.book(t, b.permits[i], ep, b.seq)
	}
	b.unused = len(b.tasks)
	w.releaseUnused(b)
	for b.refused < len(b.extra) {
		b.refused++
		w.returnExtra(b.extra[b.refused-1])
	}
	if err == nil && w.scaler.observe(len(b.tasks), len(b.permits)) {
		go w.poll()
	}
	for _, d := range ds {
		if !d.admit() {
			continue
		}
		if err != nil {
			d.handBackInOrder()
		} else {
			d.dispatch()
		}
	}
	// Whatever became of them, they are in order now. The extra tasks
	// too: a source that keeps order holds back what comes after a poll
	// until every task it returned is Taken (OrderKeeper).
	for b.told < len(b.tasks)+len(b.extra) {
		b.told++
		if i := b.told - 1; i < len(b.tasks) {
			w.taken(b.tasks[i])
		} else {
			w.taken(b.extra[i-len(b.tasks)])
		}
	}
	w.countPoll(st, ep, err)
	w.clock.end(b.seq)
	b.open = false
}

// releaseUnused releases the permits of b no task came for.
func (w *Worker) releaseUnused(b *batch) {
	for b.unused < len(b.permits) {
		b.unused++
		w.releaseSlot(b.permits[b.unused-1], slots.NeverUsed())
	}
}

// countPoll counts a poll's outcome and sets the pause it calls for.
func (w *Worker) countPoll(st *poller, ep *pollEpoch, err error) {
	switch {
	case err != nil:
		if w.cancelled(ep, err) {
			return
		}
		w.counts.pollErrors.Add(1)
		w.report(fmt.Errorf("weft/intake: poll: %w", err))
		st.failures++
		st.pause = failedPause
	case len(st.batch.tasks) == 0:
		w.counts.emptyPolls.Add(1)
		st.failures = 0
		st.empties++
		st.pause = emptyPause
	default:
		st.failures, st.empties = 0, 0
	}
}

// cancelled reports whether a poll of epoch ep, which failed with err,
// failed because the worker cancelled it, and not for a reason of the
// source's own. Its epoch having ended is not enough: haltedBack ends it
// too, when a task goes back because the supplier failed marking its
// slot, with the worker neither paused nor stopping, and a poll in flight
// may fail for real (the source is down) just then; that must still be
// reported, counted and backed off from. So it is a cancellation if the
// worker is halted (a Pause or a stop: a source that answers one with an
// error of its own stays quiet, unless a Resume came before the poll is
// counted), or if the error is the context's.
func (w *Worker) cancelled(ep *pollEpoch, err error) bool {
	if ep.ctx.Err() == nil {
		return false
	}
	return w.halted() || errors.Is(err, context.Canceled) || errors.Is(err, context.Cause(ep.ctx))
}

// pace takes the pause due before the next poll, if any.
func (w *Worker) pace(st *poller) {
	var d time.Duration
	switch st.pause {
	case noPause:
		return
	case failedPause:
		d = w.backoff("PollBackoff", w.cfg.PollBackoff, defaultPollBackoff, st.failures)
	case reservePause:
		d = w.backoff("PollBackoff", w.cfg.PollBackoff, defaultPollBackoff, 1)
	case emptyPause:
		// The time the source itself waited counts toward the pause: a
		// long poll is backoff enough.
		if d = w.backoff("EmptyPollBackoff", w.cfg.EmptyPollBackoff, defaultEmptyPollBackoff, st.empties) - st.took; d > 0 {
			w.counts.emptyPauses.Add(1)
		}
	}
	st.pause = noPause
	w.sleep(d)
}

// returnExtra hands back a task the source delivered beyond what was
// asked for (no slot was reserved for it). It counts as received, and
// then as handed back, so the books (Received = Started + HandedBack)
// still balance; it never goes on the books, as it holds no slot.
func (w *Worker) returnExtra(t Task) {
	w.counts.received.Add(1)
	again := false
	if err := w.call("its Deliveries", func() { again = t.Deliveries() > 1 }); err != nil {
		w.report(taskErr("refusing", t, err))
	}
	if again {
		w.counts.redelivered.Add(1)
	}
	defer w.counts.handedBack.Add(1)
	w.settleCall(t, unrunName(t), func(ctx context.Context) error { return returnUnrun(ctx, t) })
}

// taken tells t, if it is an OrderKeeper, that the worker has taken it
// in: queued in its key's line, run, or returned. A panic in Taken is
// reported.
func (w *Worker) taken(t Task) {
	k, ok := t.(OrderKeeper)
	if !ok {
		return
	}
	if err := w.call("its Taken", k.Taken); err != nil {
		w.report(taskErr("taking in", t, err))
	}
}

// sleep waits for d, or less if the worker stops.
func (w *Worker) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-w.pollCtx.Done():
	}
}

// must panics on a Tracker error: the worker uses each permit as the
// protocol says, so an error here is a bug in the worker.
func must(err error) {
	if err != nil {
		panic(fmt.Sprintf("weft/intake: slot protocol broken: %v", err))
	}
}
