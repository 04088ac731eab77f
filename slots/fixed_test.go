package slots_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/slots"
)

var noRC slots.ReserveContext

// TestFixedStateLayout checks the bit fields of Fixed's state word and of
// Tracker's held word do not overlap, so the docs built from them hold.
func TestFixedStateLayout(t *testing.T) {
	require.Zero(t, uint64(slots.FixedTopMask)&slots.FixedWaitBit)
	require.Zero(t, uint64(slots.FixedTopMask|slots.FixedWaitBit)&slots.FixedTagOne)
	require.Equal(t, uint64(slots.FixedWaitBit)<<1, uint64(slots.FixedTagOne))
	require.Equal(t, slots.MaxFixed, slots.FixedTopMask)
	require.Less(t, uint64(slots.MaxFixed)<<slots.PhaseBits>>slots.PhaseBits, uint64(1)<<61)
	require.Equal(t, uint64(slots.HeldFieldMask)+1, uint64(slots.HeldReserved))
	require.Zero(t, uint64(slots.HeldUsedOne)&^slots.HeldFieldMask)
}

func TestFixedTryReserveWhenFull(t *testing.T) {
	f := slots.NewFixed(2)
	require.Equal(t, 2, f.MaxSlots())
	p, ok := f.TryReserveSlot(noRC)
	require.True(t, ok)
	q, ok := f.TryReserveSlot(noRC)
	require.True(t, ok)
	_, ok = f.TryReserveSlot(noRC)
	require.False(t, ok)
	f.ReleaseSlot(slots.ReleaseInfo{Permit: p})
	r, ok := f.TryReserveSlot(noRC)
	require.True(t, ok)
	f.ReleaseSlot(slots.ReleaseInfo{Permit: q})
	f.ReleaseSlot(slots.ReleaseInfo{Permit: r})
	require.Equal(t, 2, f.FreeSlots())
}

func TestFixedPanics(t *testing.T) {
	for _, n := range []int{0, -1, slots.MaxFixed + 1} {
		require.Panics(t, func() { slots.NewFixed(n) }, "NewFixed(%d)", n)
	}
	f, g := slots.NewFixed(1), slots.NewFixed(1)
	p, _ := f.TryReserveSlot(noRC)
	require.Panics(t, func() { g.ReleaseSlot(slots.ReleaseInfo{Permit: p}) }, "foreign permit")
	require.Panics(t, func() { f.ReleaseSlot(slots.ReleaseInfo{Permit: slots.NewPermit(nil)}) }, "NewPermit's permit")
	f.ReleaseSlot(slots.ReleaseInfo{Permit: p})
	require.Panics(t, func() { f.ReleaseSlot(slots.ReleaseInfo{Permit: p}) }, "released twice")

	// A permit a Tracker holds must come back through the Tracker.
	tr := slots.NewTracker(f)
	q, _ := tr.TryReserve("")
	require.Panics(t, func() { f.ReleaseSlot(slots.ReleaseInfo{Permit: q}) })
	require.NoError(t, tr.Release(q, slots.NeverUsed()))

	require.PanicsWithValue(t, "weft/slots: Fixed not made by NewFixed", func() { new(slots.Fixed).TryReserveSlot(noRC) })
	require.PanicsWithValue(t, "weft/slots: Fixed not made by NewFixed", func() {
		_, _ = new(slots.Fixed).ReserveSlot(context.Background(), noRC)
	})
}

