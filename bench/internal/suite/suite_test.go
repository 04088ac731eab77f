package suite_test

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/bench/internal/runner"
	"github.com/weftrt/weft/bench/internal/suite"
	"github.com/weftrt/weft/internal/work"
	"github.com/weftrt/weft/scheduler"
)

// tiny are sizes that make every case take well under a millisecond, so
// that the tests run every workload on every contender, also under -race.
func tiny() suite.Sizes {
	return suite.Sizes{
		Fib: 12, FibCutoff: 16, Cutoff: 10, Sort: 200_000 /* above bench's 64Ki sort grain, or no fork happens */, Tree: 3_000, TreeGrain: 16, TreeSum: 8, LoopUniform: 20_000, LoopIrregular: 300, LoopMandelbrot: 32, LoopMatMul: 16, LoopTiny: 50,
		Idle: time.Millisecond, Ticks: 3, Wakes: 3, WakeGap: 100 * time.Microsecond, Tasks: 500,
	}
}

func plan(t *testing.T, workers []int) []runner.Case {
	t.Helper()
	var cases []runner.Case
	for _, s := range suite.All() {
		cases = append(cases, s.Cases(suite.Config{Sizes: tiny(), Contenders: contender.All(), Workers: workers})...)
	}
	return cases
}

// TestEveryCaseRuns runs one repetition of every case and so checks every
// contender's answer on every workload it claims.
func TestEveryCaseRuns(t *testing.T) {
	for _, c := range plan(t, []int{1, 2}) {
		t.Run(c.Name(), func(t *testing.T) {
			rs, err := runner.Run(t.Context(), []runner.Case{c}, runner.Options{Reps: 1})
			require.NoError(t, err)
			require.Len(t, rs[0].Samples, 1)
			assert.Len(t, rs[0].Samples[0], len(c.Metrics))
		})
	}
}

func TestPlan(t *testing.T) {
	count := map[string]int{}
	for _, c := range plan(t, []int{1, 2, 4}) {
		count[c.Workload+"/"+c.Contender]++
		assert.NotEmpty(t, c.ContenderDoc, "the legend under the table needs it: %s", c.Name())
		if c.Role == result.Baseline && c.Workload != "idle" && c.Workload != "tick" {
			assert.Equal(t, 1, c.Workers, "a baseline runs once, with one worker: %s", c.Name())
		}
	}
	assert.Equal(t, map[string]int{
		"fib-full/sequential": 1, "fib-full/weft": 3, "fib-full/weft-closures": 3, "fib-full/goroutines": 3, "fib-full/errgroup": 3, "fib-full/semaphore": 3,
		"fib-cutoff/sequential": 1, "fib-cutoff/weft": 3, "fib-cutoff/weft-closures": 3, "fib-cutoff/goroutines": 3, "fib-cutoff/errgroup": 3, "fib-cutoff/semaphore": 3,
		"mergesort/sequential": 1, "mergesort/weft": 3, "mergesort/goroutines": 3, "mergesort/errgroup": 3, "mergesort/semaphore": 3,
		"tree/sequential": 1, "tree/weft": 3, "tree/weft-closures": 3, "tree/goroutines": 3, "tree/errgroup": 3, "tree/semaphore": 3,
		"uniform/sequential": 1, "uniform/weft": 3, "uniform/weft-closures": 3, "uniform/weft-values": 3, "uniform/goroutines": 3, "uniform/errgroup": 3, "uniform/semaphore": 3,
		"irregular/sequential": 1, "irregular/weft": 3, "irregular/weft-closures": 3, "irregular/weft-values": 3, "irregular/goroutines": 3, "irregular/errgroup": 3, "irregular/semaphore": 3,
		"mandelbrot/sequential": 1, "mandelbrot/weft": 3, "mandelbrot/weft-closures": 3, "mandelbrot/weft-values": 3, "mandelbrot/goroutines": 3, "mandelbrot/errgroup": 3, "mandelbrot/semaphore": 3,
		"matmul-nested/sequential": 1, "matmul-nested/weft": 3, "matmul-nested/weft-closures": 3, "matmul-nested/weft-values": 3, "matmul-nested/goroutines": 3, "matmul-nested/errgroup": 3, "matmul-nested/semaphore": 3,
		"tiny-16/sequential": 1, "tiny-16/weft": 3, "tiny-16/weft-closures": 3, "tiny-16/weft-values": 3, "tiny-16/goroutines": 3, "tiny-16/errgroup": 3, "tiny-16/semaphore": 3,
		"tiny-1000/sequential": 1, "tiny-1000/weft": 3, "tiny-1000/weft-closures": 3, "tiny-1000/weft-values": 3, "tiny-1000/goroutines": 3, "tiny-1000/errgroup": 3, "tiny-1000/semaphore": 3,
		"complete/sequential": 1, "complete/weft": 3, "complete/weft-closures": 3, "complete/goroutines": 3, "complete/errgroup": 3, "complete/semaphore": 3,
		"boxed/sequential": 1, "boxed/weft": 3, "boxed/weft-closures": 3, "boxed/goroutines": 3, "boxed/errgroup": 3, "boxed/semaphore": 3,
		"idle/sequential": 3, "idle/weft": 3, // these baselines depend on GOMAXPROCS
		"tick/sequential": 3, "tick/weft": 3, "tick/goroutines": 3, "tick/weft-fixed": 3,
		"wake/weft": 3, "wake/goroutines": 3, "wake/weft-fixed": 3,
		"tasks/weft": 3, "tasks/goroutines": 3, "tasks/weft-fixed": 3,
	}, count)
}

