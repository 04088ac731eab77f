package intake_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// BenchmarkKeyed compares keyed tasks with unkeyed ones through the same
// worker: 16 slots, a pool of GOMAXPROCS workers, handlers that hash a
// little (a few microseconds). With 100 keys the worker serializes each
// key's tasks and MemQueue holds a key back while one of its tasks is
// out; tasks/s beside the unkeyed run is what that costs.
func BenchmarkKeyed(b *testing.B) {
	for _, keys := range []int{0, 100, 16} {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: time.Millisecond})
			for i := range b.N {
				key := ""
				if keys > 0 {
					key = "k" + strconv.Itoa(i%keys)
				}
				q.PutKey(key, []byte(strconv.Itoa(i)))
			}
			runWorker(b, q, func(context.Context, intake.Task) error {
				sum := sha256.Sum256(nil)
				for range 20 {
					sum = sha256.Sum256(sum[:])
				}
				return nil
			})
		})
	}
}

// runWorker runs a worker over q, with 16 slots and handler, until q is
// empty, and reports tasks/s.
func runWorker(b *testing.B, q *intake.MemQueue, handler intake.Handler) {
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	w, err := intake.New(intake.Config{Source: q, Supplier: slots.NewFixed(16), Handler: handler})
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

// BenchmarkMemQueueWorker measures the worker's own cost: tasks per
// second from an in-process queue through 16 slots to a pool and back,
// with handlers that do nothing.
func BenchmarkMemQueueWorker(b *testing.B) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: time.Millisecond})
	putN(q, b.N)
	runWorker(b, q, func(context.Context, intake.Task) error { return nil })
}