// waitQueued waits until n reservers are queued in f.
func waitQueued(t *testing.T, f *slots.Fixed, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for f.Waiting() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d reservers queued, want %d", f.Waiting(), n)
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// TestFixedIsFIFO: reservers that block are served in the order they
// blocked, and a newcomer cannot take a released slot from them.
func TestFixedIsFIFO(t *testing.T) {
	const waiters = 8
	f := slots.NewFixed(1)
	held, _ := f.TryReserveSlot(noRC)
	order := make(chan int, waiters)
	// Each waiter keeps its slot until the newcomer below has tried:
	// otherwise all eight could be served and gone by then, and the
	// newcomer would rightly find the slot free.
	checked := make(chan struct{})
	var wg sync.WaitGroup
	for i := range waiters {
		wg.Go(func() {
			p, err := f.ReserveSlot(context.Background(), noRC)
			if err != nil {
				t.Error(err)
				return
			}
			order <- i
			<-checked
			f.ReleaseSlot(slots.ReleaseInfo{Permit: p})
		})
		waitQueued(t, f, i+1) // queue them one at a time, in order
	}
	require.True(t, f.WaitersFlag())
	f.ReleaseSlot(slots.ReleaseInfo{Permit: held})
	_, ok := f.TryReserveSlot(noRC)
	close(checked)
	require.False(t, ok, "a newcomer took a slot from the queue") // the slot went to waiter 0
	wg.Wait()
	close(order)
	i := 0
	for got := range order {
		require.Equal(t, i, got)
		i++
	}
	require.False(t, f.WaitersFlag())
	require.Equal(t, 1, f.FreeSlots())
}

// TestFixedCancelWhileWaiting: a reserver whose context ends leaves the
// queue, and the reservers behind it keep their places.
func TestFixedCancelWhileWaiting(t *testing.T) {
	f := slots.NewFixed(1)
	held, _ := f.TryReserveSlot(noRC)
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() {
		_, err := f.ReserveSlot(ctx, noRC)
		errs <- err
	}()
	waitQueued(t, f, 1)
	got := make(chan slots.Permit, 1)
	go func() {
		p, _ := f.ReserveSlot(context.Background(), noRC)
		got <- p
	}()
	waitQueued(t, f, 2)
	cancel()
	require.ErrorIs(t, <-errs, context.Canceled)
	waitQueued(t, f, 1)
	f.ReleaseSlot(slots.ReleaseInfo{Permit: held})
	p := <-got
	f.ReleaseSlot(slots.ReleaseInfo{Permit: p})
	require.Equal(t, 1, f.FreeSlots())
	require.False(t, f.WaitersFlag())
}

// TestFixedGrantCancelRace stresses the moment a slot is handed to a
// reserver whose context ends: the slot must go on to someone else, never
// be lost. Reservers use very short timeouts while holders release as fast
// as they can; at the end every slot must be free.
func TestFixedGrantCancelRace(t *testing.T) {
	const slotsN = 2
	rounds := 4000
	if testing.Short() {
		rounds = 500
	}
	f := slots.NewFixed(slotsN)
	var wg sync.WaitGroup
	var granted, cancelled atomic.Int64
	for g := range 16 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for range rounds / 16 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.IntN(30))*time.Microsecond)
				if rng.IntN(4) == 0 {
					go cancel() // cancel from elsewhere, racing the grant
				}
				p, err := f.ReserveSlot(ctx, noRC)
				cancel()
				if err != nil {
					cancelled.Add(1)
					continue
				}
				granted.Add(1)
				for range rng.IntN(3) {
					runtime.Gosched() // hold the slot a moment
				}
				f.ReleaseSlot(slots.ReleaseInfo{Permit: p})
			}
		})
	}
	wg.Wait()
	t.Logf("%d granted, %d cancelled", granted.Load(), cancelled.Load())
	require.NotZero(t, cancelled.Load(), "no reservation was cancelled while waiting")
	require.Equal(t, 0, f.Waiting())
	require.False(t, f.WaitersFlag())
	require.Equal(t, slotsN, f.FreeSlots())
}

// TestFixedAllocatesNothing: a reserve+release pair, bare and through a
// Tracker (with mark used), allocates nothing once warm.
func TestFixedAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	f := slots.NewFixed(4)
	bare := testing.AllocsPerRun(1000, func() {
		p, _ := f.ReserveSlot(ctx, noRC)
		f.ReleaseSlot(slots.ReleaseInfo{Permit: p})
	})
	tr := slots.NewTracker(f)
	tracked := testing.AllocsPerRun(1000, func() {
		p, _ := tr.Reserve(ctx, "kind")
		_ = tr.MarkUsed(p, slots.TaskInfo{Kind: "kind"})
		_ = tr.Release(p, slots.TaskComplete())
	})
	paused := slots.NewPauseable(f)
	wrapped := testing.AllocsPerRun(1000, func() {
		p, _ := paused.ReserveSlot(ctx, noRC)
		paused.ReleaseSlot(slots.ReleaseInfo{Permit: p})
	})
	require.Zero(t, bare, "bare")
	require.Zero(t, tracked, "tracked")
	require.Zero(t, wrapped, "pauseable")
}
