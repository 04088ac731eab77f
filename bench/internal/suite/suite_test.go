package suite_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/bench"
	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/bench/internal/runner"
	"github.com/weftrt/weft/bench/internal/suite"
)

// tiny are sizes that make every case take well under a millisecond, so
// that the tests run every workload on every contender, also under -race.
func tiny() suite.Sizes {
	return suite.Sizes{
		Fib: 12, FibCutoff: 16, Cutoff: 10, Sort: 200_000 /* above bench's 64Ki sort grain, or no fork happens */, Tree: 3_000, TreeGrain: 16, TreeSum: 8, LoopUniform: 20_000, LoopIrregular: 300,
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
		"fib-full/sequential": 1, "fib-full/weft": 3, "fib-full/weft-values": 3, "fib-full/goroutines": 3, "fib-full/errgroup": 3, "fib-full/semaphore": 3,
		"fib-cutoff/sequential": 1, "fib-cutoff/weft": 3, "fib-cutoff/weft-values": 3, "fib-cutoff/goroutines": 3, "fib-cutoff/errgroup": 3, "fib-cutoff/semaphore": 3,
		"mergesort/sequential": 1, "mergesort/weft": 3, "mergesort/goroutines": 3, "mergesort/errgroup": 3, "mergesort/semaphore": 3,
		"tree/sequential": 1, "tree/weft": 3, "tree/weft-values": 3, "tree/goroutines": 3, "tree/errgroup": 3, "tree/semaphore": 3,
		"uniform/sequential": 1, "uniform/weft": 3, "uniform/weft-values": 3, "uniform/goroutines": 3, "uniform/errgroup": 3, "uniform/semaphore": 3,
		"irregular/sequential": 1, "irregular/weft": 3, "irregular/weft-values": 3, "irregular/goroutines": 3, "irregular/errgroup": 3, "irregular/semaphore": 3,
		"complete/sequential": 1, "complete/weft": 3, "complete/weft-values": 3, "complete/goroutines": 3, "complete/errgroup": 3, "complete/semaphore": 3,
		"idle/sequential": 3, "idle/weft": 3, // these baselines depend on GOMAXPROCS
		"tick/sequential": 3, "tick/weft": 3, "tick/goroutines": 3, "tick/weft-fixed": 3,
		"wake/weft": 3, "wake/goroutines": 3, "wake/weft-fixed": 3,
		"tasks/weft": 3, "tasks/goroutines": 3, "tasks/weft-fixed": 3,
	}, count)
}

// halfForker loses the second half of every fork: a contender with a bug.
type halfForker struct{}

func (halfForker) Fork(a, _ func(bench.Forker)) { a(halfForker{}) }

type halfInstance struct{}

func (halfInstance) Close() {}

func (halfInstance) Fork(root func(bench.Forker)) error {
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

func (c countingInstance) Fork(root func(bench.Forker)) error {
	root(countingForker(c))
	return nil
}

type countingForker struct{ forks *int }

func (c countingForker) Fork(a, b func(bench.Forker)) {
	*c.forks++
	a(c)
	b(c)
}

// TestTreeSumForks checks that weft forks at every inner node and the
// alternatives only down to bench.TreeSumGoroutineDepth, and that each
// reports its CPU over its own forks and its wall time over the nodes.
func TestTreeSumForks(t *testing.T) {
	const layers = 12
	sizes := tiny()
	sizes.TreeSum = layers
	ss, err := suite.Lookup([]string{"tree-sum"})
	require.NoError(t, err)
	for role, want := range map[result.Role]int{
		result.Weft:        1<<(layers-1) - 1,
		result.Alternative: 1<<bench.TreeSumGoroutineDepth - 1,
	} {
		var forks int
		counting := contender.Contender{Name: "counting", Role: role, Caps: contender.Fork,
			Start: func(int) (contender.Instance, error) { return countingInstance{&forks}, nil }}
		cases := ss[0].Cases(suite.Config{Sizes: sizes, Contenders: []contender.Contender{counting}, Workers: []int{1}})
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
		assert.InEpsilon(t, v[1], v[0]*float64(bench.TreeSumNodes(layers)), 1e-9, "wall per node")
		assert.InDelta(t, v[2], v[4]*float64(want), 1e-3, "CPU per fork, %s", role)
	}
}
