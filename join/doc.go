// Package join runs two functions, possibly in parallel, on a weft pool:
// the fork-join primitive that recursive divide-and-conquer code is
// written with.
//
//	func sum(w *scheduler.Worker, xs []int) int {
//		if len(xs) < 4096 {
//			return sumSeq(xs)
//		}
//		mid := len(xs) / 2
//		a, b := join.Call(w, sum, xs[:mid], xs[mid:])
//		return a + b
//	}
//
//	// From outside the pool (nil: the default pool):
//	a, b, err := join.CallOn(nil, sum, xs[:len(xs)/2], xs[len(xs)/2:])
//
// Call(w, f, x, y) computes f(w, x) and f(w, y) and returns both results;
// arguments and results travel by value in a frame the worker reuses, so
// with a top-level f it allocates nothing. Join(w, a, b) runs two
// closures; Go allocates b (and the variables it assigns) on the heap,
// since another worker may run it. Both(w, a, b) runs two closures that
// return their results, of any two types, so b assigns nothing of the
// caller's: one allocation per fork instead of two. Prefer Call in hot
// recursions. All three take the *scheduler.Worker that the pool handed
// to the current task; a goroutine outside the pool calls On, CallOn or
// BothOn, which run the join as a task of the given pool (nil means
// scheduler.Default()).
//
// # What a fork costs
//
// The second half starts private to the worker: registering it is a few
// plain stores, and if no other worker needs work by the time the first
// half returns, the worker calls the second half itself, as sequential
// code would. A few nanoseconds, against a microsecond or so for a
// goroutine and a sync.WaitGroup. Only when another worker is idle does a
// heartbeat publish the worker's oldest private half, where a thief can
// take it; the joining worker then runs other jobs (or sleeps) until the
// thief is done. docs/forks.md has the design and its measurements.
//
// A recursion that joins at every level (a tree walk over nodes of a few
// nanoseconds each) asks Plain first, and makes its two calls itself
// when Plain says the join would run them plainly, as nearly every join
// deep in the recursion does: the plain branch then costs what the
// sequential code costs, and closures written after the check are made
// only where the join may fork (see Plain, and ExamplePlain). Otherwise,
// fork where the work is worth splitting: stop forking below a grain of a
// few microseconds of work (the sequential cutoff above), where the call
// overhead would show.
//
// # Panics
//
// A panic in either half is re-raised in the joining task, as a
// *scheduler.Panic carrying the original value and stack, after both
// halves have finished (so nothing the halves borrowed is still in use);
// the first half's panic wins if both panic. Call, deep in a recursion,
// runs its halves as plain calls (see Call), and there a panic in the
// first skips the second (nothing of it had started) and leaves that
// Call unwrapped, to be wrapped by the nearest join that made a fork. Join, Both and Call panic
// with a message naming the mistake when w is nil or belongs to another
// goroutine's task (the latter checked in race-detector builds).
package join
