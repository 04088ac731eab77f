package intake_test

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/intake/intaketest"
)

// putN queues tasks whose payloads are "0" .. "n-1".
func putN(q *intake.MemQueue, n int) {
	for i := range n {
		q.Put([]byte(strconv.Itoa(i)))
	}
}

// slotsIdle reports whether the worker holds no slot. A worker that still
// polls holds slots for its polls, so this is for a stopped or paused one.
func slotsIdle(w *intake.Worker) bool {
	s := w.Stats().Slots
	return s.InUse == 0 && s.Reserved == 0
}

func newWorker(t testing.TB, cfg intake.Config) *intake.Worker {
	return intaketest.NewWorker(t, cfg, 10*time.Second)
}

func eventually(t testing.TB, d time.Duration, cond func() bool, what string, args ...any) {
	t.Helper()
	intaketest.Eventually(t, d, cond, what, args...)
}

// pauseAtRandom starts n goroutines that pause or resume w at random,
// each after a random wait of up to gap, until stop is closed; then they
// resume it and end. The returned function waits for them.
func pauseAtRandom(w *intake.Worker, n int, gap time.Duration, stop <-chan struct{}) (wait func()) {
	var chaos sync.WaitGroup
	for range n {
		chaos.Go(func() {
			for {
				select {
				case <-stop:
					w.Resume()
					return
				case <-time.After(rand.N(gap)):
				}
				if rand.IntN(2) == 0 {
					w.Pause()
				} else {
					w.Resume()
				}
			}
		})
	}
	return chaos.Wait
}
