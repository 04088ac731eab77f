package intake

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/weftrt/weft/slots"
)

// Handler runs one task. Each task runs on a goroutine of its own, as
// many at once as the worker's supplier grants slots: a handler that
// waits (an HTTP call, a database, a sleep) holds its slot and its
// goroutine while it waits, nothing more. ctx ends when the worker is
// closed or its Shutdown deadline passes.
//
// A nil error acknowledges the task; an error or a panic returns it to
// the source for a later retry (see Config.Backoff), or terminates it if
// the error wraps ErrPoison or the task has been delivered
// Config.MaxDeliveries times. A handler that returns context.Canceled
// once the worker has cancelled ctx (Close, or a Shutdown whose deadline
// passed) was cut short, not failed: its task is returned unrun (HandBack
// where the source has it), never terminated.
//
// CPU work inside a handler forks on a pool: enter one with Pool.Run,
// join.On, scope.On or the par On forms (scheduler.Default() if you have
// no pool of your own), and fork there with join, scope and par as
// anywhere in a pool. Many handlers entering one pool share its workers,
// which steal each other's forks.
type Handler func(ctx context.Context, t Task) error

// Config configures a Worker. Handler is required; every other field has
// a default.
type Config struct {
	// Source is where tasks come from. Default: a new MemQueue with
	// default settings (reach it through Worker.Source).
	Source Source

	// Handler runs each task. Required.
	Handler Handler

	// Supplier decides how many tasks may be out at once, polled or
	// running: a poller reserves a slot for every task it asks for.
	// Unless it already is a *slots.Pauseable it is wrapped in one, which
	// Worker.Pause uses. Default: slots.NewFixed(runtime.GOMAXPROCS(0)).
	// A handler that enters a pool (Pool.Run) whose door
	// (scheduler.WithSupplier) is this same bounded supplier needs a
	// second slot of it while it holds one: give the door a supplier of
	// its own, or leave it the default, slots.Unlimited.
	Supplier slots.Supplier

	// Kind names the worker's slots for the supplier (ReserveContext.Kind
	// and TaskInfo.Kind). Default "intake".
	Kind string

	// MinPollers and MaxPollers bound the number of polling goroutines,
	// which adapts to how often polls come back empty. Defaults 1 and 2;
	// MaxPollers is capped at the supplier's MaxSlots, since every poll
	// holds at least one slot. A task waits for its own poll's round trip
	// however many pollers there are; more pollers only shorten the wait
	// for a poller to come free (half a round trip over their number), so
	// returns diminish fast, while each poll is a round trip of its own.
	// Raise MaxPollers for a source far away and short tasks.
	MinPollers, MaxPollers int

	// MaxBatch caps the tasks one poll asks for, at most MaxBatchLimit.
	// Default: the supplier's MaxSlots (up to MaxBatchLimit), or 64 if it
	// has no bound.
	MaxBatch int

	// MaxSettling bounds the tasks whose handler has returned and whose
	// settlement (Ack, Nack, Terminate) is in flight. A task's slot is
	// released when its handler returns, before the settlement, so that
	// the settlement's round trip overlaps the next poll; the tasks
	// delivered and not yet settled are therefore at most the slots plus
	// MaxSettling. Default: twice the supplier's MaxSlots, or 64. Short
	// tasks end in bursts, a poll's at a time: with room for only as many
	// settlements as slots, one burst's acks waiting on a server would
	// keep the next finished tasks' slots (docs/figures.md,
	// Settlements in flight).
	MaxSettling int

	// MaxDeliveries, if positive, is how many deliveries a failing task
	// gets: one that fails on its MaxDeliveries-th delivery is terminated
	// rather than returned, and one delivered more often than that (it
	// crashed the processes that ran it) is terminated without running.
	MaxDeliveries int

	// Backoff gives the redelivery delay after a task's d-th delivery
	// failed. Default: Exponential(100ms, 30s). For a call of this or
	// of the other backoffs that panics or calls runtime.Goexit, the
	// default stands in, and OnError is told.
	Backoff Backoff

	// PollBackoff gives the pause before polling again after the n-th
	// failed poll in a row (the source is down). Default:
	// Exponential(50ms, 5s).
	PollBackoff Backoff

	// EmptyPollBackoff gives the pause before polling again after the
	// n-th empty poll in a row, so that a source that answers at once
	// with nothing (no long poll) does not keep a poller spinning. The
	// pause is shortened by the time the empty poll itself took: a
	// source that waits for tasks at least that long before answering
	// empty (MemQueue's default PollWait, a JetStream fetch) is polled
	// again at once. A poll that brings a task starts the count again.
	// The slots of an empty poll are released before the pause. Default:
	// Exponential(1ms, 100ms), so a task that arrives at an idle
	// at-once source waits at most 100ms longer; Exponential(0, 0) never
	// pauses.
	EmptyPollBackoff Backoff

	// Heartbeat is how often a task that is still queued (in its key's
	// line, or in its poller's hands), running, or waiting
	// for room to settle (MaxSettling) has its lease extended
	// (Task.InProgress): no lease goes longer than Heartbeat without an
	// extension, so any value below the lease keeps it. 0: a third of the
	// source's Lease if it is a Leaser, else none; negative: none.
	Heartbeat time.Duration

	// SettleTimeout bounds each Ack, Nack, Terminate and InProgress call.
	// Default (0) 5s; negative is refused.
	SettleTimeout time.Duration

	// OnError, if set, is told about errors the worker handles by itself:
	// failed polls and failed settlements. It must not block. Each call
	// runs on a goroutine of its own, which the worker waits for, so that
	// a runtime.Goexit in it (t.FailNow, require.* in a test) ends only
	// that call; OnError is then told of the Goexit, once. A panic in it
	// crashes the program, as a panic in a goroutine of your own would.
	OnError func(error)
}

