package weftjs_test

import (
	"github.com/weftrt/weft/internal/work"

	"context"
	"crypto/sha256"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// benchSlots is how many tasks each contender works on at once.
const benchSlots = 16

// hashWork is the task both contenders run: a few microseconds of hashing.
func hashWork(payload []byte) {
	sum := sha256.Sum256(payload)
	for range 15 {
		sum = sha256.Sum256(sum[:])
	}
	runtime.KeepAlive(sum)
}

// BenchmarkThroughput measures tasks per second through JetStream, one
// task per op, for a bare nats.go pull consumer and for the intake worker
// (16 slots), each task acknowledged with a double ack (waited for).
func BenchmarkThroughput(b *testing.B) {
	srv := startServer(b)
	js := connect(b, srv.url())
	pool := newPool(b, runtime.GOMAXPROCS(0))
	for _, c := range []struct {
		name string
		run  func(testing.TB, *weftjs.Source, *scheduler.Pool, int) time.Duration
	}{{"bare", runBare}, {"worker", runWorker}} {
		b.Run(c.name, func(b *testing.B) {
			src := freshStream(b, js, b.Name())
			defer src.Close()
			publishN(b, js, src.Subject(), 0, b.N)
			b.ResetTimer()
			d := c.run(b, src, pool, b.N)
			b.ReportMetric(float64(b.N)/d.Seconds(), "tasks/s")
		})
	}
}

// BenchmarkWorkerVsBare runs the two contenders in turn, the same number
// of tasks each per op, and reports both rates, the CPU time per task of
// each, and the worker's rate as a share of the bare one. Taking turns
// keeps a machine shared with other work from favouring either.
func BenchmarkWorkerVsBare(b *testing.B) {
	const tasks = 5000
	srv := startServer(b)
	js := connect(b, srv.url())
	pool := newPool(b, runtime.GOMAXPROCS(0))
	var bare, worker, bareCPU, workerCPU time.Duration
	for i := 0; b.Loop(); i++ {
		d, cpu := timed(b, js, pool, fmt.Sprintf("bare%d", i), tasks, runBare)
		bare, bareCPU = bare+d, bareCPU+cpu
		d, cpu = timed(b, js, pool, fmt.Sprintf("worker%d", i), tasks, runWorker)
		worker, workerCPU = worker+d, workerCPU+cpu
	}
	n := float64(b.N * tasks)
	b.ReportMetric(n/bare.Seconds(), "bare-tasks/s")
	b.ReportMetric(n/worker.Seconds(), "worker-tasks/s")
	b.ReportMetric(float64(bareCPU.Nanoseconds())/n, "bare-cpu-ns/task")
	b.ReportMetric(float64(workerCPU.Nanoseconds())/n, "worker-cpu-ns/task")
	b.ReportMetric(bare.Seconds()/worker.Seconds(), "worker/bare")
}

// timed runs one contender on a fresh stream of n tasks and returns the
// wall and CPU time (of the whole process: server included) it took.
func timed(b *testing.B, js natsjs.JetStream, pool *scheduler.Pool, name string, n int,
	run func(testing.TB, *weftjs.Source, *scheduler.Pool, int) time.Duration) (time.Duration, time.Duration) {
	b.StopTimer()
	src := freshStream(b, js, name)
	defer src.Close()
	publishN(b, js, src.Subject(), 0, n)
	b.StartTimer()
	c0 := cpuTime()
	d := run(b, src, pool, n)
	return d, cpuTime() - c0
}

func cpuTime() time.Duration { return work.CPUTime() }

// freshStream makes a stream and consumer of their own for one run.
func freshStream(b testing.TB, js natsjs.JetStream, name string) *weftjs.Source {
	id := fmt.Sprintf("B%x", sha256.Sum256([]byte(name+time.Now().String())))[:12]
	return newSource(b, js, weftjs.Config{
		Stream: id, Subjects: []string{id + ".>"},
		PollWait: 100 * time.Millisecond, MaxAckPending: 10000,
	})
}

// runWorker times an intake worker with default settings and 16 slots
// through n tasks, up to the last ack confirmed.
func runWorker(tb testing.TB, src *weftjs.Source, pool *scheduler.Pool, n int) time.Duration {
	return runWorkerWith(tb, src, pool, n, 0)
}

// runWorkerWith is runWorker with maxPollers (0: the default).
func runWorkerWith(tb testing.TB, src *weftjs.Source, pool *scheduler.Pool, n, maxPollers int) time.Duration {
	start := time.Now()
	w, err := intake.New(intake.Config{
		Source:     src,
		Supplier:   slots.NewFixed(benchSlots),
		MaxPollers: maxPollers,
		Handler: func(_ context.Context, t intake.Task) error {
			hashWork(t.Payload())
			return nil
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	for w.Stats().Acked < uint64(n) {
		time.Sleep(50 * time.Microsecond)
	}
	d := time.Since(start)
	if err := w.Shutdown(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return d
}

// runBare times a bare pull consumer through n tasks: benchSlots
// goroutines take messages from one Messages iterator (which keeps up to
// benchSlots more pulled ahead), run the work and double-ack.
func runBare(tb testing.TB, src *weftjs.Source, _ *scheduler.Pool, n int) time.Duration {
	ctx := context.Background()
	cfg := src.Config()
	cons, err := src.JetStream().Consumer(ctx, cfg.Stream, cfg.Consumer)
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	it, err := cons.Messages(natsjs.PullMaxMessages(benchSlots))
	if err != nil {
		tb.Fatal(err)
	}
	var acked atomic.Int64
	var wg sync.WaitGroup
	for range benchSlots {
		wg.Go(func() {
			for {
				msg, err := it.Next()
				if err != nil {
					return // stopped: all done
				}
				hashWork(msg.Data())
				if err := msg.DoubleAck(ctx); err != nil {
					tb.Error(err)
				}
				if acked.Add(1) == int64(n) {
					it.Stop()
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// BenchmarkKeyedVsUnkeyed runs one worker (16 slots, the default
// pollers) in turn through 5000 unkeyed tasks and 5000 tasks over 100
// keys, and reports both rates and the keyed rate as a share of the
// unkeyed one. The sub-benchmarks vary the partition count: every
// partition is a consumer on the one stream, and the server's work per
// message grows with them (docs/figures.md, Keyed tasks). The server
// is embedded: its work shares this process's CPUs with the worker's
// (BenchmarkKeyedVsUnkeyedServerApart gives it CPUs of its own).
func BenchmarkKeyedVsUnkeyed(b *testing.B) {
	for _, parts := range keyedBenchPartitions {
		b.Run(fmt.Sprintf("partitions-%d", parts), func(b *testing.B) {
			keyedVsUnkeyed(b, startServer(b).url(), parts)
		})
	}
}

// keyedBenchPartitions are the partition counts the keyed benchmarks try.
var keyedBenchPartitions = []int{1, 2, 4, 8, 16}

// keyedVsUnkeyed runs BenchmarkKeyedVsUnkeyed's turns with parts
// partitions, on the server at url.
func keyedVsUnkeyed(b *testing.B, url string, parts int) {
	const tasks, keys = 5000, 100
	js := connect(b, url)
	pool := newPool(b, runtime.GOMAXPROCS(0))
	var unkeyed, keyed time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		src := freshStream(b, js, fmt.Sprintf("unkeyed%d", i))
		publishN(b, js, src.Subject(), 0, tasks)
		b.StartTimer()
		unkeyed += runWorker(b, src, pool, tasks)
		src.Close()

		b.StopTimer()
		id := fmt.Sprintf("K%x", sha256.Sum256(fmt.Appendf(nil, "keyed%d%v", i, time.Now())))[:12]
		src = newSource(b, js, weftjs.Config{
			Stream: id, Subjects: []string{id + ".>"}, Partitions: parts,
			PollWait: 100 * time.Millisecond, MaxAckPending: 10000, MemberTTL: time.Second,
		})
		publishKeyed(b, js, src.KeyedPrefix(), tasks, keys)
		b.StartTimer()
		keyed += runWorker(b, src, pool, tasks)
		src.Close()
	}
	n := float64(b.N * tasks)
	b.ReportMetric(n/unkeyed.Seconds(), "unkeyed-tasks/s")
	b.ReportMetric(n/keyed.Seconds(), "keyed-tasks/s")
	b.ReportMetric(unkeyed.Seconds()/keyed.Seconds(), "keyed/unkeyed")
}
