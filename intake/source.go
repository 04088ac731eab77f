package intake

import (
	"context"
	"time"
)

// Source is where tasks come from: a queue that leases tasks out and
// takes them back settled (acknowledged, returned or terminated). MemQueue
// is the in-process one; the module github.com/weftrt/weft/jetstream has a
// NATS JetStream one.
//
// Poll must be safe to call from several goroutines at once: the worker
// runs several pollers.
type Source interface {
	// Poll waits for tasks and returns at most n of them (n >= 1). It may
	// return fewer, and none with a nil error when it has waited as long
	// as it cares to (an empty poll): the worker polls again. It returns
	// promptly once ctx is done, with an error. Tasks returned belong to
	// the caller even when the error is not nil (the worker returns them
	// to the source unrun), so a source must not drop tasks it has
	// already taken off its queue.
	Poll(ctx context.Context, n int) ([]Task, error)
}

// Task is one delivery of a task: its payload and the means to settle it.
// At-least-once: a task whose delivery is not settled in time (its lease
// expires, or the process holding it dies) is delivered again, possibly to
// another worker, so a handler must tolerate running a task twice.
//
// The worker settles every task it polls exactly once: Ack when the
// handler succeeds, Nack with a backoff delay when it fails (or the
// task's Key or Deliveries does, and it cannot run), Terminate
// when it is poison, HandBack (see HandBacker) or else Nack with no delay
// when the task is handed back unrun (shutdown, pause). A handler must not settle the task itself;
// it may call InProgress.
type Task interface {
	// ID identifies the task across deliveries (the same ID on every
	// redelivery), for logs and deduplication.
	ID() string
	// Payload is the task's data. The worker does not look inside it.
	Payload() []byte
	// Deliveries counts the deliveries of this task, this one included:
	// 1 on the first.
	Deliveries() int
	// Ack settles the task as done; the source will not deliver it again.
	Ack(ctx context.Context) error
	// Nack returns the task to the source, to be delivered again after
	// delay (at once if delay <= 0).
	Nack(ctx context.Context, delay time.Duration) error
	// InProgress extends the lease, so that a long task is not delivered
	// again while it still runs.
	InProgress(ctx context.Context) error
	// Terminate settles the task as poison: the source will not deliver it
	// again, and keeps reason where it can (a dead-letter record, an
	// advisory).
	Terminate(ctx context.Context, reason string) error
}

// Keyed is implemented by a task that may carry a key: a customer, a
// document, a tenant. The worker never runs two tasks with the same
// non-empty key at once, and runs them in the order it got them (see
// docs/intake.md, Keys); tasks with different keys, or none, run in
// parallel. An empty key means none. MemQueue's tasks implement it
// (PutKey).
type Keyed interface {
	Key() string
}

// AsyncAcker is implemented by a task whose source can acknowledge it
// without a goroutine waiting for the source's confirmation (a JetStream
// double ack, say, confirmed by a message from the server). The worker
// then acknowledges a successful task from the goroutine that ran it,
// which only sends the Ack, instead of starting a goroutine that waits
// out the round trip: at thousands of tasks a second, that goroutine (and
// the wake-up of it when the confirmation comes) is much of the worker's
// cost per task.
type AsyncAcker interface {
	// AckAsync starts the Ack and returns without waiting for it. It
	// calls done exactly once, with what Ack would have returned: nil
	// once the source confirmed the Ack, an error if it failed, was not
	// confirmed within timeout, or ctx ended first (done may then come
	// somewhat after ctx ends). done may be called before AckAsync
	// returns, and from any goroutine; it does not block.
	AckAsync(ctx context.Context, timeout time.Duration, done func(error))
}

// OrderKeeper is implemented by a task whose source lets several pollers
// poll it at once and still keeps each key's order (a partitioned
// JetStream source). The worker calls Taken once for every task a poll
// returned (those beyond what it asked for too), after it has dealt with
// all of that poll's tasks: queued each in its key's line (see Keyed), or
// returned it. A source that does not
// answer a second poll with tasks of the same keys until the first poll's
// tasks are all Taken gets them into the lines in delivery order, however
// the pollers' goroutines are scheduled.
type OrderKeeper interface {
	Taken()
}

// HandBacker is implemented by a task whose source can take it back unrun
// without counting the delivery: the worker calls HandBack instead of
// Nack(ctx, 0) for a task it polled but never started (shutdown, pause,
// a failed poll), so that Deliveries, and with it MaxDeliveries, counts
// only the deliveries that ran (or died running). A source whose every
// return counts a delivery (a JetStream consumer's NumDelivered) would
// otherwise let a few graceful restarts terminate tasks that never ran.
type HandBacker interface {
	// HandBack returns the task to the source unrun, to be delivered
	// again at once; the delivery it was polled with does not count.
	HandBack(ctx context.Context) error
}

// Leaser is implemented by a source whose deliveries expire: Lease is how
// long a delivered task stays leased without an Ack or InProgress. The
// worker sends InProgress heartbeats at a third of it unless
// Config.Heartbeat says otherwise.
type Leaser interface {
	Lease() time.Duration
}

// Backlogger is implemented by a source that knows how many tasks wait to
// be delivered. Backlog returns its latest figure, or -1 if it has none; it
// must not block (Worker.Stats calls it), so a remote source reports what
// it learned from its last poll.
type Backlogger interface {
	Backlog() int64
}
