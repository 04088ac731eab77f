package peers

import (
	"errors"
	"sync"

	antspool "github.com/panjf2000/ants/v2"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/internal/work"
)

var ants = contender.Contender{
	Name: "ants", Role: result.Alternative, Caps: contender.Fork | contender.Submit | contender.Resident,
	Doc:   "github.com/panjf2000/ants/v2: a pool of GOMAXPROCS goroutines; forks run inline when it is full",
	Start: startAnts,
}

// antsInstance holds a blocking pool for jobs, as ants' README uses it,
// and, made on the first fork, a nonblocking one for forks: a fork that
// blocked on a full pool would wait for its own ancestors, which ants'
// documentation warns about.
type antsInstance struct {
	workers int
	jobs    *antspool.Pool
	forks   *antspool.Pool
}

func startAnts(workers int) (contender.Instance, error) {
	jobs, err := antspool.NewPool(workers)
	if err != nil {
		return nil, err
	}
	return &antsInstance{workers: workers, jobs: jobs}, nil
}

func (a *antsInstance) Close() {
	a.jobs.Release()
	if a.forks != nil {
		a.forks.Release()
	}
}

func (a *antsInstance) Submit(f func()) error { return a.jobs.Submit(f) }

func (a *antsInstance) Fork(root func(work.Forker)) error {
	if a.forks == nil {
		p, err := antspool.NewPool(a.workers, antspool.WithNonblocking(true))
		if err != nil {
			return err
		}
		a.forks = p
	}
	root(antsForker{a.forks})
	return nil
}

// antsForker submits b to the pool, or runs it inline when the pool has
// no free goroutine.
type antsForker struct{ p *antspool.Pool }

func (f antsForker) Fork(a, b func(work.Forker)) {
	var wg sync.WaitGroup
	wg.Add(1)
	err := f.p.Submit(func() {
		defer wg.Done()
		b(f)
	})
	if errors.Is(err, antspool.ErrPoolOverload) {
		wg.Done()
		a(f)
		b(f)
		return
	}
	if err != nil {
		panic("weft/bench/contenders: ants: " + err.Error())
	}
	a(f)
	wg.Wait()
}
