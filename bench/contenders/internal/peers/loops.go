package peers

import (
	"runtime"

	conciter "github.com/sourcegraph/conc/iter"

	"github.com/weftrt/weft/internal/work"
)

// ConcLoopChunks is how many chunks per P LoopConc cuts, as many as
// work.LoopErrgroup: conc's iterators hand out one element of their input
// at a time to GOMAXPROCS goroutines, so a loop over ten million indices
// would measure conc's per-element handoff, not the loop.
const ConcLoopChunks = work.LoopErrgroupChunks

// LoopConc runs k over [0, n) with conc's iter.Map over ConcLoopChunks
// chunks per P (conc starts GOMAXPROCS goroutines per call, which take
// the chunks one by one) and adds the results in order. pargo, the other
// contender the loops issue names, is not on the Go module proxy.
func LoopConc(n int, k work.LoopKernel) float64 {
	chunks := max(1, min(n, runtime.GOMAXPROCS(0)*ConcLoopChunks))
	ids := make([]int, chunks)
	for i := range ids {
		ids[i] = i
	}
	parts := conciter.Map(ids, func(i *int) float64 { return k(*i*n/chunks, (*i+1)*n/chunks) })
	var s float64
	for _, x := range parts {
		s += x
	}
	return s
}
