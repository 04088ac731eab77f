package intake_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// A supplier that panics once in MarkSlotUsed makes its task fail unrun
// (docs/faults.md: "released and retried"). With MaxDeliveries 1 the
// task must still be retried and run, not terminated as poison: its
// handler never ran, let alone failed.
func TestSupplierMarkPanicDoesNotTerminateUnrunTask(t *testing.T) {
	sup := &panickySupplier{Supplier: slots.NewFixed(1)}
	sup.markArmed.Store(true)
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 20 * time.Millisecond})
	var ran atomic.Int32
	w := newWorker(t, intake.Config{
		Source: q, Supplier: sup, MaxDeliveries: 1,
		Backoff: intake.Exponential(0, 0),
		OnError: func(error) {},
		Handler: func(context.Context, intake.Task) error {
			ran.Add(1)
			return nil
		},
	})
	q.Put([]byte("a"))
	eventually(t, 10*time.Second, func() bool { return q.Len() == 0 }, "the task settled")
	require.NoError(t, w.Shutdown(context.Background()))
	require.Empty(t, q.Terminated(), "a task whose handler never ran was terminated")
	require.EqualValues(t, 1, ran.Load())
	st := w.Stats()
	require.EqualValues(t, 1, st.Acked)
	require.Equal(t, st.Started, st.Acked+st.Failed, "Failed counts a task that never started: %+v", st)
}