// withDefaults fills in the defaults and checks what cannot be defaulted.
func (c Config) withDefaults() (Config, error) {
	if c.Handler == nil {
		return c, fmt.Errorf("%w: Handler is nil: want the function that runs each task (it has no default)", ErrConfig)
	}
	if c.Source == nil {
		c.Source = NewMemQueue(MemQueueConfig{})
	}
	if c.Supplier == nil {
		c.Supplier = slots.NewFixed(runtime.GOMAXPROCS(0))
	}
	if c.Kind == "" {
		c.Kind = "intake"
	}
	if err := c.check(); err != nil {
		return c, err
	}
	c.MinPollers = max(c.MinPollers, 1)
	if c.MaxPollers == 0 {
		c.MaxPollers = max(2, c.MinPollers)
	}
	if c.MaxPollers < c.MinPollers {
		return c, fmt.Errorf("%w: MaxPollers %d below MinPollers %d: want MaxPollers >= MinPollers (0: the default, max(2, MinPollers))", ErrConfig, c.MaxPollers, c.MinPollers)
	}
	if m := c.Supplier.MaxSlots(); m > 0 {
		c.MaxPollers = min(c.MaxPollers, m)
		c.MinPollers = min(c.MinPollers, c.MaxPollers)
		if c.MaxBatch == 0 {
			c.MaxBatch = min(m, MaxBatchLimit)
		}
		if c.MaxSettling == 0 {
			c.MaxSettling = 2 * m
		}
	}
	if c.MaxBatch == 0 {
		c.MaxBatch = 64
	}
	if c.MaxSettling == 0 {
		c.MaxSettling = 64
	}
	if c.Backoff == nil {
		c.Backoff = defaultBackoff
	}
	if c.PollBackoff == nil {
		c.PollBackoff = defaultPollBackoff
	}
	if c.Heartbeat == 0 {
		if l, ok := c.Source.(Leaser); ok {
			c.Heartbeat = l.Lease() / 3
		}
	}
	if c.EmptyPollBackoff == nil {
		c.EmptyPollBackoff = defaultEmptyPollBackoff
	}
	if c.SettleTimeout == 0 {
		c.SettleTimeout = 5 * time.Second
	}
	return c, nil
}

// The default backoffs. Each also stands in for the user's own where
// that one fails (see Worker.backoff).
var (
	defaultBackoff          = Exponential(100*time.Millisecond, 30*time.Second)
	defaultPollBackoff      = Exponential(50*time.Millisecond, 5*time.Second)
	defaultEmptyPollBackoff = Exponential(time.Millisecond, 100*time.Millisecond)
)

// MaxBatchLimit is the most tasks Config.MaxBatch may ask one poll for.
// A poll sets aside room for a permit per task before it asks, so a
// larger batch (one meant as "no bound") would be a huge allocation on
// every poll, or with an unbounded supplier a poll that never stops
// reserving.
const MaxBatchLimit = 1 << 16

// check refuses the values that no default can mend, naming the field and
// the value.
func (c *Config) check() error {
	for _, f := range []struct {
		name string
		v    int
	}{
		{"MinPollers", c.MinPollers}, {"MaxPollers", c.MaxPollers}, {"MaxBatch", c.MaxBatch},
		{"MaxSettling", c.MaxSettling}, {"MaxDeliveries", c.MaxDeliveries},
	} {
		if f.v < 0 {
			return fmt.Errorf("%w: %s %d: want >= 0", ErrConfig, f.name, f.v)
		}
	}
	if c.MaxBatch > MaxBatchLimit {
		return fmt.Errorf("%w: MaxBatch %d: want at most MaxBatchLimit (%d)", ErrConfig, c.MaxBatch, MaxBatchLimit)
	}
	if c.SettleTimeout < 0 {
		return fmt.Errorf("%w: SettleTimeout %v: want >= 0 (0: the default)", ErrConfig, c.SettleTimeout)
	}
	return nil
}
