package bench_test

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/weftrt/weft/internal/work"
	"github.com/weftrt/weft/scheduler"
)

// measure runs body b.N times and reports cpu-ns/op next to ns/op.
func measure(b *testing.B, body func()) {
	b.ReportAllocs()
	start := work.CPUTime()
	b.ResetTimer()
	for range b.N {
		body()
	}
	b.StopTimer()
	b.ReportMetric(float64(work.CPUTime()-start)/float64(b.N), "cpu-ns/op")
}

// newPool starts a pool with one worker per P (go test -cpu sets P) and
// opts.
func newPool(b *testing.B, opts ...scheduler.Option) *scheduler.Pool {
	p, err := scheduler.New(opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	return p
}

// onPool runs f on a worker of p.
func onPool(b *testing.B, p *scheduler.Pool, f func(w *scheduler.Worker)) {
	if err := p.Run(context.Background(), func(w *scheduler.Worker) error { f(w); return nil }); err != nil {
		b.Fatal(err)
	}
}

func check(b *testing.B, got, want int) {
	if got != want {
		b.Fatalf("got %d, want %d", got, want)
	}
}

func BenchmarkFib(b *testing.B) {
	b.Run("full-30", func(b *testing.B) {
		const n = 30
		want := work.FibSeq(n)
		forks := float64(work.FibForks(n, 0))
		perFork := func(b *testing.B) { b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/forks, "ns/fork") }
		b.Run("sequential", func(b *testing.B) {
			measure(b, func() { check(b, work.FibSeq(n), want) })
			perFork(b)
		})
		b.Run("weft", func(b *testing.B) {
			p := newPool(b)
			measure(b, func() { onPool(b, p, func(w *scheduler.Worker) { check(b, work.FibJoin(w, n, 0), want) }) })
			perFork(b)
		})
		b.Run("weft-both", func(b *testing.B) {
			p := newPool(b)
			measure(b, func() { onPool(b, p, func(w *scheduler.Worker) { check(b, work.FibBoth(w, n, 0), want) }) })
			perFork(b)
		})
		b.Run("weft-values", func(b *testing.B) {
			p := newPool(b)
			measure(b, func() { onPool(b, p, func(w *scheduler.Worker) { check(b, work.FibValues(w, n), want) }) })
			perFork(b)
		})
		b.Run("weft-plain", func(b *testing.B) {
			p := newPool(b)
			measure(b, func() { onPool(b, p, func(w *scheduler.Worker) { check(b, work.FibPlain(w, n), want) }) })
			perFork(b)
		})
		b.Run("weft-plain-join", func(b *testing.B) {
			p := newPool(b)
			measure(b, func() { onPool(b, p, func(w *scheduler.Worker) { check(b, work.FibPlainJoin(w, n), want) }) })
			perFork(b)
		})
		b.Run("goroutines", func(b *testing.B) {
			measure(b, func() { check(b, work.FibGoroutines(n, 0), want) })
			perFork(b)
		})
	})
	b.Run("cutoff-35", func(b *testing.B) {
		const n, cutoff = 35, 20
		want := work.FibSeq(n)
		b.Run("sequential", func(b *testing.B) {
			measure(b, func() { check(b, work.FibSeq(n), want) })
		})
		b.Run("weft", func(b *testing.B) {
			p := newPool(b)
			measure(b, func() { onPool(b, p, func(w *scheduler.Worker) { check(b, work.FibJoin(w, n, cutoff), want) }) })
		})
		b.Run("goroutines", func(b *testing.B) {
			measure(b, func() { check(b, work.FibGoroutines(n, cutoff), want) })
		})
	})
}

func BenchmarkSort(b *testing.B) {
	b.Run("10M", func(b *testing.B) {
		input := work.RandomInts(10_000_000)
		want := slices.Clone(input)
		slices.Sort(want)
		xs := make([]int64, len(input))
		// Each op sorts a fresh copy of input; the copy is outside both
		// the timer and the CPU measurement.
		sortBench := func(b *testing.B, sort func([]int64)) {
			b.ReportAllocs()
			var cpu time.Duration
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				copy(xs, input)
				b.StartTimer()
				start := work.CPUTime()
				sort(xs)
				cpu += work.CPUTime() - start
			}
			b.StopTimer()
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
			if !slices.Equal(xs, want) {
				b.Fatal("not sorted")
			}
		}
		b.Run("slices", func(b *testing.B) { sortBench(b, slices.Sort[[]int64]) })
		b.Run("weft", func(b *testing.B) {
			p := newPool(b)
			sortBench(b, func(xs []int64) { onPool(b, p, func(w *scheduler.Worker) { work.SortWeft(w, xs) }) })
		})
		b.Run("goroutines", func(b *testing.B) { sortBench(b, work.SortGoroutines) })
	})
}

