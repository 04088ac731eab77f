package intake

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/slots"
)

// poll starts a poller (on a goroutine of its own).
func (w *Worker) poll() { w.pollFrom(poller{}) }

// poller is what a poller goroutine carries from one poll to the next,
// and what a goroutine that goes on in its place takes over.
type poller struct {
	failures int       // polls failed in a row, for PollBackoff
	empties  int       // polls answered empty in a row, for EmptyPollBackoff
	batch    batch     // the poll being taken in
	pause    pauseKind // due before the next poll; set as the batch closes
	// backingOff is set while the user's function for pause runs: a
	// goroutine that finds it set goes on from one that function ended.
	backingOff bool
	// reserved are the permits gathered for the next poll (see reserve):
	// a goroutine that takes over from one the supplier ended while it
	// gathered them polls with them.
	reserved []slots.Permit
}

// pauseKind says which pause is due before the next poll.
type pauseKind uint8

const (
	noPause      pauseKind = iota
	failedPause            // after a failed poll: PollBackoff
	emptyPause             // after an empty poll: EmptyPollBackoff
	reservePause           // after the supplier failed a reservation: PollBackoff
)

// pollFrom is a poller goroutine: reserve, poll, take in, pause, until
// the scaler retires it. It goes on from st, which is where a poller
// whose goroutine ended stopped.
func (w *Worker) pollFrom(st poller) {
	retired := false
	defer func() {
		// Only runtime.Goexit in user code that the poller called (a
		// supplier's ReserveSlot, TryReserveSlot or ReleaseSlot, the
		// source's Poll, a settlement, Key, Deliveries, Taken, a backoff
		// function) ends it before it retires: it catches panics. The
		// poller goes on in a new goroutine. The scaler still counts it,
		// as it never retired, so Shutdown, which waits for every poller
		// to retire, still returns, and the pollers Pause, Resume and the
		// scaler see stay the same; it takes in the rest of its poll from
		// where this one stopped (see batch), or polls with the permits
		// this one had gathered (see reserve), so every task of the poll
		// is dispatched or handed back, and every permit released, once,
		// and then takes the pause due (see pauseFor).
		if !retired {
			go w.pollFrom(st)
		}
	}()
	if st.batch.open {
		w.take(&st)
	}
	if len(st.reserved) > 0 {
		w.pollOnce(&st)
	}
	w.pace(&st)
	for !w.scaler.retire() {
		if w.reserve(&st) {
			w.pollOnce(&st)
		}
		w.pace(&st)
	}
	retired = true
}

// pace takes the pause due before the next poll, if any.
func (w *Worker) pace(st *poller) {
	var d time.Duration
	switch st.pause {
	case noPause:
		return
	case failedPause:
		d = w.pauseFor(st, "PollBackoff", w.cfg.PollBackoff, defaultPollBackoff, st.failures)
	case reservePause:
		d = w.pauseFor(st, "PollBackoff", w.cfg.PollBackoff, defaultPollBackoff, 1)
	case emptyPause:
		// The time the source itself waited counts toward the pause: a
		// long poll is backoff enough.
		if d = w.pauseFor(st, "EmptyPollBackoff", w.cfg.EmptyPollBackoff, defaultEmptyPollBackoff, st.empties) - st.batch.took; d > 0 {
			w.counts.emptyPauses.Add(1)
		}
	}
	st.pause = noPause
	w.sleep(d)
}

// pauseFor returns the pause that b, a backoff function of the user's,
// gives for attempt n (see backoff). If b ended the goroutine that
// called it for this same pause, it returns fallback(n) without calling
// b again: a b that always calls runtime.Goexit would otherwise have the
// poller go on in goroutine after goroutine, polling without a pause.
func (w *Worker) pauseFor(st *poller, name string, b, fallback Backoff, n int) time.Duration {
	if st.backingOff {
		st.backingOff = false
		return fallback(n)
	}
	st.backingOff = true
	d := w.backoff(name, b, fallback, n)
	st.backingOff = false
	return d
}

