package scheduler_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// goexitSupplier calls runtime.Goexit (as t.FailNow or require.* in a test
// supplier do) in MarkSlotUsed or ReleaseSlot while its flag is set.
type goexitSupplier struct {
	slots.Unlimited
	onMark, onRelease atomic.Bool
}

func (s *goexitSupplier) MarkSlotUsed(slots.UsedInfo) {
	if s.onMark.CompareAndSwap(true, false) {
		runtime.Goexit()
	}
}

func (s *goexitSupplier) ReleaseSlot(slots.ReleaseInfo) {
	if s.onRelease.CompareAndSwap(true, false) {
		runtime.Goexit()
	}
}

// TestSupplierGoexitHangsNothing: a supplier whose MarkSlotUsed or
// ReleaseSlot calls runtime.Goexit ends the worker goroutine (replaced);
// Run's caller must still be released, and Close must still return.
func TestSupplierGoexitHangsNothing(t *testing.T) {
	for _, which := range []string{"mark", "release"} {
		t.Run(which, func(t *testing.T) {
			s := &goexitSupplier{}
			p := pool(t, scheduler.WithWorkers(1), scheduler.WithSupplier(s))
			if which == "mark" {
				s.onMark.Store(true)
			} else {
				s.onRelease.Store(true)
			}
			runDone := make(chan any, 1)
			go func() {
				runDone <- catch(func() {
					_ = p.Run(context.Background(), func(*scheduler.Worker) error {
						return nil
					})
				})
			}()
			done := make(chan struct{})
			var v any
			go func() { v = <-runDone; close(done) }()
			hangGuard(t, "Run whose supplier called Goexit in "+which, done)
			requireGoexit(t, v)
			closed := make(chan struct{})
			go func() { p.Close(); close(closed) }()
			hangGuard(t, "Close after a supplier Goexit in "+which, closed)
			require.Zero(t, p.Stats().Pending)
		})
	}
}
