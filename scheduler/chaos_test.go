package scheduler_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
	"github.com/weftrt/weft/slots"
)

var chaosSeed = flag.Uint64("chaos.seed", 0, "TestChaos: run only this seed")

// chaosValue is what a chaos task panics with: the id of the outside call
// it belongs to, so that a waiter can tell its own panic from another's.
type chaosValue struct{ top, n int64 }

// chaos is one iteration of TestChaos: a pool, the calls made on it and
// what they saw.
type chaos struct {
	p       *scheduler.Pool
	workers int
	release chan struct{} // closed by the test: every Block's f waits for it
	ids     atomic.Int64
	mu      sync.Mutex
	ran     map[int64]int // task id -> times run
	errs    []string
	starts  atomic.Int64
	exits   atomic.Int64
	pool    atomic.Pointer[scheduler.Pool] // for the hooks, which may run before New returns
	// supplierGoexit: the supplier's faults are runtime.Goexit calls.
	supplierGoexit bool
}

// hookWork runs a join recursion on the pool from a start or exit hook,
// where Run runs inline: the hook's goroutine is still its worker's.
func (c *chaos) hookWork(on bool) {
	p := c.pool.Load()
	if !on || p == nil {
		return
	}
	var rec func(w *scheduler.Worker, k int) int
	rec = func(w *scheduler.Worker, k int) int {
		if k >= 1<<10 {
			return 1
		}
		a, b := join.Call(w, rec, 2*k, 2*k+1)
		return a + b
	}
	n := 0
	defer func() {
		// A job run while the joins wait may call Goexit, which fails
		// every task suspended under it on this goroutine.
		if r := recover(); r != nil {
			if pan, ok := r.(*scheduler.Panic); !ok || !errors.Is(pan, scheduler.ErrGoexit) {
				c.failf("a hook's Run raised %v", r)
			}
		}
	}()
	if err := p.Run(context.Background(), func(w *scheduler.Worker) error {
		n = rec(w, 1)
		return nil
	}); err != nil || n != 1<<10 {
		c.failf("a hook's Run: %v, %d leaves", err, n)
	}
}

func (c *chaos) failf(format string, args ...any) {
	c.mu.Lock()
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
	c.mu.Unlock()
}

func (c *chaos) mark(id int64) {
	c.mu.Lock()
	c.ran[id]++
	n := c.ran[id]
	c.mu.Unlock()
	if n > 1 {
		c.failf("task %d ran %d times", id, n)
	}
}

func (c *chaos) runs(id int64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ran[id]
}

// body returns a random task belonging to outside call top, nesting up to
// depth more levels of joins, scopes, Blocks and inline entries.
func (c *chaos) body(r *rand.Rand, top int64, depth int) func(*scheduler.Worker) {
	k := r.IntN(14)
	if depth <= 0 {
		k = r.IntN(4)
	}
	n := c.ids.Add(1)
	switch k {
	case 0:
		return func(*scheduler.Worker) {}
	case 1:
		return func(*scheduler.Worker) { panic(chaosValue{top, n}) }
	case 2:
		return func(*scheduler.Worker) { runtime.Goexit() }
	case 3:
		return func(w *scheduler.Worker) { w.Block(func() { <-c.release }) }
	case 4:
		a, b := c.body(r, top, depth-1), c.body(r, top, depth-1)
		return func(w *scheduler.Worker) { join.Join(w, a, b) }
	case 5:
		a, b := c.body(r, top, depth-1), c.body(r, top, depth-1)
		return func(w *scheduler.Worker) {
			scope.Run(w, func(s *scope.Scope) {
				s.Spawn(func(s *scope.Scope) { a(s.Worker()) })
				s.Spawn(func(s *scope.Scope) { b(s.Worker()) })
			})
		}
	case 6: // Run inline from a task
		a := c.body(r, top, depth-1)
		return func(w *scheduler.Worker) {
			chaosMust(w.Pool().Run(context.Background(), func(w *scheduler.Worker) error { a(w); return nil }))
		}
	case 7: // Broadcast from a task
		a := c.body(r, top, depth-1)
		return func(w *scheduler.Worker) { chaosMust(w.Pool().Broadcast(context.Background(), a)) }
	case 8: // Run and Broadcast from Block's f: slotless
		a := c.body(r, top, depth-1)
		bc := r.IntN(2) == 0
		return func(w *scheduler.Worker) {
			p := w.Pool()
			w.Block(func() {
				if bc {
					chaosMust(p.Broadcast(context.Background(), a))
				} else {
					chaosMust(p.Run(context.Background(), func(w *scheduler.Worker) error { a(w); return nil }))
				}
				<-c.release
			})
		}
	case 9: // a detached task from a task: its panic goes to the handler
		id := c.ids.Add(1)
		a := c.body(r, id, depth-1)
		try := r.IntN(2) == 0
		return func(w *scheduler.Worker) {
			// A Broadcast may run this body on every worker: one id a spawn.
			once := c.ids.Add(1)
			f := func(w *scheduler.Worker) { c.mark(once); a(w) }
			if try {
				_ = w.Pool().TrySpawn(f)
			} else {
				_ = w.Pool().Spawn(context.Background(), f)
			}
		}
	case 10: // Block's f panics
		return func(w *scheduler.Worker) { w.Block(func() { panic(chaosValue{top, n}) }) }
	case 11: // Block's f ends its goroutine
		return func(w *scheduler.Worker) { w.Block(func() { runtime.Goexit() }) }
	case 12: // a deep join.Call recursion, one leaf of which does a
		// random thing (past eight levels Call runs its halves as
		// plain calls)
		leaf := c.body(r, top, 0)
		depth := 6 + r.IntN(8)
		pick := r.IntN(1 << depth)
		var rec func(w *scheduler.Worker, k int) int
		rec = func(w *scheduler.Worker, k int) int {
			if k >= 1<<depth {
				if k-1<<depth == pick {
					leaf(w)
				}
				return 1
			}
			a, b := join.Call(w, rec, 2*k, 2*k+1)
			return a + b
		}
		return func(w *scheduler.Worker) {
			if n := rec(w, 1); n != 1<<depth {
				panic(fmt.Sprintf("recursion counted %d leaves, want %d", n, 1<<depth))
			}
		}
	default: // Yield, then go on
		a := c.body(r, top, depth-1)
		return func(w *scheduler.Worker) { w.Yield(); a(w) }
	}
}

