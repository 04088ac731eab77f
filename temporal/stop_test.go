//go:build !386

package wefttemporal_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/slots"
	wefttemporal "github.com/weftrt/weft/temporal"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
)

var errWorkerStopping = errors.New("the worker is stopping")

// A worker stopped while its activities run gives every permit back: the
// Tracker shows nothing reserved or in use, the weft supplier has all its
// slots, no permit was dropped (leak detection is on) and no call broke
// the protocol.
func TestStopReleasesEveryPermit(t *testing.T) {
	const n = 3
	sig := newSignal()
	count := &counter{sig: sig}
	step := func(ctx context.Context, i int) (int, error) {
		count.enter()
		defer count.leave()
		select {
		case <-activity.GetWorkerStopChannel(ctx):
			return 0, errWorkerStopping
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	var mu sync.Mutex
	var leaks []slots.Leak
	var protocol []error
	fixed := slots.NewFixed(n)
	tuner, err := wefttemporal.NewTuner(wefttemporal.TunerOptions{
		Activity: fixed,
		Options: []wefttemporal.Option{
			wefttemporal.WithLeakHook(func(l slots.Leak) { mu.Lock(); leaks = append(leaks, l); mu.Unlock() }),
			wefttemporal.WithErrorHook(func(err error) { mu.Lock(); protocol = append(protocol, err); mu.Unlock() }),
		},
	})
	require.NoError(t, err)
	w := startWorker(t, "stop", tuner, step, worker.Options{})

	startFanOut(t, "stop", 2*n)
	sig.await(t, "every slot in use", func() bool { return count.running.Load() == n })
	w.Stop()

	st := tuner.Supplier(wefttemporal.Activity).Stats()
	require.Zero(t, st.InUse, "slots in use after Stop: %+v", st)
	require.Zero(t, st.Reserved, "slots reserved after Stop: %+v", st)
	require.Zero(t, st.Leaked)
	require.EqualValues(t, n, count.stopped.Load(), "activities that returned")
	for range n {
		_, ok := fixed.TryReserveSlot(slots.ReserveContext{})
		require.True(t, ok, "the Fixed did not get all its slots back")
	}
	mu.Lock()
	defer mu.Unlock()
	require.Empty(t, leaks)
	require.Empty(t, protocol)
}
