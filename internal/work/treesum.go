package work

import (
	"fmt"
	"sync"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// TreeSumNode is a node of the tree-sum workload: a complete binary tree
// of pointer nodes, summed by visiting every one. It is the benchmark that
// heartbeat schedulers (Spice, chili) are known for: every inner node
// forks and does almost nothing else, so it measures what a fork costs
// where the work per fork is a handful of loads. A node has two children
// or none.
type TreeSumNode struct {
	Val         int64
	Left, Right *TreeSumNode
}

// TreeSumMaxLayers is the deepest tree whose sum fits in an int64; a tree
// that deep would not fit in memory anyway.
const TreeSumMaxLayers = 31

// TreeSumGoroutineDepth is how deep the goroutine form forks: 1023 forks,
// enough subtrees to keep a large machine busy, and few enough that the
// goroutines cost little next to the sums below them. A goroutine per
// node would cost hundreds of times what the node does.
const TreeSumGoroutineDepth = 10

// NewTreeSum builds the complete binary tree of the given number of
// layers (2^layers - 1 nodes). A node's value is its position in
// breadth-first order, 1 at the root, so the sum is known in closed form
// (TreeSumWant) and a subtree counted twice or not at all changes it.
//
// The nodes live in one slice, in depth-first order, as Spice's benchmark
// builds its tree in an arena: one allocation instead of millions keeps
// building a 24-layer tree under a second, and a walk meets the nodes in
// the order they lie in memory, as it would after a recursive build.
func NewTreeSum(layers int) *TreeSumNode {
	if layers < 1 || layers > TreeSumMaxLayers {
		panic(fmt.Sprintf("weft/bench: a tree-sum tree has 1 to %d layers, not %d", TreeSumMaxLayers, layers))
	}
	nodes := make([]TreeSumNode, TreeSumNodes(layers))
	next := 0
	var build func(pos int64, layers int) *TreeSumNode
	build = func(pos int64, layers int) *TreeSumNode {
		n := &nodes[next]
		next++
		n.Val = pos
		if layers > 1 {
			n.Left = build(2*pos, layers-1)
			n.Right = build(2*pos+1, layers-1)
		}
		return n
	}
	return build(1, layers)
}

// TreeSumNodes returns the number of nodes of a tree of the given number
// of layers.
func TreeSumNodes(layers int) int { return 1<<layers - 1 }

// TreeSumWant returns the sum of NewTreeSum(layers): 1 + 2 + ... + nodes.
func TreeSumWant(layers int) int64 {
	n := int64(TreeSumNodes(layers))
	return n * (n + 1) / 2
}

// TreeSumSeq is the sequential baseline.
func TreeSumSeq(n *TreeSumNode) int64 {
	if n.Left == nil {
		return n.Val
	}
	return n.Val + TreeSumSeq(n.Left) + TreeSumSeq(n.Right)
}

// TreeSumValues forks with join.Call at every inner node, allocating
// nothing.
func TreeSumValues(w *scheduler.Worker, n *TreeSumNode) int64 {
	if n.Left == nil {
		return n.Val
	}
	a, b := join.Call(w, TreeSumValues, n.Left, n.Right)
	return n.Val + a + b
}

// TreeSumPlain is TreeSumValues behind join.Plain, the form
// docs/forks.md recommends for a hot recursion.
func TreeSumPlain(w *scheduler.Worker, n *TreeSumNode) int64 {
	if n.Left == nil {
		return n.Val
	}
	if join.Plain(w) {
		return n.Val + TreeSumPlain(w, n.Left) + TreeSumPlain(w, n.Right)
	}
	a, b := join.Call(w, TreeSumPlain, n.Left, n.Right)
	return n.Val + a + b
}

// TreeSumJoin forks with join.Join (closures) at every inner node.
func TreeSumJoin(w *scheduler.Worker, n *TreeSumNode) int64 {
	if n.Left == nil {
		return n.Val
	}
	var a, b int64
	join.Join(w,
		func(w *scheduler.Worker) { a = TreeSumJoin(w, n.Left) },
		func(w *scheduler.Worker) { b = TreeSumJoin(w, n.Right) })
	return n.Val + a + b
}

// TreeSumBoth forks with join.Both at every inner node.
func TreeSumBoth(w *scheduler.Worker, n *TreeSumNode) int64 {
	if n.Left == nil {
		return n.Val
	}
	a, b := join.Both(w,
		func(w *scheduler.Worker) int64 { return TreeSumBoth(w, n.Left) },
		func(w *scheduler.Worker) int64 { return TreeSumBoth(w, n.Right) })
	return n.Val + a + b
}

// TreeSumGoroutines forks with a goroutine and a sync.WaitGroup at the
// inner nodes less than depth layers below n, and sums the subtrees below
// them sequentially.
func TreeSumGoroutines(n *TreeSumNode, depth int) int64 {
	if n.Left == nil || depth <= 0 {
		return TreeSumSeq(n)
	}
	var a int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a = TreeSumGoroutines(n.Left, depth-1)
	}()
	b := TreeSumGoroutines(n.Right, depth-1)
	wg.Wait()
	return n.Val + a + b
}

// TreeSumFork forks through f at the inner nodes less than depth layers
// below n, and sums the subtrees below them sequentially; a depth of at
// least the tree's layers forks at every inner node.
func TreeSumFork(f Forker, n *TreeSumNode, depth int) int64 {
	if n.Left == nil || depth <= 0 {
		return TreeSumSeq(n)
	}
	var a, b int64
	f.Fork(
		func(f Forker) { a = TreeSumFork(f, n.Left, depth-1) },
		func(f Forker) { b = TreeSumFork(f, n.Right, depth-1) })
	return n.Val + a + b
}
