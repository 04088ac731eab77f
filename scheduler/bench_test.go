package scheduler_test

import (
	"context"
	"sync"
	"testing"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// BenchmarkSubmit measures tasks per second through the pool's door:
// submitters Spawn tiny tasks, each reserving a slot, and the run ends
// when every task has released its slot.
func BenchmarkSubmit(b *testing.B) {
	suppliers := []struct {
		name string
		make func() slots.Supplier
	}{
		{"unlimited", func() slots.Supplier { return slots.Unlimited{} }},
		{"fixed", func() slots.Supplier { return slots.NewFixed(64) }},
	}
	for _, s := range suppliers {
		b.Run(s.name, func(b *testing.B) {
			p, err := scheduler.New(scheduler.WithSupplier(s.make()))
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			var done sync.WaitGroup
			task := func(*scheduler.Worker) { done.Done() }
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					done.Add(1)
					if err := p.Spawn(ctx, task); err != nil {
						b.Error(err)
						done.Done()
					}
				}
			})
			done.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
		})
	}
}
