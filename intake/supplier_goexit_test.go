package intake_test

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/weftrt/weft/slots"
)

// goexitSupplier calls runtime.Goexit (t.FailNow, require.* in a test's
// supplier) once in MarkSlotUsed or ReleaseSlot when armed. (A Goexit in
// ReleaseSlot still hangs intake's Shutdown: see docs/faults.md.)
type goexitSupplier struct {
	slots.Supplier
	markArmed, releaseArmed atomic.Bool
}

func (s *goexitSupplier) MarkSlotUsed(u slots.UsedInfo) {
	s.Supplier.MarkSlotUsed(u)
	if s.markArmed.CompareAndSwap(true, false) {
		runtime.Goexit()
	}
}

func (s *goexitSupplier) ReleaseSlot(r slots.ReleaseInfo) {
	s.Supplier.ReleaseSlot(r)
	if s.releaseArmed.CompareAndSwap(true, false) {
		runtime.Goexit()
	}
}

// A supplier that calls runtime.Goexit in MarkSlotUsed: the task is
// returned unrun and runs again, its slot comes back, Shutdown returns.
func TestSupplierMarkGoexitLosesNoSlot(t *testing.T) {
	sup := &goexitSupplier{Supplier: slots.NewFixed(1)}
	sup.markArmed.Store(true)
	runWithPanickySupplier(t, &panickySupplier{Supplier: sup})
}
