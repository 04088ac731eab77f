package sleep_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/weftrt/weft/latch"
	"github.com/weftrt/weft/sleep"
)

// TestWakeAllReachesASleepyWorker: WakeAll is documented as the way to make
// every worker see a condition such as "the pool is terminating". A worker
// that has announced sleepiness but not yet blocked is not blocked, so
// waking the blocked ones alone misses it: it then blocks for good beside a
// condition it never looked at. WakeAll must also bump the JEC, as NewJobs
// does, so that the sleepy worker's registration fails and it looks again.
//
// Interleaving (each step a legal order of the real code):
//
//	worker: StartLooking; NoWorkFound (announces sleepy, JEC even);
//	        loads stop (false); its final search finds nothing
//	other:  stop = true; WakeAll (nobody is blocked yet)
//	worker: NoWorkFound (tries to sleep: the JEC it saw is unchanged)
func TestWakeAllReachesASleepyWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := sleep.New(1, sleep.Tunables{SearchRounds: -1})
		if err != nil {
			t.Fatal(err)
		}
		var l latch.Owned // never set: the worker waits for stop only
		l.Init(s, 0)
		var stop atomic.Bool
		announced := make(chan struct{})
		woke := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			idle := s.StartLooking(0)
			s.NoWorkFound(&idle, l.Core()) // no spin rounds: announce sleepy
			if !idle.Final() {
				t.Error("the worker did not announce sleepiness")
			}
			// The loop's check of stop comes before WakeAll's store ...
			if stop.Load() {
				t.Error("stop set too early")
			}
			close(announced)
			<-woke
			// ... and the final search finds nothing, so NoWorkFound
			// tries to sleep: it must not block.
			for {
				s.NoWorkFound(&idle, l.Core())
				if stop.Load() {
					break
				}
			}
			s.WorkFound()
		})
		<-announced
		stop.Store(true)
		s.WakeAll()
		close(woke)
		synctest.Wait()
		if inactive, sleeping := s.Counts(); sleeping != 0 {
			t.Errorf("the worker sleeps after WakeAll (inactive=%d, sleeping=%d)", inactive, sleeping)
			l.Set() // let it go: its latch wakes it
		}
		wg.Wait()
	})
}
