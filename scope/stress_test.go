package scope_test

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
)

// node is a random tree of joins and spawns; count is its size.
type node struct {
	join     bool // children run through join.Join (exactly 2) or scope spawns
	children []*node
}

func randomTree(r *rand.Rand, depth int) *node {
	n := &node{join: r.IntN(2) == 0}
	if depth <= 0 {
		return n
	}
	k := 2
	if !n.join {
		k = r.IntN(5)
	}
	for range k {
		n.children = append(n.children, randomTree(r, depth-1-r.IntN(2)))
	}
	return n
}

func (n *node) size() int64 {
	s := int64(1)
	for _, c := range n.children {
		s += c.size()
	}
	return s
}

// visit runs the tree on the pool and counts each node once.
func (n *node) visit(w *scheduler.Worker, seen *atomic.Int64) {
	seen.Add(1)
	switch {
	case len(n.children) == 0:
	case n.join:
		join.Join(w,
			func(w *scheduler.Worker) { n.children[0].visit(w, seen) },
			func(w *scheduler.Worker) { n.children[1].visit(w, seen) })
	default:
		scope.Run(w, func(s *scope.Scope) {
			for _, c := range n.children {
				s.Spawn(func(s *scope.Scope) { c.visit(s.Worker(), seen) })
			}
		})
	}
}

// TestStressRandomTrees runs random trees of nested joins and spawns and
// checks that every node ran exactly once.
func TestStressRandomTrees(t *testing.T) {
	trees, depth := 200, 10
	if testing.Short() {
		trees, depth = 40, 8
	}
	r := rand.New(rand.NewPCG(1, 2))
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		for range trees {
			tree := randomTree(r, depth)
			var seen atomic.Int64
			tree.visit(w, &seen)
			assert.Equal(t, tree.size(), seen.Load())
		}
	})
}