// halfForker loses the second half of every fork: a contender with a bug.
type halfForker struct{}

func (halfForker) Fork(a, _ func(work.Forker)) { a(halfForker{}) }

type halfInstance struct{}

func (halfInstance) Close() {}

func (halfInstance) Fork(root func(work.Forker)) error {
	root(halfForker{})
	return nil
}

// dropper loses every job.
type dropper struct{}

func (dropper) Close()              {}
func (dropper) Submit(func()) error { return nil }

func TestWrongResultFailsTheRun(t *testing.T) {
	broken := contender.Contender{Name: "broken", Role: result.Alternative, Caps: contender.Fork,
		Start: func(int) (contender.Instance, error) { return halfInstance{}, nil }}
	ss, err := suite.Lookup([]string{"fork-join"})
	require.NoError(t, err)
	cases := ss[0].Cases(suite.Config{Sizes: tiny(), Contenders: []contender.Contender{broken}, Workers: []int{1}})
	require.Len(t, cases, 4)
	for _, c := range cases {
		_, err := runner.Run(t.Context(), []runner.Case{c}, runner.Options{Reps: 1})
		assert.ErrorContains(t, err, "wrong result", c.Name())
	}
}

func TestLostJobFailsTheRun(t *testing.T) {
	defer suite.SetJobTimeout(10 * time.Millisecond)()
	lossy := contender.Contender{Name: "lossy", Role: result.Alternative, Caps: contender.Submit,
		Start: func(int) (contender.Instance, error) { return dropper{}, nil }}
	ss, err := suite.Lookup([]string{"efficiency", "admission"})
	require.NoError(t, err)
	var cases []runner.Case
	for _, s := range ss {
		cases = append(cases, s.Cases(suite.Config{Sizes: tiny(), Contenders: []contender.Contender{lossy}, Workers: []int{1}})...)
	}
	require.Len(t, cases, 3, "tick, wake, tasks")
	for _, c := range cases {
		_, err := runner.Run(t.Context(), []runner.Case{c}, runner.Options{Reps: 1})
		assert.ErrorContains(t, err, "a submitted job never ran", c.Name())
	}
}

