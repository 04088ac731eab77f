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
	failures int   // polls failed in a row, for PollBackoff
	empties  int   // polls answered empty in a row, for EmptyPollBackoff
	batch    batch // the poll being taken in
}

// pollFrom is a poller goroutine: reserve, poll, take in, until the
// scaler retires it. It goes on from st, which is where a poller whose
// goroutine ended stopped.
func (w *Worker) pollFrom(st poller) {
	retired := false
	defer func() {
		// Only runtime.Goexit in user code that the poller called (a
		// supplier's ReleaseSlot: see releaseSlot) ends it before it
		// retires: it catches panics. The poller goes on in a new
		// goroutine. The scaler still counts it, as it never retired, so
		// Shutdown, which waits for every poller to retire, still
		// returns, and the pollers Pause, Resume and the scaler see stay
		// the same; it takes in the rest of its poll from where this one
		// stopped (see batch), so every task of the poll is dispatched or
		// handed back, and every permit released, once.
		if !retired {
			go w.pollFrom(st)
		}
	}()
	if st.batch.open {
		w.pace(&st, w.take(&st.batch))
	}
	for !w.scaler.retire() {
		permits, err := w.reserve()
		if err != nil {
			if w.pollCtx.Err() == nil && !errors.Is(err, slots.ErrPaused) {
				// A supplier that fails for reasons of its own: do not spin on it.
				w.report(fmt.Errorf("weft/intake: reserving a slot: %w", err))
				w.sleep(w.cfg.PollBackoff(1))
			}
			continue
		}
		w.pace(&st, w.pollOnce(&st.batch, permits))
	}
	retired = true
}

// pace waits before the next poll as the outcome of the last calls for.
func (w *Worker) pace(st *poller, outcome pollOutcome) {
	switch outcome {
	case pollFailed:
		st.failures++
		w.sleep(w.cfg.PollBackoff(st.failures))
	case pollEmpty:
		st.failures = 0
		st.empties++
		// The time the source itself waited counts toward the pause: a
		// long poll is backoff enough.
		if d := w.cfg.EmptyPollBackoff(st.empties) - st.batch.took; d > 0 {
			w.counts.emptyPauses.Add(1)
			w.sleep(d)
		}
	case pollDone:
		st.failures, st.empties = 0, 0
	}
}

// reserve takes the slots for one poll: it waits for the first and takes
// as many more as are free right now, up to MaxBatch. So the tasks a poll
// asks for never exceed the slots free for them.
func (w *Worker) reserve() ([]slots.Permit, error) {
	p, err := w.tracker.Reserve(w.pollCtx, w.cfg.Kind)
	if err != nil {
		return nil, err
	}
	permits := make([]slots.Permit, 1, w.cfg.MaxBatch)
	permits[0] = p
	for len(permits) < w.cfg.MaxBatch {
		p, ok := w.tracker.TryReserve(w.cfg.Kind)
		if !ok {
			break
		}
		permits = append(permits, p)
	}
	return permits, nil
}

type pollOutcome uint8

const (
	pollDone      pollOutcome = iota // the source answered with tasks
	pollEmpty                        // the source answered with nothing: back off
	pollFailed                       // the source failed: back off
	pollCancelled                    // a Pause or a stop ended it
)

// batch is one poll's permits and tasks, and how far the poller has got
// taking them in. The poller moves it on before each call that may end
// its goroutine (a supplier's Goexit in ReleaseSlot), as that call is done
// even if it never returns: the tracker records a release before it
// calls the supplier, and the calls between (handBack, dispatch) finish
// the rest of their own work from deferred calls (release,
// handBackLine). So a goroutine that takes over the batch (pollFrom)
// does each step once.
type batch struct {
	open     bool // from the poll's reservation until its outcome is known
	halted   bool // the worker was halted before the poll asked the source
	observed bool // the scaler has seen the poll
	ep       *pollEpoch
	permits  []slots.Permit // permits[i] is reserved for tasks[i]
	tasks    []Task
	err      error         // the poll's
	took     time.Duration // how long the source took to answer
	unused   int           // permits[unused:] are yet to be released unused
	next     int           // tasks[next:] are yet to be admitted
}

