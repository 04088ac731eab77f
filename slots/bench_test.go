package slots_test

import (
	"context"
	"runtime"
	"testing"

	"golang.org/x/sync/semaphore"

	"github.com/weftrt/weft/slots"
)

// contendedSlots is the slot count of the contended benchmarks, which run
// contendedFactor goroutines per GOMAXPROCS: more goroutines than slots,
// so reservers block and are woken. Each holder yields once while it holds
// its slot (runtime.Gosched), as a running task would, so that the others
// really find the slots taken.
const (
	contendedSlots  = 2
	contendedFactor = 4
)

// BenchmarkFixed compares a reserve+release pair of Fixed with one of
// golang.org/x/sync/semaphore.Weighted (Acquire(ctx, 1) and Release(1)).
func BenchmarkFixed(b *testing.B) {
	ctx := context.Background()
	b.Run("weft/uncontended", func(b *testing.B) {
		f := slots.NewFixed(1)
		b.ReportAllocs()
		for b.Loop() {
			p, _ := f.ReserveSlot(ctx, slots.ReserveContext{})
			f.ReleaseSlot(slots.ReleaseInfo{Permit: p})
		}
	})
	b.Run("semaphore/uncontended", func(b *testing.B) {
		s := semaphore.NewWeighted(1)
		b.ReportAllocs()
		for b.Loop() {
			_ = s.Acquire(ctx, 1)
			s.Release(1)
		}
	})
	b.Run("weft/contended", func(b *testing.B) {
		f := slots.NewFixed(contendedSlots)
		b.ReportAllocs()
		b.SetParallelism(contendedFactor)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				p, _ := f.ReserveSlot(ctx, slots.ReserveContext{})
				runtime.Gosched()
				f.ReleaseSlot(slots.ReleaseInfo{Permit: p})
			}
		})
	})
	b.Run("semaphore/contended", func(b *testing.B) {
		s := semaphore.NewWeighted(contendedSlots)
		b.ReportAllocs()
		b.SetParallelism(contendedFactor)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				_ = s.Acquire(ctx, 1)
				runtime.Gosched()
				s.Release(1)
			}
		})
	})
}

// BenchmarkTracker is the cost of the pool's whole path through a Tracker
// over a Fixed: reserve, mark used, release.
func BenchmarkTracker(b *testing.B) {
	ctx := context.Background()
	t := slots.NewTracker(slots.NewFixed(1))
	b.ReportAllocs()
	for b.Loop() {
		p, _ := t.Reserve(ctx, "")
		_ = t.MarkUsed(p, slots.TaskInfo{})
		_ = t.Release(p, slots.TaskComplete())
	}
}

// BenchmarkPauseable is the cost of the Pauseable wrapper while not
// paused: a reserve+release pair of a Fixed, bare and wrapped.
func BenchmarkPauseable(b *testing.B) {
	ctx := context.Background()
	run := func(b *testing.B, s slots.Supplier) {
		b.ReportAllocs()
		for b.Loop() {
			p, _ := s.ReserveSlot(ctx, slots.ReserveContext{})
			s.ReleaseSlot(slots.ReleaseInfo{Permit: p})
		}
	}
	b.Run("bare", func(b *testing.B) { run(b, slots.NewFixed(1)) })
	b.Run("wrapped", func(b *testing.B) { run(b, slots.NewPauseable(slots.NewFixed(1))) })
}
