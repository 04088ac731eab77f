package intake_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// BenchmarkMemQueueWorker measures the worker's own cost: tasks per
// second from an in-process queue through 16 slots to a pool and back,
// with handlers that do nothing.
func BenchmarkMemQueueWorker(b *testing.B) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: time.Millisecond})
	putN(q, b.N)
	pool := newPool(b, runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	w, err := intake.New(intake.Config{
		Source:   q,
		Supplier: slots.NewFixed(16),
		Pool:     pool,
		Handler:  func(context.Context, *scheduler.Worker, intake.Task) error { return nil },
	})
	if err != nil {
		b.Fatal(err)
	}
	for q.Len() > 0 {
		time.Sleep(20 * time.Microsecond)
	}
	d := time.Since(start)
	b.StopTimer()
	if err := w.Shutdown(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/d.Seconds(), "tasks/s")
}
