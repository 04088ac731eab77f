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

// hangGuard is how long a test waits before calling a call hung. It only
// turns a hang into a failure; a passing run never waits for it.
const hangGuard = 5 * time.Second

// returnsWithin runs f in a goroutine and reports whether it returned
// (or its goroutine ended) before hangGuard.
func returnsWithin(f func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return true
	case <-time.After(hangGuard):
		return false
	}
}

// goexitSampler calls runtime.Goexit on its first reading (a test's
// t.FailNow in a fake Sampler) and reads idle afterwards.
type goexitSampler struct {
	mu sync.Mutex
	n  int
}

func (s *goexitSampler) Sample() (slots.Usage, error) {
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	if n == 1 {
		runtime.Goexit()
	}
	return slots.Usage{}, nil
}

// TestResourceBasedSamplerGoexitLeavesNoLockHeld: a Sampler that calls
// runtime.Goexit while a blocking reservation reads it ends that
// reservation's goroutine; the supplier's lock must not stay held with
// it, or every later reservation and release (which must not block)
// waits forever. The reading is skipped and counted, as a panic is.
func TestResourceBasedSamplerGoexitLeavesNoLockHeld(t *testing.T) {
	s, err := slots.NewResourceBased(slots.ResourceOptions{
		TargetCPU: 0.5, TargetMemory: 0.5, MinSlots: 1, Sampler: &goexitSampler{},
	})
	require.NoError(t, err)

	exited := make(chan struct{})
	go func() {
		defer close(exited)
		_, _ = s.ReserveSlot(context.Background(), noRC)
		t.Error("ReserveSlot returned although its Sampler called Goexit")
	}()
	<-exited

	var p slots.Permit
	var ok bool
	require.True(t, returnsWithin(func() { p, ok = s.TryReserveSlot(noRC) }),
		"TryReserveSlot hangs after a Sampler's Goexit in ReserveSlot: the lock stayed held")
	require.True(t, ok)
	require.True(t, returnsWithin(func() { s.ReleaseSlot(slots.ReleaseInfo{Permit: p}) }),
		"ReleaseSlot hangs after a Sampler's Goexit")
	st := s.State()
	require.Zero(t, st.Held)
	require.EqualValues(t, 1, st.Skipped)
}

// gatedSampler reads idle, except that the reading numbered block (1 for
// the first) signals entered and waits for release: a slow read of a
// cgroup file under memory pressure, or a Sampler that asks a remote
// agent.
type gatedSampler struct {
	block            int
	entered, release chan struct{}

	mu sync.Mutex
	n  int
}

func (s *gatedSampler) Sample() (slots.Usage, error) {
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	if n == s.block {
		close(s.entered)
		<-s.release
	}
	return slots.Usage{}, nil
}

// TestResourceBasedSlowSamplerBlocksNoRelease: while one reservation
// waits for a slow reading, a release (which a Supplier must never block:
// the pool's workers release on their way to the next task) and a
// reservation whose context has ended must not wait for that reading.
func TestResourceBasedSlowSamplerBlocksNoRelease(t *testing.T) {
	smp := &gatedSampler{block: 2, entered: make(chan struct{}), release: make(chan struct{})}
	s, err := slots.NewResourceBased(slots.ResourceOptions{
		TargetCPU: 0.5, TargetMemory: 0.5, MinSlots: 1, MaxSlots: 1,
		SampleInterval: time.Nanosecond, Sampler: smp,
	})
	require.NoError(t, err)
	held, ok := s.TryReserveSlot(noRC) // reading 1
	require.True(t, ok)

	sampling := reserveAsync(context.Background(), s) // reading 2 blocks
	<-smp.entered

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var rerr error
	cancelledReturns := returnsWithin(func() { _, rerr = s.ReserveSlot(ctx, noRC) })
	releaseReturns := returnsWithin(func() { s.ReleaseSlot(slots.ReleaseInfo{Permit: held}) })
	close(smp.release)
	require.True(t, cancelledReturns, "a reservation whose context ended waits for another's reading")
	require.ErrorIs(t, rerr, context.Canceled)
	require.True(t, releaseReturns, "ReleaseSlot waits for a reservation's reading")

	r := <-sampling
	require.NoError(t, r.err)
	s.ReleaseSlot(slots.ReleaseInfo{Permit: r.p})
	require.Zero(t, s.State().Held)
}

// slowSampler takes a while to read, longer than the SampleInterval it is
// used with, and records whether two readings ever overlapped.
type slowSampler struct {
	inFlight atomic.Int32
	overlap  atomic.Bool
	reads    atomic.Int64
	load     atomic.Int64 // slots out, for the reading
}

func (s *slowSampler) Sample() (slots.Usage, error) {
	if s.inFlight.Add(1) != 1 {
		s.overlap.Store(true)
	}
	defer s.inFlight.Add(-1)
	n := s.reads.Add(1)
	for range int(n % 50) {
		runtime.Gosched()
	}
	return slots.Usage{CPU: 0.01 * float64(s.load.Load())}, nil
}

// TestResourceBasedSlowSamplerStress: many reservations, some cancelled,
// through a Tracker over a ResourceBased whose Sampler is slower than its
// SampleInterval. The Sampler is never read by two goroutines at once, no
// more than MaxSlots are out, and at the end nothing is held.
func TestResourceBasedSlowSamplerStress(t *testing.T) {
	const maxSlots = 4
	smp := &slowSampler{}
	s, err := slots.NewResourceBased(slots.ResourceOptions{
		TargetCPU: 0.9, TargetMemory: 0.9, MinSlots: 1, MaxSlots: maxSlots,
		SampleInterval: time.Microsecond, LoadDelay: time.Microsecond, Sampler: smp,
	})
	require.NoError(t, err)
	a := newAudit(s, maxSlots)
	tr := slots.NewTracker(a)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 3))
			for range 300 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.IntN(200))*time.Microsecond)
				p, err := tr.Reserve(ctx, "")
				cancel()
				if err != nil {
					continue
				}
				smp.load.Add(1)
				if err := tr.MarkUsed(p, slots.TaskInfo{}); err != nil {
					t.Error(err)
				}
				for range rng.IntN(20) {
					runtime.Gosched()
				}
				smp.load.Add(-1)
				if err := tr.Release(p, slots.TaskComplete()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	a.check(t, true)
	require.False(t, smp.overlap.Load(), "two readings at once")
	st := s.State()
	require.Zero(t, st.Held)
	t.Logf("%d reads, %d granted, budget %d", smp.reads.Load(), a.grants, st.Budget)
}
