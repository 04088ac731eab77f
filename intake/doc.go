// Package intake is weft's task worker: it takes tasks from a queue (a
// Source), within the slots a supplier grants (package slots), runs each
// on a goroutine of its own and settles it with the queue: ack, retry, or
// terminate.
//
// The slots are the concurrency: with slots.NewFixed(16), up to 16
// handlers run at once, whatever the number of CPUs, as with an errgroup
// limit of 16 or Temporal's activity slots. A handler that waits (an HTTP
// call, a database, a sleep) holds its slot and nothing else. A handler's
// CPU work forks on a weft pool, which it enters with Pool.Run, join.On,
// scope.On or the par On forms: the handlers share the pool's workers,
// which steal each other's forks.
//
//	w, err := intake.New(intake.Config{
//		Supplier: slots.NewFixed(16), // at most 16 tasks polled or running
//		Handler: func(ctx context.Context, t intake.Task) error {
//			return process(ctx, t.Payload()) // nil: ack; error: retry later
//		},
//	})
//	...
//	defer w.Shutdown(ctx)
//
// # The protocol
//
// A poller goroutine loops:
//
//	reserve one slot (waiting), then every other slot free now, up to MaxBatch
//	poll the source for at most as many tasks as slots reserved
//	release the slots no task came for, as never used
//	for each task: start it, with its slot, on a goroutine of its own
//	if none came: pause (EmptyPollBackoff, less the poll's own wait)
//
// and on a goroutine of its own each task runs:
//
//	mark its slot used
//	run the handler (a panic is caught and becomes its error)
//	release its slot: complete, or failed with the error
//	settle it: Ack on success; Nack with Backoff on failure; Terminate if
//	  the error wraps ErrPoison or this was its MaxDeliveries-th delivery
//
// A settlement is waited for on the task's goroutine once its slot is
// released, or on a goroutine of its own if the next task of its key is to
// run there; an Ack of a task that is an AsyncAcker (a JetStream task) is
// only sent, and the source's confirmation ends the settlement, with no
// goroutine waiting for it.
//
// Reserving before polling keeps the invariant the slot proposal asks for:
// the tasks that polls in flight ask for, plus the slots in use, never
// exceed the supplier's slots, so a task is never taken from the queue
// without a place to run (its lease would tick while it waited). The
// stress tests audit it from the supplier's and the source's side at once
// (package intaketest).
//
// A task's slot is released when its handler returns, before the
// settlement: the task has ended, and a settlement can be a round trip to
// a server (a JetStream ack waited for), which overlaps the next poll
// instead of idling the slot. Settlements in flight are bounded apart
// (MaxSettling); when they back up, a finished task keeps its slot until
// there is room, so a slow server slows polling down. The tasks delivered
// and not yet settled are thus at most the slots plus MaxSettling: what a
// worker that dies leaves for the queue to deliver again.
//
// # Keys
//
// A task that is Keyed may carry a key (a customer, a document, a
// tenant). The worker never runs two tasks with the same key at once: a
// task whose key has a task in the worker waits in the key's line,
// holding the slot it was polled with (so a key's backlog in the worker is
// bounded by the slots, and counted as reserved), and runs right after the
// task before it, on the same goroutine. Tasks with different keys, or
// none, run in parallel. The line keeps the order in which the worker got
// the tasks: with one poller (MaxPollers 1), the order the source
// delivered them. With several, two polls answered at once have no order
// between them, unless the source orders them: its tasks are
// OrderKeepers, and it answers a poll with tasks of the keys of an
// earlier poll only once that poll's tasks are all Taken.
//
// A task whose Key or Deliveries fails (panics, or calls runtime.Goexit)
// does not run: the worker cannot know its key, and it could overtake a
// task of its key. It goes back to the source as a failed task does, with
// a Nack after Backoff, and is terminated on its MaxDeliveries-th
// delivery, so that one that always fails does not come straight back for
// ever. One whose Deliveries fails has no count to hold to MaxDeliveries:
// it goes back after Backoff(1) each time, reported, never terminated.
//
// A source keeps a key's order across retries and across workers only if
// it holds a key back while one of its tasks is out, as MemQueue does
// (PutKey): a failed task returns to the head of its key's group, and a
// slow key holds back only its own tasks, which wait in the queue, not in
// a worker's slots.
//
// # Slots and pools
//
// The worker keeps its own slots.Tracker over Config.Supplier: each task
// holds one slot from its poll until its handler returns. A handler that
// enters a pool (Pool.Run) passes the pool's door (scheduler.WithSupplier)
// too. Leave that door the default, slots.Unlimited, or give it a
// supplier of its own: were it the worker's bounded supplier, a handler
// would need a second slot of it while it holds one, and handlers holding
// them all would wait for ever.
//
// Idle pollers hold slots: a poll waiting on an empty queue holds one
// slot per task it asked for, until the source answers (MemQueue's
// PollWait, JetStream's fetch wait). A supplier shared with other workers
// is shared at that grain.
//
// # Pollers
//
// The number of pollers runs between MinPollers and MaxPollers. After
// each poll the worker updates a smoothed rate of empty polls: while it is
// low and polls come back full, a poller is added (the queue had more than
// was asked for); while it is high, one retires. More pollers overlap
// more polls, which helps when a poll's round trip is long; they cost
// nothing while they wait for a slot.
//
// A source that answers an empty poll at once, instead of waiting for a
// task (a long poll), would keep a poller spinning. So after an empty
// poll the poller pauses, holding no slot, for Config.EmptyPollBackoff of
// the empty polls in a row, less the time the poll itself waited: a long
// poll is pause enough. A poll that brings a task ends the run.
//
// # Pause and shutdown
//
// The supplier is wrapped in a slots.Pauseable (unless it is one). Pause
// pauses it, so no poller gets a slot, and cancels the polls in flight;
// a task that comes back from a poll, or whose turn comes, while the
// worker is paused is returned to the source unrun (Nack with no delay,
// or HandBack for a task that is a HandBacker, so that the return does
// not count as a delivery). Once one task of a poll has gone back so, the
// poll's tasks not yet dispatched go back too, even if the worker has
// resumed since, whether it was paused with Pause or through its
// Pauseable directly: a later task of the key must not run before the
// one handed back.
//
// A keyed task goes back through its key's line, and the tasks waiting
// behind it go back after it, one at a time, so the source gets them
// back in the order it gave them. A poll that began before a key's
// hand-back had returned may have been answered with a later task of
// the key while the one handed back was still out (a JetStream pull sent
// before the Nak arrived): the key's fence sends such a task back too,
// behind it, even if the worker has resumed since. Polls are numbered as
// they begin; when a key's line ends with a hand-back, the key is fenced
// at the latest number, and a task of the key from a poll numbered no
// higher does not run. A task so stopped as its poll is taken in goes
// back before the source may give out more of its key (see
// OrderKeeper), and leaves the fence as it stands: fenced anew, the key
// would stop that task's own redelivery when it comes to a poll that
// began meanwhile, as one waiting at the source did, and so on for ever.
//
// A paused worker therefore starts no task; the tasks running go on.
//
// Shutdown stops polling the same way, returns the tasks that have not
// started (those waiting in their key's line: a task's record leaves the
// queued state by CAS, so either its turn starts it or Shutdown returns
// it, never both), waits for the running ones to finish
// and settle, and returns when every slot is released. Close does the
// same without waiting for handlers.
//
// # Faults in your code
//
// A handler that returns an error, panics or calls runtime.Goexit fails
// its task: it is retried after Backoff, or terminated (ErrPoison,
// MaxDeliveries). A source's, a supplier's or a backoff's code that
// panics fails that call, which is reported to OnError and handled as
// its error (a failed poll, a failed settlement left to the lease, the
// default backoff). A runtime.Goexit there (t.FailNow in a test's fake)
// fails the worker: OnError is told, Stats().Err and Shutdown return an
// error wrapping ErrFailed, and the worker stops as a Shutdown stops it,
// every task not started handed back and every slot released.
// docs/faults.md lists each case.
//
// # Sources
//
// A Source polls; a Task settles itself. MemQueue is the in-process
// source: at-least-once, with leases that expire into redelivery and a
// delivery count per task. The module github.com/weftrt/weft/jetstream
// adapts a NATS JetStream pull consumer, so that several processes share
// one queue; it is a module of its own so that this one does not depend
// on nats.go. A long task keeps its lease through InProgress heartbeats
// (Config.Heartbeat, by default a third of a Leaser's lease).
//
// # Stats
//
// Stats reports the slots (in use, reserved, available), the pollers,
// poll counts and latency, what became of the tasks (started, acked,
// nacked, terminated, handed back, redelivered) and, for a source that is
// a Backlogger, the backlog per free slot: the figure to scale workers
// out on.
//
// # Memory ordering
//
// Polling a task synchronizes before its handler starts (a go statement
// starts it), and the handler's return synchronizes before its
// settlement and the release of its slot; a slot's release synchronizes
// before the reservation that takes it next (package slots).
package intake