// chaosMust re-raises an entry's error as a panic, for the outside caller to
// check: only ErrClosed may come back from a pool that is shutting down.
func chaosMust(err error) {
	if err != nil {
		panic(err)
	}
}

// check classifies what an outside call returned, r being what it
// panicked with. ok reports whether the call may have run its task.
func (c *chaos) check(what string, top int64, err error, r any) {
	if r != nil {
		pan, ok := r.(*scheduler.Panic)
		if !ok {
			c.failf("%s %d: raised a %T, not a *Panic: %v", what, top, r, r)
			return
		}
		c.checkPanic(what, top, pan)
		return
	}
	if err != nil && !errors.Is(err, scheduler.ErrClosed) && !errors.Is(err, scheduler.ErrNoSlot) &&
		!errors.Is(err, context.Canceled) {
		c.failf("%s %d: error %v", what, top, err)
	}
}

func (c *chaos) checkPanic(what string, top int64, pan *scheduler.Panic) {
	switch v := pan.Value.(type) {
	case chaosValue:
		if top >= 0 && v.top != top {
			c.failf("%s %d: got the panic of task %d", what, top, v.top)
		}
	case chaosSupplierValue: // anyone's: the supplier failed on some task's slot
	case error:
		if !errors.Is(v, scheduler.ErrGoexit) && !errors.Is(v, scheduler.ErrClosed) {
			c.failf("%s %d: panic with error %v", what, top, v)
		}
	default:
		c.failf("%s %d: panic with %T %v", what, top, v, v)
	}
}

// outside makes one random outside call.
func (c *chaos) outside(r *rand.Rand) {
	top := c.ids.Add(1)
	f := c.body(r, top, 1+r.IntN(3))
	task := func(w *scheduler.Worker) { c.mark(top); f(w) }
	ctx := context.Background()
	if r.IntN(4) == 0 { // a caller that gives up waiting for a slot
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		spins := r.IntN(50)
		go func() {
			for range spins {
				runtime.Gosched()
			}
			cancel()
		}()
	}
	var err error
	op := r.IntN(7)
	if op == 6 {
		c.sure(r, top, ctx)
		return
	}
	func() {
		defer func() { c.check(fmt.Sprint("op", op), top, err, recover()) }()
		switch op {
		case 0, 1:
			err = c.p.Run(ctx, func(w *scheduler.Worker) error { task(w); return nil })
			if err == nil && c.runs(top) != 1 {
				c.failf("Run %d returned nil, ran %d times", top, c.runs(top))
			}
			if err != nil && c.runs(top) != 0 {
				c.failf("Run %d returned %v, ran %d times", top, err, c.runs(top))
			}
		case 2:
			err = c.p.Spawn(ctx, task)
		case 3:
			err = c.p.TrySpawn(task)
		case 4:
			err = c.p.Broadcast(ctx, f)
		case 5:
			err = join.On(context.Background(), c.p, task, c.body(r, top, 1))
		}
	}()
}

