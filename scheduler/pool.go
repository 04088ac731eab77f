package scheduler

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftrt/weft/deque"
	"github.com/weftrt/weft/sleep"
	"github.com/weftrt/weft/slots"
)

// ErrClosed is returned for work submitted to a pool that is shutting down
// or closed.
var ErrClosed = errors.New("weft/scheduler: pool closed")

// MaxWorkers is the most workers a pool supports. A worker is meant to
// own a core; pools far larger than the machine spend their time
// searching and waking, and past a few thousand workers even the linear
// costs (a full sweep of every deque before a worker sleeps, Run's lookup
// of its caller) add up. Tasks that block belong in Worker.Block, not in
// extra workers.
const MaxWorkers = 4096

// ErrWorkers is returned by New for a worker count it cannot run.
var ErrWorkers = errors.New("weft/scheduler: invalid worker count")

// ErrHeartbeat is returned by New for a heartbeat interval that is not
// positive.
var ErrHeartbeat = errors.New("weft/scheduler: invalid heartbeat interval")

// Pool is a fixed set of worker goroutines that run fork-join work. Each
// worker owns a deque; idle workers steal from each other and take jobs
// that enter from outside through the pool's injector; a worker with
// nothing to do sleeps (see the sleep package).
//
// Create one with New and stop it with Close or Shutdown. Its methods are
// safe for concurrent use.
type Pool struct {
	cfg      config
	door     door
	workers  []*Worker
	sleep    *sleep.Sleep
	injector deque.Injector[Job]

	// submitMu makes accepting an outside task atomic with respect to
	// Shutdown: submitters hold it shared while they check closing and
	// queue their task, Shutdown holds it exclusively while it sets
	// closing. After that no task can still be on its way into a queue, so
	// what Shutdown sees queued and pending is everything it will ever get.
	submitMu sync.RWMutex
	closing  atomic.Bool // set once, under submitMu; read by taskDone too
	// pending counts tasks accepted from outside (Run, Spawn, Broadcast
	// parts) and not yet finished. The decrement that takes it to zero
	// while closing closes drained.
	pending     atomic.Int64
	drained     chan struct{}
	drainOnce   sync.Once
	termOnce    sync.Once
	exited      sync.WaitGroup // one count per worker goroutine
	injectCount atomic.Uint64  // jobs pushed onto the injector, for Stats

	isDefault bool      // Default's pool, which refuses Close; set once, before it is shared
	epoch     time.Time // Pool.now counts from here; written once by New
	heartbeat int64     // cfg.heartbeat in nanoseconds, for the fork path
}

// New starts a pool. With no options it has runtime.GOMAXPROCS(0) workers.
func New(opts ...Option) (*Pool, error) {
	cfg := newConfig(opts)
	if cfg.workers <= 0 || cfg.workers > MaxWorkers {
		return nil, fmt.Errorf("%w: %d (want 1..%d)", ErrWorkers, cfg.workers, MaxWorkers)
	}
	if cfg.heartbeat <= 0 {
		return nil, fmt.Errorf("%w: %v (want > 0)", ErrHeartbeat, cfg.heartbeat)
	}
	sl, err := sleep.New(cfg.workers, cfg.sleep)
	if err != nil {
		return nil, err
	}
	p := &Pool{cfg: cfg, sleep: sl, drained: make(chan struct{}),
		epoch: time.Now(), heartbeat: int64(cfg.heartbeat)}
	p.door = newDoor(cfg.supplier, cfg.name, cfg.trackerOpts)
	p.workers = make([]*Worker, cfg.workers)
	for i := range p.workers {
		p.workers[i] = newWorker(p, i)
	}
	p.exited.Add(len(p.workers))
	for _, w := range p.workers {
		go w.main()
	}
	return p, nil
}

// Workers returns the number of worker goroutines.
func (p *Pool) Workers() int { return len(p.workers) }

// inject queues j, which holds permit, for any worker, counting it as a
// pending task; the task will call taskDone when it finishes or is
// abandoned. If the pool is closing, the permit goes back unused.
func (p *Pool) inject(j *Job, permit slots.Permit) error {
	err := p.accept(1, func() {
		wasEmpty := p.injector.IsEmpty()
		p.injector.Push(j)
		p.injectCount.Add(1)
		p.sleep.NewJobs(1, wasEmpty)
	})
	if err != nil {
		Repanic(p.door.neverUsed(permit)) // the supplier's panic, to the caller
	}
	return err
}

// accept counts n new pending tasks and runs queue to queue them, unless
// the pool is closing.
func (p *Pool) accept(n int, queue func()) error {
	p.submitMu.RLock()
	defer p.submitMu.RUnlock()
	if p.closing.Load() {
		return ErrClosed
	}
	p.pending.Add(int64(n))
	queue()
	return nil
}

// taskDone ends one pending task.
func (p *Pool) taskDone() {
	if p.pending.Add(-1) == 0 && p.closing.Load() {
		p.drainOnce.Do(func() { close(p.drained) })
	}
}
