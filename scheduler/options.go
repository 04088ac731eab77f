package scheduler

import (
	"fmt"
	"runtime"
	"time"

	"github.com/weftrt/weft/sleep"
	"github.com/weftrt/weft/slots"
)

// DefaultHeartbeat is the default for WithHeartbeat.
const DefaultHeartbeat = 100 * time.Microsecond

// Option configures a Pool; pass options to New.
type Option func(*config)

type config struct {
	workers      int
	workersSet   bool // an explicit 0 is an error, not "the default"
	name         string
	onStart      func(worker int)
	onExit       func(worker int)
	panicHandler func(p *Panic)
	sleep        sleep.Tunables
	supplier     slots.Supplier
	trackerOpts  []slots.TrackerOption
	heartbeat    time.Duration
}

// WithWorkers sets the number of worker goroutines. The default is
// runtime.GOMAXPROCS(0). New fails with ErrWorkers for n <= 0 or more
// than MaxWorkers.
func WithWorkers(n int) Option {
	return func(c *config) { c.workers, c.workersSet = n, true }
}

// WithName sets the name that labels the pool's worker goroutines in
// profiles and goroutine dumps (pprof labels "weft.pool" and
// "weft.worker"). The default is "weft".
func WithName(name string) Option {
	return func(c *config) { c.name = name }
}

// WithStartHook sets a function each worker goroutine runs when it starts,
// before it takes any work of its own accord. Use it to set up per-worker
// state or to lock the goroutine to a thread. A hook that enters its pool
// (Run runs inline there) may run other tasks' jobs while it waits, as
// any task does. A goroutine that replaces one the hook ended with
// runtime.Goexit (t.FailNow in a test's hook) starts without it: run
// again, a hook that always fails would replace goroutines for ever. One
// that a job run inside the hook ended runs the hook again, once.
func WithStartHook(f func(worker int)) Option {
	return func(c *config) { c.onStart = f }
}

// WithExitHook sets a function each worker goroutine runs just before it
// exits, after its last job. A runtime.Goexit in it ends only the hook:
// the worker still exits (or is replaced) and Close still returns.
func WithExitHook(f func(worker int)) Option {
	return func(c *config) { c.onExit = f }
}

// WithPanicHandler sets the function that receives panics from detached
// tasks (Spawn), which have nobody waiting to re-raise them. Without a
// handler such a panic is re-raised on a goroutine of its own, which
// crashes the program: a task's panic is never swallowed. A handler that
// panics crashes the program the same way.
func WithPanicHandler(f func(p *Panic)) Option {
	return func(c *config) { c.panicHandler = f }
}

// WithSleep sets the sleep tunables (see sleep.Tunables).
func WithSleep(t sleep.Tunables) Option {
	return func(c *config) { c.sleep = t }
}

// WithHeartbeat sets how often a busy worker may publish one of its
// private forks to wake a sleeping worker; the default is
// DefaultHeartbeat. A fork stays private to its worker (and costs a few
// nanoseconds) until a heartbeat check finds another worker idle: if that
// worker is awake and searching, the oldest private fork is published at
// once; if it sleeps, at most once per interval. Shorter intervals spread
// fine-grained work to sleeping workers sooner, at the price of more
// wake-ups for pieces that may turn out too small to share. New fails
// with ErrHeartbeat for d <= 0.
func WithHeartbeat(d time.Duration) Option {
	return func(c *config) { c.heartbeat = d }
}

// WithSupplier sets the slot supplier that admits every task entering the
// pool from outside (Run, Spawn, TrySpawn, Broadcast): Run and Spawn
// reserve a slot first (waiting, within their context, for one to be
// free), TrySpawn only takes a free one. A worker marks the slot used when
// it starts the task and releases it when the task ends. The default is
// slots.Unlimited{}. A supplier may be shared by several pools; opts
// configure the pool's slots.Tracker (for example slots.WithLeakHook).
func WithSupplier(s slots.Supplier, opts ...slots.TrackerOption) Option {
	return func(c *config) { c.supplier, c.trackerOpts = s, opts }
}

func newConfig(opts []Option) config {
	c := config{name: "weft", heartbeat: DefaultHeartbeat}
	for i, o := range opts {
		if o == nil {
			panic(fmt.Sprintf("weft/scheduler: New: option %d of %d is nil: want an Option such as WithWorkers(n)", i+1, len(opts)))
		}
		o(&c)
	}
	if !c.workersSet {
		c.workers = runtime.GOMAXPROCS(0)
	}
	if c.supplier == nil {
		c.supplier = slots.Unlimited{}
	}
	return c
}
