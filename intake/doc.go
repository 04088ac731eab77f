// Package intake is weft's task worker: it takes tasks from a queue (a
// Source), within the slots a supplier grants (package slots), runs each
// on a goroutine of its own and settles it with the queue: ack, retry, or
// terminate. At least once: a task whose worker dies is delivered again.
//
// The slots are the concurrency: with slots.NewFixed(16), up to 16
// handlers run at once, whatever the number of CPUs, as with an errgroup
// limit of 16 or Temporal's activity slots. A handler that waits (an HTTP
// call, a database, a sleep) holds its slot and nothing else. A handler's
// CPU work forks on a weft pool, which it enters with Pool.Run, join.On,
// scope.On or the par On forms: the handlers share the pool's workers,
// which steal each other's forks.
//
//	q := intake.NewMemQueue(intake.MemQueueConfig{}) // or a JetStream source
//	w, err := intake.New(intake.Config{
//		Source:   q,
//		Supplier: slots.NewFixed(16), // at most 16 tasks polled or running
//		Handler: func(ctx context.Context, t intake.Task) error {
//			return process(ctx, t.Payload()) // nil: ack; error: retry later
//		},
//	})
//	...
//	q.Put(payload)
//	...
//	err = w.Shutdown(ctx) // stops polling, waits for the running tasks
//
// A handler's error returns the task for a retry after Config.Backoff;
// Poison(err), or a task's Config.MaxDeliveries-th failure, terminates it.
// A panic or runtime.Goexit in a handler fails its task. A source's, a
// supplier's or a backoff's code that panics fails that one call, which
// OnError hears of; a runtime.Goexit there (t.FailNow in a test's fake)
// stops the worker with an error wrapping ErrFailed, every task not
// started handed back and every slot released.
//
// A task may carry a key (Keyed: a customer, a document): the worker never
// runs two tasks of a key at once, and runs them in the order it got them.
// MemQueue.PutKey gives a task a key, and holds the key back at the source
// while one of its tasks is out.
//
// Pause stops taking work (the running tasks go on; the tasks polled and
// not started go back to the source unrun), and Resume takes it up again.
// Shutdown returns the unstarted tasks and waits for the running ones;
// Close does not wait for handlers. Stats reports the slots, the polls,
// what became of the tasks, and for a Backlogger source the backlog per
// free slot, the figure to scale workers out on.
//
// MemQueue is the in-process source. The module
// github.com/weftrt/weft/jetstream adapts a NATS JetStream consumer, so
// that processes on many machines share one queue; it is a module of its
// own so that this one does not depend on nats.go.
//
// docs/intake.md describes how the worker works: the reserve-before-poll
// protocol, the pollers, keys and their fences, pause and shutdown, the
// fault policy and the memory-ordering argument.
package intake
