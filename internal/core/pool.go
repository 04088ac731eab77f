package core

import (
	"sync"
	"time"

	"github.com/weftrt/weft/deque"
	"github.com/weftrt/weft/sleep"
)

// Config is what Start needs to run the workers. The scheduler package
// validates the user's options and fills it in.
type Config struct {
	Workers   int
	Name      string // pprof label "weft.pool" of the worker goroutines
	OnStart   func(worker int)
	OnExit    func(worker int)
	Sleep     sleep.Tunables
	Heartbeat time.Duration // > 0
	// Owner is the scheduler.Pool that runs this engine, handed back by
	// Owner so that Worker.Pool can return it without core importing
	// scheduler.
	Owner any
}

// Pool is the engine of a scheduler.Pool: the workers, their deques and
// mailboxes, the injector and the sleep state. It knows nothing of slots,
// shutdown policy or panics; scheduler builds those on top.
type Pool struct {
	cfg      Config
	workers  []*Worker
	sleep    *sleep.Sleep
	injector deque.Injector[Job]
	termOnce sync.Once
	exited   sync.WaitGroup // one count per worker goroutine

	epoch     time.Time // Pool.now counts from here; written once by Start
	heartbeat int64     // cfg.Heartbeat in nanoseconds, for the fork path
}

// Start creates the workers and starts their goroutines.
func Start(cfg Config) (*Pool, error) {
	sl, err := sleep.New(cfg.Workers, cfg.Sleep)
	if err != nil {
		return nil, err
	}
	p := &Pool{cfg: cfg, sleep: sl, epoch: time.Now(), heartbeat: int64(cfg.Heartbeat)}
	p.workers = make([]*Worker, cfg.Workers)
	for i := range p.workers {
		p.workers[i] = newWorker(p, i)
	}
	sl.SpinWhile(p.anyLooping)
	p.exited.Add(len(p.workers))
	for _, w := range p.workers {
		go w.main(true)
	}
	return p, nil
}

// Owner returns Config.Owner.
func (p *Pool) Owner() any { return p.cfg.Owner }

// Workers returns the pool's workers, indexed by Worker.Index. The slice
// is never modified after Start.
func (p *Pool) Workers() []*Worker { return p.workers }

// Sleep returns the pool's sleep state.
func (p *Pool) Sleep() *sleep.Sleep { return p.sleep }

// Inject queues j for any worker and wakes one if the sleep protocol says
// one is needed.
func (p *Pool) Inject(j *Job) {
	wasEmpty := p.injector.IsEmpty()
	p.injector.Push(j)
	p.sleep.NewJobs(1, wasEmpty)
}

// TakeInjected removes a job that no worker has taken from the injector,
// or returns nil if there is none.
func (p *Pool) TakeInjected() *Job {
	j, _ := p.injector.Pop()
	return j
}

// Mail queues j for worker i only, and wakes it if it sleeps.
func (p *Pool) Mail(i int, j *Job) {
	p.workers[i].mail.Push(j)
	p.sleep.NewJobFor(i)
}

// Terminate tells every worker to exit when its outermost wait sees it;
// a worker running a task finishes it first. Idempotent.
func (p *Pool) Terminate() {
	p.termOnce.Do(func() {
		for _, w := range p.workers {
			w.term.Set()
		}
	})
}

// Wait returns once every worker goroutine has exited (after Terminate).
func (p *Pool) Wait() { p.exited.Wait() }

// now returns the time since the pool started, in nanoseconds, on the
// monotonic clock.
func (p *Pool) now() int64 { return int64(time.Since(p.epoch)) }