// sure runs a task that fails for certain, on its own or in a Block's f,
// and checks that a Run that ran it raises exactly that failure.
func (c *chaos) sure(r *rand.Rand, top int64, ctx context.Context) {
	want := any(chaosValue{top, 0})
	fail := func() { panic(chaosValue{top, 0}) }
	if r.IntN(3) == 0 {
		want, fail = scheduler.ErrGoexit, runtime.Goexit
	}
	var task func(*scheduler.Worker)
	switch r.IntN(3) {
	case 0:
		task = func(*scheduler.Worker) { c.mark(top); fail() }
	case 1:
		task = func(w *scheduler.Worker) { c.mark(top); w.Block(func() { <-c.release; fail() }) }
	case 2:
		task = func(w *scheduler.Worker) { c.mark(top); w.Block(func() { <-c.release }); fail() }
	}
	var err error
	returned := false
	defer func() {
		rec := recover()
		if !returned && rec == nil {
			// runtime.Goexit on this goroutine: only a supplier's, in
			// ReleaseSlot when the pool refused the task (closing).
			if c.supplierGoexit && c.runs(top) == 0 {
				return
			}
			c.failf("Run %d: the caller's goroutine ended, ran %d", top, c.runs(top))
			return
		}
		ran := c.runs(top)
		pan, _ := rec.(*scheduler.Panic)
		switch {
		case ran == 1 && (pan == nil || pan.Value != want):
			c.failf("Run %d: its task failed with %v, Run returned %v and raised %v", top, want, err, rec)
		case ran == 0 && rec != nil:
			// The supplier failed to mark the slot: the task did not run.
			if pan == nil {
				c.failf("Run %d: raised a %T: %v", top, rec, rec)
			} else if _, ok := pan.Value.(chaosSupplierValue); !ok && !errors.Is(pan, scheduler.ErrGoexit) {
				c.failf("Run %d: did not run its task and raised %v", top, rec)
			}
		case ran == 0 && !errors.Is(err, scheduler.ErrClosed) && !errors.Is(err, context.Canceled):
			c.failf("Run %d: did not run its task and returned %v", top, err)
		}
	}()
	err = c.p.Run(ctx, func(w *scheduler.Worker) error { task(w); return nil })
	returned = true
}

// TestChaos fires random mixes of every entry, panics, Goexits and Blocks
// at small pools, with Shutdown or Close racing them, and checks that
// every call returns what it may, every task runs at most once, and the
// pool ends with nothing pending and every slot free.
func TestChaos(t *testing.T) {
	iters := 300
	if testing.Short() {
		iters = 30
	}
	base := rand.Uint64()
	if *chaosSeed != 0 {
		base, iters = *chaosSeed, 1
	}
	for i := range iters {
		seed := base + uint64(i)
		if !runChaos(t, seed) {
			t.Fatalf("seed %d failed (rerun with -chaos.seed=%d)", seed, seed)
		}
	}
}

