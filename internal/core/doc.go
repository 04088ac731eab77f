// Package core is the engine behind scheduler.Pool: the worker loop, each
// worker's Chase-Lev deque and frame stack, private forks and the
// heartbeat that publishes them, and the job API that the join and scope
// packages build on. It is internal so that none of this plumbing is part
// of weft's public API: users see scheduler.Pool and scheduler.Worker,
// which is defined as core.Worker so that join and scope convert one to
// the other for free.
//
// # Workers
//
// A worker looks for work in this order: its own deque (newest first),
// its mailbox (jobs addressed to it by Broadcast), the other workers'
// deques (oldest first, starting at a random victim; a spin round samples
// at most sampleVictims of them, the last search before sleeping sweeps
// all), and the injector, where jobs from outside the pool wait. With
// nothing found it moves toward sleep through the sleep package: a few
// rounds of searching, then an announcement that it is sleepy, one more
// search, then a block on its own condition variable.
//
// # Forks
//
// A fork (the second half of a join) starts private to its worker: the
// worker records it in its frame stack with plain stores (EnterFrame,
// Fork), and if nobody needs work by the time the first half returns,
// Reclaim says "run it yourself". Nothing another goroutine can see is
// touched, which is why a join costs a few nanoseconds. Every so many
// forks (an adaptive count, so about every few hundred nanoseconds
// whatever the grain) a worker checks its heartbeat: if another worker is
// searching for work, or is asleep and a heartbeat interval has passed
// since this worker last published, it publishes its oldest private fork
// by pushing it on its deque, where thieves find it and the sleep
// protocol wakes a sleeper if one is needed. A worker that must wait
// (WaitUntil, Block) publishes all of its private forks first.
// docs/forks.md explains the design and why it cannot lose or duplicate a
// fork; docs/models/forks.pml checks it with spin.
//
// Every wait is a wait on a latch (package latch): a worker waiting for a
// stolen job runs other jobs until the job's latch is set, sleeps through
// the latch protocol when there are none, and is woken by the latch's
// Set, which wakes exactly that worker. A worker's outermost wait is on
// its terminate latch.
//
// # Job boundaries and panics
//
// Every job that someone waits for ends through RunThen, whose deferred
// function releases the waiter even when the job calls runtime.Goexit;
// the worker goroutine is then replaced (Worker.main). Panics travel as
// *Panic values (Catch, CatchWorker, Recovered, Repanic), which scheduler
// re-exports as scheduler.Panic.
//
// # Goroutine identity
//
// IsCurrent and Pool.Current compare the calling goroutine's identity
// (the runtime's g pointer, read in assembly on amd64 and arm64) with the
// one each worker records; that is how misuse (a *Worker used outside its
// task, Close from a task) is caught cheaply.
package core
