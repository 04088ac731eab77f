// Package scheduler is weft's pool: a fixed set of worker goroutines that
// run fork-join work, entered from outside with Run, Spawn and Broadcast.
//
// Most programs use the process-wide pool (Default, or nil in the On forms
// of the join, scope and par packages) and never import this package
// beyond *Worker. Create a pool of your own to bound its size, name it in
// profiles, admit tasks through a slot supplier, or shut it down:
//
//	p, err := scheduler.New(scheduler.WithWorkers(8), scheduler.WithName("render"))
//	if err != nil {
//		return err
//	}
//	defer p.Close()
//	err = p.Run(ctx, func(w *scheduler.Worker) {
//		a, b := join.Call(w, render, left, right) // forks run on p
//		merge(a, b)
//	})
//
// # Tasks and workers
//
// A task is a func(*Worker). The *Worker is the handle of the worker
// goroutine that runs it: pass it to join.Call, join.Join, scope.Run and
// the par functions to fork, and keep it inside the task (like a
// *testing.T, it is only valid there). A fork costs a few nanoseconds:
// it stays private to its worker until another worker is idle, and only
// then becomes work that others can steal. No goroutine is created per
// task, and an idle pool burns no CPU: its workers sleep until work
// arrives.
//
// Run runs a task and waits for it; Spawn queues a detached task;
// TrySpawn queues one only if a slot is free; Broadcast runs a task once
// on every worker. These are for goroutines outside the pool. Called from
// a task of the same pool, Run and Broadcast run on the calling worker
// instead of blocking it on itself. A task that must wait for something
// slow (I/O, a channel, another pool) wraps the wait in Worker.Block, so
// that the worker's queued work still runs meanwhile.
//
// # Admission
//
// Every task that enters from outside needs a permit from the pool's slot
// supplier (package slots; WithSupplier, by default slots.Unlimited). Run,
// Spawn and Broadcast wait for one within their context; TrySpawn returns
// ErrNoSlot if none is free. The slot is marked used when a worker starts
// the task and released when it ends: complete, failed with its *Panic,
// or never used if Shutdown dropped it. Forks inside a task are not
// admitted one by one: they belong to a task that already holds a slot.
// Stats().Slots reports slots in use, reserved, available and refused.
//
// # Panics
//
// A panic in a task reaches whoever waits for it as a *Panic carrying the
// original value and the stack where it happened: Run re-raises it in its
// caller, a join in the joining task. A detached task's panic goes to the
// pool's panic handler (WithPanicHandler), or crashes the program if there
// is none. The pool keeps working after a task panics. A task that calls
// runtime.Goexit (t.FailNow and require.* do) ends its worker goroutine,
// which nothing can prevent: its waiters get a *Panic carrying ErrGoexit
// and the pool replaces the goroutine.
//
// # Shutting down
//
// Shutdown and Close follow http.Server: refuse new work with ErrClosed,
// finish what was accepted, stop the workers and wait for their
// goroutines. A Shutdown whose context ends first drops the outside tasks
// that have not started and returns the context's error. Close and
// Shutdown panic when called from a task of the pool they stop (they
// would wait for themselves) and on the default pool.
//
// # Further reading
//
// docs/forks.md explains why a fork is cheap and how work spreads;
// docs/sleep.md and docs/latch.md specify how idle workers sleep without
// losing a wake-up; docs/faults.md lists what weft does for every fault
// and misuse. The engine behind this package (deques, frames, heartbeat,
// the worker loop) lives in internal/core.
package scheduler