// reserve takes the slots for one poll into st.reserved: it waits for the
// first and takes as many more as are free right now, up to MaxBatch. So
// the tasks a poll asks for never exceed the slots free for them. It
// reports whether it got any; if not, it has set the pause due.
//
// A supplier that panics or calls runtime.Goexit (t.FailNow in a test's
// supplier) in ReserveSlot or TryReserveSlot is reported, and ends the
// gathering. The permits gathered until then are the supplier's grants,
// held by the tracker: the poll goes on with them (after Goexit, from the
// goroutine that takes over, pollFrom), as it would had the supplier
// refused one more; dropped, their slots would be lost for good. With
// none gathered, the fault fails the reservation, as an error does.
func (w *Worker) reserve(st *poller) (ok bool) {
	// Not named by method: the worker's Pauseable may call the supplier's
	// TryReserveSlot for the first slot too.
	who := "the supplier, reserving a poll's first slot,"
	returned := false
	defer func() {
		if returned {
			return // recover only when unwinding: it is not free
		}
		w.report(fmt.Errorf("weft/intake: %w", fault(who, recover())))
		if ok = len(st.reserved) > 0; !ok {
			// A supplier that always fails must not have the poller spin
			// (after Goexit, in goroutine after goroutine).
			st.pause = reservePause
		}
	}()
	p, err := w.tracker.Reserve(w.pollCtx, w.cfg.Kind)
	if err != nil {
		returned = true
		if w.pollCtx.Err() == nil && !errors.Is(err, slots.ErrPaused) {
			// A supplier that fails for reasons of its own: do not spin on it.
			w.report(fmt.Errorf("weft/intake: reserving a slot: %w", err))
			st.pause = reservePause
		}
		return false
	}
	st.reserved = make([]slots.Permit, 1, w.cfg.MaxBatch)
	st.reserved[0] = p
	who = "the supplier, reserving more slots for a poll,"
	for len(st.reserved) < w.cfg.MaxBatch {
		p, ok := w.tracker.TryReserve(w.cfg.Kind)
		if !ok {
			break
		}
		st.reserved = append(st.reserved, p)
	}
	returned = true
	return true
}

// batch is one poll's permits and tasks, and how far the poller has got
// taking them in. The poller moves it on before each call that may end
// its goroutine (runtime.Goexit in user code: a supplier's ReleaseSlot,
// a source's settlement, Key, Deliveries or Taken), as that call is done
// even if it never returns: the tracker records a release before it
// calls the supplier, and the calls between (handBack, dispatch, admit)
// finish the rest of their own work from deferred calls (release,
// giveBack, terminateUnrun, describe, handBackLine). So a goroutine that
// takes over the batch (pollFrom) does each step once.
type batch struct {
	open     bool // from the poll's reservation until its outcome is counted
	halted   bool // the worker was halted before the poll asked the source
	observed bool // the scaler has seen the poll
	ep       *pollEpoch
	seq      uint64         // the poll's number (see pollClock)
	permits  []slots.Permit // permits[i] is reserved for tasks[i]
	tasks    []Task
	extra    []Task        // tasks beyond those asked for
	err      error         // the poll's
	took     time.Duration // how long the source took to answer
	start    time.Time     // when the poll asked the source
	timed    bool          // the poll is counted in Polls, its time in PollTime
	unused   int           // permits[unused:] are yet to be released unused
	refused  int           // extra[refused:] are yet to be handed back
	// counted is set once extra[refused] has been counted as received:
	// a goroutine that takes over after its Deliveries ended the last
	// one hands it back without counting it again. The hand-back stays
	// on the poller's goroutines, which Shutdown waits for; the task
	// holds no record in the registry for Shutdown to wait on.
	counted bool
	// records[i] is tasks[i] as booked (see book): every task of the poll
	// is booked before any is admitted and handed on, as handing one on
	// may wait (at a bounded door of the pool, or for a hand-back's round
	// trip). A task booked has its lease kept by the heartbeat; one left
	// in the poller's hands meanwhile would not, and its lease could run
	// out, so that the source delivered it again while it waited here.
	records []*inflight
	next    int // records[next:] are yet to be admitted
	told    int // tasks[told:], then extra[told-len(tasks):], are yet to be told Taken
}

