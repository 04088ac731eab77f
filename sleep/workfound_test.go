package sleep_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/weftrt/weft/latch"
	"github.com/weftrt/weft/sleep"
)

// A job must not wait in a queue while a worker sleeps. The test scripts
// the window between a worker's successful search and its WorkFound. NewJobs(1, true) wakes no
// sleeper while an awake idle worker exists, relying on that worker to see
// the job; but a worker whose search has already returned another job is
// still counted idle until it calls WorkFound, and it never searches again
// before running that job. If that job is long (here: forever), the posted
// job would stay queued while worker 1 sleeps, unless WorkFound tells the
// leaving worker to look again.
//
// Interleaving (all steps are legal orders of the real code):
//
//	worker 1: searches, announces, searches, sleeps (sleeping = 1)
//	worker 0: StartLooking (awake idle)
//	poster:   job J' visible; NewJobs(1, true): 1 awake idle >= 1 -> wakes nobody
//	worker 0: findWork returns J' (queue empty again), WorkFound not yet called
//	poster:   job J visible;  NewJobs(1, true): 1 awake idle >= 1 -> wakes nobody
//	worker 0: WorkFound; runs J' (a long job)
//
// Nobody will ever search for J while worker 0 is busy, and worker 1 sleeps.
func TestLastSearcherLeavingForOtherWorkLeavesNoJobBehind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := sleep.New(2, sleep.Tunables{})
		if err != nil {
			t.Fatal(err)
		}
		var queued atomic.Int64
		take := func() bool {
			for {
				q := queued.Load()
				if q == 0 {
					return false
				}
				if queued.CompareAndSwap(q, q-1) {
					return true
				}
			}
		}
		var term latch.Owned
		term.Init(s, 1)
		var ran atomic.Int64
		var wg sync.WaitGroup
		wg.Go(func() { // worker 1, the real worker loop
			for {
				idle := s.StartLooking(1)
				for !take() {
					if term.Probe() {
						s.WorkFound()
						return
					}
					s.NoWorkFound(&idle, term.Core())
				}
				s.WorkFound()
				ran.Add(1)
			}
		})
		synctest.Wait()
		if _, sleeping := s.Counts(); sleeping != 1 {
			t.Fatalf("setup: worker 1 should sleep, sleeping=%d", sleeping)
		}

		_ = s.StartLooking(0) // worker 0 starts searching

		queued.Add(1)               // J' visible
		woken := s.NewJobs(1, true) // relies on worker 0
		if !take() {                // worker 0's search returns J'
			t.Fatal("setup: worker 0 should take J'")
		}
		queued.Add(1)               // J visible
		woken += s.NewJobs(1, true) // still relies on worker 0
		// worker 0 goes off to run J' for a long time, after doing what
		// WorkFound asks of a worker that was the last one searching
		if s.WorkFound() && queued.Load() > 0 {
			woken += s.NewJobs(1, false)
		}
		synctest.Wait()

		inactive, sleeping := s.Counts()
		t.Logf("woken=%d queued=%d ran by worker 1=%d inactive=%d sleeping=%d",
			woken, queued.Load(), ran.Load(), inactive, sleeping)
		if queued.Load() != 0 {
			t.Errorf("job J is stranded: queued=%d while worker 1 sleeps (sleeping=%d) and worker 0 is busy",
				queued.Load(), sleeping)
		}

		term.Set()
		wg.Wait()
	})
}

// The same hole through the
// other exit from idleness: the relied-on worker 0 leaves because the latch
// it waited on was set: without WorkFound's answer, the job would wait
// as long as whatever worker 0 runs next.
func TestLastSearcherLeavingOnItsLatchLeavesNoJobBehind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := sleep.New(2, sleep.Tunables{})
		if err != nil {
			t.Fatal(err)
		}
		var queued atomic.Int64
		var term latch.Owned
		term.Init(s, 1)
		var wg sync.WaitGroup
		wg.Go(func() { // worker 1
			idle := s.StartLooking(1)
			for {
				if q := queued.Load(); q > 0 && queued.CompareAndSwap(q, q-1) {
					s.WorkFound()
					idle = s.StartLooking(1)
					continue
				}
				if term.Probe() {
					s.WorkFound()
					return
				}
				s.NoWorkFound(&idle, term.Core())
			}
		})
		synctest.Wait()

		var join latch.Owned // what worker 0 waits on
		join.Init(s, 0)
		_ = s.StartLooking(0)                                   // worker 0 waits for its join, searching
		queued.Add(1)                                           // J visible
		woken := s.NewJobs(1, true)                             // relies on worker 0
		join.Set()                                              // the thief finishes worker 0's half
		if join.Probe() && s.WorkFound() && queued.Load() > 0 { // worker 0 leaves its wait
			woken += s.NewJobs(1, false)
		}
		synctest.Wait() // worker 0 runs on for a long time
		if queued.Load() != 0 {
			_, sleeping := s.Counts()
			t.Errorf("job J is stranded: queued=%d, sleeping=%d, woken=%d", queued.Load(), sleeping, woken)
		}
		term.Set()
		wg.Wait()
	})
}
