package slots_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/weftrt/weft/slots"
)

// orderSupplier is a supplier of the kind the package documentation
// describes: it keeps each running task by permit ID from MarkSlotUsed
// and forgets it at ReleaseSlot. It counts MarkSlotUsed calls that come
// after the permit's ReleaseSlot, which the Tracker promises never happen.
type orderSupplier struct {
	slots.Unlimited
	mu       sync.Mutex
	released map[uint64]bool
	running  map[uint64]bool
	late     atomic.Int64
}

func (s *orderSupplier) MarkSlotUsed(u slots.UsedInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.released[u.Permit.ID()] {
		s.late.Add(1)
	}
	s.running[u.Permit.ID()] = true
}

func (s *orderSupplier) ReleaseSlot(r slots.ReleaseInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.released[r.Permit.ID()] = true
	delete(s.running, r.Permit.ID())
}

// A MarkUsed racing a Release of the same permit: whichever wins, the
// supplier must not see MarkSlotUsed after ReleaseSlot (it would keep a
// task running forever).
func TestMarkNeverReachesSupplierAfterRelease(t *testing.T) {
	s := &orderSupplier{released: map[uint64]bool{}, running: map[uint64]bool{}}
	tr := slots.NewTracker(s)
	const rounds = 20000
	for range rounds {
		p, ok := tr.TryReserve("k")
		if !ok {
			t.Fatal("refused")
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Go(func() { <-start; _ = tr.MarkUsed(p, slots.TaskInfo{}) })
		wg.Go(func() { <-start; _ = tr.Release(p, slots.TaskComplete()) })
		close(start)
		wg.Wait()
	}
	if n := s.late.Load(); n > 0 {
		t.Fatalf("%d of %d permits: MarkSlotUsed reached the supplier after ReleaseSlot; %d tasks left running in the supplier, none in the tracker (%+v)",
			n, rounds, len(s.running), tr.Stats())
	}
}
