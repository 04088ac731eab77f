// Package latch provides the one-shot signals that weft's waiting is built
// on: a worker that forks a job waits on a latch until the job is done.
//
// It is for people who build a scheduler on weft's parts, and for weft's
// own engine; programs that fork and join never meet a latch (join,
// scope and par wait on them inside).
//
// # The core latch
//
// Core has four states. Its owner (the one worker that may wait on it)
// moves it Unset -> Sleepy -> Sleeping on the way into its condition
// variable and back to Unset on waking; any goroutine moves it to Set with
// a single swap. The protocol:
//
//	owner                                  setter
//	-----                                  ------
//	CAS Unset->Sleepy   (fails: set)       old := Swap(Set)
//	lock own sleep mutex                   if old == Sleeping:
//	CAS Sleepy->Sleeping (fails: set)          lock owner's sleep mutex
//	blocked = true; wait on condvar            if blocked: blocked = false
//	CAS Sleeping->Unset (fails: set)           unlock; signal if it was blocked
//	unlock
//
// No wakeup is lost: the owner reaches Sleeping only while holding its
// mutex and releases the mutex only inside the condvar wait, so a setter
// that saw Sleeping and then got the mutex finds the owner either blocked
// (and signals it) or already awake (blocked is false). A setter that saw
// Unset or Sleepy wakes nobody, and the owner's next CAS fails, so the
// owner notices the latch without sleeping. docs/latch.md is the full
// specification and docs/models/latch.pml the model checked by spin,
// together with mutants (setter without the mutex, Sleeping before the
// lock) that spin rejects.
//
// # Memory ordering
//
// All state changes use sync/atomic, which is sequentially consistent.
// Per type, in the words of the Go memory model:
//
//   - Core: a Set synchronizes before every Probe that returns true.
//   - Owned: everything a goroutine does before Set happens before the
//     owner's Probe that sees the latch set.
//   - Count: every Done synchronizes before the Done that brings the count
//     to zero, which sets the target; so all counted tasks' writes happen
//     before the waiter returns.
//   - Blocking: Set synchronizes before every Wait or Probe that observes
//     it (they share a mutex).
//
// # A latch may vanish the moment it is set
//
// The owner stops waiting as soon as it sees Set, and may reuse the latch
// (weft pools its job records). A setter therefore reads everything it
// needs, such as the owner's index, before the swap, and touches nothing of
// the latch's after it.
//
// latch imports nothing of weft's: where a set must wake a sleeping worker
// it calls the Waker interface, which the sleep package implements.
package latch