// pollOnce asks the source for one task per permit and takes in what
// comes back (take). It returns how the poll went.
func (w *Worker) pollOnce(b *batch, permits []slots.Permit) pollOutcome {
	*b = batch{open: true, ep: w.currentEpoch(), permits: permits}
	if w.halted() {
		b.halted = true
		return w.take(b)
	}
	// Until Poll returns: a source that ends the goroutine in Poll fails
	// the poll, for the goroutine that takes over (pollFrom).
	b.err = errPollGoexit
	start := time.Now()
	var tasks []Task
	var err error
	if pan := core.Catch(func() { tasks, err = w.cfg.Source.Poll(b.ep.ctx, len(permits)) }); pan != nil {
		// A source that panics polling fails the poll, as an error
		// would: unwinding would take the poller and its slots with it.
		tasks, err = nil, fmt.Errorf("the source panicked: %w", pan)
	}
	b.took = time.Since(start)
	w.counts.observePoll(b.took)
	var extra []Task
	if len(tasks) > len(permits) {
		tasks, extra = tasks[:len(permits)], tasks[len(permits):]
	}
	b.tasks, b.err, b.unused = tasks, err, len(tasks)
	if extra != nil {
		w.refuseExtra(extra)
	}
	return w.take(b)
}

// errPollGoexit fails a poll whose source called runtime.Goexit in Poll
// (t.FailNow in a test's source).
var errPollGoexit = fmt.Errorf("the source called runtime.Goexit in Poll: %w", core.ErrGoexit)

// take takes in a poll's batch from where it stands: every permit not
// matched with a task is released unused, so a poller backing off after
// it holds no slot; then the tasks are admitted and dispatched, or handed
// back if the poll failed. It returns the poll's outcome.
func (w *Worker) take(b *batch) pollOutcome {
	for b.unused < len(b.permits) {
		p := b.permits[b.unused]
		b.unused++
		w.releaseSlot(p, slots.NeverUsed())
	}
	switch {
	case b.halted:
	case b.err != nil:
		for b.next < len(b.tasks) {
			i := b.next
			b.next++
			w.handBack(w.admit(b.tasks[i], b.permits[i]))
		}
	default:
		if !b.observed {
			b.observed = true
			if w.scaler.observe(len(b.tasks), len(b.permits)) {
				go w.poll()
			}
		}
		for b.next < len(b.tasks) {
			i := b.next
			b.next++
			w.dispatch(w.admit(b.tasks[i], b.permits[i]), b.ep)
		}
	}
	// Closed before what follows calls user code (the source's Taken,
	// OnError): however that ends, nothing is done twice.
	b.open = false
	taken(b.tasks) // whatever became of them, they are in order now
	switch {
	case b.halted:
		return pollCancelled
	case b.err != nil:
		if b.ep.ctx.Err() != nil {
			return pollCancelled
		}
		w.counts.pollErrors.Add(1)
		w.report(fmt.Errorf("weft/intake: poll: %w", b.err))
		return pollFailed
	case len(b.tasks) == 0:
		w.counts.emptyPolls.Add(1)
		return pollEmpty
	}
	return pollDone
}

// refuseExtra returns tasks a source delivered beyond what was asked: no
// slot was reserved for them. They were received, and are handed back,
// so the books (Received = Started + HandedBack) still balance.
func (w *Worker) refuseExtra(tasks []Task) {
	w.report(fmt.Errorf("weft/intake: source returned %d tasks more than asked; returned to it", len(tasks)))
	for _, t := range tasks {
		w.counts.received.Add(1)
		if t.Deliveries() > 1 {
			w.counts.redelivered.Add(1)
		}
		w.settle(t, func(ctx context.Context) error { return returnUnrun(ctx, t) })
		w.counts.handedBack.Add(1)
	}
}

// taken tells each task that is an OrderKeeper that the worker has taken
// it in: queued in its key's line, run, or returned.
func taken(tasks []Task) {
	for _, t := range tasks {
		if k, ok := t.(OrderKeeper); ok {
			k.Taken()
		}
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
