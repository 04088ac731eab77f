package suite

import (
	"fmt"

	"github.com/weftrt/weft/bench"
	"github.com/weftrt/weft/scheduler"
)

// loops is the parallel-loop suite: a kernel over an index range, run by
// weft's par package (weft-values: par.ReduceRangeWith, which cuts the range
// by timing it and splits on join) and by every other contender through a
// two-way fork that halves the range into a fixed number of chunks per
// worker (bench.LoopFork), the way recursive-splitting libraries do.
var loops = Suite{
	Name:      "loops",
	BenchName: "Loops",
	Doc:       "parallel loops over an index range: a uniform cheap body, and an irregular one whose item i costs i steps",
	workloads: func(s Sizes) []*workload {
		return []*workload{
			loopKernel(s.LoopUniform, bench.Uniform).workload("uniform",
				fmt.Sprintf("sum of squares over %d indices, about a nanosecond each: the cost of cutting and handing out chunks", s.LoopUniform)),
			loopKernel(s.LoopIrregular, bench.Triangular).workload("irregular",
				fmt.Sprintf("%d items, item i costs i steps: equal chunks by count are unequal by cost, balance matters", s.LoopIrregular)),
		}
	},
}

// loopKernel runs k over [0, n) in each form. The kernels' sums are exact
// integers in a float64, whatever the order of addition, so the answer
// compares exactly.
func loopKernel(n int, k bench.LoopKernel) *kernel {
	var got float64
	return &kernel{
		seq:    func() { got = bench.LoopSeq(n, k) },
		fork:   func(f bench.Forker) { got = bench.LoopFork(f, n, k) },
		values: func(w *scheduler.Worker) { got = bench.LoopParWith(w, n, k) },
		result: func() uint64 { return uint64(got) },
		want:   func() uint64 { return uint64(bench.LoopSeq(n, k)) },
	}
}
