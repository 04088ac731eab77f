package scheduler

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/weftrt/weft/internal/core"
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
	cfg  config
	door door
	eng  *core.Pool // the workers, their deques, the injector, sleep

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
	injectCount atomic.Uint64 // jobs pushed onto the injector, for Stats

	isDefault bool // Default's pool, which refuses Close; set once, before it is shared
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
	p := &Pool{cfg: cfg, drained: make(chan struct{})}
	eng, err := core.Start(core.Config{Workers: cfg.workers, Name: cfg.name,
		OnStart: cfg.onStart, OnExit: cfg.onExit, Sleep: cfg.sleep,
		Heartbeat: cfg.heartbeat, Owner: p})
	if err != nil {
		return nil, fmt.Errorf("weft/scheduler: WithSleep: %w", err)
	}
	p.eng = eng
	p.door = newDoor(cfg.supplier, cfg.name, cfg.trackerOpts)
	return p, nil
}

// Workers returns the number of worker goroutines.
func (p *Pool) Workers() int { return len(p.eng.Workers()) }

// Closed reports whether Shutdown or Close has begun: from then on the
// pool refuses new tasks with ErrClosed. Code that may finish a small
// piece of work without the pool (par's On forms run a small loop on the
// calling goroutine) asks it, so that a closed pool is reported alike
// whichever way the work would have gone. A Close that races with the
// call may not be seen yet; the work then goes on as if it came first.
func (p *Pool) Closed() bool { return p.closing.Load() }

// inject queues j, which holds permit, for any worker, counting it as a
// pending task; the task will call taskDone when it finishes or is
// abandoned. If the pool is closing, the permit goes back unused.
func (p *Pool) inject(j *core.Job, permit slots.Permit) error {
	err := p.accept(1, func() {
		p.injectCount.Add(1)
		p.eng.Inject(j)
	})
	if err != nil {
		core.Repanic(p.door.neverUsed(permit)) // the supplier's panic, to the caller
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
