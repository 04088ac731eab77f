//go:build !386

package wefttemporal_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/slots"
	wefttemporal "github.com/weftrt/weft/temporal"
	"go.temporal.io/sdk/worker"
)

// Pausing the activity supplier stops new activities from starting while
// the running ones finish; Resume lets the rest through, and every
// activity runs exactly once.
//
// The test pauses with all n slots in use, so no slot is reserved and
// waiting for a task: the guarantee is then that nothing new starts at
// all. It proves a poller asked while paused: a poller blocked in the
// inner Fixed when Pause came is handed a freed slot, which Pauseable
// gives back; the test waits for that grant before it looks.
func TestPauseStopsNewActivities(t *testing.T) {
	const n, total = 4, 12
	sig := newSignal()
	count := &counter{sig: sig}
	var mu sync.Mutex
	runs := make(map[int]int)
	gate := make(chan struct{})
	step := heldStep(count, gate, func(i int) {
		mu.Lock()
		runs[i]++
		mu.Unlock()
	}, nil)
	inner := newSpy(slots.NewFixed(n), sig)
	activities := slots.NewPauseable(inner)
	tuner, err := wefttemporal.NewTuner(wefttemporal.TunerOptions{Activity: activities})
	require.NoError(t, err)
	startWorker(t, "pause", tuner, step, worker.Options{})
	sup := tuner.Supplier(wefttemporal.Activity)

	run := startFanOut(t, "pause", total)
	sig.await(t, "every slot in use and a poller waiting for one", func() bool {
		return count.running.Load() == n && inner.waiting.Load() > 0
	})
	activities.Pause(slots.PauseOptions{})
	issued, granted := sup.Stats().Issued, inner.reserved.Load()

	close(gate) // the running activities finish
	sig.await(t, "the running activities to finish, their slots to come back, and one to be handed back", func() bool {
		return count.stopped.Load() == n && sup.Stats().InUse == 0 && inner.reserved.Load() > granted
	})
	require.EqualValues(t, n, count.started.Load(), "activities started while paused")
	require.Equal(t, issued, sup.Stats().Issued, "slots reserved while paused")

	activities.Resume()
	sum, err := result(t, run)
	require.NoError(t, err)
	require.Equal(t, sumOfSquares(total), sum)
	require.LessOrEqual(t, count.peak.Load(), int32(n))
	mu.Lock()
	defer mu.Unlock()
	for i := range total {
		require.Equal(t, 1, runs[i], "runs of activity %d", i)
	}
}
