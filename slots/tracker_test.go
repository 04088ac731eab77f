package slots_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/slots"
)

func TestTrackerLifecycle(t *testing.T) {
	a := newAudit(slots.NewFixed(2), 2)
	tr := slots.NewTracker(a)
	ctx := context.Background()

	p, err := tr.Reserve(ctx, "resize")
	require.NoError(t, err)
	require.Equal(t, slots.Stats{Reserved: 1, Issued: 1, Max: 2, Available: 1}, tr.Stats())

	require.NoError(t, tr.MarkUsed(p, slots.TaskInfo{Kind: "resize", Data: 7}))
	require.Equal(t, slots.Stats{InUse: 1, Issued: 1, Max: 2, Available: 1}, tr.Stats())
	used := tr.UsedSlots()
	require.Len(t, used, 1)
	require.Equal(t, p.ID(), used[0].Permit.ID())
	require.Equal(t, slots.TaskInfo{Kind: "resize", Data: 7}, used[0].Task)

	require.NoError(t, tr.Release(p, slots.TaskComplete()))
	require.Equal(t, slots.Stats{Issued: 1, Max: 2, Available: 2}, tr.Stats())
	require.Empty(t, tr.UsedSlots())
	a.check(t, true)
	require.Equal(t, 1, a.count(slots.ReasonComplete))
}

func TestTrackerMisuseIsAnErrorAndNeverReachesTheSupplier(t *testing.T) {
	a := newAudit(slots.NewFixed(2), 2)
	tr := slots.NewTracker(a)
	other := slots.NewTracker(a) // shares the supplier
	ctx := context.Background()

	p, err := tr.Reserve(ctx, "")
	require.NoError(t, err)
	q, err := other.Reserve(ctx, "")
	require.NoError(t, err)

	require.ErrorIs(t, other.Release(p, slots.TaskComplete()), slots.ErrForeignPermit)
	require.ErrorIs(t, other.MarkUsed(p, slots.TaskInfo{}), slots.ErrForeignPermit)
	require.ErrorIs(t, tr.Release(slots.Permit{}, slots.TaskComplete()), slots.ErrUnknownPermit)
	require.ErrorIs(t, tr.Release(slots.NewPermit(nil), slots.TaskComplete()), slots.ErrUnknownPermit)
	require.ErrorIs(t, tr.MarkUsed(slots.Permit{}, slots.TaskInfo{}), slots.ErrUnknownPermit)

	require.NoError(t, tr.MarkUsed(p, slots.TaskInfo{}))
	require.ErrorIs(t, tr.MarkUsed(p, slots.TaskInfo{}), slots.ErrMarkedTwice)
	copyOfP := p
	require.NoError(t, tr.Release(p, slots.TaskComplete()))
	require.ErrorIs(t, tr.Release(copyOfP, slots.TaskComplete()), slots.ErrReleasedTwice)
	require.ErrorIs(t, tr.MarkUsed(p, slots.TaskInfo{}), slots.ErrUnknownPermit)

	// The record behind p is reused; p stays stale.
	r, err := tr.Reserve(ctx, "")
	require.NoError(t, err)
	require.ErrorIs(t, tr.Release(p, slots.NeverUsed()), slots.ErrReleasedTwice)
	require.NoError(t, tr.Release(r, slots.NeverUsed()))
	require.NoError(t, other.Release(q, slots.NeverUsed()))

	a.check(t, true)
	require.Equal(t, 3, a.grants)
	require.Equal(t, 1, a.count(slots.ReasonComplete))
	require.Equal(t, 2, a.count(slots.ReasonNeverUsed))
}

