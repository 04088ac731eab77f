package suite

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/bench/internal/runner"
	"github.com/weftrt/weft/internal/work"
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
// ratios compare. CPU/fork is the CPU time over the forks the contender's
// form made; the sequential baseline's is over the forks the weft forms
// make, so that a fork's cost reads as the difference.
var forkJoinMetrics = []result.Metric{
	{Unit: "ns/op", Label: "wall", Better: result.Lower, Format: result.Nanos},
	{Unit: "cpu-ns/op", Label: "CPU", Better: result.Lower, Format: result.Nanos},
	{Unit: "allocs/op", Label: "allocs", Better: result.Lower, Format: result.Count},
	{Unit: "cpu-ns/fork", Label: "CPU/fork", Better: result.Lower, Format: result.Nanos},
}

// kernel is a fork-join computation in every form a contender may run.
// Its functions leave their answer where result finds it, so that
// checking the answer (a checksum of a sorted slice, say) stays outside
// the timed region.
type kernel struct {
	prepare func() // before each run, untimed; may be nil
	seq     func()
	fork    func(work.Forker)
	values  func(*scheduler.Worker) // nil: no zero-allocation form; forks where fork does
	// recommended: values is the form docs/forks.md recommends for the
	// workload, which contender weft runs (weft-values, which would run
	// the same, sits the workload out); weft-closures runs fork.
	recommended bool
	// par, if not nil, is the par loop a Go user writes for the workload,
	// a closure over its data (docs/loops.md): contender weft runs it,
	// weft-closures runs fork (the range split by hand over join.Call),
	// and weft-values runs values (par's value form), if there is one.
	// Its chunks are counted as values' are (valuesForks).
	par func(*scheduler.Worker)
	// coarse is the form the alternatives run instead of fork, where a
	// goroutine per fork would bury the workload: it forks only near the
	// root. nil: they run fork.
	coarse func(work.Forker)
	result func() uint64
	want   func() uint64 // computed once, sequentially, on first use
	// set stores v where result reads it. Before each run the kernel
	// stores a wrong answer there, so that a form that skips the work
	// fails its check instead of passing on the last run's answer. nil
	// where prepare already undoes the last run (mergesort).
	set func(v uint64)

	// The forks fork and coarse make, counted on first use at each
	// GOMAXPROCS (work.LoopFork cuts by it).
	forks, coarseForks func() int
	// valuesForks, if not nil, returns the forks the last run of values
	// made, for a form that does not fork where fork does (par's loops
	// split adaptively). nil: values makes fork's forks.
	valuesForks func() int
	// reps is how many operations one run holds (the tiny loops run
	// thousands back to back): wall, CPU and allocations are reported per
	// operation. 0 means 1.
	reps int
}

func (k *kernel) workload(name, doc string) *workload {
	k.want = sync.OnceValue(k.want)
	k.forks = perProcs(func() int { return countForks(k.prepare, k.fork) })
	k.coarseForks = k.forks
	if k.coarse != nil {
		k.coarseForks = perProcs(func() int { return countForks(k.prepare, k.coarse) })
	}
	return &workload{
		name: name, doc: doc, metrics: forkJoinMetrics, iters: max(k.reps, 1), shared: true,
		supports: func(c contender.Contender) bool {
			if c.Can(contender.Seq) {
				return true
			}
			if c.Can(contender.Fork) {
				return !c.Can(contender.Closures) || k.values != nil && k.recommended || k.par != nil
			}
			return c.Can(contender.Kernel) && k.values != nil && !k.recommended
		},
		start: k.start,
	}
}

func (k *kernel) start(c contender.Contender, inst contender.Instance) (func() ([]float64, error), error) {
	body, forks, ranForks, err := k.body(c, inst)
	if err != nil {
		return nil, err
	}
	return func() ([]float64, error) {
		// Before the run: counting may run the workload (countForks),
		// which must not leave its answer where the check looks.
		n := forks()
		if k.prepare != nil {
			k.prepare()
		}
		if k.set != nil {
			k.set(^k.want())
		}
		var runErr error
		span := runner.Time(func() { runErr = body() })
		if runErr != nil {
			return nil, runErr
		}
		if got, want := k.result(), k.want(); got != want {
			return nil, fmt.Errorf("wrong result: got %#x, want %#x", got, want)
		}
		if ranForks != nil {
			n = ranForks()
		}
		ops := float64(max(k.reps, 1))
		return []float64{nanos(span.Wall) / ops, nanos(span.CPU) / ops, float64(span.Allocs) / ops, nanos(span.CPU) / float64(max(n, 1))}, nil
	}, nil
}

