package work_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/weftrt/weft/internal/work"
	"github.com/weftrt/weft/scheduler"
)

// forkers returns every Forker, the weft one on a worker of p.
func forkers(w *scheduler.Worker) map[string]work.Forker {
	return map[string]work.Forker{
		"inline": work.Inline{}, "weft": work.Weft(w), "goroutines": work.Goroutines{},
		"errgroup": work.Errgroup{}, "semaphore-1": work.Semaphore(1), "semaphore-4": work.Semaphore(4),
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
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error { f(w); return nil }))
}

func TestEveryForkerComputesFib(t *testing.T) {
	want := work.FibSeq(18)
	onWorker(t, func(w *scheduler.Worker) {
		for name, f := range forkers(w) {
			assert.Equal(t, want, work.FibFork(f, 18, 0), name)
			assert.Equal(t, want, work.FibFork(f, 18, 9), name)
		}
		assert.Equal(t, want, work.FibCutoffValues(w, 18, 9))
		assert.Equal(t, want, work.FibValues(w, 18))
		assert.Equal(t, want, work.FibJoin(w, 18, 0))
		assert.Equal(t, want, work.FibBoth(w, 18, 0))
		assert.Equal(t, want, work.FibBoth(w, 18, 9))
	})
	assert.Equal(t, 0, work.FibForks(18, 18))
}

func TestEveryForkerSorts(t *testing.T) {
	input := work.RandomInts(100_000) // several times the grain, so forks happen
	want := slices.Clone(input)
	slices.Sort(want)
	onWorker(t, func(w *scheduler.Worker) {
		for name, f := range forkers(w) {
			xs := slices.Clone(input)
			work.Sort(f, xs)
			assert.True(t, slices.Equal(want, xs), name)
			assert.Equal(t, work.SortChecksum(want), work.SortChecksum(xs), name)
		}
	})
}

func TestSortChecksumSeesMisplacedElements(t *testing.T) {
	xs := []int64{1, 2, 3}
	assert.NotEqual(t, work.SortChecksum(xs), work.SortChecksum([]int64{2, 1, 3}))
	assert.NotEqual(t, work.SortChecksum(xs), work.SortChecksum([]int64{1, 1, 3}))
}

func TestEveryForkerWalksTheTree(t *testing.T) {
	tree := work.NewTree(20_000, 8)
	want := work.TreeSeq(tree)
	onWorker(t, func(w *scheduler.Worker) {
		for name, f := range forkers(w) {
			assert.Equal(t, want, work.TreeFork(f, tree), name)
		}
		assert.Equal(t, want, work.TreeValues(w, tree))
	})
	assert.NotEqual(t, want, work.TreeSeq(work.NewTree(20_001, 8)), "one more node changes the sum")
	assert.Zero(t, work.TreeSeq(work.NewTree(0, 8)))
}

func TestEveryFormSumsTheTree(t *testing.T) {
	const layers = 12
	root := work.NewTreeSum(layers)
	want := work.TreeSumWant(layers)
	require.Equal(t, want, work.TreeSumSeq(root))
	assert.Equal(t, want, work.TreeSumGoroutines(root, work.TreeSumGoroutineDepth))
	assert.Equal(t, want, work.TreeSumGoroutines(root, layers), "a goroutine at every inner node")
	assert.Equal(t, want, work.TreeSumFork(work.Inline{}, root, layers))
	for _, workers := range []int{1, 2, 4} {
		onWorkers(t, workers, func(w *scheduler.Worker) {
			assert.Equal(t, want, work.TreeSumValues(w, root), "values, %d workers", workers)
			assert.Equal(t, want, work.TreeSumJoin(w, root), "join, %d workers", workers)
			assert.Equal(t, want, work.TreeSumBoth(w, root), "both, %d workers", workers)
			for name, f := range forkers(w) {
				assert.Equal(t, want, work.TreeSumFork(f, root, layers), "%s, %d workers", name, workers)
			}
		})
	}
}

func TestTreeSumValuesAreBreadthFirstPositions(t *testing.T) {
	root := work.NewTreeSum(3)
	assert.Equal(t, []int64{1, 2, 4, 5, 3, 6, 7},
		[]int64{root.Val, root.Left.Val, root.Left.Left.Val, root.Left.Right.Val, root.Right.Val, root.Right.Left.Val, root.Right.Right.Val})
	assert.Nil(t, root.Left.Left.Left, "three layers")
	assert.Equal(t, int64(1), work.TreeSumSeq(work.NewTreeSum(1)))
	assert.Equal(t, int64(28), work.TreeSumWant(3))
	assert.Panics(t, func() { work.NewTreeSum(0) })
}
