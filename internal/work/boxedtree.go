package work

import (
	"fmt"
	"sync"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// BoxedNode is a node of the boxed tree: the tree a Go user builds, each
// node its own allocation, linked by pointers, with nil for a missing
// child. The boxed-tree forms below are written as a Go user writes a
// recursion over it: check for nil first, then fork for both children,
// so a leaf's join forks its two nil children. The arena tree
// (NewTreeSum) lays its nodes out in one slice and stops at leaves
// without a join; this one pays the allocator's layout and twice the
// joins.
type BoxedNode struct {
	Val         int64
	Left, Right *BoxedNode
}

// NewBoxedTree builds the complete binary tree of the given number of
// layers, node by node, each with its own &BoxedNode{}. Values are
// breadth-first positions, as in NewTreeSum, so the sum is TreeSumWant.
func NewBoxedTree(layers int) *BoxedNode {
	if layers < 1 || layers > TreeSumMaxLayers {
		panic(fmt.Sprintf("weft/bench: a boxed tree has 1 to %d layers, not %d", TreeSumMaxLayers, layers))
	}
	return newBoxed(1, layers)
}

func newBoxed(pos int64, layers int) *BoxedNode {
	if layers == 0 {
		return nil
	}
	return &BoxedNode{Val: pos, Left: newBoxed(2*pos, layers-1), Right: newBoxed(2*pos+1, layers-1)}
}

// BoxedSumSeq is the sequential baseline, nil first.
func BoxedSumSeq(n *BoxedNode) int64 {
	if n == nil {
		return 0
	}
	return n.Val + BoxedSumSeq(n.Left) + BoxedSumSeq(n.Right)
}

// BoxedSumCall forks with join.Call at every node, as a user who read
// only Call's doc writes it.
func BoxedSumCall(w *scheduler.Worker, n *BoxedNode) int64 {
	if n == nil {
		return 0
	}
	l, r := join.Call(w, BoxedSumCall, n.Left, n.Right)
	return n.Val + l + r
}

// BoxedSumJoin forks with join.Join (closures) at every node.
func BoxedSumJoin(w *scheduler.Worker, n *BoxedNode) int64 {
	if n == nil {
		return 0
	}
	var l, r int64
	join.Join(w,
		func(w *scheduler.Worker) { l = BoxedSumJoin(w, n.Left) },
		func(w *scheduler.Worker) { r = BoxedSumJoin(w, n.Right) })
	return n.Val + l + r
}

// BoxedSumFork forks through f at the nodes less than depth levels below
// n, and sums the subtrees below them sequentially.
func BoxedSumFork(f Forker, n *BoxedNode, depth int) int64 {
	if n == nil {
		return 0
	}
	if depth <= 0 {
		return BoxedSumSeq(n)
	}
	var l, r int64
	f.Fork(
		func(f Forker) { l = BoxedSumFork(f, n.Left, depth-1) },
		func(f Forker) { r = BoxedSumFork(f, n.Right, depth-1) })
	return n.Val + l + r
}

// BoxedSumGoroutines forks with a goroutine and a sync.WaitGroup down to
// depth levels below n, then sums sequentially: what a Go user writes
// without weft.
func BoxedSumGoroutines(n *BoxedNode, depth int) int64 {
	if n == nil {
		return 0
	}
	if depth <= 0 {
		return BoxedSumSeq(n)
	}
	var l int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		l = BoxedSumGoroutines(n.Left, depth-1)
	}()
	r := BoxedSumGoroutines(n.Right, depth-1)
	wg.Wait()
	return n.Val + l + r
}

// BoxedSum is the form docs/forks.md recommends for a hot recursion:
// join.Plain first, the user's own two calls when it reports true, and a
// join.Call only when the worker may want a fork.
func BoxedSum(w *scheduler.Worker, n *BoxedNode) int64 {
	if n == nil {
		return 0
	}
	if join.Plain(w) {
		return n.Val + BoxedSum(w, n.Left) + BoxedSum(w, n.Right)
	}
	l, r := join.Call(w, BoxedSum, n.Left, n.Right)
	return n.Val + l + r
}

// BoxedSumPlainJoin is BoxedSumJoin behind join.Plain: its closures, and
// the variables they assign, are made only when the join may fork.
func BoxedSumPlainJoin(w *scheduler.Worker, n *BoxedNode) int64 {
	if n == nil {
		return 0
	}
	if join.Plain(w) {
		return n.Val + BoxedSumPlainJoin(w, n.Left) + BoxedSumPlainJoin(w, n.Right)
	}
	var l, r int64
	join.Join(w,
		func(w *scheduler.Worker) { l = BoxedSumPlainJoin(w, n.Left) },
		func(w *scheduler.Worker) { r = BoxedSumPlainJoin(w, n.Right) })
	return n.Val + l + r
}
