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

// reserveTrap springs its trap in ReserveSlot or, at the trapTry-th call,
// in TryReserveSlot, before it asks the supplier it wraps: the call fails
// having reserved nothing of its own. Armed at ReserveSlot, it refuses
// every TryReserveSlot until the trap is sprung, so that the worker's
// first reservation comes to ReserveSlot (the worker's Pauseable tries
// TryReserveSlot first).
type reserveTrap struct {
	slots.Supplier
	trap    *trap
	trapTry int64 // 0: the trap is in ReserveSlot
	tries   atomic.Int64
}

func (s *reserveTrap) ReserveSlot(ctx context.Context, rc slots.ReserveContext) (slots.Permit, error) {
	if s.trapTry == 0 {
		s.trap.spring()
	}
	return s.Supplier.ReserveSlot(ctx, rc)
}

func (s *reserveTrap) TryReserveSlot(rc slots.ReserveContext) (slots.Permit, bool) {
	if s.trapTry == 0 {
		if s.trap.armed.Load() {
			return slots.Permit{}, false
		}
	} else if s.tries.Add(1) == s.trapTry {
		s.trap.spring()
	}
	return s.Supplier.TryReserveSlot(rc)
}

// A supplier that panics while the poller reserves the slots of a poll: the fault is
// reported, the permits gathered before it are polled with (the tasks
// run), and no slot is lost. Before, the permits the poller had gathered
// were dropped, never released (2 of the 3 slots here, for good), and
// the fault went unreported; a panic crashed the program.
func TestSupplierReserveFaultLosesNoSlot(t *testing.T) {
	for _, c := range []struct {
		name    string
		panics  bool
		trapTry int64
	}{
		{"PanicInTryReserveSlot", true, 3},
		{"PanicInReserveSlot", true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := newTrap(c.panics)
			var reports counter
			// TryReserveSlot's first call is the Pauseable's, for the
			// first slot; its second grants the second, and its third,
			// for a third, springs the trap.
			sup := &reserveTrap{Supplier: slots.NewFixed(3), trap: tr, trapTry: c.trapTry}
			q := intake.NewMemQueue(intake.MemQueueConfig{})
			putN(q, 2)
			w := newWorker(t, intake.Config{
				Source: q, Supplier: sup, MaxPollers: 1,
				PollBackoff: intake.Exponential(0, 0), Handler: nop,
				OnError: func(err error) {
					if tr.sprung(err) {
						reports.Add(1)
					}
					t.Logf("worker: %v", err)
				},
			})
			tr.wait(t)
			eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == 2 }, "both tasks acknowledged: %+v", w.Stats())
			shutdownInTime(t, w)
			requireBooks(t, w, books{Received: 2, Started: 2, Acked: 2})
			require.EqualValues(t, 1, reports.Load(), "reports to OnError of the supplier's fault")
		})
	}
}
