package join_test

import (
	"context"
	"fmt"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

type treeNode struct {
	val         int
	left, right *treeNode
}

func build(pos, layers int) *treeNode {
	if layers == 0 {
		return nil
	}
	return &treeNode{pos, build(2*pos, layers-1), build(2*pos+1, layers-1)}
}

// treeSum forks at every node, as a recursion over a tree is written. Plain
// says when the join would run as two plain calls (nearly always, deep in
// the tree); treeSum then makes them itself, at the cost of the sequential
// code, and joins only where the pool may want a fork.
func treeSum(w *scheduler.Worker, n *treeNode) int {
	if n == nil {
		return 0
	}
	if join.Plain(w) {
		return n.val + treeSum(w, n.left) + treeSum(w, n.right)
	}
	l, r := join.Call(w, treeSum, n.left, n.right)
	return n.val + l + r
}

// A recursion that joins at every level asks Plain first.
func ExamplePlain() {
	root := build(1, 20) // a million nodes, numbered 1, 2, ... breadth first
	p, _ := scheduler.New()
	defer p.Close()
	var total int
	_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
		total = treeSum(w, root)
		return nil
	})
	fmt.Println(total)
	// Output: 549755289600
}
