package work

import (
	"sync"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// Forker runs a and b, possibly in parallel, and returns when both have
// returned. Each half receives the Forker to fork with further down, so a
// contender that needs per-goroutine state (weft's worker) can hand it on.
//
// The fork-join workloads are written once against Forker, so every
// contender runs the same code and pays for the same closures; only the
// fork itself differs.
type Forker interface {
	Fork(a, b func(Forker))
}

// Inline is the Forker that runs a, then b, on the calling goroutine: the
// generic workloads' cost without any parallelism.
type Inline struct{}

// Fork runs a, then b.
func (Inline) Fork(a, b func(Forker)) {
	a(Inline{})
	b(Inline{})
}

// Weft returns the Forker that forks with join.Call on w, a pool's worker.
func Weft(w *scheduler.Worker) Forker { return weftForker{w} }

// weftForker passes the halves as values to join.Call rather than
// wrapping them in closures for join.Join: the workload's closures are
// already the task bodies, and a second layer would charge weft an
// allocation per fork that no user writing join.Join by hand pays.
type weftForker struct{ w *scheduler.Worker }

func (f weftForker) Fork(a, b func(Forker)) {
	join.Call(f.w, runHalf, a, b)
}

func runHalf(w *scheduler.Worker, half func(Forker)) struct{} {
	half(weftForker{w})
	return struct{}{}
}

// Goroutines is the Forker that runs b on a new goroutine and waits for it
// with a sync.WaitGroup: the plain Go idiom.
type Goroutines struct{}

// Fork runs b on a new goroutine and a on the caller's.
func (Goroutines) Fork(a, b func(Forker)) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b(Goroutines{})
	}()
	a(Goroutines{})
	wg.Wait()
}

// Errgroup is the Forker that runs b through a new errgroup.Group, as code
// that already uses errgroup for its fan-out would.
type Errgroup struct{}

// Fork runs b with Group.Go and a on the caller's goroutine.
func (Errgroup) Fork(a, b func(Forker)) {
	var g errgroup.Group
	g.Go(func() error {
		b(Errgroup{})
		return nil
	})
	a(Errgroup{})
	_ = g.Wait() // the halves return no errors
}

// Semaphore returns the Forker that runs b on a new goroutine only when it
// can take one of n tokens without waiting, and otherwise runs b inline:
// the cheapest bounded-parallelism idiom in plain Go. Waiting for a token
// instead would deadlock once every holder waits for its own children.
func Semaphore(n int) Forker {
	return semaphoreForker{semaphore.NewWeighted(int64(n))}
}

type semaphoreForker struct{ tokens *semaphore.Weighted }

func (f semaphoreForker) Fork(a, b func(Forker)) {
	if !f.tokens.TryAcquire(1) {
		a(f)
		b(f)
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer f.tokens.Release(1)
		b(f)
	}()
	a(f)
	wg.Wait()
}