// TestJobTimeoutIsPerJob checks that the lost-job timeout bounds the wait
// for each job, not a whole repetition: a tick or wake repetition that
// lasts longer than it (-ticks 40000, -wake-gap 500ms) used to fail with
// "a submitted job never ran" though every job ran at once. The inline
// contender runs each job inside Submit; the ticks' and wake gaps' own
// pauses make each repetition outlast the timeout.
func TestJobTimeoutIsPerJob(t *testing.T) {
	defer suite.SetJobTimeout(5 * time.Millisecond)()
	inline := contender.Contender{Name: "inline", Role: result.Alternative, Caps: contender.Submit,
		Start: func(int) (contender.Instance, error) { return inlineSubmitter{}, nil }}
	sizes := tiny()
	sizes.Ticks, sizes.Wakes, sizes.WakeGap = 40, 4, 5*time.Millisecond // 40ms and 20ms a repetition at least
	ss, err := suite.Lookup([]string{"efficiency"})
	require.NoError(t, err)
	cases := ss[0].Cases(suite.Config{Sizes: sizes, Contenders: []contender.Contender{inline}, Workers: []int{1}})
	require.Len(t, cases, 2, "tick, wake")
	for _, c := range cases {
		_, err := runner.Run(t.Context(), []runner.Case{c}, runner.Options{Reps: 1})
		require.NoError(t, err, c.Name())
	}
}

// inlineSubmitter runs each job inside Submit: no job is ever late.
type inlineSubmitter struct{}

func (inlineSubmitter) Close() {}

func (inlineSubmitter) Submit(f func()) error {
	f()
	return nil
}

func TestClaimedCapabilityMustExist(t *testing.T) {
	liar := contender.Contender{Name: "liar", Role: result.Alternative, Caps: contender.Submit,
		Start: func(int) (contender.Instance, error) { return halfInstance{}, nil }}
	ss, err := suite.Lookup([]string{"admission"})
	require.NoError(t, err)
	cases := ss[0].Cases(suite.Config{Sizes: tiny(), Contenders: []contender.Contender{liar}, Workers: []int{1}})
	require.Len(t, cases, 1)
	_, err = runner.Run(t.Context(), cases, runner.Options{Reps: 1})
	assert.ErrorContains(t, err, "is not a")
}

func TestLookup(t *testing.T) {
	ss, err := suite.Lookup([]string{"admission", "fork-join"})
	require.NoError(t, err)
	assert.Equal(t, []string{"fork-join", "admission"}, suite.Names(ss), "running order, not flag order")
	_, err = suite.Lookup([]string{"nope"})
	assert.ErrorContains(t, err, `unknown suite "nope"`)
}

// countingInstance forks inline and counts the forks.
type countingInstance struct{ forks *int }

func (countingInstance) Close() {}

func (c countingInstance) Fork(root func(work.Forker)) error {
	root(countingForker(c))
	return nil
}

type countingForker struct{ forks *int }

func (c countingForker) Fork(a, b func(work.Forker)) {
	*c.forks++
	a(c)
	b(c)
}

// TestTreeSumForks checks that weft forks at every inner node and the
// alternatives only down to work.TreeSumGoroutineDepth, and that each
// reports its CPU over its own forks and its wall time over the nodes.
func TestTreeSumForks(t *testing.T) {
	const layers = 12
	sizes := tiny()
	sizes.TreeSum = layers
	ss, err := suite.Lookup([]string{"tree-sum"})
	require.NoError(t, err)
	// The arena tree forks at its inner nodes, the boxed tree at every
	// node (its leaves fork their nil children).
	for _, tc := range []struct {
		workload string
		role     result.Role
		want     int
	}{
		{"complete", result.Weft, 1<<(layers-1) - 1},
		{"complete", result.Alternative, 1<<work.TreeSumGoroutineDepth - 1},
		{"boxed", result.Weft, 1<<layers - 1},
		{"boxed", result.Alternative, 1<<work.TreeSumGoroutineDepth - 1},
	} {
		role, want := tc.role, tc.want
		var forks int
		counting := contender.Contender{Name: "counting", Role: role, Caps: contender.Fork,
			Start: func(int) (contender.Instance, error) { return countingInstance{&forks}, nil }}
		cases := ss[0].Cases(suite.Config{Sizes: sizes, Contenders: []contender.Contender{counting}, Workers: []int{1}})
		require.Len(t, cases, 2)
		cases = slices.DeleteFunc(cases, func(c runner.Case) bool { return c.Workload != tc.workload })
		require.Len(t, cases, 1)
		rs, err := runner.Run(t.Context(), cases, runner.Options{Reps: 1})
		require.NoError(t, err)
		assert.Equal(t, want, forks, "%s forks, one repetition", role)

		units := make([]string, len(rs[0].Metrics))
		for i, m := range rs[0].Metrics {
			units[i] = m.Unit
		}
		require.Equal(t, []string{"ns/node", "ns/op", "cpu-ns/op", "allocs/op", "cpu-ns/fork"}, units)
		v := rs[0].Samples[0]
		assert.InEpsilon(t, v[1], v[0]*float64(work.TreeSumNodes(layers)), 1e-9, "wall per node")
		assert.InDelta(t, v[2], v[4]*float64(want), 1e-3, "CPU per fork, %s %s", tc.workload, role)
	}
}

