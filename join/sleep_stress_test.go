package join_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/sleep"
)

// TestStressJoinsThroughSleep drives every path between the deques, the
// latches and the sleep protocol at once, on a pool whose workers sleep as
// soon as they can (no spin rounds) and whose heartbeat publishes at every
// check: recursive joins whose halves are published and stolen (the owner
// sleeping on the fork's latch until the thief sets it, or leaving its
// search when it is set), leaves of random length (some long enough for
// every other worker to fall asleep), and jobs injected from outside
// meanwhile. Each tree's sum checks that every half ran exactly once; a
// lost wakeup (a job queued or a latch set while its worker sleeps for
// good) fails the deadline instead of hanging the test binary.
func TestStressJoinsThroughSleep(t *testing.T) {
	trees, outside := 1000, 4000
	if testing.Short() {
		trees, outside = 100, 400
	}
	for _, workers := range []int{2, 3, 5} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			p, err := scheduler.New(scheduler.WithWorkers(workers),
				scheduler.WithSleep(sleep.Tunables{SearchRounds: -1}),
				scheduler.WithHeartbeat(time.Nanosecond))
			require.NoError(t, err)
			defer p.Close()
			done := make(chan struct{})
			var fails atomic.Int64
			go func() {
				defer close(done)
				var wg sync.WaitGroup
				var ran atomic.Int64
				allRan := make(chan struct{})
				wg.Go(func() { // outside injections, some while trees run
					for i := range outside {
						if err := p.Spawn(context.Background(), func(*scheduler.Worker) {
							if ran.Add(1) == int64(outside) {
								close(allRan)
							}
						}); err != nil {
							fails.Add(1)
						}
						if i%16 == 0 {
							// A gap in the injections, for idle workers to
							// fall asleep in before the next one wakes them.
							spinFor(time.Duration(rand.IntN(40)) * time.Microsecond)
						}
					}
				})
				for i := range trees {
					var sum int
					seed := uint64(i)
					if err := p.Run(context.Background(), func(w *scheduler.Worker) error {
						sum = stressTree(w, 0, 7, seed)
						return nil
					}); err != nil || sum != 1<<7 {
						fails.Add(1)
					}
				}
				wg.Wait()
				if fails.Load() == 0 {
					<-allRan // the deadline below catches a lost one
				}
			}()
			select {
			case <-done:
			case <-time.After(3 * time.Minute):
				st := p.Stats()
				t.Fatalf("stuck: a job or a latch set was lost (sleeps=%d, wakeups=%d)", st.Sleeps, st.Wakeups)
			}
			require.Zero(t, fails.Load(), "wrong sums, errors or lost outside jobs")
		})
	}
}

// stressTree sums 1 over the 2^depth leaves of a binary tree of joins; a
// leaf spins for a random time, now and then long enough for idle workers
// to fall asleep.
func stressTree(w *scheduler.Worker, level, depth int, seed uint64) int {
	if level == depth {
		r := rand.New(rand.NewPCG(seed, uint64(level)))
		switch r.IntN(16) {
		case 0:
			spinFor(time.Duration(r.IntN(200)) * time.Microsecond)
		case 1, 2, 3:
			spinFor(time.Duration(r.IntN(5)) * time.Microsecond)
		}
		return 1
	}
	a, b := join.Call(w, func(w *scheduler.Worker, s uint64) int {
		return stressTree(w, level+1, depth, s)
	}, seed*2654435761+1, seed*40503+7)
	return a + b
}

func spinFor(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}
