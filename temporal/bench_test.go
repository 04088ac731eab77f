package wefttemporal_test

import (
	"context"
	"testing"

	"github.com/weftrt/weft/slots"
	wefttemporal "github.com/weftrt/weft/temporal"
	"go.temporal.io/sdk/worker"
)

// What a slot costs through the adapter, against Temporal's own
// fixed-size supplier (a semaphore.Weighted), both with room to spare:
// compare with benchstat -col /supplier (docs/figures.md has a run).
//
//	go test -run '^$' -bench . -count 1   (six times, interleaved)

func suppliers(b *testing.B) []struct {
	name string
	s    worker.SlotSupplier
} {
	temporals, err := worker.NewFixedSizeSlotSupplier(1024)
	if err != nil {
		b.Fatal(err)
	}
	return []struct {
		name string
		s    worker.SlotSupplier
	}{
		{"temporal", temporals},
		{"weft", wefttemporal.NewSupplier(wefttemporal.Activity, slots.NewFixed(1024))},
	}
}

// BenchmarkReserve is the path of a polled task: ReserveSlot, MarkSlotUsed,
// ReleaseSlot.
func BenchmarkReserve(b *testing.B) {
	ctx, info := context.Background(), fakeReserve{queue: "q"}
	for _, c := range suppliers(b) {
		b.Run("supplier="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, err := c.s.ReserveSlot(ctx, info)
				if err != nil {
					b.Fatal(err)
				}
				c.s.MarkSlotUsed(fakeUsed{p})
				c.s.ReleaseSlot(released(p, processed))
			}
		})
	}
}

// BenchmarkTryReserve is the path of an eager task: TryReserveSlot,
// MarkSlotUsed, ReleaseSlot.
func BenchmarkTryReserve(b *testing.B) {
	info := fakeReserve{queue: "q"}
	for _, c := range suppliers(b) {
		b.Run("supplier="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p := c.s.TryReserveSlot(info)
				c.s.MarkSlotUsed(fakeUsed{p})
				c.s.ReleaseSlot(released(p, processed))
			}
		})
	}
}

// BenchmarkReserveParallel is BenchmarkReserve from GOMAXPROCS goroutines
// at once, as a worker's pollers and task goroutines call it.
func BenchmarkReserveParallel(b *testing.B) {
	ctx, info := context.Background(), fakeReserve{queue: "q"}
	for _, c := range suppliers(b) {
		b.Run("supplier="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					p, err := c.s.ReserveSlot(ctx, info)
					if err != nil {
						b.Error(err)
						return
					}
					c.s.MarkSlotUsed(fakeUsed{p})
					c.s.ReleaseSlot(released(p, processed))
				}
			})
		})
	}
}
