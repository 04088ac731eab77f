// Package scheduler is weft's pool: a fixed set of worker goroutines, each
// owning a Chase-Lev deque (package deque), that run fork-join work.
//
// # Workers
//
// A worker looks for work in this order: its own deque (newest first),
// its mailbox (jobs addressed to it by Broadcast), the other workers'
// deques (oldest first, starting at a random victim and sweeping
// round-robin while steals lose races), and the injector, where jobs from
// outside the pool wait. With nothing found it moves toward sleep through
// the sleep package: a few rounds of searching, then an announcement that
// it is sleepy, one more search, then a block on its own condition
// variable. An idle pool burns no CPU. No goroutine is created per task.
//
// # Forks
//
// A fork (the second half of a join) starts private to its worker: the
// worker records it in its frame stack with plain stores, and if nobody
// needs work by the time the first half returns, the worker calls the
// second half itself. Nothing another goroutine can see is touched, which
// is why a join costs a few nanoseconds. Every so many forks (an adaptive
// count, so about every few microseconds whatever the grain) a worker
// checks its heartbeat: if another worker is searching for work, or is
// asleep and a heartbeat interval (WithHeartbeat) has passed since this
// worker last published, it publishes its oldest private fork by pushing
// it on its deque, where thieves find it and the sleep protocol wakes a
// sleeper if one is needed. A worker that must wait publishes all of its
// private forks first. docs/forks.md explains the design and why it
// cannot lose or duplicate a fork; docs/models/forks.pml checks it.
//
// Every wait in the pool is a wait on a latch (package latch): a worker
// waiting for a stolen job runs other jobs until the job's latch is set,
// sleeps through the latch protocol when there are none, and is woken by
// the latch's Set, which wakes exactly that worker. A worker's outermost
// wait is on its terminate latch.
//
// # Entering the pool
//
// Run runs a function on a worker and blocks the calling goroutine (on a
// condition variable; it does not spin) until it returns; Spawn queues a
// detached task; Broadcast runs a function once on every worker. These
// are for goroutines outside the pool. Inside, tasks receive the *Worker
// that runs them and fork through the join and scope packages, which use
// the low-level job API here (Job, Runner, Fork, Worker.Push, Pop,
// WaitUntil, EnterFrame, Fork, Reclaim, Unfork).
//
// # Admission
//
// Every task that enters from outside passes the pool's door: it needs a
// permit from the pool's slot supplier (package slots; WithSupplier, by
// default slots.Unlimited). Run, Spawn and Broadcast reserve one, waiting
// within their context; TrySpawn takes one only if it is free and returns
// ErrNoSlot otherwise. A worker marks the slot used when it starts the
// task and releases it when the task ends, as complete or, if the task
// panicked, as failed with the *Panic; a task dropped by Shutdown releases
// its slot as never used. Forks inside the pool (joins, scope spawns) are
// not admitted one by one: they are part of a task that already holds a
// slot, and a permit per fork would cost more than the fork. Stats().Slots
// reports slots in use, reserved, available and refused.
//
// # Panics
//
// A panic in a task reaches whoever waits for it as a *Panic carrying the
// original value and the stack where it happened: Run re-raises it in its
// caller, a join in the joining task. A detached task's panic goes to the
// pool's panic handler, or crashes the program if there is none. The pool
// keeps working after a task panics. A task that calls runtime.Goexit
// (t.FailNow does) ends its worker goroutine, which no deferred function
// can prevent: the pool releases every job on the way out, whose waiters
// get a *Panic carrying ErrGoexit, and replaces the goroutine.
//
// # Misuse
//
// Run, Broadcast, join.On and scope.On called from a task of the same
// pool run on the calling worker instead of blocking it on itself; Close
// and Shutdown called from one panic. A task that must wait for a long
// time wraps the wait in Worker.Block, which lets a stand-in goroutine run
// the worker's queue meanwhile. docs/faults.md lists what weft does for
// every fault and misuse.
//
// # Shutting down
//
// Shutdown and Close follow http.Server: refuse new work with ErrClosed,
// finish what was accepted, stop the workers and wait for their
// goroutines. A Shutdown whose context ends first drops the outside tasks
// that have not started and returns the context's error.
//
// docs/sleep.md and docs/latch.md specify the sleep and latch protocols;
// docs/models holds their spin models.
package scheduler
