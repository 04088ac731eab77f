package peers

import (
	concpkg "github.com/sourcegraph/conc"
	concpool "github.com/sourcegraph/conc/pool"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/internal/work"
)

var conc = contender.Contender{
	Name: "conc", Role: result.Alternative, Caps: contender.Fork | contender.Submit | contender.Resident,
	Doc: "github.com/sourcegraph/conc: a conc.WaitGroup per fork; a pool of at most GOMAXPROCS goroutines for jobs",
	Start: func(workers int) (contender.Instance, error) {
		return concInstance{concpool.New().WithMaxGoroutines(workers)}, nil
	},
}

type concInstance struct{ jobs *concpool.Pool }

// Close waits for the pool's goroutines, which is how conc stops them.
func (c concInstance) Close() { c.jobs.Wait() }

func (c concInstance) Submit(f func()) error {
	c.jobs.Go(f)
	return nil
}

func (concInstance) Fork(root func(work.Forker)) error {
	root(concForker{})
	return nil
}

// concForker runs b on a new goroutine of a conc.WaitGroup, which
// re-raises b's panic in the caller: conc's whole point over sync's.
type concForker struct{}

func (concForker) Fork(a, b func(work.Forker)) {
	var wg concpkg.WaitGroup
	wg.Go(func() { b(concForker{}) })
	a(concForker{})
	wg.Wait()
}
