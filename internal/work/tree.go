package work

import (
	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// Tree is a subtree of an implicit, unbalanced binary tree: the irregular
// workload, where a static split of the work would leave cores idle and
// only stealing (or luck) balances it. A node splits the nodes below it
// between its two children at a random, skewed fraction, so the tree is a
// set of long spines with small subtrees hanging off them; one node in 64
// is hot and costs 64 times as much as the others. Nothing is stored: a
// node is its seed and its size, and every walk of a tree visits the same
// nodes in some order and returns the same sum.
type Tree struct {
	seed  uint64
	nodes int // in this subtree, this node included; 0 for an empty one
	grain int // subtrees of at most grain nodes are walked sequentially
}

// The cost of visiting a node, in rounds of mix64: hot nodes make the
// cost of equal-sized subtrees unequal too.
const (
	treeRounds    = 8
	treeHotRounds = 64 * treeRounds
	treeHotMask   = 63 // a node is hot when these bits of its seed are 0
)

// NewTree returns the root of a tree of the given number of nodes whose
// parallel walks fork down to subtrees of grain nodes.
func NewTree(nodes, grain int) Tree {
	return Tree{seed: 0x9e3779b97f4a7c15, nodes: nodes, grain: max(grain, 1)}
}

// TreeSeq walks t sequentially and returns the sum of its nodes' values.
func TreeSeq(t Tree) uint64 {
	if t.nodes == 0 {
		return 0
	}
	l, r := t.children()
	return t.visit() + TreeSeq(l) + TreeSeq(r)
}

// TreeFork walks t forking through f above t's grain.
func TreeFork(f Forker, t Tree) uint64 {
	if t.nodes <= t.grain {
		return TreeSeq(t)
	}
	l, r := t.children()
	var a, b uint64
	f.Fork(
		func(f Forker) { a = TreeFork(f, l) },
		func(f Forker) { b = TreeFork(f, r) })
	return t.visit() + a + b
}

// TreeValues walks t forking with join.Call above t's grain, allocating
// nothing.
func TreeValues(w *scheduler.Worker, t Tree) uint64 {
	if t.nodes <= t.grain {
		return TreeSeq(t)
	}
	l, r := t.children()
	a, b := join.Call(w, TreeValues, l, r)
	return t.visit() + a + b
}

// children splits the nodes below t: the smaller child gets a share u³ of
// them for u uniform in [0, 1), so most forks are lopsided, and a seed
// bit picks which side is the small one.
func (t Tree) children() (l, r Tree) {
	rest := t.nodes - 1
	u := float64(t.seed>>11) / (1 << 53)
	small := int(float64(rest) * u * u * u)
	l = Tree{mix64(t.seed ^ 1), small, t.grain}
	r = Tree{mix64(t.seed ^ 2), rest - small, t.grain}
	if t.seed&(1<<7) != 0 {
		l.nodes, r.nodes = r.nodes, l.nodes
	}
	return l, r
}

// visit is a node's work and value.
func (t Tree) visit() uint64 {
	rounds := treeRounds
	if t.seed&treeHotMask == 0 {
		rounds = treeHotRounds
	}
	h := t.seed
	for range rounds {
		h = mix64(h)
	}
	return h
}

// mix64 is SplitMix64's finalizer: a cheap, well-spread 64-bit hash.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
