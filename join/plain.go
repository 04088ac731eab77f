//go:build !race

package join

import "github.com/weftrt/weft/scheduler"

// Plain reports whether a join at this point of w's recursion would run
// its two halves as plain calls, one after the other. A hot recursion
// asks it first and, when it says so, makes the two calls itself:
//
//	func sum(w *scheduler.Worker, n *node) int64 {
//		if n == nil {
//			return 0
//		}
//		if join.Plain(w) {
//			return n.val + sum(w, n.left) + sum(w, n.right)
//		}
//		l, r := join.Call(w, sum, n.left, n.right)
//		return n.val + l + r
//	}
//
// Nearly every join of a deep recursion is plain: a worker keeps forks
// only for the outermost joins that no thief has taken yet (see Call).
// Plain is small enough for Go to inline, so the plain branch costs what
// the sequential code costs, plus a few loads and a store; the join that
// follows it costs a call of Call or Join on top. Closures written after
// the check (for Join or Both) are made only when the join may fork, so
// such a recursion allocates nothing on its plain path either.
//
// Each call of Plain counts toward the worker's next heartbeat, as a join
// does: when one is due, Plain reports false, and the join that follows
// makes the fork that the heartbeat may hand to an idle worker. So when
// Plain reports false, join (Call, Join, Both or a scope): do not run the
// halves plainly then, or no idle worker is ever fed from below this
// point. As with Call's own plain path, the two halves must not wait for
// each other.
//
// Plain reports false for a nil w, so that the join after it names the
// mistake; in race-detector builds it panics if w is not the calling
// goroutine's (see plain_race.go).
func Plain(w *scheduler.Worker) bool {
	return w != nil && engine(w).Direct()
}
