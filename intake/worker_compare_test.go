package intake_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/internal/work"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// compareSlots is the concurrency both workers are given.
const compareSlots = 16

// compareTree is the CPU-bound handler's input: a boxed tree of 2^15
// nodes, built node by node, summed by every task.
var compareTree = work.NewBoxedTree(15)

// A handler in the two forms: weft's, which forks on a pool it enters,
// and the goroutine worker's, which forks with goroutines down to a depth
// cutoff, as a Go user writes it.
type compareHandler struct {
	name      string
	weft      func(ctx context.Context, p *scheduler.Pool) error
	goroutine func() error
}

var compareHandlers = []compareHandler{
	{"sleep-10ms",
		func(context.Context, *scheduler.Pool) error { time.Sleep(10 * time.Millisecond); return nil },
		func() error { time.Sleep(10 * time.Millisecond); return nil }},
	{"treesum-fork",
		func(ctx context.Context, p *scheduler.Pool) error {
			var sum int64
			err := p.Run(ctx, func(w *scheduler.Worker) error {
				sum = work.BoxedSum(w, compareTree)
				return nil
			})
			sink(sum)
			return err
		},
		func() error { sink(work.BoxedSumGoroutines(compareTree, 4)); return nil }},
}

var sunk atomic.Int64

func sink(v int64) { sunk.Add(v & 1) }

// BenchmarkTaskWorker puts intake's worker beside what a Go user writes
// without it: a goroutine per task under an errgroup limit of the same
// size (16), both taking tasks from a MemQueue and acknowledging them.
// The handlers: one that waits (a 10ms sleep, standing for an HTTP call
// or a query), where the slots must be the concurrency, and one that is
// CPU-bound and forks (sums a boxed tree), where weft forks on its pool
// and the goroutine worker with goroutines down to a cutoff. It reports
// tasks/s and the CPU time each task cost the process (cpu-us/task).
func BenchmarkTaskWorker(b *testing.B) {
	for _, h := range compareHandlers {
		for _, c := range compareWorkers {
			b.Run(h.name+"/"+c.name, func(b *testing.B) {
				q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: time.Millisecond})
				putN(q, b.N)
				b.ResetTimer()
				start, cpu := time.Now(), work.CPUTime()
				c.run(b, q, b.N, h)
				wall, used := time.Since(start), work.CPUTime()-cpu
				b.StopTimer()
				if q.Len() != 0 {
					b.Fatalf("%d tasks left in the queue", q.Len())
				}
				b.ReportMetric(float64(b.N)/wall.Seconds(), "tasks/s")
				b.ReportMetric(float64(used.Microseconds())/float64(b.N), "cpu-us/task")
			})
		}
	}
}

// compareWorkers run n tasks of q with handler h, 16 at a time.
var compareWorkers = []struct {
	name string
	run  func(tb testing.TB, q *intake.MemQueue, n int, h compareHandler)
}{
	{"weft", func(tb testing.TB, q *intake.MemQueue, n int, h compareHandler) {
		pool := scheduler.Default()
		var ran atomic.Int64
		all := make(chan struct{})
		w, err := intake.New(intake.Config{
			Source: q, Supplier: slots.NewFixed(compareSlots),
			Handler: func(ctx context.Context, _ intake.Task) error {
				err := h.weft(ctx, pool)
				if ran.Add(1) == int64(n) {
					close(all)
				}
				return err
			},
		})
		if err != nil {
			tb.Fatal(err)
		}
		<-all
		if err := w.Shutdown(context.Background()); err != nil { // waits for the acks
			tb.Fatal(err)
		}
	}},
	{"errgroup", func(tb testing.TB, q *intake.MemQueue, n int, h compareHandler) {
		ctx := context.Background()
		var g errgroup.Group
		g.SetLimit(compareSlots)
		for range n {
			tasks, err := q.Poll(ctx, 1)
			if err != nil || len(tasks) != 1 {
				tb.Fatalf("poll: %v, %d tasks", err, len(tasks))
			}
			t := tasks[0]
			g.Go(func() error {
				if err := h.goroutine(); err != nil {
					return t.Nack(ctx, 0)
				}
				return t.Ack(ctx)
			})
		}
		if err := g.Wait(); err != nil {
			tb.Fatal(err)
		}
	}},
}

// Each contender of BenchmarkTaskWorker runs a few tasks of each handler
// through, so that every test run checks the benchmark's code. It asserts
// only that every task ran and was acknowledged, never how long anything
// took: the 10ms sleeps are the benchmark's workload, not a wait for a
// condition.
func TestTaskWorkerComparisonRuns(t *testing.T) {
	for _, h := range compareHandlers {
		for _, c := range compareWorkers {
			t.Run(h.name+"/"+c.name, func(t *testing.T) {
				q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: time.Millisecond})
				putN(q, 2*compareSlots)
				c.run(t, q, 2*compareSlots, h)
				if q.Len() != 0 {
					t.Fatalf("%d tasks left in the queue", q.Len())
				}
			})
		}
	}
}
