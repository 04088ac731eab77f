package intake

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/slots"
)

// poll is a poller goroutine: reserve, poll, dispatch, until the scaler
// retires it.
func (w *Worker) poll() {
	failures := 0 // polls failed in a row, for PollBackoff
	empties := 0  // polls answered empty in a row, for EmptyPollBackoff
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
		switch outcome, took := w.pollOnce(permits); outcome {
		case pollFailed:
			failures++
			w.sleep(w.cfg.PollBackoff(failures))
		case pollEmpty:
			failures = 0
			empties++
			// The time the source itself waited counts toward the
			// pause: a long poll is backoff enough.
			if d := w.cfg.EmptyPollBackoff(empties) - took; d > 0 {
				w.counts.emptyPauses.Add(1)
				w.sleep(d)
			}
		case pollDone:
			failures, empties = 0, 0
		}
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

// pollOnce asks the source for one task per permit and dispatches what
// comes back; every permit not matched with a task is released unused, so
// a poller backing off after it holds no slot. It returns how the poll
// went and how long the source took to answer.
func (w *Worker) pollOnce(permits []slots.Permit) (pollOutcome, time.Duration) {
	ep := w.currentEpoch()
	if w.halted() {
		w.releaseUnused(permits)
		return pollCancelled, 0
	}
	start := time.Now()
	var tasks []Task
	var err error
	if pan := core.Catch(func() { tasks, err = w.cfg.Source.Poll(ep.ctx, len(permits)) }); pan != nil {
		// A source that panics polling fails the poll, as an error
		// would: unwinding would take the poller and its slots with it.
		tasks, err = nil, fmt.Errorf("the source panicked: %w", pan)
	}
	took := time.Since(start)
	defer taken(tasks) // whatever became of them, they are in order now
	w.counts.observePoll(took)
	if len(tasks) > len(permits) {
		w.refuseExtra(tasks[len(permits):])
		tasks = tasks[:len(permits)]
	}
	w.releaseUnused(permits[len(tasks):])
	if err != nil {
		for i, t := range tasks {
			w.handBack(w.admit(t, permits[i]))
		}
		if ep.ctx.Err() != nil {
			return pollCancelled, took
		}
		w.counts.pollErrors.Add(1)
		w.report(fmt.Errorf("weft/intake: poll: %w", err))
		return pollFailed, took
	}
	if w.scaler.observe(len(tasks), len(permits)) {
		go w.poll()
	}
	if len(tasks) == 0 {
		w.counts.emptyPolls.Add(1)
		return pollEmpty, took
	}
	for i, t := range tasks {
		w.dispatch(w.admit(t, permits[i]), ep)
	}
	return pollDone, took
}

func (w *Worker) releaseUnused(permits []slots.Permit) {
	for _, p := range permits {
		w.releaseSlot(p, slots.NeverUsed())
	}
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
