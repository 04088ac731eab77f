// Package join runs two closures, possibly in parallel, on a weft pool.
//
// Join(w, a, b) pushes b onto the current worker's deque, runs a, and
// then pops b back and runs it too, unless another worker stole it, in
// which case it runs other jobs (or sleeps) until the thief is done. The
// fork is a push and a pop on the worker's own deque plus one atomic load
// of the sleep counters: tens of nanoseconds, against a microsecond or so
// for a goroutine and a sync.WaitGroup.
//
// Call(w, f, x, y) is the same for hot recursive kernels: it computes
// f(w, x) and f(w, y) with arguments and results passed by value through
// a job record that the worker reuses (joins on one worker nest like a
// stack, so there is one record per nesting depth). With a top-level f it
// allocates nothing at all. Join's only allocations are the ones Go's
// escape analysis charges for b, which must live on the heap because a
// thief may run it.
//
// Both take the current *scheduler.Worker, which the pool hands to every
// task; from a goroutine outside the pool use On and CallOn.
//
// A panic in either half is re-raised, as a *scheduler.Panic, after both
// halves have finished; the first half's panic wins if both panic.
package join
