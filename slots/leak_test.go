package slots_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/slots"
)

// leakOne reserves a permit, marks it used and drops it.
//
//go:noinline
func leakOne(t *testing.T, tr *slots.Tracker) uint64 {
	p, err := tr.Reserve(context.Background(), "leaky")
	require.NoError(t, err)
	require.NoError(t, tr.MarkUsed(p, slots.TaskInfo{Kind: "leaky"}))
	return p.ID()
}

// collectUntil runs the garbage collector until ch delivers, for up to
// ten seconds: a cleanup runs on a goroutine of the runtime's, which a
// loaded machine may not schedule for a while.
func collectUntil[T any](t *testing.T, ch <-chan T) (T, bool) {
	t.Helper()
	for range 1000 {
		runtime.GC()
		select {
		case v := <-ch:
			return v, true
		case <-time.After(10 * time.Millisecond):
		}
	}
	var zero T
	return zero, false
}

func TestLeakedPermitIsReportedAndReclaimed(t *testing.T) {
	f := slots.NewFixed(1)
	a := newAudit(f, 1)
	leaks := make(chan slots.Leak, 1)
	tr := slots.NewTracker(a, slots.WithLeakHook(func(l slots.Leak) { leaks <- l }))

	id := leakOne(t, tr)
	l, ok := collectUntil(t, leaks)
	require.True(t, ok, "the leak hook never ran")
	require.Equal(t, slots.Leak{Permit: id, Used: true, Task: slots.TaskInfo{Kind: "leaky"}}, l)

	s := tr.Stats()
	require.Equal(t, uint64(1), s.Leaked)
	require.Zero(t, s.InUse)
	require.Empty(t, tr.UsedSlots())
	require.Equal(t, 1, f.FreeSlots(), "the leaked slot did not come back")
	a.check(t, true)
	require.Len(t, a.errs, 1)
	require.ErrorIs(t, a.errs[0], slots.ErrPermitLeaked)
}

func TestReleasedPermitIsNotALeak(t *testing.T) {
	leaks := make(chan slots.Leak, 1)
	tr := slots.NewTracker(slots.NewFixed(1), slots.WithLeakHook(func(l slots.Leak) { leaks <- l }))
	for range 100 {
		p, err := tr.Reserve(context.Background(), "")
		require.NoError(t, err)
		require.NoError(t, tr.Release(p, slots.NeverUsed()))
	}
	for range 3 {
		runtime.GC()
	}
	select {
	case l := <-leaks:
		t.Fatalf("released permit reported as leaked: %+v", l)
	case <-time.After(20 * time.Millisecond):
	}
	require.Zero(t, tr.Stats().Leaked)
}

// TestLeakDetectionCost: the cost stated in WithLeakHook's documentation.
func TestLeakDetectionCost(t *testing.T) {
	tr := slots.NewTracker(slots.NewFixed(1), slots.WithLeakHook(func(slots.Leak) {}))
	allocs := testing.AllocsPerRun(1000, func() {
		p, _ := tr.Reserve(context.Background(), "")
		_ = tr.Release(p, slots.TaskComplete())
	})
	require.LessOrEqual(t, allocs, 3.0)
}

// goexitOnLeak is a supplier whose ReleaseSlot calls runtime.Goexit (as
// t.FailNow in a test's supplier does) for a leaked permit, after saying
// so on exits.
type goexitOnLeak struct {
	slots.Unlimited
	exits chan struct{}
}

func (s goexitOnLeak) ReleaseSlot(r slots.ReleaseInfo) {
	if errors.Is(r.Reason.Err(), slots.ErrPermitLeaked) {
		s.exits <- struct{}{}
		runtime.Goexit()
	}
}

// TestLeakReclaimGoexitStopsNoCleanups: a supplier that calls Goexit while
// a leaked permit is released to it must end only the goroutine of that
// release. Run on the runtime's cleanup goroutine, the reclaim ended it,
// which dropped the cleanups queued behind it and stopped every later
// cleanup of the process: after as many leaks as there are cleanup
// goroutines (at most GOMAXPROCS), no further leak was reclaimed or
// reported, through any Tracker.
func TestLeakReclaimGoexitStopsNoCleanups(t *testing.T) {
	s := goexitOnLeak{exits: make(chan struct{}, 1)}
	tr := slots.NewTracker(s, slots.WithLeakHook(func(slots.Leak) {}))
	n := runtime.GOMAXPROCS(0) + 1
	for i := range n {
		leakOne(t, tr)
		_, ok := collectUntil(t, s.exits)
		require.True(t, ok, "leak %d of %d was never reclaimed: the cleanups stopped", i+1, n)
	}
	require.Equal(t, uint64(n), tr.Stats().Leaked)

	// Leak detection of another Tracker still works.
	leaks := make(chan slots.Leak, 1)
	other := slots.NewTracker(slots.NewFixed(1), slots.WithLeakHook(func(l slots.Leak) { leaks <- l }))
	id := leakOne(t, other)
	l, ok := collectUntil(t, leaks)
	require.True(t, ok, "a leak of another Tracker was never reported")
	require.Equal(t, id, l.Permit)
}