func TestTrackerReasonsReachTheSupplier(t *testing.T) {
	a := newAudit(slots.NewFixed(3), 3)
	tr := slots.NewTracker(a)
	ctx := context.Background()
	errTask := errors.New("task broke")

	done, _ := tr.Reserve(ctx, "")
	failed, _ := tr.Reserve(ctx, "")
	dropped, _ := tr.Reserve(ctx, "")
	for _, p := range []slots.Permit{done, failed} {
		require.NoError(t, tr.MarkUsed(p, slots.TaskInfo{}))
	}
	require.NoError(t, tr.Release(done, slots.TaskComplete()))
	require.NoError(t, tr.Release(failed, slots.TaskFailed(errTask)))
	require.NoError(t, tr.Release(dropped, slots.NeverUsed()))

	a.check(t, true)
	for _, k := range []slots.ReasonKind{slots.ReasonComplete, slots.ReasonFailed, slots.ReasonNeverUsed} {
		require.Equal(t, 1, a.count(k), k)
	}
	require.Len(t, a.errs, 1)
	require.ErrorIs(t, a.errs[0], errTask)
}

func TestTrackerReserveHonoursContext(t *testing.T) {
	a := newAudit(slots.NewFixed(1), 1)
	tr := slots.NewTracker(a)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tr.Reserve(ctx, "")
	require.ErrorIs(t, err, context.Canceled)
	require.Zero(t, a.grants, "a done context must not reach the supplier")

	p, ok := tr.TryReserve("")
	require.True(t, ok)
	_, ok = tr.TryReserve("")
	require.False(t, ok)

	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	_, err = tr.Reserve(ctx, "")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Equal(t, slots.Stats{Reserved: 1, Issued: 1, Refusals: 1, Failures: 2, Max: 1}, tr.Stats())
	require.NoError(t, tr.Release(p, slots.NeverUsed()))
	a.check(t, true)
}

// TestTrackersShareASupplier: two trackers over one Fixed never have more
// slots out between them than it has.
func TestTrackersShareASupplier(t *testing.T) {
	a := newAudit(slots.NewFixed(3), 3)
	trackers := []*slots.Tracker{slots.NewTracker(a), slots.NewTracker(a)}
	var wg sync.WaitGroup
	for i := range 8 {
		tr := trackers[i%2]
		wg.Go(func() {
			for range 200 {
				p, err := tr.Reserve(context.Background(), "")
				if err != nil {
					t.Error(err)
					return
				}
				_ = tr.MarkUsed(p, slots.TaskInfo{})
				time.Sleep(time.Microsecond)
				_ = tr.Release(p, slots.TaskComplete())
			}
		})
	}
	wg.Wait()
	a.check(t, true)
	require.LessOrEqual(t, a.peak, 3)
	require.Equal(t, uint64(1600), trackers[0].Stats().Issued+trackers[1].Stats().Issued)
}

// waitingSupplier grants a permit only when told to, and reports on each
// grant what the reservation context shows then.
type waitingSupplier struct {
	slots.Supplier
	grant chan struct{}
	seen  chan []slots.UsedInfo
}

func (s *waitingSupplier) ReserveSlot(ctx context.Context, rc slots.ReserveContext) (slots.Permit, error) {
	select {
	case <-s.grant:
	case <-ctx.Done():
		return slots.Permit{}, ctx.Err()
	}
	s.seen <- rc.UsedSlots()
	return s.Supplier.ReserveSlot(ctx, rc)
}

// TestReserveContextIsLive: a reservation that waits sees slots marked
// used after it began.
func TestReserveContextIsLive(t *testing.T) {
	s := &waitingSupplier{Supplier: slots.NewFixed(4), grant: make(chan struct{}), seen: make(chan []slots.UsedInfo, 1)}
	tr := slots.NewTracker(s)
	kinds := make(chan string, 1)
	go func() {
		p, err := tr.Reserve(context.Background(), "late")
		if err == nil {
			kinds <- "late"
			_ = tr.Release(p, slots.NeverUsed())
		}
	}()
	p, ok := tr.TryReserve("early")
	require.True(t, ok)
	require.NoError(t, tr.MarkUsed(p, slots.TaskInfo{Kind: "early"}))
	s.grant <- struct{}{}
	used := <-s.seen
	require.Len(t, used, 1)
	require.Equal(t, "early", used[0].Task.Kind)
	require.Equal(t, p.ID(), used[0].Permit.ID())
	require.Equal(t, "late", <-kinds)
	require.NoError(t, tr.Release(p, slots.TaskComplete()))
}