// BenchmarkTreeSum sums a complete binary tree of pointer nodes, forking
// at every inner node (goroutines: down to work.TreeSumGoroutineDepth
// only; static-split: into one subtree per worker, rounded up to a power
// of two). ns/node is the wall time per node.
func BenchmarkTreeSum(b *testing.B) {
	for _, layers := range []int{20, 24} {
		b.Run(fmt.Sprintf("boxed-%d", layers), func(b *testing.B) { boxedTreeSum(b, layers) })
		b.Run(fmt.Sprintf("layers-%d", layers), func(b *testing.B) {
			// Built by the first sub-benchmark that runs, outside its
			// timer, and dropped with this function: a 24-layer tree
			// holds 400 MB that the benchmarks after this one should not
			// have to scan.
			root := sync.OnceValue(func() *work.TreeSumNode {
				root := work.NewTreeSum(layers)
				runtime.GC() // start the timed runs on a collected heap
				return root
			})
			want := work.TreeSumWant(layers)
			nodes := float64(work.TreeSumNodes(layers))
			check := func(b *testing.B, got int64) {
				if got != want {
					b.Fatalf("got %d, want %d", got, want)
				}
			}
			perNode := func(b *testing.B, body func(root *work.TreeSumNode)) {
				root := root()
				measure(b, func() { body(root) })
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/nodes, "ns/node")
			}
			b.Run("sequential", func(b *testing.B) {
				perNode(b, func(root *work.TreeSumNode) { check(b, work.TreeSumSeq(root)) })
			})
			b.Run("goroutines", func(b *testing.B) {
				perNode(b, func(root *work.TreeSumNode) {
					check(b, work.TreeSumGoroutines(root, work.TreeSumGoroutineDepth))
				})
			})
			// The machine's ceiling: one goroutine per worker, each
			// summing a subtree of equal size sequentially, so no fork
			// costs anything below the split. At 2 workers on a 2-vCPU
			// AMD EPYC VM it reached 1.87-1.95x sequential on 24 layers.
			b.Run("static-split", func(b *testing.B) {
				depth := bits.Len(uint(runtime.GOMAXPROCS(0) - 1))
				perNode(b, func(root *work.TreeSumNode) { check(b, work.TreeSumGoroutines(root, depth)) })
			})
			b.Run("weft-values", func(b *testing.B) {
				p := newPool(b)
				perNode(b, func(root *work.TreeSumNode) {
					onPool(b, p, func(w *scheduler.Worker) { check(b, work.TreeSumValues(w, root)) })
				})
			})
			b.Run("weft", func(b *testing.B) {
				p := newPool(b)
				perNode(b, func(root *work.TreeSumNode) {
					onPool(b, p, func(w *scheduler.Worker) { check(b, work.TreeSumJoin(w, root)) })
				})
			})
			b.Run("weft-both", func(b *testing.B) {
				p := newPool(b)
				perNode(b, func(root *work.TreeSumNode) {
					onPool(b, p, func(w *scheduler.Worker) { check(b, work.TreeSumBoth(w, root)) })
				})
			})
		})
	}
}

// boxedTreeSum is BenchmarkTreeSum on the boxed tree (work.NewBoxedTree),
// summed as a Go user writes it: nil first, a join at every node.
// weft-values is join.Call alone, weft join.Join alone (closures),
// weft-plain join.Plain then join.Call (the form docs/forks.md
// recommends), weft-plain-join join.Plain then join.Join.
func boxedTreeSum(b *testing.B, layers int) {
	root := sync.OnceValue(func() *work.BoxedNode {
		root := work.NewBoxedTree(layers)
		runtime.GC()
		return root
	})
	want := work.TreeSumWant(layers)
	nodes := float64(work.TreeSumNodes(layers))
	perNode := func(b *testing.B, sum func() int64) {
		measure(b, func() {
			if got := sum(); got != want {
				b.Fatalf("got %d, want %d", got, want)
			}
		})
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/nodes, "ns/node")
	}
	b.Run("sequential", func(b *testing.B) {
		root := root()
		perNode(b, func() int64 { return work.BoxedSumSeq(root) })
	})
	b.Run("goroutines", func(b *testing.B) {
		root := root()
		perNode(b, func() int64 { return work.BoxedSumGoroutines(root, work.TreeSumGoroutineDepth) })
	})
	forms := []struct {
		name string
		sum  func(*scheduler.Worker, *work.BoxedNode) int64
	}{
		{"weft-values", work.BoxedSumCall},
		{"weft", work.BoxedSumJoin},
		{"weft-plain", work.BoxedSum},
		{"weft-plain-join", work.BoxedSumPlainJoin},
	}
	for _, form := range forms {
		b.Run(form.name, func(b *testing.B) {
			root, p := root(), newPool(b)
			perNode(b, func() (sum int64) {
				onPool(b, p, func(w *scheduler.Worker) { sum = form.sum(w, root) })
				return sum
			})
		})
	}
}