// skipInstance claims to fork but never runs the root: a contender that
// skips the work.
type skipInstance struct{}

func (skipInstance) Close()                       {}
func (skipInstance) Fork(func(work.Forker)) error { return nil }

// TestSkippedWorkFailsAfterARightAnswer checks that a contender that does
// nothing fails its check even when the case before it in the same bout
// left the right answer behind.
func TestSkippedWorkFailsAfterARightAnswer(t *testing.T) {
	skipper := contender.Contender{Name: "skipper", Role: result.Alternative, Caps: contender.Fork,
		Start: func(int) (contender.Instance, error) { return skipInstance{}, nil }}
	seq, err := contender.Lookup([]string{"sequential"})
	require.NoError(t, err)
	ss, err := suite.Lookup([]string{"fork-join", "tree-sum", "loops"})
	require.NoError(t, err)
	for _, s := range ss {
		cases := s.Cases(suite.Config{Sizes: tiny(), Contenders: append(seq, skipper), Workers: []int{1}})
		for i := 0; i < len(cases); i += 2 {
			pair := cases[i : i+2] // the workload's sequential case, then the skipper's: one bout
			require.Equal(t, "skipper", pair[1].Contender)
			_, err := runner.Run(t.Context(), pair, runner.Options{Reps: 1})
			assert.ErrorContains(t, err, "wrong result", pair[1].Name())
		}
	}
}

// dropOneForker forks inline but loses the second half of the first fork
// whose first half forked no further: with a grain of one index, that half
// is a single index of the loop.
type dropOneForker struct{ forks, dropped *int }

func (f dropOneForker) Fork(a, b func(work.Forker)) {
	*f.forks++
	before := *f.forks
	a(f)
	if *f.forks == before && *f.dropped == 0 {
		*f.dropped = 1
		return
	}
	b(f)
}

type dropOneInstance struct{}

func (dropOneInstance) Close() {}
func (dropOneInstance) Fork(root func(work.Forker)) error {
	var forks, dropped int
	root(dropOneForker{&forks, &dropped})
	return nil
}

// TestLoopAnswerIsExact checks that a loop that loses one index fails:
// the uniform loop's sum is exact, so it compares whole, fraction and all.
func TestLoopAnswerIsExact(t *testing.T) {
	sizes := tiny()
	sizes.LoopUniform = 20 // a grain of one index at one worker
	sloppy := contender.Contender{Name: "sloppy", Role: result.Alternative, Caps: contender.Fork,
		Start: func(int) (contender.Instance, error) { return dropOneInstance{}, nil }}
	ss, err := suite.Lookup([]string{"loops"})
	require.NoError(t, err)
	cases := ss[0].Cases(suite.Config{Sizes: sizes, Contenders: []contender.Contender{sloppy}, Workers: []int{1}})
	require.Equal(t, "uniform", cases[0].Workload)
	_, err = runner.Run(t.Context(), cases[:1], runner.Options{Reps: 1})
	assert.ErrorContains(t, err, "wrong result")
}

