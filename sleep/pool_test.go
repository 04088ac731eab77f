package sleep_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftrt/weft/latch"
	"github.com/weftrt/weft/sleep"
)

// miniPool is the smallest pool the sleep protocol can serve: workers take
// jobs from one shared counter (standing in for the deques and the
// injector) and run the worker loop a real pool runs.
type miniPool struct {
	s      *sleep.Sleep
	queued atomic.Int64 // jobs posted and not yet taken
	posted atomic.Int64 // jobs posted in all
	done   atomic.Int64 // jobs run
	term   []latch.Owned
	wg     sync.WaitGroup
	// spawn, if set, runs inside each job: it lets jobs post more jobs
	// from a worker, the way a join does.
	spawn func(p *miniPool)
}

func startPool(t testing.TB, n int, tun sleep.Tunables) *miniPool {
	s, err := sleep.New(n, tun)
	if err != nil {
		t.Fatal(err)
	}
	p := &miniPool{s: s, term: make([]latch.Owned, n)}
	for i := range p.term {
		p.term[i].Init(s, i)
	}
	for i := range n {
		p.wg.Add(1)
		go p.work(i)
	}
	return p
}

func (p *miniPool) work(i int) {
	defer p.wg.Done()
	l := &p.term[i]
	for {
		idle := p.s.StartLooking(i)
		for !p.take() {
			if l.Probe() {
				p.s.WorkFound()
				return
			}
			p.s.NoWorkFound(&idle, l.Core())
		}
		p.s.WorkFound()
		if p.spawn != nil {
			p.spawn(p)
		}
		p.done.Add(1)
	}
}

// post makes n jobs visible, then tells the sleep state, as a pool does,
// and returns how many sleepers NewJobs reported waking.
func (p *miniPool) post(n int) (woken int) {
	p.posted.Add(int64(n))
	wasEmpty := p.queued.Add(int64(n)) == int64(n)
	return p.s.NewJobs(n, wasEmpty)
}

func (p *miniPool) take() bool {
	for {
		q := p.queued.Load()
		if q == 0 {
			return false
		}
		if p.queued.CompareAndSwap(q, q-1) {
			return true
		}
	}
}

// stop sets every worker's terminate latch and waits for them to exit.
func (p *miniPool) stop() {
	for i := range p.term {
		p.term[i].Set()
	}
	p.wg.Wait()
}

func (p *miniPool) wakeups() (total uint64, per []uint64) {
	for i := range p.term {
		w := p.s.WorkerStats(i).Wakeups
		per = append(per, w)
		total += w
	}
	return total, per
}

// waitAllRun waits until every posted job has run. Jobs post more only
// while they run, before they count as done, so once the producers have
// stopped, done == posted means the pool is quiet. A lost wakeup shows up
// here as jobs that stay queued while every worker sleeps; the generous
// deadline only turns that hang into a readable failure.
func waitAllRun(t testing.TB, p *miniPool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for spins := 0; p.done.Load() != p.posted.Load(); spins++ {
		if spins < 1000 {
			runtime.Gosched()
			continue
		}
		if time.Now().After(deadline) {
			inactive, sleeping := p.s.Counts()
			t.Fatalf("stuck: %d of %d jobs done, %d queued, %d inactive, %d sleeping",
				p.done.Load(), p.posted.Load(), p.queued.Load(), inactive, sleeping)
		}
		time.Sleep(100 * time.Microsecond)
	}
}
