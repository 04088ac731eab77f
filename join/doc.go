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
//	a, b, err := join.CallOn(ctx, nil, sum, xs[:len(xs)/2], xs[len(xs)/2:])
//
// Call(w, f, x, y) returns f(w, x) and f(w, y); arguments and results
// travel by value in a frame the worker reuses, so with a top-level f it
// allocates nothing: prefer it in hot recursions. Join(w, a, b) runs two
// closures, and Both(w, a, b) two closures that return results of any two
// types. All three take the *scheduler.Worker of the current task; from a
// goroutine outside the pool, On, CallOn and BothOn take a context and a
// pool first and run the join as a task there.
//
// # What a fork costs
//
// The second half stays private to the worker, a few plain stores, and if
// no other worker is idle by the time the first half returns, the worker
// runs it itself, as sequential code would: a few nanoseconds, against a
// microsecond for a goroutine and a sync.WaitGroup. Only when another
// worker is idle is the oldest private half published for it to steal.
//
// A recursion that joins at every level (a tree of cheap nodes) asks
// Plain first and makes its two calls itself where the join would run
// them plainly, as nearly every join deep in a recursion does; see
// ExamplePlain. Otherwise stop forking below a few microseconds of work.
//
// # Panics
//
// A panic in either half is re-raised in the joining task, as a
// *scheduler.Panic carrying the original value and stack, after both
// halves have finished; the first half's panic wins if both panic. Join,
// Both and Call panic with a message naming the mistake when w is nil or
// belongs to another goroutine's task (the latter in race-detector
// builds). docs/forks.md has the mechanism and its measurements.
package join