// pollOnce asks the source for one task per permit of st.reserved and
// takes in what comes back (take).
func (w *Worker) pollOnce(st *poller) {
	b := &st.batch
	*b = batch{open: true, ep: w.currentEpoch(), seq: w.clock.begin(), permits: st.reserved}
	st.reserved = nil // the batch holds them now
	permits := b.permits
	if w.halted() {
		b.halted = true
		w.take(st)
		return
	}
	// Until Poll returns: a source that ends the goroutine in Poll fails
	// the poll, for the goroutine that takes over (pollFrom).
	b.err = errPollGoexit
	b.start = time.Now()
	var tasks []Task
	var err error
	if pan := core.Catch(func() { tasks, err = w.cfg.Source.Poll(b.ep.ctx, len(permits)) }); pan != nil {
		// A source that panics polling fails the poll, as an error
		// would: unwinding would take the poller and its slots with it.
		tasks, err = nil, fmt.Errorf("the source panicked: %w", pan)
	}
	w.timePoll(b)
	if len(tasks) > len(permits) {
		tasks, b.extra = tasks[:len(permits)], tasks[len(permits):]
		w.report(fmt.Errorf("weft/intake: source returned %d tasks more than asked; returned to it", len(b.extra)))
	}
	b.tasks, b.err, b.unused = tasks, err, len(tasks)
	w.take(st)
}

// timePoll counts b's poll in Polls and its time in PollTime, once: a
// poll that the source's Goexit ended is counted by the goroutine that
// takes it over (take), up to then.
func (w *Worker) timePoll(b *batch) {
	if b.timed {
		return
	}
	b.timed = true
	b.took = time.Since(b.start)
	w.counts.observePoll(b.took)
}

// errPollGoexit fails a poll whose source called runtime.Goexit in Poll
// (t.FailNow in a test's source).
var errPollGoexit error = goexitError("the source's Poll")

// take takes in a poll's batch from where it stands: the tasks are
// booked, all of them first (see batch.records); every permit not
// matched with a task is released unused, so a poller backing off after
// it holds no slot, and the extra tasks are handed back; then the tasks
// are admitted and dispatched, or handed back if the poll failed, and
// told, the extra tasks after them, that they were taken in. Last it
// counts the poll's outcome and sets the pause it calls for.
func (w *Worker) take(st *poller) {
	b := &st.batch
	if !b.halted {
		w.timePoll(b)
	}
	// Booked first, before the calls below that may wait (a supplier's
	// ReleaseSlot, the hand-back of each task beyond the ask, a round
	// trip), so that no lease goes unkept meanwhile.
	if !b.halted && b.records == nil && len(b.tasks) > 0 {
		// No user code here: a goroutine that takes over finds them all
		// booked, or none.
		b.records = make([]*inflight, len(b.tasks))
		for i, t := range b.tasks {
			b.records[i] = w.book(t, b.permits[i], b)
		}
	}
	for b.unused < len(b.permits) {
		p := b.permits[b.unused]
		b.unused++
		w.releaseSlot(p, slots.NeverUsed())
	}
	for b.refused < len(b.extra) {
		t := b.extra[b.refused]
		if !b.counted {
			b.counted = true
			w.countRefused(t)
		}
		b.refused++
		b.counted = false
		w.returnExtra(t)
	}
	switch {
	case b.halted:
	case b.err != nil:
		for b.next < len(b.records) {
			r := b.records[b.next]
			b.next++
			if w.admit(r) {
				w.handBackInOrder(r)
			}
		}
	default:
		if !b.observed {
			b.observed = true
			if w.scaler.observe(len(b.tasks), len(b.permits)) {
				go w.poll()
			}
		}
		for b.next < len(b.records) {
			r := b.records[b.next]
			b.next++
			if w.admit(r) {
				w.dispatch(r)
			}
		}
	}
	// Whatever became of them, they are in order now. The extra tasks
	// too: a source that keeps order holds back what comes after a poll
	// until every task it returned is Taken (OrderKeeper).
	for b.told < len(b.tasks)+len(b.extra) {
		i := b.told
		b.told++
		if i < len(b.tasks) {
			w.taken(b.tasks[i])
		} else {
			w.taken(b.extra[i-len(b.tasks)])
		}
	}
	// Nothing from here on can end the goroutine (report runs OnError on
	// a goroutine of its own), so the outcome is counted once.
	switch {
	case b.halted:
	case b.err != nil:
		if w.cancelled(b) {
			break
		}
		w.counts.pollErrors.Add(1)
		w.report(fmt.Errorf("weft/intake: poll: %w", b.err))
		st.failures++
		st.pause = failedPause
	case len(b.tasks) == 0:
		w.counts.emptyPolls.Add(1)
		st.failures = 0
		st.empties++
		st.pause = emptyPause
	default:
		st.failures, st.empties = 0, 0
	}
	w.clock.end(b.seq)
	b.open = false
}

