package intake_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// A pool whose door is bounded (nested admission, which the package doc
// says still works): a keyed handler that calls runtime.Goexit hands the
// next task of its key to the pool with Spawn, which must not wait at the
// door for the slot that the Goexiting task itself holds until it ends.
func TestGoexitKeyLineGoesOn(t *testing.T) {
	pool, err := scheduler.New(scheduler.WithWorkers(2), scheduler.WithName(t.Name()),
		scheduler.WithSupplier(slots.NewFixed(1)))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	var acked, nacked counter
	w := newWorker(t, intake.Config{
		Source:     keyedSource(2, &acked, &nacked),
		Supplier:   slots.NewFixed(4),
		MaxBatch:   4,
		MaxPollers: 1,
		Backoff:    func(int) time.Duration { return time.Hour },
		Handler: func(_ context.Context, task intake.Task) error {
			if _, idx := parseKeyed(task.Payload()); idx == 0 {
				runtime.Goexit()
			}
			return nil
		},
	})
	eventually(t, 10*time.Second, func() bool { return acked.Load() == 1 && nacked.Load() == 1 },
		"k/1 runs after k/0 Goexited (acked %d, nacked %d)", acked.Load(), nacked.Load())
	require.NoError(t, w.Shutdown(context.Background()))
}
