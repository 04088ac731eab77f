package suite

import (
	"fmt"
	"sync"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/internal/work"
	"github.com/weftrt/weft/scheduler"
)

// treeSum is the benchmark heartbeat schedulers (Spice, chili) are known
// for: a complete binary tree of pointer nodes summed with a fork at every
// inner node, so that a fork has a few loads of work to pay for itself.
// Its own suite, so that it can be run alone and quoted beside theirs.
var treeSum = Suite{
	Name:      "tree-sum",
	BenchName: "TreeSum",
	Doc:       "Spice's benchmark: sum a complete binary tree, forking at every inner node; wall time per node",
	workloads: func(s Sizes) []*workload {
		return []*workload{
			perNode(treeSumKernel(s.TreeSum).workload("complete",
				fmt.Sprintf("complete binary tree of %d layers (%d nodes) summed; weft forks at every inner node, alternatives in the top %d layers",
					s.TreeSum, work.TreeSumNodes(s.TreeSum), work.TreeSumGoroutineDepth)),
				work.TreeSumNodes(s.TreeSum)),
			perNode(boxedKernel(s.TreeSum).workload("boxed",
				fmt.Sprintf("the same tree as a Go user builds it, node by node, summed nil first with a fork at every node; alternatives in the top %d layers",
					work.TreeSumGoroutineDepth)),
				work.TreeSumNodes(s.TreeSum)),
		}
	},
}

// treeSumKernel builds its tree on first use, so that planning a run
// allocates nothing, and keeps it for the run: a 20-layer tree is 24 MB.
// The alternatives fork the top layers only, as a goroutine per node
// costs hundreds of times the node and would only measure the Go
// runtime's goroutine start.
func treeSumKernel(layers int) *kernel {
	root := sync.OnceValue(func() *work.TreeSumNode { return work.NewTreeSum(layers) })
	var got int64
	return &kernel{
		seq:         func() { got = work.TreeSumSeq(root()) },
		fork:        func(f work.Forker) { got = work.TreeSumFork(f, root(), layers) },
		values:      func(w *scheduler.Worker) { got = work.TreeSumPlain(w, root()) },
		recommended: true,
		coarse:      func(f work.Forker) { got = work.TreeSumFork(f, root(), work.TreeSumGoroutineDepth) },
		result:      func() uint64 { return uint64(got) },
		want:        func() uint64 { return uint64(work.TreeSumWant(layers)) },
		set:         func(v uint64) { got = int64(v) },
	}
}

// boxedKernel is treeSumKernel on the boxed tree (work.NewBoxedTree).
func boxedKernel(layers int) *kernel {
	root := sync.OnceValue(func() *work.BoxedNode { return work.NewBoxedTree(layers) })
	var got int64
	return &kernel{
		seq:         func() { got = work.BoxedSumSeq(root()) },
		fork:        func(f work.Forker) { got = work.BoxedSumFork(f, root(), layers) },
		values:      func(w *scheduler.Worker) { got = work.BoxedSum(w, root()) },
		recommended: true,
		coarse:      func(f work.Forker) { got = work.BoxedSumFork(f, root(), work.TreeSumGoroutineDepth) },
		result:      func() uint64 { return uint64(got) },
		want:        func() uint64 { return uint64(work.TreeSumWant(layers)) },
		set:         func(v uint64) { got = int64(v) },
	}
}

// nodeMetric is wall time per node, the figure Spice and chili quote.
var nodeMetric = result.Metric{Unit: "ns/node", Label: "wall/node", Better: result.Lower, Format: result.Nanos}

// perNode puts wall time per node of a tree of nodes nodes in front of a
// kernel workload's metrics, where ratios compare it.
func perNode(w *workload, nodes int) *workload {
	w.metrics = append([]result.Metric{nodeMetric}, w.metrics...)
	start := w.start
	w.start = func(c contender.Contender, inst contender.Instance) (func() ([]float64, error), error) {
		run, err := start(c, inst)
		if err != nil {
			return nil, err
		}
		return func() ([]float64, error) {
			v, err := run()
			if err != nil {
				return nil, err
			}
			return append([]float64{v[0] / float64(nodes)}, v...), nil // v[0] is the wall time
		}, nil
	}
	return w
}