func runChaos(t *testing.T, seed uint64) bool {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	c := &chaos{workers: 1 + r.IntN(4), release: make(chan struct{}),
		ran: map[int64]int{}}
	var startGoexit, exitGoexit atomic.Int64 // the hook's nth call ends its goroutine
	var hookEnded, jobEnded atomic.Int64
	hookRuns := r.IntN(2) == 0 // the hooks fork work of their own
	startGoexit.Store(int64(r.IntN(8)))
	exitGoexit.Store(int64(r.IntN(8)))
	opts := []scheduler.Option{
		scheduler.WithWorkers(c.workers),
		scheduler.WithPanicHandler(func(pan *scheduler.Panic) {
			c.checkPanic("handler", -1, pan)
		}),
		scheduler.WithStartHook(func(int) {
			c.starts.Add(1)
			// A job that the hook's work runs while it waits may call
			// Goexit: that ends the goroutine inside the hook, but it is
			// no failure of the hook's, and the replacement runs the hook
			// again, once: if a job ends that goroutine inside the hook
			// too, the next one starts without it.
			returned := false
			defer func() {
				if !returned {
					jobEnded.Add(1)
				}
			}()
			c.hookWork(hookRuns)
			returned = true
			if startGoexit.Add(-1) == 0 {
				// The replacement starts without the hook; both goroutines
				// run the exit hook.
				hookEnded.Add(1)
				runtime.Goexit()
			}
		}),
		scheduler.WithExitHook(func(int) {
			c.exits.Add(1)
			c.hookWork(hookRuns)
			if exitGoexit.Add(-1) == 0 {
				runtime.Goexit() // ends only the hook
			}
		}),
	}
	if r.IntN(2) == 0 { // publish forks at nearly every join: more steals
		opts = append(opts, scheduler.WithHeartbeat(time.Duration(1+r.IntN(2000))))
	}
	var fixed *slots.Fixed
	if r.IntN(3) > 0 {
		fixed = slots.NewFixed(1 + r.IntN(4))
		var sup slots.Supplier = fixed
		if r.IntN(3) == 0 {
			cs := &chaosSupplier{Fixed: fixed, goexit: r.IntN(2) == 0,
				markEvery: 2 + r.Int64N(8), releaseEvery: 2 + r.Int64N(8)}
			c.supplierGoexit = cs.goexit
			sup = cs
		}
		opts = append(opts, scheduler.WithSupplier(sup))
	}
	p, err := scheduler.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	c.p = p
	c.pool.Store(p)

	var callers sync.WaitGroup
	for g := range 2 + r.IntN(4) {
		gr := rand.New(rand.NewPCG(seed, uint64(g)))
		ops := 1 + gr.IntN(12)
		callers.Go(func() {
			for range ops {
				c.outside(gr)
			}
		})
	}
	stopped := make(chan struct{})
	mode := r.IntN(3)
	spins, relSpins, cancelSpins := r.IntN(200), r.IntN(400), r.IntN(100)
	go func() {
		defer close(stopped)
		for range spins {
			runtime.Gosched()
		}
		switch mode {
		case 0:
			p.Close()
		case 1: // a Shutdown whose deadline passes at some point
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				for range cancelSpins {
					runtime.Gosched()
				}
				cancel()
			}()
			_ = p.Shutdown(ctx)
			cancel()
			p.Close()
		case 2: // a Shutdown already past its deadline
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_ = p.Shutdown(ctx)
			p.Close()
		}
	}()
	go func() {
		for range relSpins {
			runtime.Gosched()
		}
		close(c.release)
	}()
	second := make(chan struct{})
	secondMode, secondSpins := r.IntN(3), r.IntN(300)
	go func() {
		defer close(second)
		for range secondSpins {
			_ = p.Stats()
			runtime.Gosched()
		}
		switch secondMode {
		case 0:
			p.Close()
		case 1:
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_ = p.Shutdown(ctx)
		}
	}()
	all := make(chan struct{})
	go func() { callers.Wait(); <-stopped; <-second; close(all) }()
	select {
	case <-all:
	case <-time.After(30 * time.Second):
		var b strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
		fmt.Fprintf(os.Stderr, "seed %d: hang\n%s", seed, b.String())
		t.Errorf("seed %d: a call or Close did not return in 30s (goroutines dumped)", seed)
		return false
	}
	p.Close()
	s := p.Stats()
	if s.Pending != 0 || s.Slots.InUse != 0 || s.Slots.Reserved != 0 {
		c.failf("stats after Close: %+v", s)
	}
	if fixed != nil && s.Slots.Available != s.Slots.Max {
		c.failf("slots not all free: %+v", s.Slots)
	}
	// A goroutine that the start hook ended is replaced without the hook,
	// and both run the exit hook.
	// Every goroutine runs the exit hook; those that start without the
	// start hook follow one that the hook ended, or two in a row that a
	// job ended inside it.
	st, ex := c.starts.Load(), c.exits.Load()
	hookless, je := ex-st-hookEnded.Load(), jobEnded.Load()
	if st < int64(c.workers) || hookless < 0 || hookless > je/2 {
		c.failf("start hook ran %d times (ended by a job %d, by itself %d), exit hook %d, workers %d",
			st, je, hookEnded.Load(), ex, c.workers)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.errs {
		t.Errorf("seed %d: %s", seed, e)
	}
	return len(c.errs) == 0
}

// chaosSupplierValue is what chaosSupplier panics with.
type chaosSupplierValue struct{}

// chaosSupplier is a Fixed supplier whose every markEvery-th MarkSlotUsed
// and releaseEvery-th ReleaseSlot fail (panic, or runtime.Goexit) after
// doing their work.
type chaosSupplier struct {
	*slots.Fixed
	goexit                  bool
	markEvery, releaseEvery int64
	marks, releases         atomic.Int64
}

func (s *chaosSupplier) fail() {
	if s.goexit {
		runtime.Goexit()
	}
	panic(chaosSupplierValue{})
}

func (s *chaosSupplier) MarkSlotUsed(u slots.UsedInfo) {
	s.Fixed.MarkSlotUsed(u)
	if s.marks.Add(1)%s.markEvery == 0 {
		s.fail()
	}
}

func (s *chaosSupplier) ReleaseSlot(ri slots.ReleaseInfo) {
	s.Fixed.ReleaseSlot(ri)
	if s.releases.Add(1)%s.releaseEvery == 0 {
		s.fail()
	}
}
