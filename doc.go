// Package weft is a work-stealing thread pool for fork-join work in Go:
// the runtime to reach for when goroutines plus sync.WaitGroup cost more
// than the work they split. A fork costs a few nanoseconds instead of the
// microsecond a goroutine costs, an idle pool burns no CPU, and a panic in
// a task reaches whoever waits for it.
//
// This package holds no code; the API lives in its subpackages:
//
//   - [github.com/weftrt/weft/par]: parallel loops, what most programs
//     need: For, ForEach, Map, Reduce, Filter over ranges, slices and
//     iter.Seq, with error and context forms.
//   - [github.com/weftrt/weft/join]: run two functions, possibly in
//     parallel. join.Call is the zero-allocation form for hot recursions;
//     join.On and join.CallOn enter the pool from outside.
//   - [github.com/weftrt/weft/scope]: spawn any number of tasks that may
//     borrow from the enclosing function, and wait for all of them;
//     scope.Group adds errgroup's errors and cancellation.
//   - [github.com/weftrt/weft/scheduler]: the pool itself: New, Default,
//     Run, Spawn, Broadcast, Shutdown, Worker.Block for tasks that wait,
//     and admission through a slot supplier.
//   - [github.com/weftrt/weft/slots]: slot suppliers that bound what
//     enters a pool: fixed, resource-based (CPU and memory targets),
//     pauseable.
//   - [github.com/weftrt/weft/intake]: a task worker that polls a task
//     source (in-process, or NATS JetStream in the nested module
//     github.com/weftrt/weft/jetstream) only when it has a free slot, and
//     runs each task on the pool.
//
// A task receives the *scheduler.Worker that runs it, the way t.Run hands
// down a *testing.T: Go has no goroutine-local storage, so that handle is
// how a task forks. Keep it inside its task.
//
//	func fib(w *scheduler.Worker, n int) int {
//		if n < 20 {
//			return fibSeq(n)
//		}
//		a, b := join.Call(w, fib, n-1, n-2)
//		return a + b
//	}
//
//	x, y, err := join.CallOn(context.Background(), nil, fib, 30, 31) // nil: the default pool
//
// The design and its protocols are documented in the repository's docs/
// directory: forks.md (why a fork is cheap), sleep.md and latch.md (how
// idle workers sleep without losing a wake-up), faults.md (what happens on
// every fault and misuse), benchmarks.md (the harness) and figures.md (its
// recorded runs); architecture.md shows how the packages fit together.
package weft
