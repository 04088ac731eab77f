package suite

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/weftrt/weft/internal/work"
	"github.com/weftrt/weft/scheduler"
)

// loops is the parallel-loop suite: a kernel over an index range, run by
// weft's par package, which cuts the range by timing it and splits on join
// (weft: par.ReduceRange with a closure around the kernel, as a user
// writes it; weft-values: par.ReduceRangeWith, the kernel passed as the
// loop's data), and by every other contender (weft-closures included)
// through a two-way fork that halves the range into a fixed number of
// chunks per worker (work.LoopFork), the way recursive-splitting libraries
// do.
var loops = Suite{
	Name:      "loops",
	BenchName: "Loops",
	Doc:       "parallel loops over an index range: a uniform cheap body, an irregular one whose item i costs i steps, the rows of a Mandelbrot image, a matrix multiply that nests a loop in a loop, and loops too small to share",
	workloads: func(s Sizes) []*workload {
		return []*workload{
			loopKernel(s.LoopUniform, work.Uniform).workload("uniform",
				fmt.Sprintf("sum of squares over %d indices, about a nanosecond each: the cost of cutting and handing out chunks", s.LoopUniform)),
			loopKernel(s.LoopIrregular, work.Triangular).workload("irregular",
				fmt.Sprintf("%d items, item i costs i steps: equal chunks by count are unequal by cost, balance matters", s.LoopIrregular)),
			loopKernel(s.LoopMandelbrot, work.MandelbrotImage(s.LoopMandelbrot)).workload("mandelbrot",
				fmt.Sprintf("the rows of a %d-square Mandelbrot image, up to %d iterations a pixel: rows through the set cost a hundred times the others", s.LoopMandelbrot, work.MandelbrotIter)),
			matMulNested(s.LoopMatMul).workload("matmul-nested",
				fmt.Sprintf("a %d×%d matrix multiply, a loop over rows whose body loops over %d-column blocks: weft nests two par loops, the others cut the row loop", s.LoopMatMul, s.LoopMatMul, work.MatMulBlock)),
			loopTiny(s.LoopTiny, 16).workload("tiny-16",
				fmt.Sprintf("%d loops of 16 cheap indices back to back, timed per loop: what entering a parallel loop costs where there is nothing to share", s.LoopTiny)),
			loopTiny(max(s.LoopTiny/10, 1), 1000).workload("tiny-1000",
				fmt.Sprintf("%d loops of 1,000 cheap indices (half a microsecond of work) back to back, timed per loop", max(s.LoopTiny/10, 1))),
		}
	},
}

// loopKernel runs k over [0, n) in each form. The kernels' sums are exact
// in a float64 (integers for Triangular, multiples of 2^-20 for Uniform)
// whatever the order of addition, so the answer compares bit for bit: a
// conversion to an integer would drop Uniform's fraction, and with it
// any single index lost at a chunk's edge (each adds less than 1).
//
// par cuts the range its own way, by timing its first pieces, into more
// pieces than LoopFork (65 against 16 on one worker, over 10M uniform
// indices), and not the same number every run: weft and weft-values count
// the chunks they ran, and their CPU per fork is per chunk they cut (chunks − 1, as
// a two-way split into m chunks makes m − 1 forks), not per LoopFork fork.
func loopKernel(n int, k work.LoopKernel) *kernel {
	var got float64
	var chunks atomic.Int64
	counted := func(lo, hi int) float64 { chunks.Add(1); return k(lo, hi) }
	return &kernel{
		seq:  func() { got = work.LoopSeq(n, k) },
		fork: func(f work.Forker) { got = work.LoopFork(f, n, k) },
		par: func(w *scheduler.Worker) {
			chunks.Store(0)
			got = work.LoopPar(w, n, counted)
		},
		values: func(w *scheduler.Worker) {
			chunks.Store(0)
			got = work.LoopParWith(w, n, counted)
		},
		valuesForks: func() int { return int(chunks.Load()) - 1 },
		result:      func() uint64 { return math.Float64bits(got) },
		want:        func() uint64 { return math.Float64bits(work.LoopSeq(n, k)) },
		set:         func(v uint64) { got = math.Float64frombits(v) },
	}
}

// loopTiny runs work.Uniform over [0, n) reps times in a row in each
// form, a loop too short to be worth sharing, as a program runs one per
// request or per step: the figures are per loop (kernel.reps). weft runs
// the loops inside one task, where par runs a loop this short inline;
// the others fork as they do for any loop. Their sum is exact (multiples
// of 2^-20, far below 2^33), so it compares bit for bit. Forks are the
// fork form's: weft makes none.
func loopTiny(reps, n int) *kernel {
	var got float64
	each := func(loop func() float64) {
		var s float64
		for range reps {
			s += loop()
		}
		got = s
	}
	return &kernel{
		seq:    func() { each(func() float64 { return work.LoopSeq(n, work.Uniform) }) },
		fork:   func(f work.Forker) { each(func() float64 { return work.LoopFork(f, n, work.Uniform) }) },
		par:    func(w *scheduler.Worker) { each(func() float64 { return work.LoopPar(w, n, work.Uniform) }) },
		values: func(w *scheduler.Worker) { each(func() float64 { return work.LoopParWith(w, n, work.Uniform) }) },
		result: func() uint64 { return math.Float64bits(got) },
		want: func() uint64 {
			var s float64
			for range reps {
				s += work.LoopSeq(n, work.Uniform)
			}
			return math.Float64bits(s)
		},
		set:  func(v uint64) { got = math.Float64frombits(v) },
		reps: reps,
	}
}

// matMulNested multiplies two n×n matrices: the others cut the loop over
// rows (work.LoopFork), each row's column blocks in turn; weft runs
// work.MatMulNestedParCount, a par loop over the rows whose body is
// a par loop over the blocks, and counts the chunks both ran; weft-values
// runs the inner loop in the value form (work.MatMulNestedParWithCount),
// without the inner closure that Go allocates once per row. The sums
// of c are rounded to an integer to compare: each element of c comes out
// the same in every form, but their sum is added in another order.
func matMulNested(n int) *kernel {
	a := work.NewMatrix(n, func(i, j int) float64 { return float64((i+j)%7) / 7 })
	m := work.NewMatrix(n, func(i, j int) float64 { return float64((i*j)%5) / 5 })
	c := work.NewMatrix(n, func(int, int) float64 { return 0 })
	rows := func(lo, hi int) float64 { return work.MulRowsBlocked(a, m, c, lo, hi) }
	var got float64
	var chunks atomic.Int64
	return &kernel{
		seq:  func() { got = work.LoopSeq(n, rows) },
		fork: func(f work.Forker) { got = work.LoopFork(f, n, rows) },
		par: func(w *scheduler.Worker) {
			chunks.Store(0)
			got = work.MatMulNestedParCount(w, a, m, c, &chunks)
		},
		values: func(w *scheduler.Worker) {
			chunks.Store(0)
			got = work.MatMulNestedParWithCount(w, a, m, c, &chunks)
		},
		valuesForks: func() int { return int(chunks.Load()) - 1 },
		result:      func() uint64 { return uint64(math.Round(got)) },
		want:        func() uint64 { return uint64(math.Round(work.LoopSeq(n, rows))) },
		set:         func(v uint64) { got = float64(v) },
	}
}
