package intake

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/weftrt/weft/slots"
)

// Stats is a snapshot of a worker's figures. Each is read on its own, so
// a snapshot taken while tasks move is not atomic across fields.
type Stats struct {
	// Slots are the worker's slot figures: InUse (tasks running),
	// Reserved (slots held for polls in flight and for tasks polled but
	// not started), Available, Max. Refusals counts, among others, the
	// TryReserve that ends each poll's gathering of free slots, so it
	// says little here.
	Slots  slots.Stats
	Paused bool

	Pollers      int // poller goroutines running
	PollerTarget int // pollers the scaler wants

	Polls      uint64        // polls made (answered, failed or cancelled)
	EmptyPolls uint64        // polls answered with no task
	PollErrors uint64        // polls that failed (the source is down)
	PollTime   time.Duration // poll latency, smoothed over the last few polls
	// EmptyPollPauses counts the pauses taken after empty polls
	// (Config.EmptyPollBackoff): a source that answers empty at once.
	EmptyPollPauses uint64

	Received    uint64 // tasks polled
	Redelivered uint64 // of them, deliveries after the first
	Started     uint64 // tasks whose handler began
	Acked       uint64 // tasks acknowledged (the Ack succeeded)
	Nacked      uint64 // failed tasks returned for a retry
	Terminated  uint64 // poison tasks terminated (the source took the Terminate)
	HandedBack  uint64 // tasks returned unrun (pause, shutdown), with HandBack where the task has it, or after Backoff if its Key or Deliveries failed
	Settling    int64  // tasks ended whose settlement is in flight (they hold no slot)
	Failed      uint64 // handler errors and panics
	Panics      uint64 // of them, panics
	// SettleErrors counts Ack, Nack, Terminate and InProgress calls that
	// failed; such a task is delivered again when its lease runs out.
	SettleErrors uint64
	Heartbeats   uint64 // InProgress calls made for long tasks

	// Err is why the worker stopped by itself, or nil: user code other
	// than a handler called runtime.Goexit (it wraps ErrFailed).
	Err error

	// Backlog is the source's count of tasks waiting to be delivered, or
	// -1 if the source does not say (it is not a Backlogger).
	Backlog int64
	// BacklogPerFreeSlot is Backlog divided by the slots not running a
	// task (Max - InUse), or -1 if either is unknown. With no slot free
	// it is +Inf while anything waits (and 0 when nothing does): no
	// amount of waiting work fits. An autoscaler adds workers while it
	// stays above a threshold: the waiting work exceeds what the free
	// slots will take.
	BacklogPerFreeSlot float64
}

// counters are the worker's running totals; Stats copies them.
type counters struct {
	polls, emptyPolls, pollErrors, emptyPauses atomic.Uint64
	pollNanos                                  atomic.Int64 // smoothed, see observePoll

	received, redelivered, started, acked, nacked atomic.Uint64
	terminated, handedBack, failed, panics        atomic.Uint64
	settleErrors, heartbeats, failures            atomic.Uint64
	settling                                      atomic.Int64
}

// observePoll counts a poll and folds its latency into the smoothed
// figure (an exponential average weighting the newest poll 1/8).
func (c *counters) observePoll(d time.Duration) {
	c.polls.Add(1)
	for {
		old := c.pollNanos.Load()
		next := int64(d)
		if old != 0 {
			next = old + (int64(d)-old)/8
		}
		// A lost race means another poll updated it; fold in again on top.
		if c.pollNanos.CompareAndSwap(old, next) {
			return
		}
	}
}

// Stats returns the worker's figures now.
func (w *Worker) Stats() Stats {
	c := &w.counts
	s := Stats{
		Slots:           w.tracker.Stats(),
		Paused:          w.pause.Paused(),
		Polls:           c.polls.Load(),
		EmptyPolls:      c.emptyPolls.Load(),
		PollErrors:      c.pollErrors.Load(),
		EmptyPollPauses: c.emptyPauses.Load(),
		PollTime:        time.Duration(c.pollNanos.Load()),
		Received:        c.received.Load(),
		Redelivered:     c.redelivered.Load(),
		Started:         c.started.Load(),
		Acked:           c.acked.Load(),
		Nacked:          c.nacked.Load(),
		Terminated:      c.terminated.Load(),
		HandedBack:      c.handedBack.Load(),
		Settling:        c.settling.Load(),
		Failed:          c.failed.Load(),
		Panics:          c.panics.Load(),
		SettleErrors:    c.settleErrors.Load(),
		Heartbeats:      c.heartbeats.Load(),
		Backlog:         -1,
		Err:             w.err(),
	}
	s.Pollers, s.PollerTarget = w.scaler.counts()
	if b, ok := w.cfg.Source.(Backlogger); ok {
		s.Backlog = b.Backlog()
	}
	s.BacklogPerFreeSlot = -1
	if s.Backlog >= 0 && s.Slots.Max > 0 {
		s.BacklogPerFreeSlot = perFreeSlot(s.Backlog, s.Slots.Max-s.Slots.InUse)
	}
	return s
}

// perFreeSlot is backlog divided by free slots; +Inf for a backlog with
// no slot free (dividing by 1 instead, as this once did, reported a
// backlog of 40 on a full worker as 40 per free slot: a figure that
// looked finite and meant nothing).
func perFreeSlot(backlog int64, free int) float64 {
	switch {
	case backlog == 0:
		return 0
	case free <= 0:
		return math.Inf(1)
	}
	return float64(backlog) / float64(free)
}