func TestReserveContextFigures(t *testing.T) {
	var got []any
	s := &probeSupplier{Supplier: slots.NewFixed(4), probe: func(rc slots.ReserveContext) {
		got = append(got, rc.Kind(), rc.Issued(), rc.Reserved(), rc.InUse())
	}}
	tr := slots.NewTracker(s)
	p, _ := tr.TryReserve("a")
	_ = tr.MarkUsed(p, slots.TaskInfo{})
	q, _ := tr.TryReserve("b")
	_, _ = tr.Reserve(context.Background(), "c")
	require.Equal(t, []any{"a", uint64(0), 0, 0, "b", uint64(1), 0, 1, "c", uint64(2), 1, 1}, got)
	_ = q

	var zero slots.ReserveContext
	require.Equal(t, "", zero.Kind())
	require.Zero(t, zero.Issued())
	require.Zero(t, zero.InUse())
	require.Zero(t, zero.Reserved())
	require.Nil(t, zero.UsedSlots())
}

type probeSupplier struct {
	slots.Supplier
	probe func(slots.ReserveContext)
}

func (s *probeSupplier) ReserveSlot(ctx context.Context, rc slots.ReserveContext) (slots.Permit, error) {
	s.probe(rc)
	return s.Supplier.ReserveSlot(ctx, rc)
}

func (s *probeSupplier) TryReserveSlot(rc slots.ReserveContext) (slots.Permit, bool) {
	s.probe(rc)
	return s.Supplier.TryReserveSlot(rc)
}

// badSupplier breaks the protocol in the way its fields say.
type badSupplier struct {
	slots.Supplier
	permit slots.Permit
	err    error
	ok     bool
}

func (s *badSupplier) ReserveSlot(context.Context, slots.ReserveContext) (slots.Permit, error) {
	return s.permit, s.err
}

func (s *badSupplier) TryReserveSlot(slots.ReserveContext) (slots.Permit, bool) {
	return s.permit, s.ok
}

func TestTrackerPanicsOnProgrammerErrors(t *testing.T) {
	ctx := context.Background()
	require.PanicsWithValue(t, "weft/slots: NewTracker with a nil Supplier", func() { slots.NewTracker(nil) })
	require.PanicsWithValue(t, "weft/slots: Tracker not made by NewTracker", func() { new(slots.Tracker).Stats() })

	p := slots.NewPermit(nil)
	cases := map[string]struct {
		s    *badSupplier
		want string
		try  bool
	}{
		"zero permit": {s: &badSupplier{}, want: "weft/slots: supplier *slots_test.badSupplier granted the zero Permit: want a Permit made by NewPermit (or granted by an inner supplier)"},
		"permit and error": {s: &badSupplier{permit: p, err: errors.New("x")},
			want: "weft/slots: *slots_test.badSupplier.ReserveSlot returned both " + p.String() + ` and error "x": want a Permit and a nil error, or the zero Permit and an error`},
		"permit and false": {s: &badSupplier{permit: p}, try: true,
			want: "weft/slots: *slots_test.badSupplier.TryReserveSlot returned " + p.String() + " with false: want the zero Permit with false"},
	}
	for name, c := range cases {
		tr := slots.NewTracker(c.s)
		f := func() { _, _ = tr.Reserve(ctx, "") }
		if c.try {
			f = func() { tr.TryReserve("") }
		}
		require.PanicsWithValue(t, c.want, f, name)
	}

	// A supplier that grants one permit twice is caught at the second.
	tr := slots.NewTracker(&badSupplier{permit: p})
	_, err := tr.Reserve(ctx, "")
	require.NoError(t, err)
	require.PanicsWithValue(t, "weft/slots: supplier *slots_test.badSupplier granted "+p.String()+
		", which is stale or already held: want each Permit granted once, before any release",
		func() { _, _ = tr.Reserve(ctx, "") })
}