// body returns the timed part of a run on c, preferring the plainest form
// c can run, and the count of the forks it makes (the sequential form's
// are the weft forms'), or, where only the run can tell, ranForks, which
// counts them after it.
func (k *kernel) body(c contender.Contender, inst contender.Instance) (run func() error, forks, ranForks func() int, err error) {
	switch {
	case c.Can(contender.Seq):
		return func() error { k.seq(); return nil }, k.forks, nil, nil
	case k.par != nil && c.Can(contender.Recommended):
		kr, err := capability[contender.KernelRunner](c, inst)
		return func() error { return kr.RunKernel(k.par) }, k.forks, k.valuesForks, err
	case k.values != nil && (c.Can(contender.Kernel) || c.Can(contender.Recommended) && k.recommended):
		kr, err := capability[contender.KernelRunner](c, inst)
		return func() error { return kr.RunKernel(k.values) }, k.forks, k.valuesForks, err
	}
	fork, forks := k.fork, k.forks
	if c.Role == result.Alternative && k.coarse != nil {
		fork, forks = k.coarse, k.coarseForks
	}
	f, err := capability[contender.Forking](c, inst)
	return func() error { return f.Fork(fork) }, forks, nil, err
}

// perProcs memoizes count for each GOMAXPROCS it is called at: a form
// may cut its work by GOMAXPROCS (work.LoopFork does), and the runner
// calls a trial's runs at its case's worker count.
func perProcs(count func() int) func() int {
	var mu sync.Mutex
	counts := map[int]int{}
	return func() int {
		p := runtime.GOMAXPROCS(0)
		mu.Lock()
		defer mu.Unlock()
		n, ok := counts[p]
		if !ok {
			n = count()
			counts[p] = n
		}
		return n
	}
}

// countForks runs fork sequentially, once, and returns how many forks it
// made: simpler than a closed form per workload, and for mergesort, whose
// merges split where the data says, the only way.
func countForks(prepare func(), fork func(work.Forker)) int {
	if prepare != nil {
		prepare()
	}
	var c forkCounter
	fork(&c)
	return c.n
}

// forkCounter is work.Inline that counts its forks.
type forkCounter struct{ n int }

func (c *forkCounter) Fork(a, b func(work.Forker)) {
	c.n++
	a(c)
	b(c)
}

func fibFull(n int) *kernel {
	var got int
	return &kernel{
		seq:         func() { got = work.FibSeq(n) },
		fork:        func(f work.Forker) { got = work.FibFork(f, n, 0) },
		values:      func(w *scheduler.Worker) { got = work.FibPlain(w, n) },
		recommended: true,
		result:      func() uint64 { return uint64(got) },
		want:        func() uint64 { return uint64(work.FibSeq(n)) },
		set:         func(v uint64) { got = int(v) },
	}
}

func fibCutoff(n, cutoff int) *kernel {
	var got int
	return &kernel{
		seq:         func() { got = work.FibSeq(n) },
		fork:        func(f work.Forker) { got = work.FibFork(f, n, cutoff) },
		values:      func(w *scheduler.Worker) { got = work.FibCutoffValues(w, n, cutoff) },
		recommended: true,
		result:      func() uint64 { return uint64(got) },
		want:        func() uint64 { return uint64(work.FibSeq(n)) },
		set:         func(v uint64) { got = int(v) },
	}
}

// mergesort sorts a fresh copy of the same random input each run. The
// input is made on first use, so that planning a run allocates nothing.
func mergesort(n int) *kernel {
	input := sync.OnceValue(func() []int64 { return work.RandomInts(n) })
	var xs []int64
	return &kernel{
		prepare: func() { xs = append(xs[:0], input()...) },
		seq:     func() { slices.Sort(xs) },
		fork:    func(f work.Forker) { work.Sort(f, xs) },
		result:  func() uint64 { return work.SortChecksum(xs) },
		want: func() uint64 {
			sorted := slices.Clone(input())
			slices.Sort(sorted)
			return work.SortChecksum(sorted)
		},
	}
}

func tree(nodes, grain int) *kernel {
	t := work.NewTree(nodes, grain)
	var got uint64
	return &kernel{
		seq:         func() { got = work.TreeSeq(t) },
		fork:        func(f work.Forker) { got = work.TreeFork(f, t) },
		values:      func(w *scheduler.Worker) { got = work.TreeValues(w, t) },
		recommended: true,
		result:      func() uint64 { return got },
		want:        func() uint64 { return work.TreeSeq(t) },
		set:         func(v uint64) { got = v },
	}
}
