package slots_test

import (
	"context"
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

// collectUntil runs the garbage collector until ch delivers, a bounded
// number of times.
func collectUntil[T any](t *testing.T, ch <-chan T) (T, bool) {
	t.Helper()
	for range 50 {
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
