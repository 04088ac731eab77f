package bench_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/weftrt/weft/bench"
	"github.com/weftrt/weft/scheduler"
)

// forkers returns every Forker, the weft one on a worker of p.
func forkers(w *scheduler.Worker) map[string]bench.Forker {
	return map[string]bench.Forker{
		"inline": bench.Inline{}, "weft": bench.Weft(w), "goroutines": bench.Goroutines{},
		"errgroup": bench.Errgroup{}, "semaphore-1": bench.Semaphore(1), "semaphore-4": bench.Semaphore(4),
	}
}

// onWorker runs f on a worker of a fresh pool of two.
func onWorker(t *testing.T, f func(w *scheduler.Worker)) {
	t.Helper()
	onWorkers(t, 2, f)
}

// onWorkers runs f on a worker of a fresh pool of n.
func onWorkers(t *testing.T, n int, f func(w *scheduler.Worker)) {
	t.Helper()
	defer goleak.VerifyNone(t)
	p, err := scheduler.New(scheduler.WithWorkers(n))
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, p.Run(context.Background(), f))
}

func TestEveryForkerComputesFib(t *testing.T) {
	want := bench.FibSeq(18)
	onWorker(t, func(w *scheduler.Worker) {
		for name, f := range forkers(w) {
			assert.Equal(t, want, bench.FibFork(f, 18, 0), name)
			assert.Equal(t, want, bench.FibFork(f, 18, 9), name)
		}
		assert.Equal(t, want, bench.FibCutoffValues(w, 18, 9))
		assert.Equal(t, want, bench.FibValues(w, 18))
		assert.Equal(t, want, bench.FibJoin(w, 18, 0))
		assert.Equal(t, want, bench.FibBoth(w, 18, 0))
		assert.Equal(t, want, bench.FibBoth(w, 18, 9))
	})
	assert.Equal(t, 0, bench.FibForks(18, 18))
}

func TestEveryForkerSorts(t *testing.T) {
	input := bench.RandomInts(100_000) // several times the grain, so forks happen
	want := slices.Clone(input)
	slices.Sort(want)
	onWorker(t, func(w *scheduler.Worker) {
		for name, f := range forkers(w) {
			xs := slices.Clone(input)
			bench.Sort(f, xs)
			assert.True(t, slices.Equal(want, xs), name)
			assert.Equal(t, bench.SortChecksum(want), bench.SortChecksum(xs), name)
		}
	})
}

func TestSortChecksumSeesMisplacedElements(t *testing.T) {
	xs := []int64{1, 2, 3}
	assert.NotEqual(t, bench.SortChecksum(xs), bench.SortChecksum([]int64{2, 1, 3}))
	assert.NotEqual(t, bench.SortChecksum(xs), bench.SortChecksum([]int64{1, 1, 3}))
}

func TestEveryForkerWalksTheTree(t *testing.T) {
	tree := bench.NewTree(20_000, 8)
	want := bench.TreeSeq(tree)
	onWorker(t, func(w *scheduler.Worker) {
		for name, f := range forkers(w) {
			assert.Equal(t, want, bench.TreeFork(f, tree), name)
		}
		assert.Equal(t, want, bench.TreeValues(w, tree))
	})
	assert.NotEqual(t, want, bench.TreeSeq(bench.NewTree(20_001, 8)), "one more node changes the sum")
	assert.Zero(t, bench.TreeSeq(bench.NewTree(0, 8)))
}

func TestEveryFormSumsTheTree(t *testing.T) {
	const layers = 12
	root := bench.NewTreeSum(layers)
	want := bench.TreeSumWant(layers)
	require.Equal(t, want, bench.TreeSumSeq(root))
	assert.Equal(t, want, bench.TreeSumGoroutines(root, bench.TreeSumGoroutineDepth))
	assert.Equal(t, want, bench.TreeSumGoroutines(root, layers), "a goroutine at every inner node")
	assert.Equal(t, want, bench.TreeSumFork(bench.Inline{}, root, layers))
	for _, workers := range []int{1, 2, 4} {
		onWorkers(t, workers, func(w *scheduler.Worker) {
			assert.Equal(t, want, bench.TreeSumValues(w, root), "values, %d workers", workers)
			assert.Equal(t, want, bench.TreeSumJoin(w, root), "join, %d workers", workers)
			assert.Equal(t, want, bench.TreeSumBoth(w, root), "both, %d workers", workers)
			for name, f := range forkers(w) {
				assert.Equal(t, want, bench.TreeSumFork(f, root, layers), "%s, %d workers", name, workers)
			}
		})
	}
}

func TestTreeSumValuesAreBreadthFirstPositions(t *testing.T) {
	root := bench.NewTreeSum(3)
	assert.Equal(t, []int64{1, 2, 4, 5, 3, 6, 7},
		[]int64{root.Val, root.Left.Val, root.Left.Left.Val, root.Left.Right.Val, root.Right.Val, root.Right.Left.Val, root.Right.Right.Val})
	assert.Nil(t, root.Left.Left.Left, "three layers")
	assert.Equal(t, int64(1), bench.TreeSumSeq(bench.NewTreeSum(1)))
	assert.Equal(t, int64(28), bench.TreeSumWant(3))
	assert.Panics(t, func() { bench.NewTreeSum(0) })
}
