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
	defer goleak.VerifyNone(t)
	p, err := scheduler.New(scheduler.WithWorkers(2))
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
