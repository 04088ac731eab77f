// Package scope runs any number of tasks on a weft pool and waits for all
// of them: fork-join for work whose shape is not two halves (a tree with
// many children, a list of independent jobs, tasks that spawn tasks).
//
//	func visit(w *scheduler.Worker, n *Node) {
//		scope.Run(w, func(s *scope.Scope) {
//			for _, c := range n.Children {
//				s.Spawn(func(s *scope.Scope) { visit(s.Worker(), c) })
//			}
//			process(n)
//		})
//	}
//
// Run(w, body) calls body with a *Scope; body and the tasks it spawns
// (s.Spawn) may spawn more, and may borrow variables of the enclosing
// function, since Run returns only when every one of them has. Spawned
// tasks go onto the current worker's deque, so idle workers steal them;
// the waiting worker runs tasks itself while it waits. A counting latch
// (package latch) tracks the outstanding tasks and wakes the waiting
// worker when the last one finishes.
//
// Group(ctx, w, body) is the error-returning form with the semantics of
// golang.org/x/sync/errgroup: tasks started with s.Go return errors, the
// first error cancels s.Context() so that the others can stop early, and
// Group returns that first error after every task has returned. Unlike
// errgroup it runs on a fixed pool with work stealing, and unlike a
// work-stealing pool without it, it stops early on the first failure.
//
// A cancelled ctx is reported by its cause (context.Cause), as par's
// loops report it: GroupOn, whose body has not started when ctx is
// already done or ends while it waits for a slot or a worker, returns
// the cause (not ctx.Err()); inside a group, s.Context()'s cause is the
// parent's cause, the first error, or the first panic. Group itself, like
// errgroup, still runs body under a done ctx and returns what body and
// its tasks return.
//
// A panic in the body or in a task is re-raised, as a *scheduler.Panic,
// after every task has finished; the first panic wins.
//
// Each task receives its own *Scope, bound to the worker that runs it.
// Spawn with the handle your function received, not one captured from an
// enclosing function: a handle names the worker whose deque it pushes to.
package scope
