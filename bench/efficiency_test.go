package bench_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/weftrt/weft/internal/work"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/sleep"
)

// submitter hands a function to a contender and returns at once.
type submitter func(f func())

func goSubmit(f func()) { go f() }

func weftSubmit(b *testing.B, p *scheduler.Pool) submitter {
	return func(f func()) {
		if err := p.Spawn(context.Background(), func(*scheduler.Worker) { f() }); err != nil {
			b.Fatal(err)
		}
	}
}

// idlePool starts a pool and lets its workers fall asleep.
func idlePool(b *testing.B) *scheduler.Pool {
	p := newPool(b)
	onPool(b, p, func(*scheduler.Worker) {})
	time.Sleep(20 * time.Millisecond)
	return p
}

// BenchmarkIdle measures the CPU a process burns while it waits 100ms,
// with and without an idle pool. An idle pool must cost nothing.
func BenchmarkIdle(b *testing.B) {
	const period = 100 * time.Millisecond
	idle := func(b *testing.B) {
		start := work.CPUTime()
		b.ResetTimer()
		for range b.N {
			time.Sleep(period)
		}
		b.StopTimer()
		b.ReportMetric(float64(work.CPUTime()-start)/float64(b.N), "cpu-ns/op")
	}
	b.Run("no-pool", idle)
	b.Run("weft", func(b *testing.B) {
		idlePool(b)
		idle(b)
	})
}

// BenchmarkTick submits one tiny job per millisecond and reports the CPU
// per job. baseline only sleeps, so a contender's cost is its cpu-ns/op
// minus baseline's.
func BenchmarkTick(b *testing.B) {
	tick := func(b *testing.B, submit submitter) {
		start := work.CPUTime()
		b.ResetTimer()
		trickle(b, submit)
		b.StopTimer()
		b.ReportMetric(float64(work.CPUTime()-start)/float64(b.N), "cpu-ns/op")
	}
	b.Run("baseline", func(b *testing.B) { tick(b, nil) })
	b.Run("goroutine", func(b *testing.B) { tick(b, goSubmit) })
	b.Run("weft", func(b *testing.B) { tick(b, weftSubmit(b, idlePool(b))) })
}

// trickle submits b.N empty jobs through submit, one a millisecond, each
// waited for, so that jobs do not overlap and each finds the pool idle:
// the pacing of the tick benchmarks. A nil submit only sleeps (the
// baseline). The sleep is the workload's pace, not a wait for a result.
func trickle(b *testing.B, submit submitter) {
	var wg sync.WaitGroup
	job := func() { wg.Done() }
	for range b.N {
		time.Sleep(time.Millisecond)
		if submit != nil {
			wg.Add(1)
			submit(job)
			wg.Wait()
		}
	}
}

// BenchmarkWake measures the latency from submitting a job to a fully
// asleep pool to the job's start, as p25, p50, p99 and the mean over the
// run. On a VM the latencies fall in two groups, a few microseconds apart
// (the runtime's wake of an idle OS thread is fast or slow, for a `go`
// statement as for a pool), with the median often near their boundary:
// the mean and p25 say what p50 alone cannot (docs/benchmarks.md).
func BenchmarkWake(b *testing.B) {
	wake := func(b *testing.B, submit submitter) {
		lat := make([]time.Duration, 0, b.N)
		done := make(chan time.Time)
		var sum time.Duration
		for range b.N {
			time.Sleep(2 * time.Millisecond) // let every worker fall asleep
			t0 := time.Now()
			submit(func() { done <- time.Now() })
			d := (<-done).Sub(t0)
			lat = append(lat, d)
			sum += d
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/4]), "p25-ns")
		b.ReportMetric(float64(lat[len(lat)/2]), "p50-ns")
		b.ReportMetric(float64(lat[len(lat)*99/100]), "p99-ns")
		b.ReportMetric(float64(sum)/float64(len(lat)), "mean-ns")
	}
	b.Run("goroutine", func(b *testing.B) { wake(b, goSubmit) })
	b.Run("weft", func(b *testing.B) { wake(b, weftSubmit(b, idlePool(b))) })
}

// BenchmarkTickBesideBusy is BenchmarkTick in a job service: one task
// keeps a worker busy without forking (a long handler), while one tiny job
// a millisecond comes from outside, each waited for. It reports the CPU
// per job beyond the busy worker's (the process CPU less one core for the
// wall time). weft-nospin is a pool whose idle workers never spin
// (sleep.Tunables.BusySpin -1). weft's spin by default only beside a
// worker that runs a splitting loop: a spin beside any busy worker would
// wait after every job for a fork that a task which does not fork never
// makes, and cost each job its length (docs/sleep.md, the busy spin).
// Run it with -cpu 2 or more: on one processor the busy task and the jobs
// take turns.
func BenchmarkTickBesideBusy(b *testing.B) {
	tick := func(b *testing.B, p *scheduler.Pool) {
		stop, stopped := make(chan struct{}), make(chan struct{})
		var sink float64
		onPoolAsync(b, p, func() {
			defer close(stopped)
			for {
				select {
				case <-stop:
					busySink = sink
					return
				default:
					sink += work.Uniform(0, 1000)
				}
			}
		})
		defer func() { close(stop); <-stopped }()
		submit := weftSubmit(b, p)
		start, t0 := work.CPUTime(), time.Now()
		b.ResetTimer()
		trickle(b, submit)
		b.StopTimer()
		beyond := work.CPUTime() - start - time.Since(t0)
		b.ReportMetric(float64(beyond)/float64(b.N), "cpu-beyond-busy-ns/op")
	}
	b.Run("weft", func(b *testing.B) { tick(b, newPool(b)) })
	b.Run("weft-nospin", func(b *testing.B) {
		tick(b, newPool(b, scheduler.WithSleep(sleep.Tunables{BusySpin: -1})))
	})
}

// busySink keeps the busy task's work from being optimised away.
var busySink float64

// onPoolAsync starts f as a task of p and returns once it runs.
func onPoolAsync(b *testing.B, p *scheduler.Pool, f func()) {
	started := make(chan struct{})
	err := p.Spawn(context.Background(), func(*scheduler.Worker) {
		close(started)
		f()
	})
	if err != nil {
		b.Fatal(err)
	}
	<-started
}
