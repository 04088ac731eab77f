//go:build !386

package wefttemporal_test

import (
	"crypto/sha256"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/slots"
	wefttemporal "github.com/weftrt/weft/temporal"
	"go.temporal.io/sdk/worker"
)

// cpuLoad is a slots.Sampler that reports the CPU of CPU-heavy activities:
// each slot the worker holds for one uses perSlot of the machine. The
// readings are injected, so the test does not depend on how fast this
// machine is; and they follow the slots at once, so they do not depend on
// how long a reserved slot takes to become a running activity either (a
// lag the supplier's LoadDelay is for, tested in package slots).
type cpuLoad struct {
	slots   atomic.Pointer[wefttemporal.Supplier]
	perSlot float64
	reads   atomic.Int64
	sig     *signal
}

func (l *cpuLoad) Sample() (slots.Usage, error) {
	defer l.sig.changed()
	l.reads.Add(1)
	held := 0
	if s := l.slots.Load(); s != nil {
		st := s.Stats()
		held = st.InUse + st.Reserved
	}
	return slots.Usage{CPU: l.perSlot * float64(held), Memory: 0.1}, nil
}

// The resource-based supplier bounds activities by CPU: with each activity
// taking 30% of the CPU and a target of 70%, it runs two at once (three
// for a moment at most, the one slot of overshoot its controller allows),
// well under its MaxSlots.
func TestResourceBasedBoundsActivities(t *testing.T) {
	const total = 8
	sig := newSignal()
	count := &counter{sig: sig}
	gate := make(chan struct{})
	// Held until the test has watched the budget settle, then some real
	// work.
	step := heldStep(count, gate, nil, func(i int) {
		h := sha256.Sum256([]byte{byte(i)})
		for range 1000 {
			h = sha256.Sum256(h[:])
		}
	})
	load := &cpuLoad{perSlot: 0.3, sig: sig}
	rb, err := slots.NewResourceBased(slots.ResourceOptions{
		TargetCPU: 0.7, TargetMemory: 0.9,
		MinSlots: 1, MaxSlots: total,
		SampleInterval: time.Millisecond,
		Sampler:        load,
	})
	require.NoError(t, err)
	tuner, err := wefttemporal.NewTuner(wefttemporal.TunerOptions{Activity: rb})
	require.NoError(t, err)
	load.slots.Store(tuner.Supplier(wefttemporal.Activity))
	startWorker(t, "resource", tuner, step, worker.Options{})

	run := startFanOut(t, "resource", total)
	sig.await(t, "two activities running", func() bool { return count.running.Load() >= 2 })
	reads := load.reads.Load()
	sig.await(t, "twenty more readings with two running", func() bool { return load.reads.Load() >= reads+20 })
	require.LessOrEqual(t, count.peak.Load(), int32(3), "activities at once, CPU target 70%%, 30%% each; %+v", rb.State())
	require.LessOrEqual(t, rb.State().Budget, 3, "budget: %+v", rb.State())

	close(gate)
	sum, err := result(t, run)
	require.NoError(t, err)
	require.Equal(t, sumOfSquares(total), sum)
	require.LessOrEqual(t, count.peak.Load(), int32(3))
}
