package suite

import (
	"flag"
	"time"
)

// Sizes are the workloads' sizes. The defaults make the whole default run
// take about four minutes on two cores: big enough that a run of the
// fastest contender lasts milliseconds, not microseconds, and small enough
// that the slowest (a goroutine per fork) still repeats several times.
type Sizes struct {
	Fib       int // fib-full: fib(Fib), forking at every level
	FibCutoff int // fib-cutoff: fib(FibCutoff) ...
	Cutoff    int // ... forking only above fib(Cutoff)
	Sort      int // mergesort: elements
	Tree      int // tree: nodes
	TreeGrain int // tree: subtrees of this many nodes or fewer are walked sequentially
	TreeSum   int // tree-sum: layers of the complete binary tree
	// loops: indices of the uniform loop, items of the irregular one,
	// the side of the Mandelbrot image (its rows are the loop's
	// indices), the side of the multiplied matrices
	LoopUniform, LoopIrregular, LoopMandelbrot, LoopMatMul int
	// loops: tiny-16 runs LoopTiny loops of 16 indices back to back, a
	// repetition timed as one run; tiny-1000 a tenth as many loops of
	// 1,000 (a run's entry into the pool, tens of microseconds, is then
	// a few nanoseconds a loop)
	LoopTiny int
	Idle     time.Duration // idle: the period one repetition sleeps
	Ticks    int           // tick: jobs per repetition, one per millisecond
	Wakes    int           // wake: wakes per repetition, each after WakeGap
	WakeGap  time.Duration // wake: the pause before each wake, long enough for every worker to fall asleep
	Tasks    int           // admission: tasks per repetition
}

// DefaultSizes returns the embedded defaults.
func DefaultSizes() Sizes {
	return Sizes{
		Fib: 25, FibCutoff: 35, Cutoff: 20,
		Sort: 2_000_000, Tree: 2_000_000, TreeGrain: 256, TreeSum: 20,
		LoopUniform: 10_000_000, LoopIrregular: 6000, LoopMandelbrot: 512, LoopMatMul: 256, LoopTiny: 20_000,
		Idle: 300 * time.Millisecond, Ticks: 200, Wakes: 100, WakeGap: 2 * time.Millisecond,
		Tasks: 200_000,
	}
}

// RegisterFlags binds s's fields to flags of fs, with s's values as the
// defaults, and returns the flags' names.
func (s *Sizes) RegisterFlags(fs *flag.FlagSet) []string {
	fs.IntVar(&s.Fib, "fib", s.Fib, "fib-full: compute fib(`n`), forking at every level")
	fs.IntVar(&s.FibCutoff, "fib-cutoff", s.FibCutoff, "fib-cutoff: compute fib(`n`) ...")
	fs.IntVar(&s.Cutoff, "cutoff", s.Cutoff, "fib-cutoff: ... forking only above fib(`n`)")
	fs.IntVar(&s.Sort, "sort", s.Sort, "mergesort: sort `n` random int64s")
	fs.IntVar(&s.Tree, "tree", s.Tree, "tree: walk an unbalanced tree of `n` nodes")
	fs.IntVar(&s.TreeGrain, "tree-grain", s.TreeGrain, "tree: walk subtrees of `n` nodes or fewer sequentially")
	fs.IntVar(&s.TreeSum, "tree-sum", s.TreeSum, "tree-sum: sum a complete binary tree of `n` layers (2^n - 1 nodes)")
	fs.IntVar(&s.LoopUniform, "loop-uniform", s.LoopUniform, "loops: the uniform loop runs over `n` indices")
	fs.IntVar(&s.LoopIrregular, "loop-irregular", s.LoopIrregular, "loops: the irregular loop has `n` items, item i costing i steps")
	fs.IntVar(&s.LoopMandelbrot, "loop-mandelbrot", s.LoopMandelbrot, "loops: the Mandelbrot loop computes an `n`×n image, a row per index")
	fs.IntVar(&s.LoopMatMul, "loop-matmul", s.LoopMatMul, "loops: the nested loop multiplies two `n`×n matrices")
	fs.IntVar(&s.LoopTiny, "loop-tiny", s.LoopTiny, "loops: tiny-16 runs `n` loops of 16 indices a repetition, tiny-1000 n/10 loops of 1,000")
	fs.DurationVar(&s.Idle, "idle", s.Idle, "idle: sleep this `duration` per repetition")
	fs.IntVar(&s.Ticks, "ticks", s.Ticks, "tick: `n` jobs per repetition, one per millisecond")
	fs.IntVar(&s.Wakes, "wakes", s.Wakes, "wake: `n` wakes per repetition")
	fs.DurationVar(&s.WakeGap, "wake-gap", s.WakeGap, "wake: pause this `duration` before each wake")
	fs.IntVar(&s.Tasks, "tasks", s.Tasks, "admission: submit `n` tasks per repetition")
	return []string{"fib", "fib-cutoff", "cutoff", "sort", "tree", "tree-grain", "tree-sum", "loop-uniform", "loop-irregular", "loop-mandelbrot", "loop-matmul", "loop-tiny", "idle", "ticks", "wakes", "wake-gap", "tasks"}
}
