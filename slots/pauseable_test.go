package slots_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/slots"
)

type reserveResult struct {
	p   slots.Permit
	err error
}

// reserveAsync reserves from s in a new goroutine.
func reserveAsync(ctx context.Context, s slots.Supplier) <-chan reserveResult {
	ch := make(chan reserveResult, 1)
	go func() {
		p, err := s.ReserveSlot(ctx, noRC)
		ch <- reserveResult{p, err}
	}()
	return ch
}

// requireBlocked checks, inside a synctest bubble, that the reservation
// behind ch is durably blocked.
func requireBlocked(t *testing.T, ch <-chan reserveResult) {
	t.Helper()
	synctest.Wait()
	select {
	case r := <-ch:
		t.Fatalf("reservation returned %v, %v while it should wait", r.p, r.err)
	default:
	}
}

func TestPauseableBlocksUntilResume(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inner := newAudit(slots.NewFixed(2), 2)
		p := slots.NewPauseable(inner)
		require.False(t, p.Paused())
		require.Same(t, slots.Supplier(inner), p.Inner())
		require.Equal(t, 2, p.MaxSlots())

		p.Pause(slots.PauseOptions{})
		require.True(t, p.Paused())
		_, ok := p.TryReserveSlot(noRC)
		require.False(t, ok)
		ch := reserveAsync(context.Background(), p)
		requireBlocked(t, ch)

		p.Resume()
		require.False(t, p.Paused())
		r := <-ch
		require.NoError(t, r.err)
		p.MarkSlotUsed(slots.UsedInfo{Permit: r.p})
		p.ReleaseSlot(slots.ReleaseInfo{Permit: r.p, Used: true})
		p.Resume() // resuming twice is harmless
		inner.check(t, true)
		require.Equal(t, 1, inner.grants, "a paused reservation must not take a slot")
	})
}

func TestPauseableContextEndsAPausedWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := slots.NewPauseable(slots.NewFixed(1))
		p.Pause(slots.PauseOptions{})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		defer cancel()
		_, err := p.ReserveSlot(ctx, noRC)
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
}

// TestPauseableHandsBackGrantsWhilePaused: a reservation blocked in the
// inner supplier that is granted while paused releases the slot back as
// never used and keeps waiting for Resume.
func TestPauseableHandsBackGrantsWhilePaused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := slots.NewFixed(1)
		inner := newAudit(f, 1)
		p := slots.NewPauseable(inner)
		held, _ := inner.TryReserveSlot(noRC)
		ch := reserveAsync(context.Background(), p)
		synctest.Wait()

		p.Pause(slots.PauseOptions{})
		inner.ReleaseSlot(slots.ReleaseInfo{Permit: held, Reason: slots.NeverUsed()})
		requireBlocked(t, ch)
		require.Equal(t, 2, inner.count(slots.ReasonNeverUsed), "the grant made while paused was not handed back")
		require.Equal(t, 1, f.FreeSlots())

		p.Resume()
		r := <-ch
		require.NoError(t, r.err)
		p.ReleaseSlot(slots.ReleaseInfo{Permit: r.p})
		inner.check(t, true)
	})
}

// TestPauseableCancelOutstanding: Pause with CancelOutstanding ends the
// reservations waiting at that moment, both those waiting for a Resume and
// those blocked in the inner supplier, with ErrPaused; a reservation made
// after the Pause waits for Resume.
func TestPauseableCancelOutstanding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := slots.NewFixed(1)
		inner := newAudit(f, 1)
		p := slots.NewPauseable(inner)
		held, _ := p.TryReserveSlot(noRC)

		inInner := reserveAsync(context.Background(), p)
		synctest.Wait()
		p.Pause(slots.PauseOptions{})
		atGate := reserveAsync(context.Background(), p)
		requireBlocked(t, atGate)

		p.Pause(slots.PauseOptions{CancelOutstanding: true})
		for _, ch := range []<-chan reserveResult{inInner, atGate} {
			r := <-ch
			require.ErrorIs(t, r.err, slots.ErrPaused)
			require.True(t, r.p.IsZero())
		}
		require.Equal(t, 0, f.Waiting())

		later := reserveAsync(context.Background(), p)
		requireBlocked(t, later)
		p.ReleaseSlot(slots.ReleaseInfo{Permit: held})
		p.Resume()
		r := <-later
		require.NoError(t, r.err)
		p.ReleaseSlot(slots.ReleaseInfo{Permit: r.p})
		inner.check(t, true)
	})
}

// TestPauseableCancelIsFinal: a reservation cancelled by a Pause returns
// ErrPaused even when a Resume and a grant follow at once, racing the
// cancellation; the slot it was granted goes back.
func TestPauseableCancelIsFinal(t *testing.T) {
	for range 50 {
		synctest.Test(t, func(t *testing.T) {
			f := slots.NewFixed(1)
			p := slots.NewPauseable(f)
			held, _ := p.TryReserveSlot(noRC)
			ch := reserveAsync(context.Background(), p)
			synctest.Wait()
			p.Pause(slots.PauseOptions{CancelOutstanding: true})
			p.Resume()
			p.ReleaseSlot(slots.ReleaseInfo{Permit: held})
			r := <-ch
			require.ErrorIs(t, r.err, slots.ErrPaused)
			synctest.Wait()
			require.Equal(t, 1, f.FreeSlots())
		})
	}
}

// failingSupplier refuses every try and fails every blocking reserve.
type failingSupplier struct{ slots.Supplier }

var errSupplier = errors.New("supplier failed")

func (failingSupplier) TryReserveSlot(slots.ReserveContext) (slots.Permit, bool) {
	return slots.Permit{}, false
}

func (failingSupplier) ReserveSlot(context.Context, slots.ReserveContext) (slots.Permit, error) {
	return slots.Permit{}, errSupplier
}

func TestPauseablePassesInnerErrors(t *testing.T) {
	p := slots.NewPauseable(failingSupplier{})
	_, err := p.ReserveSlot(context.Background(), noRC)
	require.ErrorIs(t, err, errSupplier)
	require.PanicsWithValue(t, "weft/slots: NewPauseable with a nil Supplier", func() { slots.NewPauseable(nil) })
}

func TestPauseableThroughTracker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := slots.NewPauseable(slots.NewFixed(1))
		tr := slots.NewTracker(p)
		p.Pause(slots.PauseOptions{})
		_, ok := tr.TryReserve("")
		require.False(t, ok)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := tr.Reserve(ctx, "")
			done <- err
		}()
		synctest.Wait()
		p.Pause(slots.PauseOptions{CancelOutstanding: true})
		require.ErrorIs(t, <-done, slots.ErrPaused)
		cancel()
		require.Equal(t, slots.Stats{Refusals: 1, Failures: 1, Max: 1, Available: 1}, tr.Stats())
	})
}
