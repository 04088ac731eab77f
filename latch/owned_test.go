package latch_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/weftrt/weft/latch"
)

// recordingWaker records which workers it was asked to wake.
type recordingWaker struct {
	mu    sync.Mutex
	woken []int
}

func (w *recordingWaker) WakeWorker(i int) {
	w.mu.Lock()
	w.woken = append(w.woken, i)
	w.mu.Unlock()
}

func TestOwnedWakesOwnerOnlyWhenSleeping(t *testing.T) {
	for _, st := range []latch.State{latch.Unset, latch.Sleepy, latch.Sleeping, latch.Set} {
		t.Run(st.String(), func(t *testing.T) {
			w := &recordingWaker{}
			var l latch.Owned
			l.Init(w, 3)
			driveTo(l.Core(), st)
			l.Set()
			assert.True(t, l.Probe())
			if st == latch.Sleeping {
				assert.Equal(t, []int{3}, w.woken)
			} else {
				assert.Empty(t, w.woken)
			}
		})
	}
}

func driveTo(c *latch.Core, s latch.State) {
	switch s {
	case latch.Set:
		c.Set()
	case latch.Sleeping:
		c.GetSleepy()
		c.FallAsleep()
	case latch.Sleepy:
		c.GetSleepy()
	}
}

func TestOwnedInitNilWakerPanics(t *testing.T) {
	var l latch.Owned
	assert.PanicsWithValue(t, "weft/latch: Owned.Init with a nil Waker", func() { l.Init(nil, 0) })
}

// TestOwnedReuseAfterSet reuses one latch for many jobs, re-initialising it
// for another owner the moment it is seen set. The race detector fails this
// test if Set reads the latch's fields after its swap.
func TestOwnedReuseAfterSet(t *testing.T) {
	w := &recordingWaker{}
	var l latch.Owned
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	for i := range rounds {
		l.Init(w, i)
		done := make(chan struct{})
		go func() { l.Set(); close(done) }()
		for !l.Probe() {
			// Let the setter run: with GOMAXPROCS 1 it would wait for
			// the runtime to preempt this loop, 20000 times.
			runtime.Gosched()
		}
		l.Init(w, -1) // reuse while the setter may still be returning
		<-done
	}
}
