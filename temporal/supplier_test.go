package wefttemporal_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
	wefttemporal "github.com/weftrt/weft/temporal"
	"go.temporal.io/sdk/worker"
)

// A Supplier hands out the weft supplier's slots: Fixed(2) grants two,
// refuses a third, and grants again once one is released.
func TestSupplierHandsOutTheWeftSlots(t *testing.T) {
	s := wefttemporal.NewSupplier(wefttemporal.Activity, slots.NewFixed(2))
	info := fakeReserve{queue: "q"}
	a, err := s.ReserveSlot(context.Background(), info)
	require.NoError(t, err)
	b := s.TryReserveSlot(info)
	require.NotNil(t, b)
	require.Nil(t, s.TryReserveSlot(info), "a third slot of a Fixed(2)")
	require.Equal(t, 2, s.MaxSlots())
	require.Equal(t, 2, s.Stats().Reserved)

	s.MarkSlotUsed(fakeUsed{a})
	require.Equal(t, 1, s.Stats().InUse)
	s.ReleaseSlot(released(a, processed))
	s.ReleaseSlot(released(b, unused))
	require.NotNil(t, s.TryReserveSlot(info))
	st := s.Stats()
	require.Equal(t, 1, st.Reserved)
	require.Zero(t, st.InUse)
	require.EqualValues(t, 3, st.Issued)
}

// A weft supplier sees Temporal's reservation: the slot type as the kind,
// and the task queue, worker and issued slots through ReservationOf in
// ReserveSlot's ctx; MarkSlotUsed's task carries it too.
func TestWeftSupplierSeesTheReservation(t *testing.T) {
	sp := newSpy(slots.NewFixed(1), newSignal())
	s := wefttemporal.NewSupplier(wefttemporal.LocalActivity, sp)
	p, err := s.ReserveSlot(context.Background(), fakeReserve{queue: "orders", issued: 7})
	require.NoError(t, err)
	s.MarkSlotUsed(fakeUsed{p})

	sp.mu.Lock()
	defer sp.mu.Unlock()
	require.Equal(t, []string{"local-activity"}, sp.kinds)
	r := sp.reservations[0]
	require.Equal(t, wefttemporal.LocalActivity, r.Type)
	require.Equal(t, "orders", r.Info.TaskQueue())
	require.Equal(t, "worker-1", r.Info.WorkerIdentity())
	require.Equal(t, "build-1", r.Info.WorkerBuildId())
	require.Equal(t, 7, r.Info.NumIssuedSlots())

	require.Len(t, sp.marked, 1)
	require.Equal(t, "local-activity", sp.marked[0].Kind)
	used, ok := wefttemporal.TaskReservation(sp.marked[0])
	require.True(t, ok)
	require.Equal(t, "orders", used.Info.TaskQueue())
	_, ok = wefttemporal.TaskReservation(slots.TaskInfo{Kind: "render"})
	require.False(t, ok, "a task of a weft pool")
	_, ok = wefttemporal.ReservationOf(context.Background())
	require.False(t, ok, "a ctx of no reservation")
}

// Temporal's reasons reach the weft supplier as weft's: a processed task
// is TaskComplete, an unused slot NeverUsed.
func TestReleaseReasonsMap(t *testing.T) {
	sp := newSpy(slots.NewFixed(2), newSignal())
	s := wefttemporal.NewSupplier(wefttemporal.Workflow, sp)
	a, b := s.TryReserveSlot(fakeReserve{}), s.TryReserveSlot(fakeReserve{})
	s.MarkSlotUsed(fakeUsed{a})
	s.ReleaseSlot(released(a, processed))
	s.ReleaseSlot(released(b, unused))
	got := sp.releases()
	require.Len(t, got, 2)
	require.Equal(t, slots.ReasonComplete, got[0].Reason.Kind())
	require.True(t, got[0].Used)
	require.Equal(t, slots.ReasonNeverUsed, got[1].Reason.Kind())
	require.False(t, got[1].Used)
}

// Calls that break the protocol reach the error hook, never the weft
// supplier: a second release, a second mark, a permit of another
// Supplier, of Temporal's own supplier, or nil.
func TestMisuseGoesToTheErrorHook(t *testing.T) {
	sp := newSpy(slots.NewFixed(2), newSignal())
	var mu sync.Mutex
	var errs []error
	hook := wefttemporal.WithErrorHook(func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() })
	s := wefttemporal.NewSupplier(wefttemporal.Activity, sp, hook)
	other := wefttemporal.NewSupplier(wefttemporal.Nexus, slots.NewFixed(1), hook)
	temporals, err := worker.NewFixedSizeSlotSupplier(1)
	require.NoError(t, err)

	p := s.TryReserveSlot(fakeReserve{})
	s.MarkSlotUsed(fakeUsed{p})
	s.MarkSlotUsed(fakeUsed{p})
	s.ReleaseSlot(released(p, processed))
	s.ReleaseSlot(released(p, processed))
	s.ReleaseSlot(released(other.TryReserveSlot(fakeReserve{}), processed))
	s.ReleaseSlot(released(temporals.TryReserveSlot(fakeReserve{}), processed))
	s.ReleaseSlot(released(nil, processed))

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, errs, 5)
	require.ErrorIs(t, errs[0], slots.ErrMarkedTwice)
	require.ErrorIs(t, errs[1], slots.ErrReleasedTwice)
	require.ErrorIs(t, errs[2], slots.ErrForeignPermit)
	require.ErrorIs(t, errs[3], wefttemporal.ErrUnknownPermit)
	require.ErrorIs(t, errs[4], wefttemporal.ErrUnknownPermit)
	require.Len(t, sp.releases(), 1, "releases that reached the weft supplier")
}