// cancelled reports whether b's poll, which failed, failed because the
// worker cancelled it, and not for a reason of the source's own. Its
// epoch having ended is not enough: haltedBack ends it too, when a task
// goes back because the supplier failed marking its slot, with the worker
// neither paused nor stopping, and a poll in flight may fail for real
// (the source is down) just then; that must still be reported, counted
// and backed off from. So it is a cancellation if the worker is halted
// (a Pause or a stop: a source that answers one with an error of its own
// stays quiet, unless a Resume came before the poll is counted), or if
// the error is the context's.
func (w *Worker) cancelled(b *batch) bool {
	if b.ep.ctx.Err() == nil {
		return false
	}
	return w.halted() || errors.Is(b.err, context.Canceled) || errors.Is(b.err, context.Cause(b.ep.ctx))
}

// countRefused counts a task the source delivered beyond what was asked
// (no slot was reserved for it) as received, before take hands it back
// (returnExtra), so the books (Received = Started + HandedBack) still
// balance.
func (w *Worker) countRefused(t Task) {
	w.counts.received.Add(1)
	if w.isRedelivery(t) {
		w.counts.redelivered.Add(1)
	}
}

// returnExtra hands back a refused task.
func (w *Worker) returnExtra(t Task) {
	// Deferred, to count the task however the hand-back ends: settle
	// reports a failure, a runtime.Goexit included, which goes on ending
	// the poller's goroutine (pollFrom goes on with the rest).
	defer w.counts.handedBack.Add(1)
	w.settle(t, func(ctx context.Context) error { return returnUnrun(ctx, t) })
}

// isRedelivery reports whether t, a refused task, is a redelivery. A
// panic or runtime.Goexit in its Deliveries is reported; after Goexit,
// which ends the poller's goroutine, the goroutine that takes over the
// batch hands t back (see batch.counted).
func (w *Worker) isRedelivery(t Task) (again bool) {
	returned := false
	defer func() {
		if !returned {
			w.report(taskErr("refusing", t, fault("its Deliveries", recover())))
		}
	}()
	again = t.Deliveries() > 1
	returned = true
	return again
}

// taken tells t, if it is an OrderKeeper, that the worker has taken it
// in: queued in its key's line, run, or returned. A panic or
// runtime.Goexit in Taken is reported; the poller goes on with the
// others after Goexit too (pollFrom).
func (w *Worker) taken(t Task) {
	k, ok := t.(OrderKeeper)
	if !ok {
		return
	}
	returned := false
	defer func() {
		if !returned {
			w.report(taskErr("taking in", t, fault("its Taken", recover())))
		}
	}()
	k.Taken()
	returned = true
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
