package join_test

import (
	"context"
	"testing"

	"github.com/weftrt/weft/scheduler"
)

// BenchmarkCall is the per-join cost on one worker of the value form
// (Call) and the closure forms (Join, Both): fib(25) fully forked,
// reported per fork next to the sequential recursion, whose cost per call
// the fork adds to.
func BenchmarkCall(b *testing.B) {
	const n = 25
	forks := float64(fibForks(n))
	perFork := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/forks, "ns/fork")
	}
	want := fibSeq(n)
	b.Run("sequential", func(b *testing.B) {
		for range b.N {
			sink = fibSeq(n)
		}
		perFork(b)
	})
	for _, kind := range []string{"values", "closures", "both"} {
		b.Run(kind, func(b *testing.B) {
			p, err := scheduler.New(scheduler.WithWorkers(1))
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			fib := map[string]func(*scheduler.Worker, int) int{
				"values": fibCall, "closures": fibJoin, "both": fibBoth,
			}[kind]
			b.ReportAllocs()
			err = p.Run(context.Background(), func(w *scheduler.Worker) error {
				b.ResetTimer()
				for range b.N {
					sink = fib(w, n)
				}
				b.StopTimer() // p.Close, deferred, is not a join's cost
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			if sink != want {
				b.Fatalf("fib(%d) = %d, want %d", n, sink, want)
			}
			perFork(b)
		})
	}
}

var sink int

// fibForks is how many joins fib(n) makes.
func fibForks(n int) int {
	if n < 2 {
		return 0
	}
	return 1 + fibForks(n-1) + fibForks(n-2)
}
