// Package scheduler is weft's pool: a fixed set of worker goroutines that
// run fork-join work, each stealing from the others when it runs out.
//
// Most programs use the process-wide pool (Default, or nil wherever a
// function takes a pool) and meet this package only as *Worker. Create a
// pool of your own to bound its size, name it in profiles, admit tasks
// through a slot supplier, or shut it down:
//
//	p, err := scheduler.New(scheduler.WithWorkers(8), scheduler.WithName("render"))
//	if err != nil {
//		return err
//	}
//	defer p.Close()
//	err = p.Run(ctx, func(w *scheduler.Worker) error {
//		a, b := join.Call(w, render, left, right) // forks run on p
//		return merge(a, b)
//	})
//
// # Entering the pool
//
// Every way in from outside takes a context first and then the pool: Run
// (wait for a task and return its error), RunValue (its result too),
// Spawn and TrySpawn (a detached task), Broadcast (once on every worker),
// and the On forms of join, scope and par. A nil context panics; one that
// ends before the task starts keeps it from running, and the call returns
// context.Cause(ctx). Called from a task of the same pool, Run and
// Broadcast run on the calling worker instead of waiting for themselves.
//
// A task gets the *Worker that runs it: pass it to join, scope and par to
// fork, and keep it inside the task (like a *testing.T). A fork stays
// private to its worker, costing a few nanoseconds, until another worker
// is idle. An idle pool burns no CPU. A task that waits for something slow
// (I/O, a channel, another pool) wraps the wait in Worker.Block, so that
// its worker's queued work still runs meanwhile.
//
// # Admission
//
// A task from outside needs a permit of the pool's slot supplier
// (WithSupplier; by default unlimited): Run, Spawn and Broadcast wait for
// one within their context, TrySpawn returns ErrNoSlot. Forks inside a
// task need none. Stats().Slots reports the supplier's figures.
//
// # Panics and shutting down
//
// A panic in a task reaches whoever waits for it as a *Panic with the
// original value and stack: Run re-raises it, a join re-raises it in the
// joining task; a detached task's goes to WithPanicHandler, or crashes
// the program. A task that calls runtime.Goexit (t.FailNow does) ends its
// worker goroutine, which the pool replaces; its waiters get a *Panic
// carrying ErrGoexit.
//
// Shutdown and Close follow http.Server: refuse new work with ErrClosed,
// finish what was accepted, and wait for the workers' goroutines. Both
// panic on the default pool and from a task of the pool they stop.
//
// docs/architecture.md follows one Run through the packages; docs/forks.md,
// docs/sleep.md and docs/faults.md hold the mechanism and every fault.
package scheduler
