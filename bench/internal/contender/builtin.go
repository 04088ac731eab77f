package contender

import (
	"context"

	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/internal/work"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// The contenders every build has, in the order the tables list them.
func init() {
	Register(Contender{
		Name: "sequential", Role: result.Baseline, Caps: Seq | Submit,
		Doc:   "plain sequential code on one goroutine; no pool, jobs run inline",
		Start: func(int) (Instance, error) { return inline{}, nil },
	})
	Register(Contender{
		Name: "weft", Role: result.Weft, Caps: Fork | Recommended | Submit | Resident,
		Doc:   "a weft pool running the form docs/forks.md recommends: the hand-written kernel where the workload has one (join.Plain, then join.Call), else join.Call over the workload's closures (loops: par.ReduceRange with a closure over the body); Pool.Spawn for jobs (unlimited door)",
		Start: func(n int) (Instance, error) { return StartWeft(n) },
	})
	Register(Contender{
		Name: "weft-closures", Role: result.Weft, Caps: Fork | Closures,
		Doc:   "a weft pool forking over the workload's closures (join.Call on them, as join.Join would run them), where weft runs a kernel: the closure form (loops: the range halved by hand over join.Call, as the alternatives cut it)",
		Start: func(n int) (Instance, error) { return StartWeft(n) },
	})
	Register(Contender{
		Name: "weft-values", Role: result.Weft, Caps: Kernel,
		Doc:   "a weft pool running the workload's hand-written kernel, where it has one: join.Call with arguments and results by value, no allocation per fork (loops: par.ReduceRangeWith, the kernel passed as the loop's data)",
		Start: func(n int) (Instance, error) { return StartWeft(n) },
	})
	// Only Submit: the door admits tasks from outside, so in the fork-join
	// suites (one Run per repetition) weft-fixed would be weft again.
	Register(Contender{
		Name: "weft-fixed", Role: result.Weft, Caps: Submit,
		Doc: "a weft pool whose door admits at most one task per worker (slots.NewFixed), Pool.Spawn for jobs",
		Start: func(n int) (Instance, error) {
			return StartWeft(n, scheduler.WithSupplier(slots.NewFixed(n)))
		},
	})
	Register(Contender{
		Name: "goroutines", Role: result.Alternative, Caps: Fork | Submit,
		Doc:   "a new goroutine per fork or job, joined with sync.WaitGroup",
		Start: func(int) (Instance, error) { return forker{work.Goroutines{}}, nil },
	})
	Register(Contender{
		Name: "errgroup", Role: result.Alternative, Caps: Fork,
		Doc:   "a new golang.org/x/sync/errgroup.Group per fork",
		Start: func(int) (Instance, error) { return forker{work.Errgroup{}}, nil },
	})
	Register(Contender{
		Name: "semaphore", Role: result.Alternative, Caps: Fork,
		Doc:   "a goroutine per fork while one of GOMAXPROCS tokens is free (semaphore.TryAcquire), else inline",
		Start: func(n int) (Instance, error) { return forker{work.Semaphore(n)}, nil },
	})
}

// inline runs everything on the caller's goroutine.
type inline struct{}

func (inline) Close() {}

func (inline) Submit(f func()) error {
	f()
	return nil
}

// forker is a contender that is nothing but a Forker, plus a new
// goroutine per submitted job (used by goroutines only).
type forker struct{ f work.Forker }

func (forker) Close() {}

func (c forker) Fork(root func(work.Forker)) error {
	root(c.f)
	return nil
}

func (forker) Submit(f func()) error {
	go f()
	return nil
}

// Weft is a started weft pool.
type Weft struct{ Pool *scheduler.Pool }

// StartWeft starts a pool of n workers with opts added.
func StartWeft(n int, opts ...scheduler.Option) (*Weft, error) {
	opts = append([]scheduler.Option{scheduler.WithWorkers(n), scheduler.WithName("weftbench")}, opts...)
	p, err := scheduler.New(opts...)
	if err != nil {
		return nil, err
	}
	return &Weft{p}, nil
}

// Close shuts the pool down.
func (w *Weft) Close() { w.Pool.Close() }

// Fork runs root on a worker, forking with work.Weft.
func (w *Weft) Fork(root func(work.Forker)) error {
	return w.Pool.Run(context.Background(), func(wk *scheduler.Worker) error {
		root(work.Weft(wk))
		return nil
	})
}

// RunKernel runs k on a worker.
func (w *Weft) RunKernel(k func(*scheduler.Worker)) error {
	return w.Pool.Run(context.Background(), func(w *scheduler.Worker) error { k(w); return nil })
}

// Submit spawns f.
func (w *Weft) Submit(f func()) error {
	return w.Pool.Spawn(context.Background(), func(*scheduler.Worker) { f() })
}
