package suite

import (
	"fmt"
	"slices"
	"sync"

	"github.com/weftrt/weft/bench"
	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/bench/internal/runner"
	"github.com/weftrt/weft/scheduler"
)

var forkJoin = Suite{
	Name:      "fork-join",
	BenchName: "ForkJoin",
	Doc:       "recursive fork-join computations: what a fork costs, and how well the work spreads over the workers",
	workloads: func(s Sizes) []*workload {
		return []*workload{
			fibFull(s.Fib).workload("fib-full",
				fmt.Sprintf("fib(%d) forking at every level: the cost of a fork, nearly nothing else", s.Fib)),
			fibCutoff(s.FibCutoff, s.Cutoff).workload("fib-cutoff",
				fmt.Sprintf("fib(%d) forking above fib(%d) only: coarse, regular tasks", s.FibCutoff, s.Cutoff)),
			mergesort(s.Sort).workload("mergesort",
				fmt.Sprintf("parallel mergesort of %d int64s (sequential: slices.Sort): memory-bound", s.Sort)),
			tree(s.Tree, s.TreeGrain).workload("tree",
				fmt.Sprintf("walk of an unbalanced tree of %d nodes with hot spots: irregular, stealing matters", s.Tree)),
		}
	},
}

// forkJoinMetrics are the fork-join figures: wall time is the one that
// ratios compare.
var forkJoinMetrics = []result.Metric{
	{Unit: "ns/op", Label: "wall", Better: result.Lower, Format: result.Nanos},
	{Unit: "cpu-ns/op", Label: "CPU", Better: result.Lower, Format: result.Nanos},
	{Unit: "allocs/op", Label: "allocs", Better: result.Lower, Format: result.Count},
}

// kernel is a fork-join computation in every form a contender may run.
// Its functions leave their answer where result finds it, so that
// checking the answer (a checksum of a sorted slice, say) stays outside
// the timed region.
type kernel struct {
	prepare func() // before each run, untimed; may be nil
	seq     func()
	fork    func(bench.Forker)
	values  func(*scheduler.Worker) // nil: no zero-allocation form
	result  func() uint64
	want    func() uint64 // computed once, sequentially, on first use
}

func (k *kernel) workload(name, doc string) *workload {
	k.want = sync.OnceValue(k.want)
	return &workload{
		name: name, doc: doc, metrics: forkJoinMetrics, iters: 1, shared: true,
		supports: func(c contender.Contender) bool {
			return c.Can(contender.Seq) || c.Can(contender.Fork) || (c.Can(contender.Kernel) && k.values != nil)
		},
		start: k.start,
	}
}

func (k *kernel) start(c contender.Contender, inst contender.Instance) (func() ([]float64, error), error) {
	body, err := k.body(c, inst)
	if err != nil {
		return nil, err
	}
	return func() ([]float64, error) {
		if k.prepare != nil {
			k.prepare()
		}
		var runErr error
		span := runner.Time(func() { runErr = body() })
		if runErr != nil {
			return nil, runErr
		}
		if got, want := k.result(), k.want(); got != want {
			return nil, fmt.Errorf("wrong result: got %#x, want %#x", got, want)
		}
		return []float64{nanos(span.Wall), nanos(span.CPU), float64(span.Allocs)}, nil
	}, nil
}

// body returns the timed part of a run on c, preferring the plainest form
// c can run.
func (k *kernel) body(c contender.Contender, inst contender.Instance) (func() error, error) {
	switch {
	case c.Can(contender.Seq):
		return func() error { k.seq(); return nil }, nil
	case c.Can(contender.Kernel) && k.values != nil:
		kr, err := capability[contender.KernelRunner](c, inst)
		return func() error { return kr.RunKernel(k.values) }, err
	default:
		f, err := capability[contender.Forking](c, inst)
		return func() error { return f.Fork(k.fork) }, err
	}
}

func fibFull(n int) *kernel {
	var got int
	return &kernel{
		seq:    func() { got = bench.FibSeq(n) },
		fork:   func(f bench.Forker) { got = bench.FibFork(f, n, 0) },
		values: func(w *scheduler.Worker) { got = bench.FibValues(w, n) },
		result: func() uint64 { return uint64(got) },
		want:   func() uint64 { return uint64(bench.FibSeq(n)) },
	}
}

func fibCutoff(n, cutoff int) *kernel {
	var got int
	return &kernel{
		seq:    func() { got = bench.FibSeq(n) },
		fork:   func(f bench.Forker) { got = bench.FibFork(f, n, cutoff) },
		values: func(w *scheduler.Worker) { got = bench.FibCutoffValues(w, n, cutoff) },
		result: func() uint64 { return uint64(got) },
		want:   func() uint64 { return uint64(bench.FibSeq(n)) },
	}
}

// mergesort sorts a fresh copy of the same random input each run. The
// input is made on first use, so that planning a run allocates nothing.
func mergesort(n int) *kernel {
	input := sync.OnceValue(func() []int64 { return bench.RandomInts(n) })
	var xs []int64
	return &kernel{
		prepare: func() { xs = append(xs[:0], input()...) },
		seq:     func() { slices.Sort(xs) },
		fork:    func(f bench.Forker) { bench.Sort(f, xs) },
		result:  func() uint64 { return bench.SortChecksum(xs) },
		want: func() uint64 {
			sorted := slices.Clone(input())
			slices.Sort(sorted)
			return bench.SortChecksum(sorted)
		},
	}
}

func tree(nodes, grain int) *kernel {
	t := bench.NewTree(nodes, grain)
	var got uint64
	return &kernel{
		seq:    func() { got = bench.TreeSeq(t) },
		fork:   func(f bench.Forker) { got = bench.TreeFork(f, t) },
		values: func(w *scheduler.Worker) { got = bench.TreeValues(w, t) },
		result: func() uint64 { return got },
		want:   func() uint64 { return bench.TreeSeq(t) },
	}
}
