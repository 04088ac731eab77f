//go:build !386

package wefttemporal_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/slots"
	wefttemporal "github.com/weftrt/weft/temporal"
	"go.temporal.io/sdk/worker"
)

// A workflow fanning out many activities through a weft Fixed(n) never
// runs more than n of them at once, and does run n: the first n hold
// their slots until the test has seen n running.
func TestFixedBoundsActivities(t *testing.T) {
	const n, total = 3, 24
	sig := newSignal()
	count := &counter{sig: sig}
	gate := make(chan struct{})
	step := heldStep(count, gate, nil, nil)
	sp := newSpy(slots.NewFixed(n), sig)
	tuner, err := wefttemporal.NewTuner(wefttemporal.TunerOptions{Activity: sp})
	require.NoError(t, err)
	w := startWorker(t, "fixed-bounds", tuner, step, worker.Options{})

	run := startFanOut(t, "fixed-bounds", total)
	sig.await(t, "n activities running", func() bool { return count.running.Load() == n })
	close(gate)
	sum, err := result(t, run)
	require.NoError(t, err)
	require.Equal(t, sumOfSquares(total), sum)
	require.EqualValues(t, n, count.peak.Load(), "activities running at once")
	require.EqualValues(t, total, count.started.Load())

	w.Stop()
	st := tuner.Supplier(wefttemporal.Activity).Stats()
	require.Zero(t, st.InUse+st.Reserved, "slots still out after the worker stopped: %+v", st)
	require.GreaterOrEqual(t, st.Issued, uint64(total))
	sp.mu.Lock()
	defer sp.mu.Unlock()
	require.Len(t, sp.marked, total, "slots marked used: one per activity")
	for _, k := range sp.kinds {
		require.Equal(t, "activity", k)
	}
	require.NotEmpty(t, sp.reservations)
	for _, r := range sp.reservations {
		require.Equal(t, wefttemporal.Activity, r.Type)
		require.Equal(t, "fixed-bounds", r.Info.TaskQueue(), "the task queue a weft supplier sees")
		require.NotEmpty(t, r.Info.WorkerIdentity())
	}
}

// Temporal's release reasons reach the weft supplier as weft's: a slot
// whose task ran is released TaskComplete, and the slots the pollers held
// when the worker stopped are released NeverUsed. (The SDK does not export
// its reasons' values; this checks the ones the package assumes.)
func TestReleaseReasonsMatchTheSDK(t *testing.T) {
	sig := newSignal()
	sp := newSpy(slots.NewFixed(4), sig)
	tuner, err := wefttemporal.NewTuner(wefttemporal.TunerOptions{Activity: sp})
	require.NoError(t, err)
	w := startWorker(t, "reasons", tuner, func(i int) (int, error) { return i * i, nil }, worker.Options{})
	sum, err := result(t, startFanOut(t, "reasons", 3))
	require.NoError(t, err)
	require.Equal(t, sumOfSquares(3), sum)
	w.Stop()

	used, unused := 0, 0
	for _, r := range sp.releases() {
		switch {
		case r.Used:
			used++
			require.Equal(t, slots.ReasonComplete, r.Reason.Kind(), "a used slot released %v", r.Reason)
		case r.Reason.Kind() == slots.ReasonNeverUsed:
			unused++
		}
	}
	require.Equal(t, 3, used, "slots released after their activity ran")
	require.NotZero(t, unused, "slots the pollers held at stop, released as never used")
}
