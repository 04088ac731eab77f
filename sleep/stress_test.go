package sleep_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/weftrt/weft/latch"
	"github.com/weftrt/weft/sleep"
)

// TestStressNoLostJob posts jobs in small bursts, from outside and from
// inside jobs, and waits for each burst to run before the next, with gaps
// that let workers fall asleep or catch them falling asleep. Waiting per
// burst matters: a later post would otherwise wake a worker and hide a
// lost wakeup. A lost wakeup leaves a job queued with every worker asleep
// and fails waitAllRun.
func TestStressNoLostJob(t *testing.T) {
	defer sleep.SetTestHookBeforeSleep(widenWindow)()
	bursts := 5000
	if testing.Short() {
		bursts = 1000
	}
	for _, rounds := range []int{-1, 1, sleep.DefaultSearchRounds} {
		for _, workers := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("rounds=%d/workers=%d", rounds, workers), func(t *testing.T) {
				stressPool(t, workers, rounds, bursts)
			})
		}
	}
}

func stressPool(t *testing.T, workers, rounds, bursts int) {
	p := startPool(t, workers, sleep.Tunables{SearchRounds: rounds})
	defer p.stop()
	p.spawn = func(p *miniPool) {
		if rand.IntN(8) == 0 { // a job that forks another, from a worker
			p.post(1)
		}
	}
	for i := range bursts {
		p.post(1 + rand.IntN(3)*(i%2))
		pause(i)
		waitAllRun(t, p)
	}
}

// widenWindow delays some workers between their last search and their
// attempt to sleep, where a post that skipped the JEC would go unseen.
func widenWindow() {
	if rand.IntN(4) == 0 {
		time.Sleep(time.Duration(rand.IntN(30)) * time.Microsecond)
	}
}

// pause varies the gap between posts so that some posts find the pool
// awake and some find it falling asleep or asleep.
func pause(i int) {
	switch i % 16 {
	case 0:
		time.Sleep(time.Duration(rand.IntN(50)) * time.Microsecond)
	case 1, 2, 3:
		runtime.Gosched()
	}
}

// TestStressLatchWait has worker 0 wait on a latch through the sleep
// protocol while another goroutine sets it at a random moment and a third
// posts spurious work wakeups. A lost latch wakeup hangs the owner.
func TestStressLatchWait(t *testing.T) {
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	s, err := sleep.New(2, sleep.Tunables{SearchRounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var noise sync.WaitGroup
	noise.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				s.NewJobs(1, true)
				runtime.Gosched()
			}
		}
	})
	defer func() { close(stop); noise.Wait() }()
	var l latch.Owned
	for i := range rounds {
		l.Init(s, 0)
		go func() {
			if i%3 == 0 {
				time.Sleep(time.Duration(rand.IntN(20)) * time.Microsecond)
			}
			l.Set()
		}()
		idle := s.StartLooking(0)
		for !l.Probe() {
			s.NoWorkFound(&idle, l.Core())
		}
		s.WorkFound()
	}
	inactive, sleeping := s.Counts()
	if inactive != 0 || sleeping != 0 {
		t.Fatalf("counts not back to zero: inactive=%d sleeping=%d", inactive, sleeping)
	}
}
