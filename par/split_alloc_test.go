package par_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// A loop that splits allocates its shared state once, not once per fork:
// the fork function was a generic function's value, a closure over its
// dictionary, made and moved to the heap at every fork. With chunks of
// one element, a loop of 1024 forks 1023 times and one of 32 forks 31
// times; on one worker no fork is stolen, and both allocate the same.
func TestSplittingAllocatesPerLoopNotPerFork(t *testing.T) {
	xs := make([]float64, 1024)
	var short, long float64
	onOne(t, func(w *scheduler.Worker) {
		allocs := func(n int) float64 {
			return testing.AllocsPerRun(20, func() {
				par.ReduceRangeWith(w, xs, 0, n, 0, sumWith, add, par.MinLen(1), par.MaxLen(1))
			})
		}
		short, long = allocs(2*par.DefaultInlineLen), allocs(len(xs))
	})
	require.Equal(t, short, long, "a loop of %d elements, against one of %d", len(xs), 2*par.DefaultInlineLen)
	require.LessOrEqual(t, short, 8.0)
}
