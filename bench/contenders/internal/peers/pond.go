package peers

import (
	pondpool "github.com/alitto/pond/v2"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
)

// pond takes jobs only. Its queue is unbounded, so a fork submitted from
// inside the pool always queues and never runs inline: once every worker
// waits for a queued child, the pool deadlocks. It has no fork-join form.
var pond = contender.Contender{
	Name: "pond", Role: result.Alternative, Caps: contender.Submit | contender.Resident,
	Doc:   "github.com/alitto/pond/v2: a pool of at most GOMAXPROCS goroutines with an unbounded queue (jobs only)",
	Start: func(workers int) (contender.Instance, error) { return pondInstance{pondpool.NewPool(workers)}, nil },
}

type pondInstance struct{ p pondpool.Pool }

func (p pondInstance) Close() { p.p.StopAndWait() }

func (p pondInstance) Submit(f func()) error { return p.p.Go(f) }
