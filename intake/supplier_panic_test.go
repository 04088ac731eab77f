package intake_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// panickySupplier wraps a supplier and panics once in MarkSlotUsed or
// ReleaseSlot when armed: the fault docs/faults.md says loses no slot and
// hangs nothing.
type panickySupplier struct {
	slots.Supplier
	markArmed, releaseArmed atomic.Bool
}

func (s *panickySupplier) MarkSlotUsed(u slots.UsedInfo) {
	if s.markArmed.CompareAndSwap(true, false) {
		panic("supplier MarkSlotUsed failed")
	}
	s.Supplier.MarkSlotUsed(u)
}

func (s *panickySupplier) ReleaseSlot(r slots.ReleaseInfo) {
	s.Supplier.ReleaseSlot(r) // the slot does go back; only the call panics
	if s.releaseArmed.CompareAndSwap(true, false) {
		panic("supplier ReleaseSlot failed")
	}
}

func runWithPanickySupplier(t *testing.T, sup *panickySupplier) {
	var handled atomic.Int32
	pool, err := scheduler.New(scheduler.WithWorkers(2), scheduler.WithName(t.Name()),
		scheduler.WithPanicHandler(func(*scheduler.Panic) { handled.Add(1) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	q := intake.NewMemQueue(intake.MemQueueConfig{})
	var ran atomic.Int32
	w, err := intake.New(intake.Config{
		Source: q, Supplier: sup, Backoff: intake.Exponential(0, 0),
		OnError: func(err error) { t.Logf("worker: %v", err) },
		Handler: func(context.Context, intake.Task) error {
			ran.Add(1)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	q.Put([]byte("a"))
	q.Put([]byte("b"))
	// Deadline only turns a hang into a failure.
	eventually(t, 10*time.Second, func() bool { return ran.Load() >= 2 },
		"tasks never all ran after the supplier panicked: ran %d, handled %d", ran.Load(), handled.Load())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v (slots %+v)", err, w.Stats().Slots)
	}
	st := w.Stats()
	if s := st.Slots; s.InUse != 0 || s.Reserved != 0 {
		t.Fatalf("slots still held after Shutdown: %+v", s)
	}
	if st.Acked != 2 || q.Len() != 0 {
		t.Fatalf("tasks lost: %d of 2 acked, %d left queued (stats %+v)", st.Acked, q.Len(), st)
	}
}

// A Config.Supplier whose MarkSlotUsed panics must not leak the slot (a
// Fixed(1) then never admits again) nor leave Shutdown waiting forever.
func TestSupplierMarkPanicLosesNoSlot(t *testing.T) {
	sup := &panickySupplier{Supplier: slots.NewFixed(1)}
	sup.markArmed.Store(true)
	runWithPanickySupplier(t, sup)
}

// A Config.Supplier whose ReleaseSlot panics must not leave the task
// unsettled nor Shutdown waiting forever.
func TestSupplierReleasePanicHangsNothing(t *testing.T) {
	sup := &panickySupplier{Supplier: slots.NewFixed(1)}
	sup.releaseArmed.Store(true)
	runWithPanickySupplier(t, sup)
}