// TestLoopForksPerWorkerCount checks that CPU/fork divides by the forks
// the loop made at the case's own worker count, whichever case ran first:
// work.LoopFork cuts more chunks for more workers.
func TestLoopForksPerWorkerCount(t *testing.T) {
	ss, err := suite.Lookup([]string{"loops"})
	require.NoError(t, err)
	var forks int
	counting := contender.Contender{Name: "counting", Role: result.Weft, Caps: contender.Fork,
		Start: func(int) (contender.Instance, error) { return countingInstance{&forks}, nil }}
	// Both worker counts of a workload share a bout, 1 first.
	rs, err := runner.Run(t.Context(), ss[0].Cases(suite.Config{Sizes: tiny(),
		Contenders: []contender.Contender{counting}, Workers: []int{1, 2}}), runner.Options{Reps: 1})
	require.NoError(t, err)
	require.Len(t, rs, 12)
	for _, r := range rs {
		want := loopForks(r.Workload, r.Workers)
		v := r.Samples[0] // ns/op, cpu-ns/op, allocs/op, cpu-ns/fork
		assert.InDelta(t, v[1], v[3]*float64(want), 1e-3, "%s: CPU per fork at %d workers", r.Workload, r.Workers)
	}
}

// loopForks returns how many forks work.LoopFork makes for workload at
// the given GOMAXPROCS: for the tiny loops, in one of the loops a run
// repeats, as their CPU is per loop.
func loopForks(workload string, procs int) int {
	n := map[string]int{"uniform": tiny().LoopUniform, "irregular": tiny().LoopIrregular, "mandelbrot": tiny().LoopMandelbrot, "matmul-nested": tiny().LoopMatMul,
		"tiny-16": 16, "tiny-1000": 1000}[workload]
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	var forks int
	work.LoopFork(countingForker{&forks}, n, func(int, int) float64 { return 0 })
	return forks
}

// kernelInstance runs a weft kernel inline, with no worker.
type kernelInstance struct{}

func (kernelInstance) Close()                                    {}
func (kernelInstance) RunKernel(k func(*scheduler.Worker)) error { k(nil); return nil }

// TestKernelCountsItsOwnForks checks that a weft form that forks its own
// way (par's loops cut the range by timing it, not as work.LoopFork
// does) has its CPU per fork divided by the forks it made in that run,
// not by the fork form's count: before, the loops tables' weft-values
// rows divided by LoopFork's forks, about a quarter of par's chunks.
func TestKernelCountsItsOwnForks(t *testing.T) {
	const forks = 9
	values := contender.Contender{Name: "values", Role: result.Weft, Caps: contender.Kernel,
		Start: func(int) (contender.Instance, error) { return kernelInstance{}, nil }}
	cases := suite.CountedValues(forks).Cases(suite.Config{Sizes: tiny(), Contenders: []contender.Contender{values}, Workers: []int{1}})
	require.Len(t, cases, 1)
	rs, err := runner.Run(t.Context(), cases, runner.Options{Reps: 1})
	require.NoError(t, err)
	v := rs[0].Samples[0] // ns/op, cpu-ns/op, allocs/op, cpu-ns/fork
	assert.InDelta(t, v[1], v[3]*forks, 1e-3, "CPU per fork divides by the run's own forks")
}

// TestLoopValuesCountChunks checks that the loops' weft form counts the
// chunks par ran: a fork per chunk but one.
func TestLoopValuesCountChunks(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	var calls atomic.Int64
	values, forks := suite.LoopValues(1<<20, func(lo, hi int) float64 { calls.Add(1); return work.Uniform(lo, hi) })
	require.NoError(t, p.Run(t.Context(), func(w *scheduler.Worker) error { values(w); return nil }))
	require.Greater(t, calls.Load(), int64(1), "par did not split a loop of a million indices")
	assert.Equal(t, int(calls.Load())-1, forks())
}