// A reservation whose ctx ends returns ctx's error, which Temporal's
// poller takes quietly, and leaves nothing reserved.
func TestReserveEndsWithItsContext(t *testing.T) {
	sig := newSignal()
	sp := newSpy(slots.NewFixed(1), sig)
	s := wefttemporal.NewSupplier(wefttemporal.Activity, sp)
	require.NotNil(t, s.TryReserveSlot(fakeReserve{}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := s.ReserveSlot(ctx, fakeReserve{})
		done <- err
	}()
	sig.await(t, "the reservation to wait", func() bool { return sp.waiting.Load() == 1 })
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.Equal(t, 1, s.Stats().Reserved)
	require.EqualValues(t, 1, s.Stats().Failures)
}

// A Pause with CancelOutstanding ends the reservations waiting in a
// Pauseable with ErrPaused; the Supplier asks again, which waits for
// Resume, since Temporal's poller would only log the error and retry.
func TestPauseCancelOutstandingWaitsForResume(t *testing.T) {
	sig := newSignal()
	inner := newSpy(slots.NewFixed(1), sig)
	p := slots.NewPauseable(inner)
	s := wefttemporal.NewSupplier(wefttemporal.Activity, p)
	held := s.TryReserveSlot(fakeReserve{})
	require.NotNil(t, held)
	type reply struct {
		p   *worker.SlotPermit
		err error
	}
	done := make(chan reply)
	go func() {
		got, err := s.ReserveSlot(context.Background(), fakeReserve{})
		done <- reply{got, err}
	}()
	sig.await(t, "the reservation to wait in the Fixed", func() bool { return inner.waiting.Load() == 1 })
	p.Pause(slots.PauseOptions{CancelOutstanding: true})
	sig.await(t, "the Pause to end it", func() bool { return inner.failed.Load() == 1 })
	s.ReleaseSlot(released(held, processed))
	p.Resume()
	r := <-done
	require.NoError(t, r.err)
	require.NotNil(t, r.p)
	require.EqualValues(t, 1, s.Stats().Failures, "the reservation the Pause ended, as Stats counts it")
}

// Nil arguments and zero values panic, naming what is wrong.
func TestMisusePanics(t *testing.T) {
	require.PanicsWithValue(t, "weft/temporal: NewSupplier with a nil slots.Supplier", func() {
		wefttemporal.NewSupplier(wefttemporal.Activity, nil)
	})
	require.PanicsWithValue(t, "weft/temporal: NewSupplier with SlotType(9): want Workflow, Activity, LocalActivity, Nexus or SessionActivity", func() {
		wefttemporal.NewSupplier(9, slots.NewFixed(1))
	})
	require.PanicsWithValue(t, "weft/temporal: Supplier not made by NewSupplier", func() {
		(&wefttemporal.Supplier{}).MaxSlots()
	})
	require.PanicsWithValue(t, "weft/temporal: Tuner not made by NewTuner", func() {
		(&wefttemporal.Tuner{}).GetActivityTaskSlotSupplier()
	})
	require.PanicsWithValue(t, "weft/temporal: WithErrorHook with a nil function", func() { wefttemporal.WithErrorHook(nil) })
	require.PanicsWithValue(t, "weft/temporal: WithLeakHook with a nil function", func() { wefttemporal.WithLeakHook(nil) })
	s := wefttemporal.NewSupplier(wefttemporal.Activity, slots.NewFixed(1))
	require.PanicsWithValue(t, "weft/temporal: ReserveSlot with a nil context", func() {
		//lint:ignore SA1012 the nil context is what is tested
		_, _ = s.ReserveSlot(nil, fakeReserve{})
	})
	require.PanicsWithValue(t, "weft/temporal: Compute with a nil context: pass the activity's", func() {
		//lint:ignore SA1012 the nil context is what is tested
		_ = wefttemporal.Compute(nil, nil, func(context.Context, *scheduler.Worker) error { return nil })
	})
	require.PanicsWithValue(t, "weft/temporal: Compute with a nil function", func() {
		_ = wefttemporal.Compute(context.Background(), nil, nil)
	})
}

// A Tuner puts a Supplier behind each slot type it was given a weft
// supplier for, and Temporal's default behind the others.
func TestTunerFillsInTemporalsDefaults(t *testing.T) {
	shared := slots.NewFixed(3)
	tuner, err := wefttemporal.NewTuner(wefttemporal.TunerOptions{Activity: shared, LocalActivity: shared})
	require.NoError(t, err)
	require.Same(t, tuner.Supplier(wefttemporal.Activity), tuner.GetActivityTaskSlotSupplier())
	require.Same(t, tuner.Supplier(wefttemporal.LocalActivity), tuner.GetLocalActivitySlotSupplier())
	require.Equal(t, wefttemporal.LocalActivity, tuner.Supplier(wefttemporal.LocalActivity).Type())
	require.Nil(t, tuner.Supplier(wefttemporal.Workflow))
	for _, def := range []worker.SlotSupplier{
		tuner.GetWorkflowTaskSlotSupplier(), tuner.GetNexusSlotSupplier(), tuner.GetSessionActivitySlotSupplier(),
	} {
		require.NotNil(t, def)
		_, weft := def.(*wefttemporal.Supplier)
		require.False(t, weft)
	}
	// One Fixed behind two slot types bounds their sum.
	a := tuner.GetActivityTaskSlotSupplier().TryReserveSlot(fakeReserve{})
	require.NotNil(t, a)
	for range 2 {
		require.NotNil(t, tuner.GetLocalActivitySlotSupplier().TryReserveSlot(fakeReserve{}))
	}
	require.Nil(t, tuner.GetActivityTaskSlotSupplier().TryReserveSlot(fakeReserve{}))
}
